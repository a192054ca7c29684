#include "base/base64.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <atomic>
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

// Vector code: blobs are the bulk of XML-RPC's large calls, and the scalar loops run at about
// 1 GB/s where memcpy runs at 10. AVX2 takes 24 bytes to 32 characters and back per step, after
// Muła and Lemire ("Faster Base64 Encoding and Decoding Using AVX2 Instructions", 2018);
// AVX-512 VBMI takes 48 to 64, after their "Base64 encoding and decoding at almost the speed of
// a memory copy" (2019): one byte permutation does the table lookup. Chosen at run time.
Simd detect_simd() noexcept {
  __builtin_cpu_init();  // may run before libgcc's own constructor has
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vbmi"))
    return Simd::Avx512Vbmi;
  return __builtin_cpu_supports("avx2") ? Simd::Avx2 : Simd::Scalar;
}
std::atomic<Simd> g_cap{Simd::Avx512Vbmi};  // lowered by tests only

Simd active_simd() noexcept {
  static const Simd detected = detect_simd();
  Simd cap = g_cap.load(std::memory_order_relaxed);
  return cap < detected ? cap : detected;
}
bool has_avx2() noexcept { return active_simd() >= Simd::Avx2; }
bool has_avx512() noexcept { return active_simd() >= Simd::Avx512Vbmi; }

constexpr uint64_t kLow48 = (uint64_t{1} << 48) - 1;  // a mask of 48 bytes

// Encodes whole blocks of 48 bytes into 64 characters each; returns the bytes consumed.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) size_t encode_avx512(const unsigned char* in,
                                                                            size_t n,
                                                                            char* out) noexcept {
  // Each group of 3 bytes (a, b, c) to a 32-bit word (b, a, c, b), as in the AVX2 code.
  alignas(64) static constexpr auto kSpread = [] {
    std::array<uint8_t, 64> t{};
    for (int k = 0; k < 16; ++k) {
      t[4 * k] = uint8_t(3 * k + 1);
      t[4 * k + 1] = uint8_t(3 * k);
      t[4 * k + 2] = uint8_t(3 * k + 2);
      t[4 * k + 3] = uint8_t(3 * k + 1);
    }
    return t;
  }();
  const __m512i spread = _mm512_load_si512(kSpread.data());
  // Where each sextet starts in its (b, a, c, b) word: a's top six bits at 10, then 4, 22, 16;
  // the next word of the quadword 32 further on. The shifted bytes keep two stray high bits,
  // which the alphabet lookup ignores (it reads six bits of each index).
  const __m512i shifts = _mm512_set1_epi64(0x3036242a1016040a);
  const __m512i alphabet = _mm512_loadu_si512(kAlphabet);
  size_t i = 0;
  for (; i + 48 <= n; i += 48, out += 64) {
    __m512i x = _mm512_maskz_loadu_epi8(kLow48, in + i);
    x = _mm512_permutexvar_epi8(spread, x);
    __m512i sextets = _mm512_multishift_epi64_epi8(shifts, x);
    _mm512_storeu_si512(out, _mm512_permutexvar_epi8(sextets, alphabet));
  }
  return i;
}

// Decodes whole blocks of 64 alphabet characters into 48 bytes each; stops before a block
// holding anything else, as decode_avx2 does. Returns the characters consumed.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) size_t decode_avx512(
    const unsigned char* p, size_t n, unsigned char*& o) noexcept {
  // The sextet of every 7-bit character, 0x80 for those outside the alphabet; a byte of 0x80
  // and above is caught by its own top bit.
  alignas(64) static constexpr auto kSextets = [] {
    std::array<uint8_t, 128> t{};
    for (auto& v : t) v = 0x80;
    for (uint8_t v = 0; v < 64; ++v) t[static_cast<unsigned char>(kAlphabet[v])] = v;
    return t;
  }();
  // The three bytes of each 24-bit word, most significant first.
  alignas(64) static constexpr auto kPack = [] {
    std::array<uint8_t, 64> t{};
    for (int j = 0; j < 48; ++j) t[j] = uint8_t(4 * (j / 3) + 2 - j % 3);
    return t;
  }();
  const __m512i lookup_lo = _mm512_load_si512(kSextets.data());
  const __m512i lookup_hi = _mm512_load_si512(kSextets.data() + 64);
  const __m512i pack = _mm512_load_si512(kPack.data());
  size_t i = 0;
  for (; i + 64 <= n; i += 64, o += 48) {
    __m512i x = _mm512_loadu_si512(p + i);
    __m512i sextets = _mm512_permutex2var_epi8(lookup_lo, x, lookup_hi);
    if (_mm512_movepi8_mask(_mm512_or_si512(sextets, x)) != 0) break;
    // Pairs of sextets into 12 bits, pairs of those into 24, then 3 bytes of every 4.
    __m512i twelve = _mm512_maddubs_epi16(sextets, _mm512_set1_epi32(0x01400140));
    __m512i words = _mm512_madd_epi16(twelve, _mm512_set1_epi32(0x00011000));
    _mm512_mask_storeu_epi8(o, kLow48, _mm512_permutexvar_epi8(pack, words));
  }
  return i;
}

// Encodes whole blocks of 24 bytes while 28 can be read (two 16-byte loads, 12 apart); returns
// the bytes consumed. Writes exactly 32 characters per block.
__attribute__((target("avx2"))) size_t encode_avx2(const unsigned char* in, size_t n,
                                                   char* out) noexcept {
  // Per 128-bit lane: 12 bytes as 4 groups (a, b, c) spread to 32-bit words (b, a, c, b), so
  // each word's four sextets can be shifted into separate bytes by two multiplies.
  const __m256i spread = _mm256_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,  //
                                          1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10);
  // The alphabet as offsets from the sextet, chosen by range: 0-25 'A', 26-51 'a', 52-61 '0',
  // 62 '+', 63 '/'.
  const __m256i offsets =
      _mm256_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                       '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0,
                       'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                       '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
  size_t i = 0;
  for (; i + 28 <= n; i += 24, out += 32) {
    __m256i x = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 12)), 1);
    x = _mm256_shuffle_epi8(x, spread);
    __m256i hi = _mm256_mulhi_epu16(_mm256_and_si256(x, _mm256_set1_epi32(0x0fc0fc00)),
                                    _mm256_set1_epi32(0x04000040));
    __m256i lo = _mm256_mullo_epi16(_mm256_and_si256(x, _mm256_set1_epi32(0x003f03f0)),
                                    _mm256_set1_epi32(0x01000010));
    __m256i sextets = _mm256_or_si256(hi, lo);
    __m256i range = _mm256_subs_epu8(sextets, _mm256_set1_epi8(51));  // 52-63 → 1-12, else 0
    __m256i upper = _mm256_cmpgt_epi8(_mm256_set1_epi8(26), sextets);
    range = _mm256_or_si256(range, _mm256_and_si256(upper, _mm256_set1_epi8(13)));
    __m256i chars = _mm256_add_epi8(sextets, _mm256_shuffle_epi8(offsets, range));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), chars);
  }
  return i;
}

// Decodes whole blocks of 32 alphabet characters into 24 bytes each; stops before a block
// holding anything else (whitespace, padding, an error: the scalar path takes those). Returns
// the characters consumed; `o` advances past the bytes written.
__attribute__((target("avx2"))) size_t decode_avx2(const unsigned char* p, size_t n,
                                                   unsigned char*& o) noexcept {
  // A character is in the alphabet when the classes of its low and high nibbles share no bit.
  const __m256i lut_lo =
      _mm256_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B,
                       0x1B, 0x1B, 0x1A, 0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
                       0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A);
  const __m256i lut_hi =
      _mm256_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10,
                       0x10, 0x10, 0x10, 0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10,
                       0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
  // What to add to a valid character to get its sextet, by high nibble ('/' apart).
  const __m256i lut_roll =
      _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 19, 4, -65,
                       -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i pack = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2,
                                        1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
  size_t i = 0;
  for (; i + 32 <= n; i += 32, o += 24) {
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    __m256i hi_nibbles = _mm256_and_si256(_mm256_srli_epi32(x, 4), _mm256_set1_epi8(0x0f));
    __m256i lo_nibbles = _mm256_and_si256(x, _mm256_set1_epi8(0x0f));
    __m256i lo_class = _mm256_shuffle_epi8(lut_lo, lo_nibbles);
    __m256i hi_class = _mm256_shuffle_epi8(lut_hi, hi_nibbles);
    if (!_mm256_testz_si256(lo_class, hi_class)) break;
    __m256i is_slash = _mm256_cmpeq_epi8(x, _mm256_set1_epi8('/'));
    __m256i roll = _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(is_slash, hi_nibbles));
    __m256i sextets = _mm256_add_epi8(x, roll);
    // Pairs of sextets into 12 bits, pairs of those into 24, then 3 bytes of every 4.
    __m256i twelve = _mm256_maddubs_epi16(sextets, _mm256_set1_epi32(0x01400140));
    __m256i words = _mm256_madd_epi16(twelve, _mm256_set1_epi32(0x00011000));
    __m256i bytes = _mm256_shuffle_epi8(words, pack);
    bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_castsi256_si128(bytes));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 16), _mm256_extracti128_si256(bytes, 1));
  }
  return i;
}

}  // namespace

Simd simd_level() noexcept { return active_simd(); }

Simd cap_simd_for_testing(Simd cap) noexcept {
  return g_cap.exchange(cap, std::memory_order_relaxed);
}

void encode(const unsigned char* in, size_t n, char* out) noexcept {
  size_t i = 0;
  if (n >= 48 && has_avx512()) {
    i = encode_avx512(in, n, out);
    out += i / 3 * 4;
  }
  if (n - i >= 28 && has_avx2()) {
    size_t done = encode_avx2(in + i, n - i, out);
    i += done;
    out += done / 3 * 4;
  }
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

namespace {

// Characters check() decodes at a time into its buffer: the bytes of a piece, and of the few
// characters the slow path takes before the next piece, fit kCheckRoom.
constexpr size_t kCheckPiece = 4096;
constexpr size_t kCheckRoom = max_decoded_size(kCheckPiece) + 8;

// decode, and check: with kKeep false, `out` is a buffer of kCheckRoom bytes that every stretch
// of whole quanta starts again at the beginning of, the bytes counted and dropped.
template <bool kKeep>
long decode_text(std::string_view text, unsigned char* out, size_t& error_at) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  unsigned char* o = out;
  long dropped = 0;  // check: bytes decoded and written over
  size_t i = 0;
  uint32_t quantum = 0;  // sextets gathered so far in the slow path
  int have = 0;
  while (i < n) {
    // Fast path: whole quanta of four alphabet characters.
    if (have == 0) {
      size_t stop = n;
      if constexpr (!kKeep) {
        dropped += long(o - out);
        o = out;
        stop = std::min(n, i + kCheckPiece);
      }
      if (stop - i >= 64 && has_avx512()) i += decode_avx512(p + i, stop - i, o);
      if (stop - i >= 32 && has_avx2()) i += decode_avx2(p + i, stop - i, o);
      while (i + 4 <= stop) {
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
      if (!kKeep && i == stop) continue;  // the piece is done: the next one
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
  return long(o - out) + dropped;
}

}  // namespace

long decode(std::string_view text, unsigned char* out, size_t& error_at) noexcept {
  return decode_text<true>(text, out, error_at);
}

long check(std::string_view text, size_t& error_at) noexcept {
  unsigned char scratch[kCheckRoom];
  return decode_text<false>(text, scratch, error_at);
}

}  // namespace callwire::base64
