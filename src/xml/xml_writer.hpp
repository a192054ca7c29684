// Internal: XmlWriter, the XML-RPC writer's core: values and pieces of documents appended to
// one Buffer, no intermediate strings. Nested values are written without recursion, so a deep
// value cannot exhaust the stack. Used by the document writers (writer.cpp) and by
// ResultWriter (result_writer.hpp).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "base/answer_progress.hpp"
#include "base/base64.hpp"
#include "callwire/xml.hpp"
#include "value/value_build.hpp"
#include "xml/scalar_text.hpp"
#include "xml/scan.hpp"
#include "xml/xml_chars.hpp"

namespace callwire::xml {

inline constexpr std::string_view kDeclaration = "<?xml version=\"1.0\"?>";
inline constexpr std::string_view kApacheNamespace =
    " xmlns:ex=\"http://ws.apache.org/xmlrpc/namespaces/extensions\"";

// The escapes of <, & and >, eight bytes each (copied whole), their length in the last byte;
// null for every other byte.
struct EscapeTable {
  const char* of[256];
  constexpr EscapeTable() : of() {
    of[static_cast<unsigned char>('<')] = "&lt;\0\0\0\4";
    of[static_cast<unsigned char>('&')] = "&amp;\0\0\5";
    of[static_cast<unsigned char>('>')] = "&gt;\0\0\0\4";
  }
  const char* operator[](unsigned char c) const { return of[c]; }
};
inline constexpr EscapeTable kEscapeOf{};
inline constexpr size_t kLongestEscape = 4;  // bytes an escape adds to its character
inline constexpr size_t kEscapeBurst = 64;   // bytes taken one at a time after an escape

// What closes a response after its value.
inline constexpr std::string_view kResponseEnd = "</param></params></methodResponse>";

class XmlWriter {
 public:
  XmlWriter(Buffer& out, const WriterOptions& options) : out_(out), options_(options) {}

  /// Tells `progress` (null: nobody) as the answer grows, between values.
  void report_to(detail::AnswerProgress* progress) noexcept { progress_ = progress; }
  /// Part of what this writer wrote has been sent: it stays (the transport cuts it short).
  bool sent_any() const noexcept { return progress_ != nullptr && progress_->started(); }

  // Between two values: the transport is told when the answer passed its mark. False when it
  // cannot take the answer (the error is taken).
  bool between_values() {
    if (progress_ == nullptr || out_.size() < progress_->next) [[likely]]
      return true;
    if (Status s = progress_->grew(out_); !s) return fail(s.error().message, s.error().code);
    return true;
  }

  void raw(std::string_view s) { out_.append(s); }

  template <class T>
  void number(T n) {
    char* dst = out_.prepare(24);
    auto [end, ec] = std::to_chars(dst, dst + 24, n);
    (void)ec;
    out_.commit(size_t(end - dst));
  }

  void root_start(std::string_view name) {
    raw(kDeclaration);
    out_.push_back('<');
    raw(name);
    if (options_.dialect == Dialect::Apache) raw(kApacheNamespace);
    out_.push_back('>');
  }

  // Text content with <, &, > and CR escaped (so CR LF survives a round trip byte for byte).
  // Fails on invalid UTF-8 and on characters XML cannot carry.
  bool text(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    // Room for the rest as it is: runs with nothing to escape are copied into it. Invariant:
    // the room left after `written` is at least end - p.
    char* dst = out_.prepare(s.size());
    size_t written = 0;
    while (p < end) {
      const unsigned char* stop = scan_until<'<', '&', '>'>(p, end);
      size_t run = size_t(stop - p);
      copy_small(dst + written, p, run);
      written += run;
      p = stop;
      if (p == end) break;
      if (kEscapeOf[*p]) {
        // An escape grows the output: make room for the rest and for a burst of escapes, then
        // take the next bytes one at a time while they are plain ASCII or <, & and > (text
        // dense with markup, such as an HTML page, is escaped without a call per byte).
        out_.commit(written);
        size_t burst = std::min(size_t(end - p), kEscapeBurst);
        dst = out_.prepare(size_t(end - p) + kLongestEscape * burst + 8);
        written = 0;
        for (const unsigned char* burst_end = p + burst; p < burst_end; ++p) {
          const char* escape = kEscapeOf[*p];
          if (escape) {
            std::memcpy(dst + written, escape, 8);  // eight bytes: the room has 8 to spare
            written += size_t(escape[7]);
          } else if (kStopTable<'<', '&', '>'>.stop[*p]) {
            break;
          } else {
            dst[written++] = char(*p);
          }
        }
        continue;
      }
      if (*p == '\r') {
        out_.commit(written);
        out_.append("&#13;");
        ++p;
        dst = out_.prepare(size_t(end - p));
        written = 0;
        continue;
      }
      if (*p < 0x80)
        return fail("string holds character U+00" + hex(*p) + ", which XML cannot carry");
      uint32_t cp;
      size_t len = chars::decode_utf8(p, end, cp);
      if (len == 0) return fail("string is not valid UTF-8");
      if (!chars::is_xml_char(cp)) return fail("string holds a character XML cannot carry");
      std::memcpy(dst + written, p, len);
      written += len;
      p += len;
    }
    out_.commit(written);
    return true;
  }

  // The text of a string Value, or of a member's name. Most are short enough to live inside
  // the Value (up to 14 bytes): those are checked and copied with one 16-byte load and store
  // (the load reads the whole Value, never past it) unless something in them needs escaping.
  bool text_of(const Value& v) {
#if defined(__SSE2__)
    const unsigned char* raw = ValueAccess::raw(v);
    if (raw[1] != 0) {
      unsigned n = raw[1] - 1u;
      __m128i bytes = _mm_srli_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(raw)), 2);
      if ((stop_mask<'<', '&', '>'>(bytes) & ((1u << n) - 1)) == 0) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out_.prepare(16)), bytes);
        out_.commit(n);
        return true;
      }
    }
#endif
    return text(ValueAccess::text(v));
  }

  bool value(const Value& root) {
    if (!open_value(root)) return false;
    while (!frames_.empty()) {
      if (!between_values()) return false;
      Frame& f = frames_.back();
      if (f.members) {
        if (f.member_open) raw("</member>");
        f.member_open = false;
        if (f.next == f.size) {
          frames_.pop_back();
          raw("</struct></value>");
          continue;
        }
        const Member& m = f.members[f.next++];
        raw("<member><name>");
        if (!text_of(ValueAccess::member_name(m))) return false;
        raw("</name>");
        f.member_open = true;
        if (!open_value(m.value())) return false;
      } else {
        if (f.next == f.size) {
          frames_.pop_back();
          raw("</data></array></value>");
          continue;
        }
        if (!open_value(f.items[f.next++])) return false;
      }
    }
    return true;
  }

  bool fail(std::string message, Errc code = Errc::Unrepresentable) {
    error_ = Error(code, std::move(message));
    return false;
  }
  Error take_error() { return std::move(error_); }

  // `<value><base64>...</base64></value>`, encoded straight into the buffer. No bytes are
  // written as Python writes them, `<base64>\n</base64>`: Go's kolo/xmlrpc reads an empty
  // element as nil, and every reader skips the line break. `last`: the blob is the answer's
  // value, followed by kResponseEnd only; a long one then leaves as it is encoded
  // (encode_base64_reporting). False when the transport cannot take the answer.
  bool bytes(std::span<const uint8_t> bytes, bool last = false) {
    static constexpr std::string_view kEnd = "</base64></value>";
    if (bytes.empty()) {
      raw("<value><base64>\n</base64></value>");
      return true;
    }
    raw("<value><base64>");
    if (!detail::encode_base64_reporting(out_, last ? progress_ : nullptr, bytes,
                                         kEnd.size() + kResponseEnd.size(),
                                         [this] { return between_values(); }))
      return false;
    raw(kEnd);
    return true;
  }

  // A scalar written whole, or the opening of a container (whose frame is pushed: value()
  // then writes the rest). For a scalar, value() does no more than this.
  bool open_value(const Value& v) {
    bool apache = options_.dialect == Dialect::Apache;
    switch (v.type()) {
      case Type::Nil:
        raw(apache ? "<value><ex:nil/></value>" : "<value><nil/></value>");
        return true;
      case Type::Boolean:
        raw(ValueAccess::raw(v)[4] ? "<value><boolean>1</boolean></value>"
                                   : "<value><boolean>0</boolean></value>");
        return true;
      case Type::Int:
        raw("<value><int>");
        number(ValueAccess::load<int32_t>(v, 4));
        raw("</int></value>");
        return true;
      case Type::I8:
        raw(apache ? "<value><ex:i8>" : "<value><i8>");
        number(ValueAccess::load<int64_t>(v, 8));
        raw(apache ? "</ex:i8></value>" : "</i8></value>");
        return true;
      case Type::Double: {
        double d = ValueAccess::load<double>(v, 8);
        if (!std::isfinite(d)) return fail("XML-RPC has no representation for NaN or infinity");
        raw("<value><double>");
        char* dst = out_.prepare(400);
        out_.commit(scalar::format_double(d, dst));
        raw("</double></value>");
        return true;
      }
      case Type::String:
        raw("<value><string>");
        if (!text_of(v)) return false;
        raw("</string></value>");
        return true;
      case Type::DateTime: {
        DateTime dt = v.as_datetime();
        if (!dt.valid()) return fail("invalid dateTime (a field is out of range)");
        raw("<value><dateTime.iso8601>");
        char* dst = out_.prepare(32);
        out_.commit(dt.format(dst));
        raw("</dateTime.iso8601></value>");
        return true;
      }
      case Type::Bytes:
        return bytes(v.as_bytes());
      case Type::Array: {
        std::span<const Value> items = v.as_array();
        if (items.empty()) {
          raw("<value><array><data></data></array></value>");
          return true;
        }
        raw("<value><array><data>");
        Frame f;
        f.items = items.data();
        f.size = items.size();
        frames_.push_back(f);
        return true;
      }
      case Type::Struct: {
        std::span<const Member> members = v.members();
        if (members.empty()) {
          raw("<value><struct></struct></value>");
          return true;
        }
        raw("<value><struct>");
        Frame f;
        f.members = members.data();
        f.size = members.size();
        frames_.push_back(f);
        return true;
      }
    }
    return fail("unknown value type");
  }

 private:
  struct Frame {
    const Value* items = nullptr;     // array
    const Member* members = nullptr;  // struct
    size_t size = 0;
    size_t next = 0;
    bool member_open = false;
  };

  // memcpy without a library call for the short runs most strings are.
  static void copy_small(char* dst, const unsigned char* src, size_t n) {
    if (n > 16) {
      std::memcpy(dst, src, n);
    } else if (n >= 8) {
      uint64_t a, b;
      std::memcpy(&a, src, 8);
      std::memcpy(&b, src + n - 8, 8);
      std::memcpy(dst, &a, 8);
      std::memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
      uint32_t a, b;
      std::memcpy(&a, src, 4);
      std::memcpy(&b, src + n - 4, 4);
      std::memcpy(dst, &a, 4);
      std::memcpy(dst + n - 4, &b, 4);
    } else {
      for (size_t i = 0; i < n; ++i) dst[i] = char(src[i]);
    }
  }

  static std::string hex(unsigned char c) {
    static const char kHex[] = "0123456789ABCDEF";
    return {kHex[c >> 4], kHex[c & 15]};
  }

  // The open containers: the first few in place (no allocation for ordinary values), deeper
  // ones in a vector.
  class FrameStack {
   public:
    bool empty() const { return size_ == 0; }
    Frame& back() { return size_ <= kInline ? inline_[size_ - 1] : spill_.back(); }
    void push_back(const Frame& f) {
      if (size_ < kInline)
        inline_[size_] = f;
      else
        spill_.push_back(f);
      ++size_;
    }
    void pop_back() {
      if (size_ > kInline) spill_.pop_back();
      --size_;
    }

   private:
    static constexpr size_t kInline = 16;
    Frame inline_[kInline];
    std::vector<Frame> spill_;
    size_t size_ = 0;
  };

  Buffer& out_;
  const WriterOptions& options_;
  detail::AnswerProgress* progress_ = nullptr;
  FrameStack frames_;
  Error error_;
};

}  // namespace callwire::xml
