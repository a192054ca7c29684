// The data every peer of `make bench-peers` sends, made the same way in every process: a
// seeded generator (splitmix64), so a client can check what a server in another process sent
// without receiving a copy by another route. bench/peers/python/paper_data.py mirrors it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace peers {

// splitmix64: tiny, and easy to repeat exactly in Python.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// `size` random bytes: 8 a step, little-endian, so Python's
// b"".join(x.to_bytes(8, "little") ...)[:size] is the same.
inline std::vector<uint8_t> random_bytes(size_t size, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint8_t> out(size);
  for (size_t i = 0; i < size; i += 8) {
    uint64_t word = rng.next();
    for (size_t j = 0; j < 8 && i + j < size; ++j)
      out[i + j] = static_cast<uint8_t>(word >> (8 * j));
  }
  return out;
}

// Letters and digits only, so the text needs no escaping in XML or JSON: every peer pays for
// the same characters.
inline std::string random_text(Rng& rng, size_t length) {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s(length, ' ');
  for (char& c : s) c = kAlphabet[rng.next() % (sizeof kAlphabet - 1)];
  return s;
}

}  // namespace peers
