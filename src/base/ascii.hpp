// Internal: ASCII case-insensitive comparison, for header field names and values (HTTP, SCGI,
// CallContext::header). A leaf utility.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace callwire::base {

namespace detail {
// The eight bytes of `w` with A-Z lowered and nothing else changed (SWAR: per byte, "at least
// 'A'" and "above 'Z'" show in the top bit after an add; bytes >= 0x80 are left alone).
inline uint64_t ascii_lower8(uint64_t w) noexcept {
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  uint64_t low7 = w & ~kHigh;
  uint64_t ge_a = low7 + 0x3f3f3f3f3f3f3f3full;  // byte >= 'A' sets its top bit
  uint64_t gt_z = low7 + 0x2525252525252525ull;  // byte > 'Z' sets its top bit
  uint64_t upper = (ge_a ^ gt_z) & ~w & kHigh;
  return w | (upper >> 2);
}
inline uint64_t load8(const char* p) noexcept {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
}  // namespace detail

/// `s` without the spaces and tabs around it (HTTP's optional white space).
inline std::string_view trim_ows(std::string_view s) noexcept {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}

/// ASCII case-insensitive equality, eight bytes at a time (header names and values are
/// compared on every request).
inline bool iequals(std::string_view a, std::string_view b) noexcept {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n < 8) {
    for (size_t i = 0; i < n; ++i) {
      unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
      if (unsigned(x - 'A') < 26u) x |= 0x20;
      if (unsigned(y - 'A') < 26u) y |= 0x20;
      if (x != y) return false;
    }
    return true;
  }
  for (size_t i = 0; i + 8 <= n; i += 8)
    if (detail::ascii_lower8(detail::load8(a.data() + i)) !=
        detail::ascii_lower8(detail::load8(b.data() + i)))
      return false;
  // The last eight bytes, overlapping what was compared.
  return detail::ascii_lower8(detail::load8(a.data() + n - 8)) ==
         detail::ascii_lower8(detail::load8(b.data() + n - 8));
}

}  // namespace callwire::base
