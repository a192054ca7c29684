// Internal: the text forms of XML-RPC's numbers, read leniently and written canonically.
#pragma once

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/read_double.hpp"

namespace callwire::xml::scalar {

/// Without the XML white space (space, tab, CR, LF) around it: peers pretty-print scalars.
inline std::string_view trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t b = 0, e = s.size();
  while (b < e && space(s[b])) ++b;
  while (e > b && space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

/// `[+-]?[0-9]+` (leading zeros allowed) within [min, max].
inline bool parse_integer(std::string_view s, int64_t min, int64_t max, int64_t& out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return false;
  while (i + 1 < s.size() && s[i] == '0') ++i;  // leading zeros, however many
  // Past them, more than 19 digits are beyond 64 bits (or not a number): refused either way.
  // Up to 19 cannot overflow an unsigned sum, so no digit needs an overflow test.
  if (s.size() - i > 19) return false;
  uint64_t magnitude = 0;
  for (; i < s.size(); ++i) {
    unsigned d = unsigned(static_cast<unsigned char>(s[i])) - '0';
    if (d > 9) return false;
    magnitude = magnitude * 10 + d;
  }
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;  // of INT64_MIN
  if (magnitude > (negative ? kMinMagnitude : kMinMagnitude - 1)) return false;
  const int64_t v = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
  if (v < min || v > max) return false;
  out = v;
  return true;
}

/// Decimal with optional exponent (Python writes `1e+100`); no NaN, infinity or hex. A value
/// too small for a double reads as zero; one too large is refused.
inline bool parse_double(std::string_view s, double& out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const size_t mantissa_start = i;
  // The digits as one integer while they fit (19 digits always do), for the exact path below.
  uint64_t digits = 0;
  size_t digit_count = 0, frac_digits = 0;
  auto take_digits = [&] {
    size_t from = i;
    for (unsigned d; i < s.size() && (d = unsigned(static_cast<unsigned char>(s[i])) - '0') <= 9;
         ++i)
      if (++digit_count <= 19) digits = digits * 10 + d;
    return i - from;
  };
  take_digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    frac_digits = take_digits();
  }
  if (digit_count == 0) return false;
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
    size_t exp_start = i;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
      if (exponent < 100000) exponent = exponent * 10 + (s[i] - '0');
    if (i == exp_start) return false;
    if (exp_negative) exponent = -exponent;
  }
  if (i != s.size()) return false;
  // The usual text (a few digits, a few decimals) in one exact operation.
  if (double v; digit_count <= 19 && exact_decimal(digits, exponent - int64_t(frac_digits), v)) {
    out = negative ? -v : v;
    return true;
  }
  double v = 0;
  if (!read_decimal(s.substr(mantissa_start), v)) return false;
  out = negative ? -v : v;
  return true;
}

/// The shortest decimal text that reads back to `d`, never in exponent form (format_double
/// below takes a faster route where it can): the shortest
/// digits (as std::to_chars finds them) placed around the decimal point, so 1e100 is a 1 and a
/// hundred zeros rather than the double's exact 101-digit value. `d` must be finite; `out`
/// needs 400 bytes. Returns the length.
inline size_t format_double_general(double d, char* out) {
  char sci[32];
  auto [sci_end, ec] = std::to_chars(sci, sci + sizeof sci, d, std::chars_format::scientific);
  (void)ec;
  const char* p = sci;
  char* o = out;
  if (*p == '-') *o++ = *p++;
  char digits[24];
  size_t n = 0;
  for (; p < sci_end && *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  int exponent = 0;
  bool exp_negative = false;
  ++p;  // 'e'
  if (*p == '-' || *p == '+') exp_negative = *p++ == '-';
  for (; p < sci_end; ++p) exponent = exponent * 10 + (*p - '0');
  if (exp_negative) exponent = -exponent;
  // digits[0] is the units digit times 10^exponent.
  if (exponent >= 0) {
    size_t int_len = size_t(exponent) + 1;
    for (size_t i = 0; i < int_len; ++i) *o++ = i < n ? digits[i] : '0';
    if (n > int_len) {
      *o++ = '.';
      for (size_t i = int_len; i < n; ++i) *o++ = digits[i];
    }
  } else {
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < -exponent - 1; ++i) *o++ = '0';
    for (size_t i = 0; i < n; ++i) *o++ = digits[i];
  }
  return size_t(o - out);
}

inline size_t format_double(double d, char* out) {
  double magnitude = std::fabs(d);
  if (magnitude == 0 || (magnitude >= 1e-5 && magnitude < 1e15)) {
    // Most doubles on the wire have a few decimals (prices, scores): find the fewest digits k
    // after the point for which the nearest integer n to d * 10^k gives back d as n / 10^k.
    // Both divisions are correctly rounded, so reading that text back gives d.
    static constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    for (int k = 0; k <= 8; ++k) {
      double scaled = std::round(d * kPow10[k]);
      if (std::fabs(scaled) >= 9007199254740992.0) break;  // 2^53: no longer exact
      if (scaled / kPow10[k] != d) continue;
      char digits[24];
      auto [end, ec] =
          std::to_chars(digits, digits + sizeof digits, static_cast<uint64_t>(std::fabs(scaled)));
      (void)ec;
      size_t n = size_t(end - digits);
      char* o = out;
      if (std::signbit(d)) *o++ = '-';
      if (n <= size_t(k)) {  // 0.00ddd
        *o++ = '0';
        *o++ = '.';
        for (size_t i = n; i < size_t(k); ++i) *o++ = '0';
        for (size_t i = 0; i < n; ++i) *o++ = digits[i];
      } else {
        for (size_t i = 0; i < n - size_t(k); ++i) *o++ = digits[i];
        if (k > 0) *o++ = '.';
        for (size_t i = n - size_t(k); i < n; ++i) *o++ = digits[i];
      }
      return size_t(o - out);
    }
    // Here every integer digit is significant, so the shortest fixed form has the shortest
    // digits: std::to_chars writes it directly (checked against the general path below on
    // millions of doubles, and in the unit tests).
    auto [end, ec] = std::to_chars(out, out + 400, d, std::chars_format::fixed);
    (void)ec;
    return size_t(end - out);
  }
  return format_double_general(d, out);
}

}  // namespace callwire::xml::scalar
