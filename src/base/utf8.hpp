// Internal: decoding and encoding one UTF-8 sequence, for the codecs (XML and JSON) that check
// and write text. A leaf utility.
#pragma once

#include <cstddef>
#include <cstdint>

namespace callwire::base {

/// Decodes one multi-byte UTF-8 sequence starting at `p` (whose first byte is >= 0x80) and
/// ending before `end`. Returns its length (2..4) and sets `cp`; returns 0 for anything that is
/// not well-formed UTF-8: a stray continuation byte, an overlong form, a surrogate, a code point
/// above U+10FFFF, a truncated sequence.
inline size_t decode_utf8(const unsigned char* p, const unsigned char* end, uint32_t& cp) {
  unsigned char b0 = p[0];
  size_t avail = size_t(end - p);
  if (b0 < 0xC2) return 0;  // continuation byte, or overlong 2-byte lead
  if (b0 < 0xE0) {
    if (avail < 2 || (p[1] & 0xC0) != 0x80) return 0;
    cp = uint32_t(b0 & 0x1F) << 6 | (p[1] & 0x3F);
    return 2;
  }
  if (b0 < 0xF0) {
    if (avail < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
    cp = uint32_t(b0 & 0x0F) << 12 | uint32_t(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
    if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return 3;
  }
  if (b0 < 0xF5) {
    if (avail < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
      return 0;
    cp = uint32_t(b0 & 0x07) << 18 | uint32_t(p[1] & 0x3F) << 12 | uint32_t(p[2] & 0x3F) << 6 |
         (p[3] & 0x3F);
    if (cp < 0x10000 || cp > 0x10FFFF) return 0;
    return 4;
  }
  return 0;
}

/// Appends the UTF-8 form of `cp` (a valid scalar value) to `out`; returns the length.
inline size_t encode_utf8(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = char(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = char(0xC0 | cp >> 6);
    out[1] = char(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = char(0xE0 | cp >> 12);
    out[1] = char(0x80 | ((cp >> 6) & 0x3F));
    out[2] = char(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = char(0xF0 | cp >> 18);
  out[1] = char(0x80 | ((cp >> 12) & 0x3F));
  out[2] = char(0x80 | ((cp >> 6) & 0x3F));
  out[3] = char(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace callwire::base
