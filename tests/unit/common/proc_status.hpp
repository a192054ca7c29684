// The test process's memory as Linux's /proc shows it: RSS and its peak since reset_peak().
// Elsewhere (no /proc) proc_status is 0, and a test that needs it says it is Linux-only.
#pragma once

#include <cstddef>
#include <cstring>
#include <fstream>
#include <string>

namespace callwire::test {

/// A field of /proc/self/status ("VmRSS:", "VmHWM:") in bytes; 0 where there is none.
inline size_t proc_status(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with(field)) return std::stoull(line.substr(std::strlen(field))) * 1024;
  return 0;
}

/// Resets VmHWM to the current RSS, so the next peak is what follows.
inline void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

}  // namespace callwire::test
