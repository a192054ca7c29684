// Internal: a time_t broken down in UTC, thread-safely: gmtime_r on POSIX, gmtime_s (its
// arguments the other way round) on Windows.
#pragma once

#include <ctime>

namespace callwire {

inline std::tm utc_time(std::time_t t) noexcept {
  std::tm tm{};
#if defined(_WIN32)
  gmtime_s(&tm, &t);
#else
  gmtime_r(&t, &tm);
#endif
  return tm;
}

}  // namespace callwire
