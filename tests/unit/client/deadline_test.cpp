// The client against servers that keep sending without ever finishing an answer (issue 26,
// items 7 and 8): a trickle (a few bytes every 0.1 ms, each read satisfied long
// before a socket timeout would fire) cannot hold a call past its deadline on any path (an
// HTTP head, a Content-Length body, a chunked body, a packet stream; synchronous, cancellable,
// asynchronous, pipelined), and a flood of packet-stream NOPs cannot grow the client.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <stop_token>
#include <string>
#include <thread>

#include "callwire/client.hpp"
#include "fake_server.hpp"
#include "proc_status.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kTimeout = 300ms;
// How long past its deadline a call may take to return (a loaded machine's scheduling).
constexpr auto kGrace = 700ms;
// How long a server keeps sending at most: a client that does not stop at its deadline takes
// about this long (and the test fails by its clock, not by a hang).
constexpr auto kServerLimit = 10s;

// Reads one request: an HTTP one, or a packet (up to its ESC END).
void read_any_request(int fd, bool pstream) {
  if (!pstream) {
    FakeServer::read_request(fd);
    return;
  }
  std::string got;
  char buf[4096];
  while (got.find("\x1b"
                  "END") == std::string::npos) {
    if (!testing::wait_readable(fd, 3000)) return;
    ssize_t n = testing::receive_some(fd, buf, sizeof buf);
    if (n <= 0) return;
    got.append(buf, static_cast<size_t>(n));
  }
}

// Sends `prefix`, then `unit` every 0.1 ms until the client goes away (or kServerLimit
// passes): never a pause of the millisecond a socket timeout near the deadline would notice.
FakeServer trickling(std::string prefix, std::string unit, bool pstream = false) {
  return FakeServer([=](int fd) {
    read_any_request(fd, pstream);
    auto until = Clock::now() + kServerLimit;
    if (!testing::send_all(fd, prefix)) return;
    while (Clock::now() < until) {
      if (!testing::send_all(fd, unit)) return;
      std::this_thread::sleep_for(100us);
    }
  });
}

// Sends ESC NOP as fast as the client reads, until it goes away (or kServerLimit passes).
FakeServer nop_flood() {
  return FakeServer([](int fd) {
    read_any_request(fd, true);
    std::string nops;
    for (int i = 0; i < 16384; ++i)
      nops +=
          "\x1b"
          "NOP";
    auto until = Clock::now() + kServerLimit;
    while (Clock::now() < until)
      if (!testing::send_all(fd, nops)) return;
  });
}

std::string pstream_url(const FakeServer& s) {
  std::string url = s.url();  // http://127.0.0.1:PORT/RPC2
  return "pstream://" + url.substr(7, url.rfind('/') - 7);
}

const std::string kHead = "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n";

struct Trickle {
  const char* name;
  std::string prefix;
  std::string unit;
  bool pstream = false;
};

std::vector<Trickle> trickles() {
  return {
      {"head", kHead + "X-Slow: ", "a"},  // the head limit (16 KiB) takes seconds to reach
      {"body", kHead + "Content-Length: 31457280\r\n\r\n", std::string(100, 'x')},
      {"chunked", kHead + "Transfer-Encoding: chunked\r\n\r\n", "1\r\nx\r\n"},
      {"pstream payload",
       "\x1b"
       "PKT",
       std::string(100, 'x'), true},
      {"pstream nops", "",
       "\x1b"
       "NOP",
       true},
  };
}

Client client_for(const FakeServer& server, bool pstream, ClientOptions o = {}) {
  o.timeout = kTimeout;
  return Client::create(pstream ? pstream_url(server) : server.url(), o).value();
}

void expect_timeout_in_time(const Result<Value>& r, Clock::duration took, const char* name) {
  ASSERT_FALSE(r) << name;
  EXPECT_EQ(r.error().code, Errc::Timeout) << name << ": " << r.error().message;
  EXPECT_GE(took, kTimeout - 10ms) << name;
  EXPECT_LT(took, kTimeout + kGrace)
      << name << ": took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
      << " ms";
}

TEST(ClientDeadline, ASynchronousCallStopsAtItsDeadlineWhateverTrickles) {
  for (const Trickle& t : trickles()) {
    FakeServer server = trickling(t.prefix, t.unit, t.pstream);
    Client client = client_for(server, t.pstream);
    auto start = Clock::now();
    auto r = client.call("x");
    expect_timeout_in_time(r, Clock::now() - start, t.name);
  }
}

TEST(ClientDeadline, ASynchronousCallOverTlsStopsAtItsDeadlineWhenARecordTrickles) {
  // OpenSSL reads a TLS record to its end inside one read (the handshake's, here), however
  // slowly it comes: a record of 16 KiB trickled a byte at a time satisfies every socket read
  // of it for seconds. The stream itself gives up at the deadline.
  FakeServer server([](int fd) {
    char hello[4096];
    if (!testing::wait_readable(fd, 3000) || testing::receive_some(fd, hello, sizeof hello) <= 0)
      return;
    const std::string head("\x16\x03\x03\x40\x00", 5);  // a handshake record of 16 KiB
    if (!testing::send_all(fd, head)) return;
    auto until = Clock::now() + kServerLimit;
    while (Clock::now() < until) {
      if (!testing::send_all(fd, std::string_view("\0", 1))) return;
      std::this_thread::sleep_for(100us);
    }
  });
  std::string url = server.url();  // http://127.0.0.1:PORT/RPC2
  ClientOptions o;
  o.timeout = kTimeout;
  o.verify_peer = false;
  Client client = Client::create("https://" + url.substr(7), o).value();
  auto start = Clock::now();
  auto r = client.call("x");
  expect_timeout_in_time(r, Clock::now() - start, "tls record");
}

TEST(ClientDeadline, ACancellableCallStopsAtItsDeadlineWhateverTrickles) {
  for (const Trickle& t : trickles()) {
    FakeServer server = trickling(t.prefix, t.unit, t.pstream);
    Client client = client_for(server, t.pstream);
    std::stop_source never;
    CallOptions options;
    options.cancel = never.get_token();
    auto start = Clock::now();
    auto r = client.call("x", {}, options);
    expect_timeout_in_time(r, Clock::now() - start, t.name);
  }
}

TEST(ClientDeadline, AnAsynchronousCallStopsAtItsDeadlineWhateverTrickles) {
  for (const Trickle& t : trickles()) {
    FakeServer server = trickling(t.prefix, t.unit, t.pstream);
    Client client = client_for(server, t.pstream);
    auto start = Clock::now();
    auto r = client.async_call("x", {}).get();
    expect_timeout_in_time(r, Clock::now() - start, t.name);
  }
}

TEST(ClientDeadline, APipelinedCallStopsAtItsDeadlineWhenNopsTrickle) {
  FakeServer server = trickling("",
                                "\x1b"
                                "NOP",
                                true);
  ClientOptions o;
  o.pipeline_depth = 4;
  Client client = client_for(server, true, o);
  auto start = Clock::now();
  auto r = client.async_call("x", {}).get();
  expect_timeout_in_time(r, Clock::now() - start, "pipelined");
}

using test::proc_status;
using test::reset_peak;

// A packet-stream server that answers only ESC NOP, as fast as it can: the client drops what
// it has read, whichever path reads it.
TEST(ClientDeadline, ANopFloodGrowsNoClient) {
  constexpr size_t kBudget = 16 << 20;
  for (const char* path : {"sync", "cancellable", "async", "pipelined"}) {
    FakeServer server = nop_flood();
    ClientOptions o;
    if (std::string_view(path) == "pipelined") o.pipeline_depth = 4;
    o.timeout = 1s;
    Client client = Client::create(pstream_url(server), o).value();
    std::stop_source never;
    CallOptions options;
    if (std::string_view(path) == "cancellable") options.cancel = never.get_token();
    size_t before = proc_status("VmRSS:");
    reset_peak();
    auto start = Clock::now();
    auto r = std::string_view(path) == "sync" || std::string_view(path) == "cancellable"
                 ? client.call("x", {}, options)
                 : client.async_call("x", {}).get();
    auto took = Clock::now() - start;
    size_t peak = proc_status("VmHWM:");
    ASSERT_FALSE(r) << path;
    EXPECT_EQ(r.error().code, Errc::Timeout) << path << ": " << r.error().message;
    EXPECT_LT(took, 1s + kGrace) << path;
    if (before > 0) {  // Linux only: elsewhere there is no /proc to read the peak from
      EXPECT_LT(peak - std::min(peak, before), kBudget)
          << path << ": peak RSS " << (peak >> 20) << " MiB, " << (before >> 20) << " MiB before";
    }
  }
}

}  // namespace
}  // namespace callwire
