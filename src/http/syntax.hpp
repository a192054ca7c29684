// Internal: the character classes and list helpers of HTTP/1.1 (RFC 9110 §5.6) that the
// parsers and the writers share. Stateless, header-only: thread-safe, never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "base/ascii.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace callwire::http::syntax {

inline char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? char(c + 32) : c; }

/// RFC 9110 tchar: the characters of a token (a method, a field name, a coding).
constexpr bool is_tchar_slow(unsigned char c) noexcept {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

/// field-vchar / SP / HTAB; obs-text allowed. Refuses CR, LF, NUL, other controls and DEL.
constexpr bool is_value_char(unsigned char c) noexcept {
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

// Lookup tables for the per-byte checks of every header line (a branch per class of byte
// cost a third of a request's parsing).
struct ByteClass {
  bool tchar[256] = {};
  bool value[256] = {};
  constexpr ByteClass() {
    for (int c = 0; c < 256; ++c) {
      tchar[c] = is_tchar_slow(static_cast<unsigned char>(c));
      value[c] = is_value_char(static_cast<unsigned char>(c));
    }
  }
};
inline constexpr ByteClass kByteClass{};

constexpr bool is_tchar(unsigned char c) noexcept { return kByteClass.tchar[c]; }

/// True when each of the `n` bytes at `p` may appear in a field value. Eight bytes at a time:
/// a word with no byte below 0x20 and no DEL is accepted whole; a word with one (a tab, or a
/// real control character) is looked at byte by byte.
inline bool value_bytes_ok(const char* p, size_t n) noexcept {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;  // some byte < 0x20
    uint64_t x = w ^ (kOnes * 0x7f);
    uint64_t del = (x - kOnes) & ~x & kHigh;  // some byte == 0x7f
    if (below_space | del) {
      for (size_t k = i; k < i + 8; ++k)
        if (!kByteClass.value[static_cast<unsigned char>(p[k])]) return false;
    }
  }
  for (; i < n; ++i)
    if (!kByteClass.value[static_cast<unsigned char>(p[i])]) return false;
  return true;
}

/// How many of the bytes at `p` (n of them) are letters, digits or '-' before the first that
/// is not, sixteen at a time: what field names are made of. Only a prefix: the caller goes on
/// byte by byte from there (the rest of tchar is rare in a name).
inline size_t name_letters_prefix(const unsigned char* p, size_t n) noexcept {
  size_t i = 0;
#if defined(__SSE2__)
  // SSE2 compares are signed: each range is shifted to start at -128, so "below -128 + width"
  // is "within it".
  const __m128i letter_shift = _mm_set1_epi8(char(-128 - 'a'));
  const __m128i letter_top = _mm_set1_epi8(char(-128 + 26));
  const __m128i digit_shift = _mm_set1_epi8(char(-128 - '0'));
  const __m128i digit_top = _mm_set1_epi8(char(-128 + 10));
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i ok = _mm_cmplt_epi8(_mm_add_epi8(lower, letter_shift), letter_top);
    ok = _mm_or_si128(ok, _mm_cmplt_epi8(_mm_add_epi8(v, digit_shift), digit_top));
    ok = _mm_or_si128(ok, _mm_cmpeq_epi8(v, _mm_set1_epi8('-')));
    unsigned bad = ~unsigned(_mm_movemask_epi8(ok)) & 0xFFFFu;
    if (bad) return i + unsigned(__builtin_ctz(bad));
  }
#endif
  (void)p;
  (void)n;
  return i;
}

/// The first LF in [p, end), or null. Sixteen bytes a step, inline: head lines are short (a
/// request's are 20 to 40 bytes), and a call to memchr for each cost more than the search.
inline const char* find_lf(const char* p, const char* end) noexcept {
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n');
  for (; end - p >= 16; p += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (unsigned hit = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, lf))))
      return p + __builtin_ctz(hit);
  }
#endif
  for (; p < end; ++p)
    if (*p == '\n') return p;
  return nullptr;
}

enum class FieldLineError { None, NoColon, BadName, BadValue };

/// Checks a header or trailer field line ("name: value", without its line ending) in one
/// pass: the name a non-empty token directly followed by ':' (so white space before the colon
/// and obs-fold are refused), every value byte allowed. Sets `colon` when None.
inline FieldLineError scan_field_line(std::string_view line, size_t& colon) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(line.data());
  const size_t n = line.size();
  size_t i = name_letters_prefix(p, n);
  while (i < n && kByteClass.tchar[p[i]]) ++i;
  if (i == n) return FieldLineError::NoColon;
  if (p[i] != ':')
    return line.find(':', i) == std::string_view::npos ? FieldLineError::NoColon
                                                       : FieldLineError::BadName;
  if (i == 0) return FieldLineError::NoColon;
  colon = i;
  return value_bytes_ok(line.data() + i + 1, n - i - 1) ? FieldLineError::None
                                                        : FieldLineError::BadValue;
}

inline bool is_ows(char c) noexcept { return c == ' ' || c == '\t'; }

/// True when `s` is a non-empty token.
inline bool is_token(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_tchar(static_cast<unsigned char>(c))) return false;
  return true;
}

/// True when every byte of `s` may appear in a field value (the empty value included).
inline bool is_field_value(std::string_view s) noexcept {
  return value_bytes_ok(s.data(), s.size());
}

using base::trim_ows;

/// Calls f(element) for each comma-separated element, trimmed, empty ones skipped.
template <typename F>
void for_each_element(std::string_view list, F&& f) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = trim_ows(list.substr(0, comma));
    if (!item.empty()) f(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

/// What a message length's text is (parse_length).
enum class LengthText { Ok, Malformed, TooLarge };

/// A Content-Length (RFC 9110 §8.6: 1*DIGIT), or SCGI's and CGI's CONTENT_LENGTH: digits only,
/// at least one, no sign or white space, within 64 bits (TooLarge beyond). Every framing reads
/// lengths here: a length two parsers read differently is how requests are smuggled.
inline LengthText parse_length(std::string_view text, uint64_t& out) noexcept {
  if (text.empty()) return LengthText::Malformed;
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return LengthText::Malformed;
    const uint64_t digit = uint64_t(c - '0');
    if (n > (UINT64_MAX - digit) / 10) return LengthText::TooLarge;
    n = n * 10 + digit;
  }
  out = n;
  return LengthText::Ok;
}

}  // namespace callwire::http::syntax
