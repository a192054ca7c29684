// Internal: UTF-8 and the character classes of XML 1.0 (fifth edition).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/utf8.hpp"

namespace callwire::xml::chars {

// UTF-8 itself is the base module's (JSON needs it too).
using base::decode_utf8;
using base::encode_utf8;

/// XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
constexpr bool is_xml_char(uint32_t cp) {
  if (cp < 0x20) return cp == 0x9 || cp == 0xA || cp == 0xD;
  if (cp <= 0xD7FF) return true;
  if (cp < 0xE000) return false;
  if (cp <= 0xFFFD) return true;
  return cp >= 0x10000 && cp <= 0x10FFFF;
}

/// XML white space: space, tab, LF, CR.
constexpr bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// NameStartChar for code points >= 0x80.
constexpr bool is_name_start_nonascii(uint32_t c) {
  return (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) ||
         (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) ||
         (c >= 0x200C && c <= 0x200D) || (c >= 0x2070 && c <= 0x218F) ||
         (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF) ||
         (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0xEFFFF);
}

/// NameChar for code points >= 0x80.
constexpr bool is_name_char_nonascii(uint32_t c) {
  return is_name_start_nonascii(c) || c == 0xB7 || (c >= 0x300 && c <= 0x36F) ||
         (c >= 0x203F && c <= 0x2040);
}

/// NameStartChar / NameChar for ASCII bytes.
constexpr bool is_name_start_ascii(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
constexpr bool is_name_char_ascii(unsigned char c) {
  return is_name_start_ascii(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/// XML white space by byte, for loops over indentation.
struct SpaceTable {
  bool c[256];
  constexpr SpaceTable() : c() { c[int(' ')] = c[int('\t')] = c[int('\n')] = c[int('\r')] = true; }
};
inline constexpr SpaceTable kSpaceTable{};

/// Name characters by byte: kNameStart may begin a name, kNameOnly only continue it. Bytes
/// >= 0x80 are marked as continuing so that a fast scan stops only on delimiters; the slow path
/// decodes them.
inline constexpr uint8_t kNameStart = 1, kNameOnly = 2;
struct NameClassTable {
  uint8_t c[256];
  constexpr NameClassTable() : c() {
    for (int i = 0; i < 256; ++i) {
      auto b = static_cast<unsigned char>(i);
      c[i] = is_name_start_ascii(b)               ? kNameStart
             : is_name_char_ascii(b) || b >= 0x80 ? kNameOnly
                                                  : 0;
    }
  }
};
inline constexpr NameClassTable kNameClassTable{};
inline constexpr const uint8_t* kNameClass = kNameClassTable.c;

}  // namespace callwire::xml::chars
