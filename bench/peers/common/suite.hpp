// rpclib's benchmark suite (issue 9, experiment 1) for one peer: get_answer, get_blob for
// 1 KiB ... 16 MiB and get_structs, with client and server in this process.
//
// A peer is a class with
//   int get_answer(int n);                       // the server answers 41 + n
//   BYTES get_blob(size_t size);                 // the first `size` bytes of blob_source()
//   std::vector<Student> get_structs();          // students_source(), as native structs
// where BYTES is any owning container with data() and size(), and may have
//   int64_t put_blob(std::span<const uint8_t> bytes);  // the server answers blob_digest()
// the upload rpclib's suite lacks (a file sent to WordPress, Koji or Odoo): the first `size`
// bytes of blob_source() as the call's parameter. Its constructor starts its server and
// connects its client; its destructor stops them.
//
// Every benchmark is registered as "PEER/get_answer", "PEER/get_blob/SIZE", "PEER/get_structs",
// "PEER/put_blob/SIZE";
// bench/peers_run.py chooses min_time and repetitions. Each answer is checked once per
// process, before the first timed loop: a wrong answer ends the process with status 1.
// Times are wall clock (UseRealTime, which also makes Google Benchmark size its loops by
// wall time); the counter process_cpu is the CPU time of the whole process per call (every
// thread, the server's and the library's own), which cpu_time (the calling thread) hides, and
// page_faults the process's page faults per call (minor and major): a buffer mapped afresh
// for every call shows here as thousands.
#pragma once

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "data.hpp"
#include "students.hpp"

namespace peers {

inline constexpr size_t kBlobSizes[] = {size_t{1} << 10,  size_t{4} << 10,   size_t{16} << 10,
                                        size_t{64} << 10, size_t{256} << 10, size_t{1} << 20,
                                        size_t{4} << 20,  size_t{16} << 20};
inline constexpr size_t kMaxBlob = size_t{16} << 20;
// Uploads at the sizes issue 30's goals name.
inline constexpr size_t kUploadSizes[] = {size_t{1} << 20, size_t{4} << 20, size_t{16} << 20};
// Generous limits for the peers that have them: the largest answer is 16 MiB of bytes (22.4 MB
// as base64) or 4.3 MB of struct XML.
inline constexpr size_t kMessageLimit = size_t{64} << 20;

inline int get_answer_direct(int n) { return 41 + n; }

inline const std::vector<uint8_t>& blob_source() {
  static const std::vector<uint8_t> bytes = random_bytes(kMaxBlob, 16);
  return bytes;
}

// What a put_blob server answers for the bytes it received: their size and 64 of them sampled
// evenly, so that a truncated or shifted upload answers differently, at a cost that does not
// show beside the call. Non-negative, for XML-RPC's i8.
inline int64_t blob_digest(const uint8_t* data, size_t size) {
  uint64_t digest = size;
  for (size_t i = 0; i < 64 && size > 0; ++i) digest = digest * 31 + data[i * (size - 1) / 63];
  return static_cast<int64_t>(digest >> 1);
}

inline const std::vector<Student>& students_source() {
  static const std::vector<Student> students = make_students();
  return students;
}

inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline double process_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_minflt) + static_cast<double>(usage.ru_majflt);
}

[[noreturn]] inline void wrong_answer(const std::string& benchmark, const std::string& what) {
  std::fprintf(stderr, "\n%s: WRONG ANSWER: %s\n", benchmark.c_str(), what.c_str());
  std::fflush(stderr);
  std::_Exit(1);  // threads of the peer may still run: skip the destructors
}

namespace detail {
// Google Benchmark calls a benchmark function again for each repetition; check only the first.
inline bool first_time(const std::string& name) {
  static std::set<std::string> seen;
  return seen.insert(name).second;
}

template <class Loop>
void timed(benchmark::State& state, Loop loop) {
  double cpu_before = process_cpu_seconds();
  double faults_before = process_page_faults();
  loop();
  state.counters["process_cpu"] =
      benchmark::Counter(process_cpu_seconds() - cpu_before, benchmark::Counter::kAvgIterations);
  state.counters["page_faults"] =
      benchmark::Counter(process_page_faults() - faults_before, benchmark::Counter::kAvgIterations);
}
}  // namespace detail

template <class Peer>
void register_suite(const std::string& peer_name, Peer& peer) {
  std::string name = peer_name + "/get_answer";
  benchmark::RegisterBenchmark(name.c_str(), [&peer, name](benchmark::State& state) {
    if (detail::first_time(name)) {
      int answer = peer.get_answer(1);
      if (answer != 42) wrong_answer(name, "get_answer(1) = " + std::to_string(answer));
    }
    detail::timed(state, [&] {
      int n = 0;
      for (auto _ : state) benchmark::DoNotOptimize(peer.get_answer(n++));
    });
  })->UseRealTime();

  for (size_t size : kBlobSizes) {
    name = peer_name + "/get_blob/" + std::to_string(size);
    benchmark::RegisterBenchmark(name.c_str(), [&peer, name, size](benchmark::State& state) {
      if (detail::first_time(name)) {
        auto blob = peer.get_blob(size);
        if (blob.size() != size) wrong_answer(name, std::to_string(blob.size()) + " bytes");
        if (std::memcmp(blob.data(), blob_source().data(), size) != 0)
          wrong_answer(name, "the bytes differ");
      }
      detail::timed(state, [&] {
        for (auto _ : state) benchmark::DoNotOptimize(peer.get_blob(size));
      });
      state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
    })->UseRealTime();
  }

  if constexpr (requires(std::span<const uint8_t> bytes) { peer.put_blob(bytes); }) {
    for (size_t size : kUploadSizes) {
      name = peer_name + "/put_blob/" + std::to_string(size);
      benchmark::RegisterBenchmark(name.c_str(), [&peer, name, size](benchmark::State& state) {
        std::span<const uint8_t> bytes(blob_source().data(), size);
        if (detail::first_time(name)) {
          int64_t digest = peer.put_blob(bytes);
          if (digest != blob_digest(bytes.data(), size))
            wrong_answer(name, "the server's digest " + std::to_string(digest) + " differs");
        }
        detail::timed(state, [&] {
          for (auto _ : state) benchmark::DoNotOptimize(peer.put_blob(bytes));
        });
        state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
      })->UseRealTime();
    }
  }

  name = peer_name + "/get_structs";
  benchmark::RegisterBenchmark(name.c_str(), [&peer, name](benchmark::State& state) {
    if (detail::first_time(name)) {
      std::vector<Student> students = peer.get_structs();
      if (students != students_source())
        wrong_answer(name, std::to_string(students.size()) + " students, not the ones sent");
    }
    detail::timed(state, [&] {
      for (auto _ : state) benchmark::DoNotOptimize(peer.get_structs());
    });
  })->UseRealTime();
}

// The whole main() of a peer's suite binary: the peer is made before the benchmarks run, and
// the data too, so neither is timed.
template <class Peer>
int run_suite(int argc, char** argv, const std::string& peer_name) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  blob_source();
  students_source();
  int status = 0;
  {
    Peer peer;
    register_suite(peer_name, peer);
    if (benchmark::RunSpecifiedBenchmarks() == 0) status = 1;
  }
  benchmark::Shutdown();
  return status;
}

}  // namespace peers
