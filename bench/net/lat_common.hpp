// callwire bench: what every round-trip latency client shares (bench/net/*_lat_client.*).
//
// In the manner of libzmq's local_lat/remote_lat: a client makes sequential calls on one
// connection to a server started separately, times every call, and prints one JSON line:
//
//   {"peer": "...", "calls": N, "wall_ns_per_call": ..., "median_ns": ..., "p1_ns": ...,
//    "p90_ns": ..., "p99_ns": ..., "p999_ns": ..., "max_ns": ..., "min_ns": ...,
//    "calls_per_s": ..., "client_cpu_ns_per_call": ..., "server_cpu_ns_per_call": ...,
//    "server_cpu_source": "..."}
//
// calls_per_s is the timed calls over the wall time they took: 1 / the mean round trip for a
// sequential client, the throughput of the connection for one with many calls in flight.
//
// Flags shared by every client (after its own positional arguments):
//   --seconds S     time the calls for S seconds (default 1.5) ...
//   --calls N       ... or exactly N calls (for syscall counting under strace)
//   --warmup N      untimed calls first (default 1000; they also open the connection)
//   --server-pid P  also report the server's CPU time per call (the process P, all threads)
//   --in-flight K   calls on the wire at once, for the clients that can (bench/peers/, the
//                   heartbeat experiment); run() itself is always sequential
//   --pipeline N    N calls pipelined on the one connection (raw_lat_client, cw_pipeline_client;
//                   bench/net_run.py's throughput table); 0: sequential
//
// CPU time: the client's is CLOCK_PROCESS_CPUTIME_ID (every thread, ns). The server's is the
// sum over /proc/P/task/*/schedstat (ns per thread) when the same threads exist before and
// after the timed calls; when a thread came or went in between (a server with a thread per
// connection that closed one), /proc/P/stat's utime+stime (clock ticks, 10 ms), which counts
// ended threads too.
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace lat {

struct Options {
  double seconds = 1.5;
  long calls = 0;  // > 0: exactly this many timed calls
  long warmup = 1000;
  long server_pid = 0;
  long in_flight = 1;
  long pipeline = 0;
};

[[noreturn]] inline void die(const char* what) {
  std::fprintf(stderr, "lat: %s\n", what);
  std::exit(2);
}

// Parses the shared flags from argv[first..]; exits with a message on a bad one.
inline Options parse_options(int argc, char** argv, int first) {
  Options o;
  for (int i = first; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) die(("missing value after " + flag).c_str());
    const char* value = argv[++i];
    if (flag == "--seconds")
      o.seconds = std::atof(value);
    else if (flag == "--calls")
      o.calls = std::atol(value);
    else if (flag == "--warmup")
      o.warmup = std::atol(value);
    else if (flag == "--server-pid")
      o.server_pid = std::atol(value);
    else if (flag == "--in-flight")
      o.in_flight = std::atol(value);
    else if (flag == "--pipeline")
      o.pipeline = std::atol(value);
    else
      die(("unknown flag " + flag).c_str());
  }
  return o;
}

// The whole of a file; exits when it is empty or unreadable.
inline std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.empty()) die((std::string("empty or unreadable file ") + path).c_str());
  return data;
}

// A TCP connection with TCP_NODELAY to "IPV4:PORT"; exits on failure.
inline int connect_tcp(const std::string& endpoint) {
  size_t colon = endpoint.rfind(':');
  if (colon == std::string::npos) die("HOST:PORT expected");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(std::stoi(endpoint.substr(colon + 1))));
  if (inet_pton(AF_INET, endpoint.substr(0, colon).c_str(), &address.sin_addr) != 1)
    die("an IPv4 address expected");
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
    die("cannot connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

inline uint64_t process_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// A server's CPU time, read two ways (see the header comment).
struct ServerCpu {
  std::map<long, uint64_t> per_thread_ns;  // /proc/P/task/T/schedstat, field 1
  uint64_t ticks = 0;                      // /proc/P/stat utime + stime
};

inline ServerCpu read_server_cpu(long pid) {
  ServerCpu cpu;
  if (pid <= 0) return cpu;
  std::string base = "/proc/" + std::to_string(pid);
  if (DIR* d = opendir((base + "/task").c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::string path = base + "/task/" + e->d_name + "/schedstat";
      if (FILE* f = std::fopen(path.c_str(), "r")) {
        unsigned long long ns = 0;
        if (std::fscanf(f, "%llu", &ns) == 1) cpu.per_thread_ns[std::atol(e->d_name)] = ns;
        std::fclose(f);
      }
    }
    closedir(d);
  }
  if (FILE* f = std::fopen((base + "/stat").c_str(), "r")) {
    char text[4096];
    size_t n = std::fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    std::fclose(f);
    // Fields after the command name, which is in parentheses and may hold spaces.
    if (const char* p = std::strrchr(text, ')')) {
      unsigned long long utime = 0, stime = 0;
      // state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
      if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                      &stime) == 2)
        cpu.ticks = utime + stime;
    }
  }
  return cpu;
}

// Server CPU ns between two readings, and which source it came from.
inline std::pair<double, const char*> server_cpu_between(const ServerCpu& a, const ServerCpu& b) {
  bool same_threads =
      a.per_thread_ns.size() == b.per_thread_ns.size() &&
      std::equal(a.per_thread_ns.begin(), a.per_thread_ns.end(), b.per_thread_ns.begin(),
                 [](const auto& x, const auto& y) { return x.first == y.first; });
  if (same_threads && !a.per_thread_ns.empty()) {
    uint64_t sa = 0, sb = 0;
    for (const auto& [tid, ns] : a.per_thread_ns) sa += ns;
    for (const auto& [tid, ns] : b.per_thread_ns) sb += ns;
    return {double(sb - sa), "schedstat"};
  }
  double tick_ns = 1e9 / double(sysconf(_SC_CLK_TCK));
  return {double(b.ticks - a.ticks) * tick_ns, "stat-ticks"};
}

// What a timed run measured: a latency per call (ns; a call over 4 s would be a failure
// anyway), the wall time of the whole run, and CPU readings around it.
struct Measured {
  std::vector<uint32_t> samples;
  double wall_ns = 0;
  uint64_t cpu_before = 0, cpu_after = 0;
  ServerCpu server_before, server_after;
};

// Prints the JSON line of the header comment. Returns the process exit status.
inline int report(const char* peer, const Options& o, Measured m) {
  size_t n = m.samples.size();
  if (n == 0) die("no calls timed");
  std::sort(m.samples.begin(), m.samples.end());
  auto pct = [&](double p) {  // nearest rank: the ceil(p*n)-th smallest
    size_t rank = size_t(std::ceil(p * double(n)));
    return m.samples[std::min(std::max<size_t>(rank, 1), n) - 1];
  };
  double client_cpu = double(m.cpu_after - m.cpu_before) / double(n);
  std::printf(
      "{\"peer\": \"%s\", \"calls\": %zu, \"wall_ns_per_call\": %.1f, \"median_ns\": %u, "
      "\"p1_ns\": %u, \"p90_ns\": %u, \"p99_ns\": %u, \"p999_ns\": %u, \"max_ns\": %u, "
      "\"min_ns\": %u, \"calls_per_s\": %.1f, \"client_cpu_ns_per_call\": %.1f",
      peer, n, m.wall_ns / double(n), pct(0.5), pct(0.01), pct(0.9), pct(0.99), pct(0.999),
      m.samples.back(), m.samples.front(), m.wall_ns > 0 ? double(n) * 1e9 / m.wall_ns : 0.0,
      client_cpu);
  if (o.server_pid > 0) {
    auto [server_ns, source] = server_cpu_between(m.server_before, m.server_after);
    std::printf(", \"server_cpu_ns_per_call\": %.1f, \"server_cpu_source\": \"%s\"",
                server_ns / double(n), source);
  }
  std::printf("}\n");
  std::fflush(stdout);
  return 0;
}

// The clock of a client with many calls in flight (--in-flight K): the first o.warmup
// answers are not timed, then every answer for o.seconds is; after that the client starts no
// new call and drains the ones on the wire, which are not counted either.
class InFlightWindow {
 public:
  using Clock = std::chrono::steady_clock;
  explicit InFlightWindow(const Options& o) : o_(o) { m_.samples.reserve(size_t(1) << 22); }

  // An answer that came at `now` for a call started at `started`. Returns whether to start
  // a new call in its place.
  bool answered(Clock::time_point started, Clock::time_point now) {
    if (stopped_) return false;
    if (timing_)
      m_.samples.push_back(uint32_t(std::min<int64_t>((now - started).count(), UINT32_MAX)));
    else if (++warm_ >= o_.warmup) {
      timing_ = true;
      start_ = now;
      end_by_ = start_ + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(o_.seconds));
      m_.server_before = read_server_cpu(o_.server_pid);
      m_.cpu_before = process_cpu_ns();
    }
    if (timing_ && now >= end_by_) {
      stopped_ = true;
      m_.cpu_after = process_cpu_ns();
      m_.server_after = read_server_cpu(o_.server_pid);
      m_.wall_ns = double((now - start_).count());
    }
    return !stopped_;
  }

  int report(const char* peer) { return lat::report(peer, o_, std::move(m_)); }

 private:
  const Options& o_;
  Measured m_;
  long warm_ = 0;
  bool timing_ = false, stopped_ = false;
  Clock::time_point start_, end_by_;
};

// Runs `call` (which returns false on a failed call) as the options say and prints the JSON
// line. Returns the process exit status.
template <typename Call>
int run(const char* peer, const Options& o, Call&& call) {
  using Clock = std::chrono::steady_clock;
  for (long i = 0; i < o.warmup; ++i)
    if (!call()) {
      std::fprintf(stderr, "%s: warm-up call %ld failed\n", peer, i);
      return 1;
    }

  Measured m;
  m.samples.reserve(o.calls > 0 ? size_t(o.calls) : size_t(1) << 21);
  m.server_before = read_server_cpu(o.server_pid);
  m.cpu_before = process_cpu_ns();
  Clock::time_point start = Clock::now();
  Clock::time_point end_by =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  Clock::time_point t0 = start;
  for (long i = 0;; ++i) {
    if (o.calls > 0 ? i >= o.calls : (t0 >= end_by || m.samples.size() == m.samples.capacity()))
      break;
    if (!call()) {
      std::fprintf(stderr, "%s: call %ld failed\n", peer, i);
      return 1;
    }
    Clock::time_point t1 = Clock::now();
    m.samples.push_back(uint32_t(std::min<int64_t>((t1 - t0).count(), UINT32_MAX)));
    t0 = t1;
  }
  m.cpu_after = process_cpu_ns();
  m.server_after = read_server_cpu(o.server_pid);
  m.wall_ns = double((t0 - start).count());
  return report(peer, o, std::move(m));
}

}  // namespace lat
