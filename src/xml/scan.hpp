// Internal: the vectorised scan both the reader and the writer spend most of their time in.
#pragma once

#include <cstddef>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace callwire::xml {

/// Which bytes stop scan_until<A, B, C>.
template <char A, char B, char C>
struct StopTable {
  bool stop[256];
  constexpr StopTable() : stop() {
    for (int i = 0; i < 256; ++i) {
      auto x = static_cast<unsigned char>(i);
      stop[i] = x == static_cast<unsigned char>(A) || x == static_cast<unsigned char>(B) ||
                x == static_cast<unsigned char>(C) || x >= 0x80 ||
                (x < 0x20 && x != '\t' && x != '\n');
    }
  }
};
template <char A, char B, char C>
inline constexpr StopTable<A, B, C> kStopTable{};

#if defined(__SSE2__)
/// Bit i set when byte i of `v` stops scan_until<A, B, C> (see below).
template <char A, char B, char C>
inline unsigned stop_mask(__m128i v) {
  const __m128i space = _mm_set1_epi8(0x20), tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n');
  // A signed compare is true for 0x00..0x1F and for every byte >= 0x80: both stop.
  __m128i low_or_high = _mm_cmplt_epi8(v, space);
  __m128i allowed = _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lf));
  __m128i m = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(A)), _mm_cmpeq_epi8(v, _mm_set1_epi8(B))),
      _mm_cmpeq_epi8(v, _mm_set1_epi8(C)));
  m = _mm_or_si128(m, _mm_andnot_si128(allowed, low_or_high));
  return static_cast<unsigned>(_mm_movemask_epi8(m));
}
#endif

/// The first byte at or after `p` that is A, B or C, a C0 control other than tab and LF (CR
/// included), or >= 0x80 (UTF-8 to validate); `end` if none. Sixteen bytes a step with SSE2;
/// the last few of a run of 16 or more are taken by one more load that overlaps the previous.
template <char A, char B, char C>
inline const unsigned char* scan_until(const unsigned char* p, const unsigned char* end) {
#if defined(__SSE2__)
  if (end - p >= 16) {
    while (end - p >= 16) {
      unsigned mask = stop_mask<A, B, C>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
      if (mask) return p + __builtin_ctz(mask);
      p += 16;
    }
    if (p == end) return end;
    // Bytes end-16 .. p-1 were scanned clean: shift them out of the mask.
    const unsigned char* last = end - 16;
    unsigned mask = stop_mask<A, B, C>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(last)));
    mask >>= static_cast<unsigned>(p - last);
    return mask ? p + __builtin_ctz(mask) : end;
  }
#endif
  // Short strings (most XML-RPC text): one table lookup a byte.
  const bool* stop = kStopTable<A, B, C>.stop;
  while (p < end && !stop[*p]) ++p;
  return p;
}

}  // namespace callwire::xml
