#include "base/read_double.hpp"

#include <cmath>
#include <version>

#if __cpp_lib_to_chars < 201611L
#include <locale.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#endif

namespace callwire {

#if __cpp_lib_to_chars >= 201611L

std::from_chars_result read_double(const char* first, const char* last, double& value) {
  return std::from_chars(first, last, value, std::chars_format::general);
}

#else

std::from_chars_result read_double(const char* first, const char* last, double& value) {
  // strtod would take what from_chars does not (a sign, spaces, "inf", hexadecimal).
  if (first == last || !((*first >= '0' && *first <= '9') || *first == '.'))
    return {first, std::errc::invalid_argument};
  // strtod reads up to a NUL; the text is the caller's (a message body), so copy it.
  const std::string text(first, last);
  // The thread's locale, not the process's: another thread's setlocale must not change a '.'.
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t(0));
  const locale_t previous = uselocale(c_locale);
  char* end = nullptr;
  errno = 0;
  const double read = std::strtod(text.c_str(), &end);
  const int error = errno;
  uselocale(previous);
  const char* ptr = first + (end - text.c_str());
  if (ptr == first) return {first, std::errc::invalid_argument};
  // ERANGE also marks a subnormal result, which from_chars gives as it is.
  if (error == ERANGE && (read == 0 || std::isinf(read)))
    return {ptr, std::errc::result_out_of_range};
  value = read;
  return {ptr, std::errc()};
}

#endif

namespace {
// Where the first significant digit of a mantissa (`[0-9]*(\.[0-9]*)?`) stands: the power of
// ten of the place after it (123.4: 3; 0.05: -1). For telling a value below the smallest
// double (zero) from one above the largest (refused) when read_double finds it out of range.
int64_t mantissa_magnitude(std::string_view mantissa) {
  size_t point = mantissa.find('.');
  std::string_view int_part = mantissa.substr(0, point);
  size_t first = int_part.find_first_not_of('0');
  if (first != std::string_view::npos) return int64_t(int_part.size() - first);
  if (point == std::string_view::npos) return 0;
  std::string_view frac = mantissa.substr(point + 1);
  size_t zeros = frac.find_first_not_of('0');
  return -int64_t(zeros == std::string_view::npos ? frac.size() : zeros);
}
}  // namespace

bool read_decimal(std::string_view text, double& out) {
  double v = 0;
  auto [ptr, ec] = read_double(text.data(), text.data() + text.size(), v);
  if (ptr != text.data() + text.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // Below the smallest double is zero; above the largest is refused.
    const size_t e = text.find_first_of("eE");
    int64_t exponent = 0;
    if (e != std::string_view::npos) {
      size_t i = e + 1;
      const bool negative = i < text.size() && text[i] == '-';
      if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
      for (; i < text.size(); ++i)
        if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
      if (negative) exponent = -exponent;
    }
    if (mantissa_magnitude(text.substr(0, e)) + exponent > 0) return false;
    v = 0;
  } else if (ec != std::errc()) {
    return false;
  }
  if (!std::isfinite(v)) return false;
  out = v;
  return true;
}

}  // namespace callwire
