// Internal: the character classes and list helpers of HTTP/1.1 (RFC 9110 §5.6) that the
// parsers and the writers share. Stateless, header-only: thread-safe, never throws.
#pragma once

#include <cstddef>
#include <string_view>

namespace callwire::http::syntax {

inline char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? char(c + 32) : c; }

/// RFC 9110 tchar: the characters of a token (a method, a field name, a coding).
constexpr bool is_tchar(unsigned char c) noexcept {
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
  for (char c : s)
    if (!is_value_char(static_cast<unsigned char>(c))) return false;
  return true;
}

inline std::string_view trim_ows(std::string_view s) noexcept {
  size_t b = 0, e = s.size();
  while (b < e && is_ows(s[b])) ++b;
  while (e > b && is_ows(s[e - 1])) --e;
  return s.substr(b, e - b);
}

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

}  // namespace callwire::http::syntax
