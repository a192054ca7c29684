#include "base/base64.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace callwire::base64 {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr uint32_t kBad = 0x01000000;  // outside the 24 payload bits

// Four tables with the sextet already shifted into place: one lookup and an OR per character
// in the fast path, and a single test for "anything unusual" per quantum.
struct DecodeTables {
  std::array<uint32_t, 256> t[4];
};

constexpr DecodeTables make_tables() {
  DecodeTables d{};
  for (int k = 0; k < 4; ++k)
    for (int c = 0; c < 256; ++c) d.t[k][c] = kBad;
  for (uint32_t v = 0; v < 64; ++v) {
    auto c = static_cast<unsigned char>(kAlphabet[v]);
    d.t[0][c] = v << 18;
    d.t[1][c] = v << 12;
    d.t[2][c] = v << 6;
    d.t[3][c] = v;
  }
  return d;
}
constexpr DecodeTables kTables = make_tables();

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

void encode(const unsigned char* in, size_t n, char* out) noexcept {
  size_t i = 0;
  for (; i + 3 <= n; i += 3, out += 4) {
    uint32_t x = uint32_t(in[i]) << 16 | uint32_t(in[i + 1]) << 8 | in[i + 2];
    out[0] = kAlphabet[x >> 18];
    out[1] = kAlphabet[(x >> 12) & 63];
    out[2] = kAlphabet[(x >> 6) & 63];
    out[3] = kAlphabet[x & 63];
  }
  if (n - i == 1) {
    uint32_t x = uint32_t(in[i]) << 16;
    out[0] = kAlphabet[x >> 18];
    out[1] = kAlphabet[(x >> 12) & 63];
    out[2] = out[3] = '=';
  } else if (n - i == 2) {
    uint32_t x = uint32_t(in[i]) << 16 | uint32_t(in[i + 1]) << 8;
    out[0] = kAlphabet[x >> 18];
    out[1] = kAlphabet[(x >> 12) & 63];
    out[2] = kAlphabet[(x >> 6) & 63];
    out[3] = '=';
  }
}

long decode(std::string_view text, unsigned char* out, size_t& error_at) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  unsigned char* o = out;
  size_t i = 0;
  uint32_t quantum = 0;  // sextets gathered so far in the slow path
  int have = 0;
  while (i < n) {
    // Fast path: whole quanta of four alphabet characters.
    if (have == 0) {
      while (i + 4 <= n) {
        uint32_t x = kTables.t[0][p[i]] | kTables.t[1][p[i + 1]] | kTables.t[2][p[i + 2]] |
                     kTables.t[3][p[i + 3]];
        if (x & kBad) break;
        o[0] = uint8_t(x >> 16);
        o[1] = uint8_t(x >> 8);
        o[2] = uint8_t(x);
        o += 3;
        i += 4;
      }
      if (i >= n) break;
    }
    // Slow path: one character at a time (whitespace, padding, errors, a split quantum).
    unsigned char c = p[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    if (c == '=') {
      // Padding ends the data: "xx==" or "xxx=", then only whitespace.
      if (have < 2) {
        error_at = i;
        return -1;
      }
      int pads_needed = 4 - have;
      ++i;
      for (int k = 1; k < pads_needed; ++k) {
        while (i < n && is_space(p[i])) ++i;
        if (i >= n || p[i] != '=') {
          // A single '=' where two are due is accepted only at the very end.
          if (i >= n) break;
          error_at = i;
          return -1;
        }
        ++i;
      }
      while (i < n && is_space(p[i])) ++i;
      if (i < n) {
        error_at = i;
        return -1;
      }
      break;
    }
    uint32_t v = kTables.t[3][c];
    if (v & kBad) {
      error_at = i;
      return -1;
    }
    quantum = quantum << 6 | v;
    ++i;
    if (++have == 4) {
      o[0] = uint8_t(quantum >> 16);
      o[1] = uint8_t(quantum >> 8);
      o[2] = uint8_t(quantum);
      o += 3;
      have = 0;
      quantum = 0;
    }
  }
  // A final partial quantum (padding or not): 2 characters make 1 byte, 3 make 2.
  if (have == 1) {
    error_at = n;
    return -1;
  }
  if (have == 2) {
    *o++ = uint8_t(quantum >> 4);
  } else if (have == 3) {
    *o++ = uint8_t(quantum >> 10);
    *o++ = uint8_t(quantum >> 2);
  }
  return long(o - out);
}

}  // namespace callwire::base64
