// Internal: a decimal text to a double, correctly rounded and independent of the locale.
// std::from_chars does it where the standard library has it for doubles; libc++ (macOS's
// standard library) did not before LLVM 20, so there strtod reads it in the "C" locale.
#pragma once

#include <cfloat>
#include <charconv>
#include <cstdint>
#include <string_view>

namespace callwire {

/// As std::from_chars(first, last, value, std::chars_format::general) for a text made of
/// digits, at most one '.', and an optional exponent (no sign: the caller takes it). `ptr` is
/// past what was read; errc::result_out_of_range when the magnitude is beyond a double's (an
/// overflow, or an underflow to zero), errc::invalid_argument when no number starts there.
std::from_chars_result read_double(const char* first, const char* last, double& value);

/// A decimal text whose grammar the caller has checked (digits, at most one '.', an optional
/// exponent; no sign) to the nearest double: true with `out` set, where a value below the
/// smallest double reads as zero; false for one beyond the largest.
bool read_decimal(std::string_view text, double& out);

/// `digits` × 10^`scale` in one operation where that is exact (Clinger's fast path): an
/// integer up to 2^53 and a power of ten up to 10^22 are both exact doubles, so one
/// multiplication or division of them is the correctly rounded value, as from_chars would find
/// it. False, `out` untouched, where the value needs the general path. (Only where doubles are
/// computed in double precision: x87's wider registers would round twice.)
inline bool exact_decimal(uint64_t digits, int64_t scale, double& out) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (FLT_EVAL_METHOD != 0 || digits > (uint64_t{1} << 53) || scale < -22 || scale > 22)
    return false;
  const double m = static_cast<double>(digits);
  out = scale < 0 ? m / kPow10[-scale] : m * kPow10[scale];
  return true;
}

}  // namespace callwire
