// callwire tests: expat as the reference for the reader's accept/reject decisions and text
// content. Shared by tests/corpus/expat_differential_test.cpp and the differential fuzz driver.
// Header-only; link expat.
//
// Expat runs without namespace processing (XML_ParserCreate(NULL)) and with no handler for
// unknown encodings, so it knows UTF-8, UTF-16, ISO-8859-1 and US-ASCII, like our reader minus
// UTF-16.
//
// The strings compared, in document order: the methodName text, each struct member's <name>,
// each <string>'s text and the text of each <value> with no element inside (an untyped string).
// Two XML-RPC rules are applied on the expat side so that both sides describe the same message:
// a repeated struct member keeps its first position and its last value; and a fault's struct is
// reduced to faultCode and faultString in that order (the reader turns it into a Fault and drops
// anything else, such as Apache's faultCause).
#pragma once

#include <expat.h>

#include <cctype>
#include <climits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "callwire/message.hpp"
#include "callwire/value.hpp"

namespace callwire::testing {

struct ExpatOutcome {
  bool well_formed = false;
  std::string error;                 ///< "line:column: expat's message" when not well formed
  std::vector<std::string> strings;  ///< see the top of this file
};

namespace expat_detail {

struct Frame {
  std::string local;  // element name after any prefix
  std::string text;   // character data directly inside
  bool has_child = false;
  // <member>: its name and the strings its value produced.
  std::string name;
  std::vector<std::string> sink;
  // <struct>: its members so far, duplicates merged.
  std::vector<std::pair<std::string, std::vector<std::string>>> members;
};

struct State {
  std::vector<Frame> stack;
  std::vector<std::string> top;
};

inline std::string local_name(const XML_Char* name) {
  std::string_view n(name);
  size_t colon = n.rfind(':');
  return std::string(colon == std::string_view::npos ? n : n.substr(colon + 1));
}

inline std::vector<std::string>& sink(State& s) {
  for (auto it = s.stack.rbegin(); it != s.stack.rend(); ++it) {
    if (it->local == "member") return it->sink;
  }
  return s.top;
}

inline void on_start(void* data, const XML_Char* name, const XML_Char**) {
  auto& s = *static_cast<State*>(data);
  if (!s.stack.empty()) s.stack.back().has_child = true;
  s.stack.emplace_back();
  s.stack.back().local = local_name(name);
}

inline void on_text(void* data, const XML_Char* text, int len) {
  auto& s = *static_cast<State*>(data);
  if (!s.stack.empty()) s.stack.back().text.append(text, static_cast<size_t>(len));
}

inline void on_end(void* data, const XML_Char*) {
  auto& s = *static_cast<State*>(data);
  Frame f = std::move(s.stack.back());
  s.stack.pop_back();
  if (f.local == "methodName" || f.local == "string" || (f.local == "value" && !f.has_child)) {
    sink(s).push_back(std::move(f.text));
  } else if (f.local == "name") {
    if (!s.stack.empty() && s.stack.back().local == "member") s.stack.back().name = f.text;
  } else if (f.local == "member") {
    if (!s.stack.empty() && s.stack.back().local == "struct") {
      auto& members = s.stack.back().members;
      bool replaced = false;
      for (auto& m : members) {
        if (m.first == f.name) {
          m.second = std::move(f.sink);
          replaced = true;
          break;
        }
      }
      if (!replaced) members.emplace_back(std::move(f.name), std::move(f.sink));
    }
  } else if (f.local == "struct") {
    size_t n = s.stack.size();
    bool in_fault = n >= 2 && s.stack[n - 1].local == "value" && s.stack[n - 2].local == "fault";
    auto& out = sink(s);
    if (in_fault) {
      for (const char* wanted : {"faultCode", "faultString"}) {
        for (auto& m : f.members) {
          if (m.first != wanted) continue;
          out.push_back(m.first);
          for (auto& str : m.second) out.push_back(std::move(str));
        }
      }
    } else {
      for (auto& m : f.members) {
        out.push_back(std::move(m.first));
        for (auto& str : m.second) out.push_back(std::move(str));
      }
    }
  }
}

inline void collect(const Value& v, std::vector<std::string>& out) {
  switch (v.type()) {
    case Type::String:
      out.emplace_back(v.as_string());
      break;
    case Type::Array:
      for (const Value& item : v.as_array()) collect(item, out);
      break;
    case Type::Struct:
      for (const Member& m : v.members()) {
        out.emplace_back(m.name());
        collect(m.value(), out);
      }
      break;
    default:
      break;
  }
}

inline bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

// The XML declaration's text between "<?xml" and "?>", or empty when there is none.
inline std::string_view declaration(std::string_view doc) {
  if (doc.substr(0, 3) == "\xEF\xBB\xBF") doc.remove_prefix(3);
  if (doc.substr(0, 5) != "<?xml" || doc.size() < 6) return {};
  char after = doc[5];
  if (after != ' ' && after != '\t' && after != '\r' && after != '\n') return {};
  size_t end = doc.find("?>");
  return doc.substr(5, end == std::string_view::npos ? std::string_view::npos : end - 5);
}

// The value of pseudo-attribute `key` in declaration text `decl` (without quotes), or npos-less
// empty view with found=false.
inline bool pseudo_attribute(std::string_view decl, std::string_view key, std::string_view& out) {
  size_t at = decl.find(key);
  if (at == std::string_view::npos) return false;
  size_t i = at + key.size();
  while (i < decl.size() && (decl[i] == ' ' || decl[i] == '\t' || decl[i] == '\r' ||
                             decl[i] == '\n' || decl[i] == '=')) {
    ++i;
  }
  if (i >= decl.size() || (decl[i] != '"' && decl[i] != '\'')) return false;
  size_t close = decl.find(decl[i], i + 1);
  if (close == std::string_view::npos) return false;
  out = decl.substr(i + 1, close - i - 1);
  return true;
}

}  // namespace expat_detail

/// Parses `doc` with expat and collects the strings (see the top of this file).
inline ExpatOutcome expat_parse(std::string_view doc) {
  ExpatOutcome result;
  if (doc.size() > static_cast<size_t>(INT_MAX)) {
    result.error = "too large for this harness";
    return result;
  }
  expat_detail::State state;
  XML_Parser parser = XML_ParserCreate(nullptr);
  XML_SetUserData(parser, &state);
  XML_SetElementHandler(parser, expat_detail::on_start, expat_detail::on_end);
  XML_SetCharacterDataHandler(parser, expat_detail::on_text);
  if (XML_Parse(parser, doc.data(), static_cast<int>(doc.size()), 1) == XML_STATUS_OK) {
    result.well_formed = true;
    result.strings = std::move(state.top);
  } else {
    result.error = std::to_string(XML_GetCurrentLineNumber(parser)) + ":" +
                   std::to_string(XML_GetCurrentColumnNumber(parser)) + ": " +
                   XML_ErrorString(XML_GetErrorCode(parser));
  }
  XML_ParserFree(parser);
  return result;
}

/// The same strings, from a message our reader decoded.
inline std::vector<std::string> message_strings(const Message& m) {
  std::vector<std::string> out;
  if (m.kind == Message::Kind::Call) {
    out.push_back(m.call.method_name);
    expat_detail::collect(m.call.params, out);
  } else if (m.response.is_fault) {
    out.push_back("faultCode");
    out.push_back("faultString");
    out.push_back(m.response.fault.string);
  } else {
    expat_detail::collect(m.response.result, out);
  }
  return out;
}

/// True when the document holds a DOCTYPE: the reader refuses those by design (-32600), while
/// expat would process them, so the differential test leaves them out.
inline bool has_doctype(std::string_view doc) {
  return doc.find("<!DOCTYPE") != std::string_view::npos;
}

/// True when the document is, or declares itself, UTF-16: expat reads UTF-16 and the reader
/// refuses it by design (-32701), so the differential test leaves those out. Covers a UTF-16
/// byte order mark, UTF-16 without one (a NUL next to the first '<'), and an XML declaration
/// naming UTF-16 (or UCS-2) in any case.
inline bool declares_utf16(std::string_view doc) {
  if (doc.size() >= 2) {
    auto b0 = static_cast<unsigned char>(doc[0]), b1 = static_cast<unsigned char>(doc[1]);
    if ((b0 == 0xFE && b1 == 0xFF) || (b0 == 0xFF && b1 == 0xFE)) return true;
    if ((b0 == 0 && b1 == '<') || (b0 == '<' && b1 == 0)) return true;
  }
  std::string_view encoding;
  if (!expat_detail::pseudo_attribute(expat_detail::declaration(doc), "encoding", encoding)) {
    return false;
  }
  return expat_detail::starts_with_nocase(encoding, "utf-16") ||
         expat_detail::starts_with_nocase(encoding, "utf16") ||
         expat_detail::starts_with_nocase(encoding, "ucs-2") ||
         expat_detail::starts_with_nocase(encoding, "iso-10646-ucs-2");
}

/// Where expat accepts what XML 1.0 (5th edition) calls not well formed, so the reader is right to
/// refuse and rule (b) of the differential test does not apply. Each entry says which rule expat
/// skips.
inline bool expat_known_lenient(std::string_view doc) {
  // VersionNum ::= '1.' [0-9]+ (XML 1.0 5th ed. [26]); expat takes any version text.
  std::string_view version;
  if (expat_detail::pseudo_attribute(expat_detail::declaration(doc), "version", version)) {
    bool ok = version.size() >= 3 && version.substr(0, 2) == "1.";
    for (size_t i = 2; ok && i < version.size(); ++i) ok = version[i] >= '0' && version[i] <= '9';
    if (!ok) return true;
  }
  return false;
}

/// True when a name in the document (element, attribute or PI target) holds a non-ASCII
/// character. Expat checks names against XML 1.0 4th edition's character classes; the reader
/// uses the 5th edition's, which are broader (U+0351 or U+2070 in a name, U+10000 starting one:
/// well formed since 2008, refused by expat). So for these documents an expat refusal proves
/// nothing and rule (a) of the differential test does not apply.
inline bool has_non_ascii_name(std::string_view doc) {
  auto skip_past = [&](size_t from, std::string_view end) {
    size_t at = doc.find(end, from);
    return at == std::string_view::npos ? doc.size() : at + end.size();
  };
  size_t i = 0;
  while (i < doc.size()) {
    if (doc[i] != '<') {
      ++i;
      continue;
    }
    std::string_view rest = doc.substr(i);
    if (rest.substr(0, 4) == "<!--") {
      i = skip_past(i + 4, "-->");
    } else if (rest.substr(0, 9) == "<![CDATA[") {
      i = skip_past(i + 9, "]]>");
    } else if (rest.substr(0, 2) == "<?") {
      size_t end = skip_past(i + 2, "?>");
      for (size_t j = i + 2; j < end; ++j) {
        char c = doc[j];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '?') break;
        if (static_cast<unsigned char>(c) >= 0x80) return true;
      }
      i = end;
    } else {
      // A tag: names are everywhere outside quoted attribute values.
      for (++i; i < doc.size() && doc[i] != '>' && doc[i] != '<'; ++i) {
        char c = doc[i];
        if (c == '"' || c == '\'') {
          size_t close = doc.find(c, i + 1);
          if (close == std::string_view::npos) return false;
          i = close;
        } else if (static_cast<unsigned char>(c) >= 0x80) {
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace callwire::testing
