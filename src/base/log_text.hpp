// Internal: text a peer chose (a method name, an address from SCGI or X-Forwarded-For, a user
// name), made safe to print in a log line: nothing in it can end the line and forge another,
// split a field, or send the terminal that shows it an escape sequence. The server hands its
// access-log and error-log hooks this form (AccessLogEntry, ErrorLogEntry). A leaf utility.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace callwire::base {

/// Which bytes a log field keeps as they are; every other byte is written `\xHH`.
enum class LogField : uint8_t {
  /// One field of a space-separated line (peer, user, method): printable ASCII but the
  /// space, `"` and `\`.
  Word,
  /// Free text (a message): printable ASCII and the space, but `"` and `\`.
  Text,
};

/// Whether byte `c` is kept as it is in a field of kind `kind`. Never the C0 controls (LF, CR,
/// ESC, ...), DEL, or any byte from 0x80 on: C1 controls and text that is not UTF-8 cannot
/// slip through, and valid UTF-8 is escaped too, as nginx escapes its log variables.
constexpr bool log_byte_kept(unsigned char c, LogField kind) noexcept {
  if (c == '\\' || c == '"') return false;  // escaped, so every `\` in a log starts an escape
  if (c == ' ') return kind == LogField::Text;
  return c > 0x20 && c < 0x7f;
}

/// True when `s` needs no escaping.
inline bool log_text_kept(std::string_view s, LogField kind) noexcept {
  for (char c : s)
    if (!log_byte_kept(static_cast<unsigned char>(c), kind)) return false;
  return true;
}

/// Appends `s` to `out`, every byte that log_byte_kept refuses written as `\x` and two
/// upper-case hex digits ("a\nb" becomes `a\x0Ab`). Throws std::bad_alloc when `out` cannot
/// grow.
inline void append_log_text(std::string& out, std::string_view s, LogField kind) {
  constexpr char kHex[] = "0123456789ABCDEF";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (log_byte_kept(u, kind)) {
      out += c;
    } else {
      const char escape[4] = {'\\', 'x', kHex[u >> 4], kHex[u & 0xF]};
      out.append(escape, sizeof escape);
    }
  }
}

/// `s` itself when it needs no escaping (the usual case: nothing is copied), else its escaped
/// form, kept in `storage`. The result lives as long as `s` and `storage` do.
inline std::string_view log_text(std::string_view s, std::string& storage, LogField kind) {
  if (log_text_kept(s, kind)) return s;
  storage.clear();
  append_log_text(storage, s, kind);
  return storage;
}

}  // namespace callwire::base
