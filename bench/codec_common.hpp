// callwire bench: what the codec benchmarks share (bench/codec_bench.cpp for XML-RPC,
// bench/json_codec_bench.cpp for JSON-RPC): the documents' data, made the same way on every
// machine, and the timing loop with its allocation counter (alloc_count.c).
#pragma once

#include <benchmark/benchmark.h>
#include <errno.h>  // program_invocation_short_name

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "alloc_count.h"
#include "callwire/value.hpp"

namespace codec_bench {

using callwire::Value;

[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, what.c_str());
  std::abort();
}

inline void check(bool ok, const std::string& what) {
  if (!ok) die(what);
}

// ---------------------------------------------------------------------------------------------
// Deterministic data.

// splitmix64: small, fast, and the same sequence on every machine.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }

 private:
  uint64_t state_;
};

// One element of document (b).
struct Person {
  int32_t id;
  std::string name;                 // 10-19 characters, some with UTF-8
  std::string email;                // 23-38 characters
  double score;                     // a multiple of 0.001 below 100000, written with three decimals
  std::array<std::string, 5> tags;  // 5-9 characters; "r&d-team" needs escaping
};

template <class T, size_t N>
const T& pick(Rng& rng, const T (&list)[N]) {
  return list[rng.below(N)];
}

inline std::vector<Person> make_people(size_t count) {
  struct Name {
    const char* display;
    const char* handle;  // its ASCII form, for the email address
  };
  static constexpr Name kFirst[] = {
      {"Olivia", "olivia"}, {"Mateo", "mateo"}, {"Aisha", "aisha"},       {"Noah", "noah"},
      {"Chiara", "chiara"}, {"Kenji", "kenji"}, {"Zoë", "zoe"},           {"José", "jose"},
      {"Priya", "priya"},   {"Lukas", "lukas"}, {"Amara", "amara"},       {"Björn", "bjorn"},
      {"Fatima", "fatima"}, {"Liam", "liam"},   {"Santiago", "santiago"}, {"Ingrid", "ingrid"},
  };
  static constexpr Name kLast[] = {
      {"Okonkwo", "okonkwo"},     {"Hernandez", "hernandez"}, {"Johansson", "johansson"},
      {"Nakamura", "nakamura"},   {"Rossi", "rossi"},         {"Fitzgerald", "fitzgerald"},
      {"Kowalczyk", "kowalczyk"}, {"Nguyen", "nguyen"},       {"Müller", "muller"},
      {"Delacroix", "delacroix"}, {"Haddad", "haddad"},       {"Svensson", "svensson"},
  };
  static constexpr const char* kDomains[] = {"example.com", "mail.example.org", "corp.example.net"};
  static constexpr const char* kTags[] = {
      "backend",   "frontend", "database", "security", "payments", "research", "platform", "mobile",
      "analytics", "billing",  "support",  "r&d-team", "infra",    "growth",   "design",   "ml-ops",
  };
  Rng rng(20240501);
  std::vector<Person> people;
  people.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const Name& first = pick(rng, kFirst);
    const Name& last = pick(rng, kLast);
    Person p;
    p.id = static_cast<int32_t>(100000 + i * 37);
    p.name = std::string(first.display) + " " + last.display;
    p.email = std::string(first.handle) + "." + last.handle + std::to_string(rng.below(100)) + "@" +
              pick(rng, kDomains);
    p.score = static_cast<double>(rng.below(100'000'000)) / 1000.0;
    for (std::string& tag : p.tags) tag = pick(rng, kTags);
    people.push_back(std::move(p));
  }
  return people;
}

inline std::vector<uint8_t> make_blob(size_t size) {
  Rng rng(0xB10B);
  std::vector<uint8_t> blob(size);
  for (size_t i = 0; i < size; i += 8) {
    uint64_t r = rng.next();
    std::memcpy(blob.data() + i, &r, std::min<size_t>(8, size - i));
  }
  return blob;
}

// Base64 text made here, so that no library's writer shapes the documents the readers read.
inline std::string base64(const std::vector<uint8_t>& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = uint32_t(bytes[i]) << 16 | uint32_t(bytes[i + 1]) << 8 | bytes[i + 2];
    out += kAlphabet[n >> 18];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (size_t rest = bytes.size() - i) {
    uint32_t n = uint32_t(bytes[i]) << 16 | (rest == 2 ? uint32_t(bytes[i + 1]) << 8 : 0);
    out += kAlphabet[n >> 18];
    out += kAlphabet[(n >> 12) & 63];
    out += rest == 2 ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The same data as values of each library, for the write benchmarks.

inline Value people_value(const std::vector<Person>& people) {
  Value array = Value::array();
  array.reserve(people.size());
  for (const Person& p : people) {
    const auto& t = p.tags;
    array.push_back(Value::structure({
        {"id", p.id},
        {"name", p.name},
        {"email", p.email},
        {"score", p.score},
        {"tags", Value::array({t[0], t[1], t[2], t[3], t[4]})},
    }));
  }
  return array;
}

// ---------------------------------------------------------------------------------------------
// Benchmarks. Each runs `body` once per iteration and counts what it allocates.

// One untimed run first: buffers and parsers reach the size they keep, as on a server that has
// handled a request before; the counter then shows the steady state.
template <class Body>
void timed(benchmark::State& state, size_t bytes_per_doc, Body&& body) {
  body();
  const unsigned long long before = bench_alloc_count();
  for (auto _ : state) body();
  const unsigned long long allocations = bench_alloc_count() - before;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes_per_doc));
  state.counters["allocs"] =
      benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
}

// Registers a benchmark of `fn(state, arg)`. With CALLWIRE_BENCH_ITERATIONS=n in the
// environment each runs exactly n iterations, once: bench/instructions_per_document.py counts
// a benchmark's instructions under callgrind at two n, and the difference is per document.
template <class Fn, class Arg>
void register_benchmark(const std::string& name, Fn fn, Arg arg) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), fn, arg)->Unit(benchmark::kMicrosecond);
  if (const char* n = std::getenv("CALLWIRE_BENCH_ITERATIONS"))
    b->Iterations(static_cast<benchmark::IterationCount>(std::strtoll(n, nullptr, 10)));
}

// The floor for both directions: moving the same bytes once.
inline void copy_memcpy(benchmark::State& state, const std::string* bytes) {
  std::vector<char> to(bytes->size());
  timed(state, bytes->size(), [&] {
    std::memcpy(to.data(), bytes->data(), bytes->size());
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  });
}

// The counter must see C++ allocations (libstdc++'s operator new calls malloc) and C ones.
inline void check_alloc_counting() {
  const unsigned long long before = bench_alloc_count();
  auto* p = new std::string(100, 'x');
  void* q = std::malloc(10);
  benchmark::DoNotOptimize(p);
  benchmark::DoNotOptimize(q);
  const unsigned long long counted = bench_alloc_count() - before;
  delete p;
  std::free(q);
  check(counted == 3, "the allocation counter saw " + std::to_string(counted) + " of 3");
}

inline const char* compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#else
  return "g++ " __VERSION__;
#endif
}

}  // namespace codec_bench
