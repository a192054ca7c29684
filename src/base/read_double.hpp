// Internal: a decimal text to a double, correctly rounded and independent of the locale.
// std::from_chars does it where the standard library has it for doubles; libc++ (macOS's
// standard library) did not before LLVM 20, so there strtod reads it in the "C" locale.
#pragma once

#include <charconv>

namespace callwire {

/// As std::from_chars(first, last, value, std::chars_format::general) for a text made of
/// digits, at most one '.', and an optional exponent (no sign: the caller takes it). `ptr` is
/// past what was read; errc::result_out_of_range when the magnitude is beyond a double's (an
/// overflow, or an underflow to zero), errc::invalid_argument when no number starts there.
std::from_chars_result read_double(const char* first, const char* last, double& value);

}  // namespace callwire
