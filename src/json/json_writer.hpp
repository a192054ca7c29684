// Internal: JsonWriter, the JSON writer's core: values and pieces of JSON-RPC envelopes
// appended to one Buffer, no intermediate strings. Used by the document writers (writer.cpp)
// and by ResultWriter (result_writer.hpp). The mapping is in include/callwire/json.hpp.
#pragma once

#include <charconv>
#include <cmath>
#include <cstring>
#include <span>
#include <string_view>

#include "base/base64.hpp"
#include "base/utf8.hpp"
#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "callwire/json.hpp"
#include "value/value_build.hpp"

namespace callwire::json {

inline constexpr std::string_view kVersion = "{\"jsonrpc\":\"2.0\",";

// Whether any of the eight bytes of `w` needs more than a copy inside a JSON string: a C0
// control, '"', '\\', or a byte >= 0x80 (UTF-8 to check). A hit may also flag the bytes above
// it (the borrow runs on); the byte loop sorts that out.
inline bool needs_care(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
  uint64_t control = w - kOnes * 0x20;
  return ((control | (quote - kOnes) | (backslash - kOnes)) & ~w & kHigh) != 0 || (w & kHigh) != 0;
}

// The letter after the backslash for each character a string escapes: `"`, `\`, the five C0
// controls JSON names, and `u` (\u00XX) for the other controls.
struct Escapes {
  char letter[128];
  constexpr Escapes() : letter() {
    for (int c = 0; c < 0x20; ++c) letter[c] = 'u';
    set('\b', 'b');
    set('\f', 'f');
    set('\n', 'n');
    set('\r', 'r');
    set('\t', 't');
    set('"', '"');
    set('\\', '\\');
  }
  // By an unsigned index: a char subscript is what clang's -Wchar-subscripts warns of.
  constexpr void set(unsigned char c, char escape) { letter[c] = escape; }
};
inline constexpr Escapes kEscapes;

/// Appends JSON to `out`. A piece that cannot be written returns false and keeps why; fail()
/// then takes back everything this writer appended. Ownership: borrows `out`.
class JsonWriter {
 public:
  explicit JsonWriter(Buffer& out) : out_(out), mark_(out.size()) {}

  // On failure: drops what this writer appended and says why.
  Status fail() {
    out_.truncate(mark_);
    return error();
  }
  // Why the last piece that returned false could not be written.
  Error error() const { return Error(Errc::Unrepresentable, why_); }

  void raw(std::string_view s) { out_.append(s); }
  void put(char c) { out_.push_back(c); }

  void integer(int64_t n) {
    char* dst = out_.prepare(24);
    auto r = std::to_chars(dst, dst + 24, n);
    out_.commit(size_t(r.ptr - dst));
  }

  bool real(double d) {
    if (!std::isfinite(d)) return bad("a NaN or infinite double has no JSON form");
    char* dst = out_.prepare(32);
    auto r = std::to_chars(dst, dst + 30, d);  // the shortest text that reads back the same
    size_t n = size_t(r.ptr - dst);
    // `1` would read back as an int: keep a double a double.
    if (!std::memchr(dst, '.', n) && !std::memchr(dst, 'e', n)) {
      dst[n++] = '.';
      dst[n++] = '0';
    }
    out_.commit(n);
    return true;
  }

  // A JSON string: `"`, `\` and the C0 controls escaped, the rest copied once checked to be
  // UTF-8.
  bool string(std::string_view s) {
    if (s.size() <= 16 && short_plain_string(s)) return true;
    static constexpr char kHex[] = "0123456789abcdef";
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    out_.push_back('"');
    while (p < end) {
      const unsigned char* run = p;
      for (;;) {
        while (end - p >= 8) {
          uint64_t w;
          std::memcpy(&w, p, 8);
          if (needs_care(w)) break;
          p += 8;
        }
        if (p == end) break;
        unsigned char c = *p;
        if (c >= 0x80) {
          uint32_t cp;
          size_t len = base::decode_utf8(p, end, cp);
          if (len == 0) {
            why_ = "string is not valid UTF-8";
            return false;
          }
          p += len;
        } else if (c < 0x20 || c == '"' || c == '\\') {
          break;
        } else {
          ++p;
        }
      }
      out_.append(reinterpret_cast<const char*>(run), size_t(p - run));
      if (p == end) break;
      unsigned char c = *p++;
      char* dst = out_.prepare(6);
      dst[0] = '\\';
      dst[1] = kEscapes.letter[c];
      if (dst[1] != 'u') {
        out_.commit(2);
        continue;
      }
      std::memcpy(dst + 2, "00", 2);
      dst[4] = kHex[c >> 4];
      dst[5] = kHex[c & 15];
      out_.commit(6);
    }
    out_.push_back('"');
    return true;
  }

  // Most member names and many values: at most 16 bytes of printable ASCII that need no
  // escape. Checked as two 8-byte words of a padded copy (the view itself may end at the end
  // of readable memory) and written in one step, not by the byte loop of the general path.
  bool short_plain_string(std::string_view s) {
    unsigned char padded[16];
    std::memset(padded, 'a', sizeof padded);
    std::memcpy(padded, s.data(), s.size());
    uint64_t w0, w1;
    std::memcpy(&w0, padded, 8);
    std::memcpy(&w1, padded + 8, 8);
    if (needs_care(w0) || needs_care(w1)) return false;
    char* dst = out_.prepare(18);
    dst[0] = '"';
    std::memcpy(dst + 1, s.data(), s.size());
    dst[s.size() + 1] = '"';
    out_.commit(s.size() + 2);
    return true;
  }

  bool value(const Value& v) {
    switch (v.type()) {
      case Type::Nil:
        raw("null");
        return true;
      case Type::Boolean:
        raw(ValueAccess::raw(v)[4] ? "true" : "false");
        return true;
      case Type::Int:
        integer(ValueAccess::load<int32_t>(v, 4));
        return true;
      case Type::I8:
        integer(ValueAccess::load<int64_t>(v, 8));
        return true;
      case Type::Double:
        return real(ValueAccess::load<double>(v, 8));
      case Type::String:
        return string(ValueAccess::text(v));
      case Type::Bytes: {
        std::string_view text = ValueAccess::text(v);
        bytes({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
        return true;
      }
      case Type::DateTime:
        return datetime(v.as_datetime());
      case Type::Array:
        return array(v.as_array());
      case Type::Struct: {
        out_.push_back('{');
        bool first = true;
        for (const Member& m : v.members()) {
          if (!first) out_.push_back(',');
          first = false;
          if (!string(m.name())) return false;
          out_.push_back(':');
          if (!value(m.value())) return false;
        }
        out_.push_back('}');
        return true;
      }
    }
    return bad("a Value of unknown type");
  }

  // A base64 string (padded, one line).
  void bytes(std::span<const uint8_t> b) {
    size_t n = base64::encoded_size(b.size());
    char* dst = out_.prepare(n + 2);
    dst[0] = '"';
    base64::encode(b.data(), b.size(), dst + 1);
    dst[n + 1] = '"';
    out_.commit(n + 2);
  }

  bool array(std::span<const Value> items) {
    out_.push_back('[');
    bool first = true;
    for (const Value& item : items) {
      if (!first) out_.push_back(',');
      first = false;
      if (!value(item)) return false;
    }
    out_.push_back(']');
    return true;
  }

  // ISO 8601's extended form: the canonical XML-RPC text (YYYYMMDDTHH:MM:SS...) with the date's
  // dashes put in.
  bool datetime(const DateTime& dt) {
    if (!dt.valid()) return bad("an invalid dateTime");
    char text[32];
    size_t n = dt.format(text);
    char* dst = out_.prepare(n + 4);
    dst[0] = '"';
    std::memcpy(dst + 1, text, 4);
    dst[5] = '-';
    std::memcpy(dst + 6, text + 4, 2);
    dst[8] = '-';
    std::memcpy(dst + 9, text + 6, n - 6);
    dst[n + 3] = '"';
    out_.commit(n + 4);
    return true;
  }

  // `"id":…}` closing an envelope.
  void id_and_close(std::string_view id) {
    raw(",\"id\":");
    raw(id.empty() ? kNullId : id);
    out_.push_back('}');
  }

 private:
  bool bad(const char* why) {
    why_ = why;
    return false;
  }

  Buffer& out_;
  size_t mark_;
  const char* why_ = "";
};

}  // namespace callwire::json
