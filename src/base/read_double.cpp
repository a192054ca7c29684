#include "base/read_double.hpp"

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

}  // namespace callwire
