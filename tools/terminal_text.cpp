#include "terminal_text.hpp"

#include <cstdio>

namespace callwire::tool {

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char hex[8];
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != 0x7f && c != 0xc2) {
      out += char(c);
      continue;
    }
    switch (c) {
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case 0x1b:
        out += "\\e";
        continue;
      case 0xc2: {
        // U+0080..U+009F (C2 80..C2 9F): the C1 controls, CSI (U+009B) among them.
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (next >= 0x80 && next <= 0x9f) {
          std::snprintf(hex, sizeof hex, "\\u%04x", unsigned(next));
          out += hex;
          ++i;
        } else {
          out += char(c);
        }
        continue;
      }
      default:
        std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(c));
        out += hex;
    }
  }
  return out;
}

}  // namespace callwire::tool
