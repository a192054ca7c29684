// The XML-RPC grammar on top of the lexer: methodCall and methodResponse documents read straight
// into Values. Nested values are built without recursion: finished values wait on `stack_`
// until their array or struct closes, and then move into it with one allocation of the exact
// size.
#include <string>
#include <vector>

#include "callwire/xml.hpp"
#include "base/base64.hpp"
#include "value/value_build.hpp"
#include "xml/lexer.hpp"
#include "xml/scalar_text.hpp"

namespace callwire::xml {

namespace {

// The element types a <value> may hold. Prefixes are ignored (Apache's `ex:i8`, `ex:nil`).
enum class Kind : uint8_t {
  Int, I1, I2, I8, Boolean, Double, String, DateTime, Base64, Nil, Array, Struct, BigInteger,
  BigDecimal, Serializable, Unknown
};

Kind classify_unprefixed(std::string_view name) {
  switch (name.size()) {
    case 2:
      if (name == "i4") return Kind::Int;
      if (name == "i8") return Kind::I8;
      if (name == "i1") return Kind::I1;
      if (name == "i2") return Kind::I2;
      break;
    case 3:
      if (name == "int") return Kind::Int;
      if (name == "nil") return Kind::Nil;
      break;
    case 5:
      if (name == "array") return Kind::Array;
      if (name == "float") return Kind::Double;
      break;
    case 6:
      if (name == "string") return Kind::String;
      if (name == "double") return Kind::Double;
      if (name == "struct") return Kind::Struct;
      if (name == "base64") return Kind::Base64;
      break;
    case 7:
      if (name == "boolean") return Kind::Boolean;
      break;
    case 8:
      if (name == "dateTime") return Kind::DateTime;
      break;
    case 10:
      if (name == "bigdecimal") return Kind::BigDecimal;
      if (name == "biginteger") return Kind::BigInteger;
      break;
    case 12:
      if (name == "serializable") return Kind::Serializable;
      break;
    case 16:
      if (name == "dateTime.iso8601") return Kind::DateTime;
      break;
    default:
      break;
  }
  return Kind::Unknown;
}

// A type name with a namespace prefix (`ex:i8`): its local part. Sets `prefixed` when that names
// a type, so the server can answer in the dialect the peer spoke.
Kind classify(std::string_view name, bool& prefixed) {
  Kind kind = classify_unprefixed(name);
  if (kind != Kind::Unknown) return kind;
  size_t colon = name.rfind(':');
  if (colon == std::string_view::npos) return Kind::Unknown;
  kind = classify_unprefixed(name.substr(colon + 1));
  if (kind != Kind::Unknown) prefixed = true;
  return kind;
}

bool all_space(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  return true;
}

std::string snippet(std::string_view s) {
  std::string_view t = scalar::trim(s);
  if (t.size() > 24) return std::string(t.substr(0, 24)) + "...";
  return std::string(t);
}

}  // namespace

struct ReaderImpl {
  explicit ReaderImpl(ReaderLimits l) : limits(l) {
    if (limits.max_depth > ReaderLimits::kMaxDepth) limits.max_depth = ReaderLimits::kMaxDepth;
  }

  ReaderLimits limits;
  std::string scratch;                 // decoded text (references, CDATA, CR LF)
  std::vector<Value> stack;            // finished values waiting for their container
  struct Frame {
    bool is_struct;
    bool in_member;  // struct: a member's value is done, </member> is due
    uint32_t base;   // where its items start on `stack`
  };
  std::vector<Frame> frames;
  std::string transcoded;  // an ISO-8859-1 document in UTF-8
  std::string_view doc;
  Lexer lexer{scratch};
  bool used_prefixed_types = false;  // the last document named a type as `prefix:type`

  // ---- errors ----

  Error error() const {
    size_t offset = lexer.error_offset();
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < doc.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(doc[i]);
      if (c == '\n') {
        ++line;
        column = 1;
      } else if ((c & 0xC0) != 0x80) {
        ++column;
      }
    }
    return Error(lexer.error_code(),
                 std::to_string(line) + ":" + std::to_string(column) + ": " + lexer.error_message());
  }
  bool fail(const Token& at, std::string message) {
    return lexer.fail(Errc::InvalidRequest, at.offset, std::move(message));
  }
  bool limit(const Token& at, std::string message) {
    return lexer.fail(Errc::LimitExceeded, at.offset, std::move(message));
  }

  // ---- token helpers ----

  // The next token that is not white space; other text is an error in element-only content.
  bool next_element(Token& t, std::string_view context) {
    if (!lexer.next(t)) return false;
    if (t.kind == TokenKind::Text) {
      if (!all_space(t.text))
        return fail(t, "unexpected text '" + snippet(t.text) + "' in <" + std::string(context) + ">");
      if (!lexer.next(t)) return false;
    }
    return true;
  }
  // The start tag `tag` ("<member>"): the lexer's fast path, or the general one.
  template <size_t N>
  bool expect_start(Token& t, const char (&tag)[N], std::string_view context) {
    if (lexer.try_start(tag)) {
      t.kind = TokenKind::StartTag;
      t.self_closing = false;
      // From the literal, not from the open stack just written (a store-forwarding stall).
      t.name = std::string_view(tag + 1, N - 3);
      t.offset = lexer.offset_of(lexer.position()) - (N - 1);
      return true;
    }
    if (!next_element(t, context)) return false;
    if (t.kind == TokenKind::StartTag && t.name == std::string_view(tag + 1, N - 3)) return true;
    return unexpected(t, tag);
  }
  // The end tag of the innermost open element `name` (the lexer checks that it matches).
  template <size_t N>
  bool expect_end(const char (&name)[N]) {
    if (lexer.try_end_literal(name)) return true;
    return expect_end_slow(std::string_view(name, N - 1));
  }
  bool expect_end_slow(std::string_view name) {
    if (lexer.try_end()) return true;
    Token t;
    if (!next_element(t, name)) return false;
    if (t.kind == TokenKind::EndTag) return true;
    return unexpected(t, "</" + std::string(name) + ">");
  }
  bool unexpected(const Token& t, const std::string& expected) {
    std::string got = t.kind == TokenKind::StartTag ? "<" + std::string(t.name) + ">"
                      : t.kind == TokenKind::EndTag ? "</" + std::string(t.name) + ">"
                                                    : "the end of the document";
    return fail(t, "unexpected " + got + ", expected " + expected);
  }
  // The text content of an element with no children, e.g. <int>, <name>; empty when
  // self-closing.
  bool element_text(const Token& start, std::string_view& text) {
    text = {};
    if (start.self_closing) return true;
    Token t;
    if (lexer.try_plain_text(text)) {
      if (lexer.try_end()) return true;
      return lexer.next(t);  // an end tag: a mismatch is reported, `</x >` accepted
    }
    if (!lexer.next(t)) return false;
    if (t.kind == TokenKind::Text) {
      text = t.text;
      if (!lexer.next(t)) return false;
    }
    if (t.kind != TokenKind::EndTag)
      return fail(t, "unexpected <" + std::string(t.name) + "> inside <" + std::string(start.name) + ">");
    return true;
  }

  // ---- documents ----

  bool begin(std::string_view document) {
    stack.clear();
    frames.clear();
    used_prefixed_types = false;
    doc = document;
    if (document.size() > limits.max_document_size) {
      doc = {};
      return lexer.fail(Errc::LimitExceeded, 0,
                        "document of " + std::to_string(document.size()) +
                            " bytes exceeds the limit of " +
                            std::to_string(limits.max_document_size));
    }
    if (!lexer.start(document, limits.max_elements, false)) return false;
    if (lexer.encoding() == Encoding::Latin1) {
      // Every byte is one character: re-encode the whole document as UTF-8 and read that.
      bool high = false;
      for (char c : document) high |= static_cast<unsigned char>(c) >= 0x80;
      if (high) {
        transcoded.clear();
        transcoded.reserve(document.size() + document.size() / 2);
        for (char c : document) {
          auto b = static_cast<unsigned char>(c);
          if (b < 0x80) {
            transcoded.push_back(c);
          } else {
            transcoded.push_back(char(0xC0 | b >> 6));
            transcoded.push_back(char(0x80 | (b & 0x3F)));
          }
        }
        doc = transcoded;
        if (!lexer.start(transcoded, limits.max_elements, true)) return false;
      }
    }
    return true;
  }

  // Reads one document: the root element's start tag, then `body` for the rest.
  template <class T, class Body>
  Result<T> run(std::string_view document, Body body) {
    T out;
    Token root;
    bool ok = begin(document) && lexer.next(root) && body(*this, root, out);
    Result<T> result = ok ? Result<T>(std::move(out)) : Result<T>(error());
    end_read();
    return result;
  }
  // The same into `out`, whose storage is reused.
  template <class T, class Body>
  Status run_into(std::string_view document, T& out, Body body) {
    Token root;
    bool ok = begin(document) && lexer.next(root) && body(*this, root, out);
    Status status = ok ? Status() : Status(error());
    end_read();
    return status;
  }

  // Drops what a failed read left behind, and gives back buffers a large document grew, so an
  // idle Reader holds little memory; small ones are kept for the next document.
  void end_read() {
    stack.clear();
    frames.clear();
    doc = {};
    constexpr size_t kKeepValues = 4096, kKeepBytes = 64 * 1024;
    if (stack.capacity() > kKeepValues) std::vector<Value>().swap(stack);
    lexer.trim();
    if (scratch.capacity() > kKeepBytes) std::string().swap(scratch);
    if (transcoded.capacity() > kKeepBytes) std::string().swap(transcoded);
  }

  bool end_of_document() {
    Token t;
    if (!lexer.next(t)) return false;
    if (t.kind != TokenKind::EndOfDocument) return unexpected(t, "the end of the document");
    return true;
  }

  bool method_call(const Token& root, MethodCall& call) {
    if (root.self_closing) return fail(root, "empty <methodCall>");
    Token t;
    if (!expect_start(t, "<methodName>", "methodCall")) return false;
    std::string_view name;
    if (!element_text(t, name)) return false;
    if (name.empty()) return fail(t, "empty <methodName>");
    if (name.size() > limits.max_string_size) return limit(t, "methodName exceeds the string size limit");
    call.method_name.assign(name);
    if (!next_element(t, "methodCall")) return false;
    if (t.kind == TokenKind::EndTag) {  // no <params>
      call.params = Value::array();
      return end_of_document();
    }
    if (t.kind != TokenKind::StartTag || t.name != "params") return unexpected(t, "<params>");
    size_t base = stack.size();
    if (!t.self_closing) {
      for (;;) {
        if (lexer.try_start("<param>")) {
          t.self_closing = false;
        } else if (lexer.try_end()) {
          break;
        } else {
          if (!next_element(t, "params")) return false;
          if (t.kind == TokenKind::EndTag) break;
          if (t.kind != TokenKind::StartTag || t.name != "param") return unexpected(t, "<param>");
        }
        if (!param(t)) return false;
      }
    }
    call.params = Value();  // make_array overwrites: release what a reused call held
    ValueAccess::make_array(call.params, stack.data() + base, stack.size() - base);
    stack.resize(base);
    return expect_end("methodCall") && end_of_document();
  }

  // <param> (start tag consumed) <value>...</value> </param>: pushes the value.
  bool param(const Token& start) {
    if (start.self_closing) return fail(start, "<param> without a <value>");
    Token t;
    if (!expect_start(t, "<value>", "param")) return false;
    return value(t) && expect_end("param");
  }

  bool method_response(const Token& root, MethodResponse& response) {
    if (root.self_closing) return fail(root, "empty <methodResponse>");
    Token t;
    if (!next_element(t, "methodResponse")) return false;
    if (t.kind == TokenKind::StartTag && t.name == "params" && !t.self_closing) {
      if (!expect_start(t, "<param>", "params") || !param(t)) return false;
      if (!next_element(t, "params")) return false;
      if (t.kind != TokenKind::EndTag)
        return fail(t, "a methodResponse carries exactly one <param>");
      response.is_fault = false;
      response.result = std::move(stack.back());
      stack.pop_back();
    } else if (t.kind == TokenKind::StartTag && t.name == "fault" && !t.self_closing) {
      Token value_start;
      if (!expect_start(value_start, "<value>", "fault") || !value(value_start)) return false;
      if (!expect_end("fault")) return false;
      Value fault = std::move(stack.back());
      stack.pop_back();
      if (!read_fault(value_start, fault, response.fault)) return false;
      response.is_fault = true;
    } else {
      if (t.kind == TokenKind::StartTag && t.name == "params")
        return fail(t, "a methodResponse carries exactly one <param>");
      return unexpected(t, "<params> or <fault>");
    }
    return expect_end("methodResponse") && end_of_document();
  }

  bool read_fault(const Token& at, const Value& v, Fault& out) {
    if (!v.is_struct()) return fail(at, "a fault must be a struct");
    const Value* code = v.find("faultCode");
    const Value* string = v.find("faultString");
    // rtorrent sends faultCode as <i8>; Apache adds faultCause, which is ignored.
    if (!code || !code->is_integer()) return fail(at, "a fault needs an integer faultCode");
    int64_t c = code->as_i8();
    if (c < INT32_MIN || c > INT32_MAX) return fail(at, "faultCode out of the int range");
    if (!string || !string->is_string()) return fail(at, "a fault needs a string faultString");
    out.code = int32_t(c);
    out.string.assign(string->as_string());
    return true;
  }

  // ---- values ----

  // Reads a value whose <value> start tag is `start`; pushes it on `stack`. Iterative: arrays
  // and structs push a frame and continue with their first child.
  bool value(const Token& start) {
    if (start.self_closing) {
      stack.emplace_back(std::string_view());
      return true;
    }
    const size_t frame_base = frames.size();
    Token t;
    for (;;) {
      // Just after a <value> start tag.
      std::string_view text;
      Kind kind = Kind::Unknown;
      lexer.skip_space_before_element();  // indented documents
      if (fast_type_tag(t, kind)) {
        // the usual case: a type tag written plainly
      } else if (lexer.try_start_any(t)) {
        kind = classify(t.name, used_prefixed_types);
      } else {
        size_t text_offset = lexer.offset_of(lexer.position());
        bool have_text = !lexer.at_markup() && lexer.try_plain_text(text);
        if (have_text && lexer.try_end()) {  // the fast path for <value>text</value>
          t.kind = TokenKind::EndTag;
          t.offset = text_offset;
        } else if (!lexer.next(t)) {
          return false;
        }
        if (!have_text && t.kind == TokenKind::Text) {  // decoded text, or white space
          text = t.text;
          text_offset = t.offset;
          if (!lexer.next(t)) return false;
        }
        if (t.kind == TokenKind::StartTag && !all_space(text)) {
          Token at;
          at.offset = text_offset;
          return fail(at, "text '" + snippet(text) + "' beside an element in <value>");
        }
        if (t.kind == TokenKind::StartTag) kind = classify(t.name, used_prefixed_types);
      }
      if (t.kind == TokenKind::EndTag) {  // <value>text</value>: an untyped string
        if (text.size() > limits.max_string_size)
          return limit(t, "string exceeds the size limit");
        stack.emplace_back(text);
      } else {
        if (kind == Kind::Array || kind == Kind::Struct) {
          if (frames.size() - frame_base >= limits.max_depth)
            return limit(t, "nesting depth exceeds the limit of " + std::to_string(limits.max_depth));
          if (!container_start(t, kind)) return false;
        } else {
          if (!scalar(t, kind) || !expect_end("value")) return false;
        }
      }
      // A value is complete, or a container has opened: close containers as far as they end,
      // or go on with the next child.
      if (!container_next(frame_base, t)) return false;
      if (frames.size() == frame_base) return true;
    }
  }

  // The common type tags, recognised by their bytes without scanning a name.
  bool fast_type_tag(Token& t, Kind& kind) {
    const unsigned char* p = lexer.position();
    if (!lexer.at_markup() || lexer.bytes_after(p) < 2) return false;
    auto take = [&](const auto& tag, Kind k) {
      if (!lexer.try_start_here(tag)) return false;
      kind = k;
      t.name = std::string_view(tag + 1, sizeof tag - 3);
      return true;
    };
    bool found = false;
    switch (p[1]) {
      case 's': found = take("<string>", Kind::String) || take("<struct>", Kind::Struct); break;
      case 'i':
        found = take("<int>", Kind::Int) || take("<i4>", Kind::Int) || take("<i8>", Kind::I8);
        break;
      case 'd':
        found = take("<double>", Kind::Double) || take("<dateTime.iso8601>", Kind::DateTime);
        break;
      case 'a': found = take("<array>", Kind::Array); break;
      case 'b': found = take("<boolean>", Kind::Boolean) || take("<base64>", Kind::Base64); break;
      default: break;
    }
    if (!found) return false;
    t.kind = TokenKind::StartTag;
    t.self_closing = false;
    t.offset = lexer.offset_of(p);
    return true;
  }

  // After <array> or <struct>: an empty one is finished here (pushed, </value> consumed);
  // otherwise a frame is pushed for its children.
  bool container_start(const Token& start, Kind kind) {
    auto push_empty = [&]() {
      Value v;
      if (kind == Kind::Array) ValueAccess::make_array(v, nullptr, 0);
      else ValueAccess::make_struct(v, nullptr, 0);
      stack.push_back(std::move(v));
      return expect_end("value");
    };
    if (start.self_closing) return push_empty();
    if (kind == Kind::Struct) {
      frames.push_back({true, false, uint32_t(stack.size())});
      return true;
    }
    Token t;
    if (!next_element(t, "array")) return false;
    if (t.kind == TokenKind::EndTag) return push_empty();  // <array></array>
    if (t.kind != TokenKind::StartTag || t.name != "data") return unexpected(t, "<data>");
    if (t.self_closing) return expect_end("array") && push_empty();
    frames.push_back({false, false, uint32_t(stack.size())});
    return true;
  }

  // With the innermost frame's last child complete (or none yet): consumes closing tags of
  // finished containers until a new child <value> starts (left in `t`, frames above
  // frame_base) or the outermost container is done (frames back at frame_base).
  bool container_next(size_t frame_base, Token& t) {
    while (frames.size() > frame_base) {
      Frame& f = frames.back();
      if (!f.is_struct) {
        if (lexer.try_start("<value>")) return true;
        if (!lexer.try_end()) {
          if (!next_element(t, "data")) return false;
          if (t.kind == TokenKind::StartTag && t.name == "value") {
            if (!t.self_closing) return true;
            stack.emplace_back(std::string_view());
            continue;
          }
          if (t.kind != TokenKind::EndTag) return unexpected(t, "<value> or </data>");
        }
        // </data> is consumed.
        if (!expect_end("array")) return false;
        close_container(f);
        if (!expect_end("value")) return false;
        continue;
      }
      if (f.in_member) {
        if (!expect_end("member")) return false;
        f.in_member = false;
      }
      bool member = lexer.try_start("<member>");
      if (!member && !lexer.try_end()) {
        if (!next_element(t, "struct")) return false;
        if (t.kind == TokenKind::StartTag && t.name == "member") {
          if (t.self_closing) return fail(t, "empty <member>");
          member = true;
        } else if (t.kind != TokenKind::EndTag) {
          return unexpected(t, "<member> or </struct>");
        }
      }
      if (!member) {  // </struct> is consumed
        close_container(f);
        if (!expect_end("value")) return false;
        continue;
      }
      if (!expect_start(t, "<name>", "member")) return false;
      std::string_view name;
      if (!element_text(t, name)) return false;
      if (name.size() > limits.max_string_size) return limit(t, "member name exceeds the size limit");
      stack.emplace_back(name);
      f.in_member = true;
      if (!expect_start(t, "<value>", "member")) return false;
      if (!t.self_closing) return true;
      stack.emplace_back(std::string_view());
    }
    return true;
  }

  // Moves the innermost frame's children into one array or struct value.
  void close_container(const Frame& f) {
    size_t count = stack.size() - f.base;
    Value v;
    if (f.is_struct) ValueAccess::make_struct(v, stack.data() + f.base, count / 2);
    else ValueAccess::make_array(v, stack.data() + f.base, count);
    stack.resize(f.base);
    stack.push_back(std::move(v));
    frames.pop_back();
  }

  // A scalar element (start tag `t`): converts its text and pushes the value.
  bool scalar(const Token& t, Kind kind) {
    if (kind == Kind::Serializable)
      return fail(t, "<" + std::string(t.name) +
                         "> is refused: Java deserialization is unsafe (CVE-2016-5003)");
    if (kind == Kind::Unknown || kind == Kind::Array || kind == Kind::Struct)
      return fail(t, "unknown type <" + std::string(t.name) + ">");
    if (kind == Kind::Base64 && !t.self_closing && base64_unchecked()) return true;
    std::string_view raw;
    if (!element_text(t, raw)) return false;
    std::string_view text = scalar::trim(raw);
    auto invalid = [&](const char* what) {
      return fail(t, std::string("invalid ") + what + " <" + std::string(t.name) + ">" + snippet(raw) +
                         "</" + std::string(t.name) + ">");
    };
    int64_t n;
    switch (kind) {
      case Kind::String:
        if (raw.size() > limits.max_string_size) return limit(t, "string exceeds the size limit");
        stack.emplace_back(raw);
        return true;
      case Kind::Int:
        if (!scalar::parse_integer(text, INT32_MIN, INT32_MAX, n)) return invalid("32-bit integer");
        stack.emplace_back(int32_t(n));
        return true;
      case Kind::I1:
        if (!scalar::parse_integer(text, INT8_MIN, INT8_MAX, n)) return invalid("8-bit integer");
        stack.emplace_back(int32_t(n));
        return true;
      case Kind::I2:
        if (!scalar::parse_integer(text, INT16_MIN, INT16_MAX, n)) return invalid("16-bit integer");
        stack.emplace_back(int32_t(n));
        return true;
      case Kind::I8:
      case Kind::BigInteger:
        if (!scalar::parse_integer(text, INT64_MIN, INT64_MAX, n)) return invalid("64-bit integer");
        stack.push_back(Value::i8(n));
        return true;
      case Kind::Boolean:
        if (text != "0" && text != "1") return invalid("boolean (0 or 1)");
        stack.emplace_back(text == "1");
        return true;
      case Kind::Double:
      case Kind::BigDecimal: {
        double d;
        if (!scalar::parse_double(text, d)) return invalid("double");
        stack.emplace_back(d);
        return true;
      }
      case Kind::DateTime: {
        Result<DateTime> dt = DateTime::parse(text);
        if (!dt) return fail(t, dt.error().message);
        stack.emplace_back(*dt);
        return true;
      }
      case Kind::Base64:
        return base64_value(t, raw);
      case Kind::Nil:
        if (!text.empty()) return fail(t, "<nil/> must be empty");
        stack.emplace_back();
        return true;
      case Kind::Serializable:
      case Kind::Array:
      case Kind::Struct:
      case Kind::Unknown:
        break;
    }
    return false;  // not reached: refused above
  }

  // Blobs are the bulk of large documents: their text is found with one memchr and checked by
  // the decoder alone, which accepts only the alphabet, '=' and white space (all valid XML,
  // none needing decoding, CR ignored as the XML rule CR LF -> LF would leave LF). Anything
  // else (a reference, CDATA, a comment, a bad character, a size over the limit, a wrong end
  // tag) goes back to the checked path, which reads it or reports it as before.
  bool base64_unchecked() {
    const unsigned char* start = lexer.position();
    std::string_view text;
    if (!lexer.try_unchecked_text(text)) return false;
    if (!base64_too_long(text.size())) {
      Value v;
      size_t error_at = 0;
      long n = decode_base64(text, v, error_at);
      if (n >= 0 && size_t(n) <= limits.max_string_size && lexer.try_end()) {
        stack.push_back(std::move(v));
        return true;
      }
    }
    lexer.rewind(start);
    return false;
  }

  bool base64_value(const Token& t, std::string_view text) {
    if (base64_too_long(text.size())) return limit(t, "base64 exceeds the size limit");
    Value v;
    size_t error_at = 0;
    long n = decode_base64(text, v, error_at);
    if (n < 0) {
      Token at = t;
      return fail(at, error_at < text.size()
                          ? "invalid base64: unexpected character '" + snippet(text.substr(error_at, 1)) +
                                "' at offset " + std::to_string(error_at) + " of <base64>"
                          : std::string("invalid base64: the text ends mid-quantum"));
    }
    if (size_t(n) > limits.max_string_size) return limit(t, "base64 exceeds the size limit");
    stack.push_back(std::move(v));
    return true;
  }

  // Base64 text that cannot decode to max_string_size bytes or fewer (even with white space).
  bool base64_too_long(size_t n) const {
    return n > limits.max_string_size + limits.max_string_size / 3 + 4;
  }
  // Decodes `text` into the bytes value `v`: its length, or -1 with `error_at` set.
  static long decode_base64(std::string_view text, Value& v, size_t& error_at) {
    char* out = ValueAccess::make_text(v, Type::Bytes, base64::max_decoded_size(text.size()));
    long n = base64::decode(text, reinterpret_cast<unsigned char*>(out), error_at);
    if (n >= 0) ValueAccess::shrink_text(v, size_t(n));
    return n;
  }

};

// ---- Reader ----

Reader::Reader(ReaderLimits limits) : impl_(std::make_unique<ReaderImpl>(limits)) {}
Reader::~Reader() = default;
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;

const ReaderLimits& Reader::limits() const noexcept { return impl_->limits; }

Result<MethodCall> Reader::read_call(std::string_view document) {
  return impl_->run<MethodCall>(document, [](ReaderImpl& r, const Token& root, MethodCall& call) {
    if (root.name != "methodCall") return r.unexpected(root, "<methodCall>");
    return r.method_call(root, call);
  });
}

Status Reader::read_call(std::string_view document, MethodCall& call) {
  return impl_->run_into(document, call, [](ReaderImpl& r, const Token& root, MethodCall& c) {
    if (root.name != "methodCall") return r.unexpected(root, "<methodCall>");
    return r.method_call(root, c);
  });
}

bool Reader::last_used_prefixed_types() const noexcept { return impl_->used_prefixed_types; }

bool Reader::last_declared_apache_extensions() const noexcept {
  return impl_->lexer.declared_apache_extensions();
}

Result<MethodResponse> Reader::read_response(std::string_view document) {
  return impl_->run<MethodResponse>(
      document, [](ReaderImpl& r, const Token& root, MethodResponse& response) {
        if (root.name != "methodResponse") return r.unexpected(root, "<methodResponse>");
        return r.method_response(root, response);
      });
}

Result<Message> Reader::read(std::string_view document) {
  return impl_->run<Message>(document, [](ReaderImpl& r, const Token& root, Message& message) {
    if (root.name == "methodCall") {
      message.kind = Message::Kind::Call;
      return r.method_call(root, message.call);
    }
    if (root.name == "methodResponse") {
      message.kind = Message::Kind::Response;
      return r.method_response(root, message.response);
    }
    return r.unexpected(root, "<methodCall> or <methodResponse>");
  });
}

}  // namespace callwire::xml
