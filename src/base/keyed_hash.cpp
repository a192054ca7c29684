#if defined(_WIN32)
#define _CRT_RAND_S  // before stdlib.h: declares rand_s
#endif
#include "base/keyed_hash.hpp"

#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

#if CALLWIRE_HAVE_GETRANDOM
#include <sys/random.h>
#endif
#if !defined(_WIN32)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace callwire::detail {

namespace {

inline uint64_t rotl(uint64_t x, int b) noexcept { return (x << b) | (x >> (64 - b)); }

struct SipState {
  uint64_t v0, v1, v2, v3;

  explicit SipState(const SipKey& k) noexcept
      : v0(k.k0 ^ 0x736f6d6570736575ull),
        v1(k.k1 ^ 0x646f72616e646f6dull),
        v2(k.k0 ^ 0x6c7967656e657261ull),
        v3(k.k1 ^ 0x7465646279746573ull) {}

  void round() noexcept {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
};

inline uint64_t load_le64(const unsigned char* p) noexcept {
  uint64_t x;
  std::memcpy(&x, p, sizeof x);
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  return x;
}

template <int CompressionRounds, int FinalRounds>
uint64_t siphash(const SipKey& key, std::string_view data) noexcept {
  SipState s(key);
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t n = data.size();
  const unsigned char* end = p + (n & ~size_t{7});
  for (; p != end; p += 8) {
    uint64_t m = load_le64(p);
    s.v3 ^= m;
    for (int i = 0; i < CompressionRounds; ++i) s.round();
    s.v0 ^= m;
  }
  // The last 0..7 bytes, with the length's low byte on top.
  uint64_t last = uint64_t(n & 0xff) << 56;
  for (size_t i = 0; i < (n & 7); ++i) last |= uint64_t(p[i]) << (8 * i);
  s.v3 ^= last;
  for (int i = 0; i < CompressionRounds; ++i) s.round();
  s.v0 ^= last;
  s.v2 ^= 0xff;
  for (int i = 0; i < FinalRounds; ++i) s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

SipKey random_key() noexcept {
  SipKey key;
  unsigned char bytes[16];
  size_t got = 0;
#if CALLWIRE_HAVE_GETRANDOM
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      break;
    }
  }
#elif defined(_WIN32)
  // rand_s: the C runtime's front to the system's generator (RtlGenRandom).
  for (; got + sizeof(unsigned) <= sizeof bytes; got += sizeof(unsigned)) {
    unsigned word;
    if (rand_s(&word) != 0) break;
    std::memcpy(bytes + got, &word, sizeof word);
  }
#else
  // POSIX has no getrandom: the system's random device, where there is one.
  if (int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC); fd >= 0) {
    while (got < sizeof bytes) {
      ssize_t n = read(fd, bytes + got, sizeof bytes - got);
      if (n > 0) {
        got += static_cast<size_t>(n);
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
    close(fd);
  }
#endif
  if (got == sizeof bytes) {
    std::memcpy(&key.k0, bytes, 8);
    std::memcpy(&key.k1, bytes + 8, 8);
    return key;
  }
  // No random bytes (a very old kernel, a seccomp filter): the clock, the thread and where the
  // loader put us. Weaker, but still not known in advance to a remote peer.
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  key.k0 = uint64_t(now) * 0x9e3779b97f4a7c15ull;
  key.k1 = uint64_t(reinterpret_cast<uintptr_t>(&key)) ^
           (uint64_t(std::hash<std::thread::id>{}(std::this_thread::get_id())) << 32) ^
           uint64_t(reinterpret_cast<uintptr_t>(&random_key));
  key.k1 = siphash<2, 4>(key, "callwire");
  return key;
}

}  // namespace

uint64_t siphash_2_4(const SipKey& key, std::string_view data) noexcept {
  return siphash<2, 4>(key, data);
}

uint64_t siphash_1_3(const SipKey& key, std::string_view data) noexcept {
  return siphash<1, 3>(key, data);
}

const SipKey& process_hash_key() noexcept {
  static const SipKey key = random_key();
  return key;
}

uint64_t unpredictable_u64() noexcept {
  static std::atomic<uint64_t> counter{0};
  const uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  char bytes[8];
  std::memcpy(bytes, &n, sizeof bytes);
  return siphash_2_4(process_hash_key(), std::string_view(bytes, sizeof bytes));
}

}  // namespace callwire::detail
