// callwire bench: what every round-trip latency client shares (bench/net/*_lat_client.*).
//
// In the manner of libzmq's local_lat/remote_lat: a client makes sequential calls on one
// connection to a server started separately, times every call, and prints one JSON line:
//
//   {"peer": "...", "calls": N, "median_ns": ..., "p99_ns": ..., "mean_ns": ..., "min_ns": ...,
//    "client_cpu_ns_per_call": ..., "server_cpu_ns_per_call": ..., "server_cpu_source": "..."}
//
// Flags shared by every client (after its own positional arguments):
//   --seconds S     time the calls for S seconds (default 1.5) ...
//   --calls N       ... or exactly N calls (for syscall counting under strace)
//   --warmup N      untimed calls first (default 1000; they also open the connection)
//   --server-pid P  also report the server's CPU time per call (the process P, all threads)
//
// CPU time: the client's is CLOCK_PROCESS_CPUTIME_ID (every thread, ns). The server's is the
// sum over /proc/P/task/*/schedstat (ns per thread) when the same threads exist before and
// after the timed calls; when a thread came or went in between (a server with a thread per
// connection that closed one), /proc/P/stat's utime+stime (clock ticks, 10 ms), which counts
// ended threads too.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

namespace lat {

struct Options {
  double seconds = 1.5;
  long calls = 0;  // > 0: exactly this many timed calls
  long warmup = 1000;
  long server_pid = 0;
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
    else
      die(("unknown flag " + flag).c_str());
  }
  return o;
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

  std::vector<uint32_t> samples;  // ns; a call over 4 s would be a failure anyway
  samples.reserve(o.calls > 0 ? size_t(o.calls) : size_t(1) << 21);
  ServerCpu server_before = read_server_cpu(o.server_pid);
  uint64_t cpu_before = process_cpu_ns();
  Clock::time_point start = Clock::now();
  Clock::time_point end_by =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  Clock::time_point t0 = start;
  for (long i = 0;; ++i) {
    if (o.calls > 0 ? i >= o.calls : (t0 >= end_by || samples.size() == samples.capacity())) break;
    if (!call()) {
      std::fprintf(stderr, "%s: call %ld failed\n", peer, i);
      return 1;
    }
    Clock::time_point t1 = Clock::now();
    samples.push_back(uint32_t(std::min<int64_t>((t1 - t0).count(), UINT32_MAX)));
    t0 = t1;
  }
  uint64_t cpu_after = process_cpu_ns();
  ServerCpu server_after = read_server_cpu(o.server_pid);
  double wall_ns = double((t0 - start).count());

  size_t n = samples.size();
  if (n == 0) die("no calls timed");
  std::vector<uint32_t> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) {  // nearest rank: the ceil(p*n)-th smallest
    size_t rank = size_t(std::ceil(p * double(n)));
    return sorted[std::min(std::max<size_t>(rank, 1), n) - 1];
  };
  double client_cpu = double(cpu_after - cpu_before) / double(n);
  std::printf(
      "{\"peer\": \"%s\", \"calls\": %zu, \"wall_ns_per_call\": %.1f, \"median_ns\": %u, "
      "\"p90_ns\": %u, \"p99_ns\": %u, \"max_ns\": %u, \"min_ns\": %u, "
      "\"client_cpu_ns_per_call\": %.1f",
      peer, n, wall_ns / double(n), pct(0.5), pct(0.9), pct(0.99), sorted.back(), sorted.front(),
      client_cpu);
  if (o.server_pid > 0) {
    auto [server_ns, source] = server_cpu_between(server_before, server_after);
    std::printf(", \"server_cpu_ns_per_call\": %.1f, \"server_cpu_source\": \"%s\"",
                server_ns / double(n), source);
  }
  std::printf("}\n");
  std::fflush(stdout);
  return 0;
}

}  // namespace lat
