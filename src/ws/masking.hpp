// Internal to src/ws: applying a WebSocket masking key (RFC 6455 §5.3) while copying, so the
// reader unmasks straight into its message buffer and the writer masks straight into the
// output: the payload is copied once either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ws/frame.hpp"

namespace callwire::ws::detail {

/// Copies `n` bytes from `src` to `dst` (which may be the same place, not otherwise
/// overlapping), each XORed with the key's byte at (phase + i) % 4: `phase` is how many payload
/// bytes of the frame came before `src`.
inline void copy_masked(char* dst, const char* src, size_t n, const MaskKey& key,
                        uint64_t phase) noexcept {
  // Eight bytes at a time: a key word rotated to the phase repeats every 4 bytes, so one
  // 64-bit word serves every step.
  unsigned char word_key[8];
  for (size_t i = 0; i < 8; ++i) word_key[i] = key[(phase + i) & 3];
  uint64_t k;
  std::memcpy(&k, word_key, 8);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, src + i, 8);
    w ^= k;
    std::memcpy(dst + i, &w, 8);
  }
  for (; i < n; ++i) dst[i] = char(src[i] ^ char(word_key[i & 7]));
}

}  // namespace callwire::ws::detail
