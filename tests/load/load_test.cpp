// A bounded load test: a callwire server at its default settings (a loop per core, default
// limits and timeouts) in this process, and at the same time
//   - 32 well-behaved clients (callwire::Client, synchronous sample.add calls in a loop),
//   - 50 slowloris connections (one more header byte every 200 ms, never a whole head),
//   - up to 1000 idle keep-alive connections (one call each, then silence; each must still
//     answer a second call at the end: the idle ones are never dropped for the busy ones),
//   - 20 abusive clients, four of each kind: garbage bytes; a huge Content-Length (over the
//     limit, and under it with the body never sent); half a request then close; 1000
//     pipelined requests sent without reading an answer, then close; connect-and-close loops.
// Asserts that every well-behaved call succeeds with the right sum, that their p99 stays under
// 1 s, that the process's RSS grows by less than 32 MiB between the end of the warm-up (5 s)
// and the end, and that the open file descriptors return to their count before the load once
// every client has closed.
//
// It runs for kLoad (13 s) plus the time to drain; ctest gives it 60 s (tests/load/).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using callwire::Value;

constexpr auto kLoad = 13s;   // how long every client runs
constexpr auto kWarmUp = 5s;  // RSS is compared from here to the end
constexpr int kGoodClients = 32;
constexpr int kSlowloris = 50;
constexpr int kAbusivePerKind = 4;
constexpr int kIdle = 1000;
#if defined(__SANITIZE_ADDRESS__)
#define CALLWIRE_LOAD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CALLWIRE_LOAD_ASAN 1
#endif
#endif
#ifdef CALLWIRE_LOAD_ASAN
// ASan keeps freed blocks in a quarantine (256 MiB by default) before reusing them: RSS
// measures the quarantine, not the server. The bound is only reported then.
constexpr bool kCheckRss = false;
#else
constexpr bool kCheckRss = true;
#endif
constexpr size_t kRssBound = size_t{32} << 20;
constexpr auto kP99Bound = 1s;

// The process's RSS (Linux's /proc; 0 elsewhere: the bound is then not checked).
size_t rss_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return size_t(resident) * size_t(sysconf(_SC_PAGESIZE));
}

// The process's open descriptors (POSIX: each number below the limit that fcntl knows).
int open_fds() {
  int n = 0;
  const long limit = sysconf(_SC_OPEN_MAX);
  for (long fd = 0; fd < limit; ++fd)
    if (fcntl(int(fd), F_GETFD) != -1) ++n;
  return n;
}

// A blocking loopback TCP socket whose reads and writes give up after `timeout`.
class Socket {
 public:
  Socket(uint16_t port, std::chrono::milliseconds timeout = 2000ms) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{};
    tv.tv_sec = timeout.count() / 1000;
    tv.tv_usec = (timeout.count() % 1000) * 1000;
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~Socket() { close(); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  Socket(Socket&& o) noexcept : fd_(o.fd_), ok_(o.ok_) { o.fd_ = -1; }
  Socket& operator=(Socket&& o) noexcept {
    if (this != &o) {
      close();
      fd_ = o.fd_;
      ok_ = o.ok_;
      o.fd_ = -1;
    }
    return *this;
  }

  bool ok() const { return ok_; }
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(size_t(n));
    }
    return true;
  }
  // Reads until the peer closes, an error, the timeout, or `limit` bytes; returns them.
  std::string read_all(size_t limit = 1 << 20) {
    std::string out;
    char buf[16384];
    while (out.size() < limit) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, size_t(n));
    }
    return out;
  }
  // Reads one response with a Content-Length body; empty on a close, an error or the timeout.
  std::string read_response() {
    std::string out;
    char buf[4096];
    for (;;) {
      size_t end = out.find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t cl = out.find("Content-Length: ");
        if (cl != std::string::npos && cl < end &&
            out.size() >= end + 4 + std::stoul(out.substr(cl + 16, 12)))
          return out;
      }
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return {};
      out.append(buf, size_t(n));
    }
  }
  // Closes with a reset instead of a FIN.
  void reset() {
    linger l{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close();
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

std::string call_body(int a, int b) {
  return "<?xml version=\"1.0\"?><methodCall><methodName>sample.add</methodName><params>"
         "<param><value><int>" +
         std::to_string(a) +
         "</int></value></param>"
         "<param><value><int>" +
         std::to_string(b) +
         "</int></value></param>"
         "</params></methodCall>";
}

std::string request(int a, int b) {
  std::string body = call_body(a, b);
  return "POST /RPC2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\n"
         "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

struct Counters {
  std::atomic<long> garbage{0}, huge_length{0}, half_requests{0}, pipelined_batches{0},
      connect_close{0}, slowloris_bytes{0}, slowloris_reconnects{0};
};

}  // namespace

TEST(Load, WellBehavedClientsSurviveAbuse) {
  callwire::ServerOptions options;  // the defaults, but for a free port
  options.listen = {"127.0.0.1:0"};
  callwire::Server server(options);
  ASSERT_TRUE(server
                  .add_method("sample.add",
                              [](callwire::Params p, callwire::CallContext&) {
                                return Value(p[0].as_int() + p[1].as_int());
                              },
                              {{{"int", "int", "int"}}, "a + b"})
                  .ok());
  ASSERT_TRUE(server.start().ok());
  const uint16_t port = server.port();
  const std::string url = server.url();
  // Before any connection: the server's own descriptors (listener, epolls, wake-ups) only.
  // The fewest of a few counts: a descriptor held for an instant as the server's threads start
  // is not part of the baseline (a run under ASan once counted 12 here, 11 at the end: the usual).
  int fds_before = open_fds();
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(20ms);
    fds_before = std::min(fds_before, open_fds());
  }
  // One call first, so that what the first call creates once (the loops' buffers, the
  // dispatchers' state) is part of the baseline.
  {
    auto c = callwire::Client::create(url);
    ASSERT_TRUE(c);
    auto r = c->call("sample.add", {Value(1), Value(2)});
    ASSERT_TRUE(r) << r.error().message;
  }

  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + kLoad;
  auto running = [&] { return Clock::now() < end; };
  Counters counters;

  // --- well-behaved clients
  std::mutex errors_mutex;
  std::vector<std::string> errors;
  std::atomic<long> good_calls{0}, bad_calls{0};
  std::vector<std::vector<uint32_t>> latencies(kGoodClients);  // µs, one vector per client
  std::vector<std::thread> threads;
  for (int i = 0; i < kGoodClients; ++i) {
    threads.emplace_back([&, i] {
      callwire::ClientOptions co;
      co.timeout = 10s;  // a failure, not a hang, if the server stalls
      auto client = callwire::Client::create(url, co);
      if (!client) {
        ++bad_calls;
        return;
      }
      std::mt19937 rng{unsigned(i)};
      std::uniform_int_distribution<int> n(-1000000, 1000000);
      latencies[i].reserve(1 << 16);
      while (running()) {
        int a = n(rng), b = n(rng);
        Clock::time_point t0 = Clock::now();
        std::array<Value, 2> params{Value(a), Value(b)};
        auto r = client->call("sample.add", params);
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0);
        latencies[i].push_back(uint32_t(us.count()));
        if (r && r->try_as_int() == a + b) {
          ++good_calls;
          continue;
        }
        ++bad_calls;
        std::lock_guard lock(errors_mutex);
        if (errors.size() < 10)
          errors.push_back(r ? "wrong answer for " + std::to_string(a) + "+" + std::to_string(b)
                             : std::string(callwire::errc_name(r.error().code)) + ": " +
                                   r.error().message);
      }
    });
  }

  // --- slowloris: one thread drips a header byte every 200 ms into each of 50 connections.
  threads.emplace_back([&] {
    const std::string head = "POST /RPC2 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    std::vector<Socket> sockets;
    std::vector<size_t> sent(kSlowloris, 0);
    for (int i = 0; i < kSlowloris; ++i) sockets.emplace_back(port);
    while (running()) {
      for (int i = 0; i < kSlowloris; ++i) {
        char byte = sent[i] < head.size() ? head[sent[i]] : 'a';
        if (!sockets[i].send(std::string_view(&byte, 1))) {  // dropped: come back
          ++counters.slowloris_reconnects;
          sockets[i] = Socket(port);
          sent[i] = 0;
          continue;
        }
        ++sent[i];
        ++counters.slowloris_bytes;
      }
      std::this_thread::sleep_for(200ms);
    }
  });

  // --- idle keep-alive connections: one call each, then nothing until the end. As many as
  // the descriptor limit comfortably allows (both ends are in this process).
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  const int idle_count = int(std::min<rlim_t>(kIdle, (limit.rlim_cur - 600) / 2));
  std::vector<Socket> idle;
  int idle_first_ok = 0;
  for (int i = 0; i < idle_count; ++i) {
    idle.emplace_back(port);
    if (idle.back().send(request(i, 1)) && !idle.back().read_response().empty()) ++idle_first_ok;
  }

  // --- abusive clients
  auto abusive = [&](auto body) {
    for (int i = 0; i < kAbusivePerKind; ++i)
      threads.emplace_back([&, body, i] {
        std::mt19937 rng{unsigned(1000 + i)};
        while (running()) body(rng);
      });
  };
  abusive([&](std::mt19937& rng) {  // garbage: random bytes, CR LF and NUL included
    Socket s(port, 500ms);
    std::string junk(size_t(1 + rng() % 8192), '\0');
    for (char& c : junk) c = char(rng());
    s.send(junk);
    s.read_all(1 << 16);  // an error answer, or a close
    ++counters.garbage;
  });
  abusive([&](std::mt19937& rng) {  // huge Content-Length
    Socket s(port, 500ms);
    static const char* lengths[] = {"99999999999999999999", "34000000", "30000000"};
    const char* length = lengths[rng() % 3];
    s.send(std::string("POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n"
                       "Content-Length: ") +
           length + "\r\n\r\n" + std::string(1024, '<'));
    if (std::string_view(length) != "30000000") {
      s.read_all(1 << 16);  // 413, or 400
    } else {
      // Under the limit: a little of the body, slowly, then close. (The server once made
      // room for all 30 MB on the second read.)
      for (int k = 0; k < 3 && s.send(std::string(1024, '<')); ++k)
        std::this_thread::sleep_for(50ms);
    }
    ++counters.huge_length;
  });
  abusive([&](std::mt19937& rng) {  // half a request, then close (or reset)
    Socket s(port, 500ms);
    std::string r = request(1, 2);
    s.send(std::string_view(r).substr(0, 1 + rng() % (r.size() - 1)));
    if (rng() % 2) s.reset();
    ++counters.half_requests;
  });
  abusive([&](std::mt19937&) {  // 1000 pipelined requests, no answer read, then close
    Socket s(port, 2000ms);
    std::string batch;
    for (int k = 0; k < 1000; ++k) batch += request(k, k);
    s.send(batch);
    std::this_thread::sleep_for(300ms);
    s.close();  // with answers unread: a reset
    ++counters.pipelined_batches;
  });
  abusive([&](std::mt19937& rng) {  // connect and close, as fast as it goes
    Socket s(port, 500ms);
    if (rng() % 2) s.reset();
    ++counters.connect_close;
  });

  // --- RSS, sampled while the load runs
  size_t rss_at_warm_up = 0, rss_max_after = 0, rss_at_end = 0;
  while (running()) {
    std::this_thread::sleep_for(100ms);
    Clock::time_point now = Clock::now();
    if (now < start + kWarmUp) continue;
    size_t rss = rss_bytes();
    if (rss_at_warm_up == 0) rss_at_warm_up = rss;
    rss_max_after = std::max(rss_max_after, rss);
  }
  for (auto& t : threads) t.join();
  // Every idle connection is still open and answers again.
  int idle_second_ok = 0;
  for (int i = 0; i < idle_count; ++i) {
    std::string answer;
    if (idle[i].send(request(i, 2))) answer = idle[i].read_response();
    if (answer.find("<int>" + std::to_string(i + 2) + "</int>") != std::string::npos)
      ++idle_second_ok;
  }
  idle.clear();
  rss_at_end = rss_bytes();
  rss_max_after = std::max(rss_max_after, rss_at_end);

  // --- file descriptors: every client has closed; the server's side follows.
  int fds_after = open_fds();
  Clock::time_point wait_until = Clock::now() + 10s;
  while (fds_after != fds_before && Clock::now() < wait_until) {
    std::this_thread::sleep_for(50ms);
    fds_after = open_fds();
  }
  double drain_s = std::chrono::duration<double>(Clock::now() - end).count();

  // The server still answers.
  auto after = callwire::Client::create(url);
  ASSERT_TRUE(after);
  auto r = after->call("sample.add", {Value(20), Value(22)});
  EXPECT_TRUE(r && r->try_as_int() == 42) << (r ? "wrong answer" : r.error().message);

  std::vector<uint32_t> all;
  for (auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    if (all.empty()) return uint32_t(0);
    size_t rank = size_t(std::ceil(p * double(all.size())));
    return all[std::min(std::max<size_t>(rank, 1), all.size()) - 1];
  };
  std::printf(
      "well-behaved: %ld calls ok, %ld failed; latency p50 %u µs, p99 %u µs, max %u µs\n"
      "abusive: %ld garbage, %ld huge Content-Length, %ld half requests, %ld batches of 1000 "
      "pipelined, %ld connect-close; slowloris: %ld bytes dripped, %ld reconnects\n"
      "RSS: %.1f MiB at %lds, %.1f MiB at most after, %.1f MiB at the end\n"
      "fds: %d before, %d after (%.2f s after the load)\n",
      good_calls.load(), bad_calls.load(), pct(0.5), pct(0.99), all.empty() ? 0 : all.back(),
      counters.garbage.load(), counters.huge_length.load(), counters.half_requests.load(),
      counters.pipelined_batches.load(), counters.connect_close.load(),
      counters.slowloris_bytes.load(), counters.slowloris_reconnects.load(),
      rss_at_warm_up / 1048576.0, long(std::chrono::seconds(kWarmUp).count()),
      rss_max_after / 1048576.0, rss_at_end / 1048576.0, fds_before, fds_after, drain_s);

  std::printf("idle keep-alive connections: %d opened, %d answered first, %d answered again\n",
              idle_count, idle_first_ok, idle_second_ok);
  EXPECT_GE(idle_count, 200);
  EXPECT_EQ(idle_first_ok, idle_count);
  EXPECT_EQ(idle_second_ok, idle_count);
  EXPECT_EQ(bad_calls.load(), 0);
  for (const std::string& e : errors) ADD_FAILURE() << "well-behaved call: " << e;
  EXPECT_GT(good_calls.load(), 1000);
  EXPECT_LT(pct(0.99), uint32_t(std::chrono::microseconds(kP99Bound).count()));
  if (kCheckRss && rss_at_warm_up > 0) {  // 0: no /proc to read it from
    EXPECT_LT(rss_max_after, rss_at_warm_up + kRssBound)
        << "RSS grew from " << rss_at_warm_up << " to " << rss_max_after << " bytes";
  }
  EXPECT_EQ(fds_after, fds_before);
  // Every kind of abuse ran.
  EXPECT_GT(counters.garbage.load(), 0);
  EXPECT_GT(counters.huge_length.load(), 0);
  EXPECT_GT(counters.half_requests.load(), 0);
  EXPECT_GT(counters.pipelined_batches.load(), 0);
  EXPECT_GT(counters.connect_close.load(), 0);
  EXPECT_GT(counters.slowloris_bytes.load(), kSlowloris * 20);
}
