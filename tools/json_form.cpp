// The JSON form of XML-RPC values and messages (docs/json-form.md): a writer into std::string,
// and a reader on simdjson's On Demand API, chosen over its DOM because On Demand can say where
// in the text an error is.
#include "json_form.hpp"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "callwire/base64.hpp"

namespace callwire::json_form {

namespace {

namespace od = simdjson::ondemand;

// ---------------------------------------------------------------------------------------------
// UTF-8 and base64 (the library's, callwire/base64.hpp).

void append_base64(std::string& out, std::span<const uint8_t> in) { out += base64_encode(in); }

// The length (1..4) of the well-formed UTF-8 sequence at the start of p[0..n), or 0 when there
// is none; then `bad` is the length of its maximal subpart (Unicode §3.9, "U+FFFD Substitution of
// Maximal Subparts"), which one U+FFFD replaces.
size_t utf8_sequence(const unsigned char* p, size_t n, size_t& bad) {
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c == 0xE0) {
    need = 2, lo = 0xA0;
  } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    need = 2;
  } else if (c == 0xED) {  // no surrogates
    need = 2, hi = 0x9F;
  } else if (c == 0xF0) {
    need = 3, lo = 0x90;
  } else if (c >= 0xF1 && c <= 0xF3) {
    need = 3;
  } else if (c == 0xF4) {  // nothing above U+10FFFF
    need = 3, hi = 0x8F;
  } else {
    bad = 1;
    return 0;
  }
  size_t i = 1;
  for (; i <= need && i < n; ++i) {
    if (p[i] < lo || p[i] > hi) break;
    lo = 0x80, hi = 0xBF;
  }
  if (i == need + 1) return i;
  bad = i;
  return 0;
}

// The offset of the first byte that is not valid UTF-8, or npos.
size_t first_invalid_utf8(std::string_view s) {
  auto p = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0, bad = 0; i < s.size();) {
    size_t len = utf8_sequence(p + i, s.size() - i, bad);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

// ---------------------------------------------------------------------------------------------
// Writing.

bool is_tag_like(std::string_view name) { return !name.empty() && name[0] == '$'; }

class JsonWriter {
 public:
  explicit JsonWriter(Style style) : pretty_(style == Style::Pretty) {}

  std::string take() { return std::move(out_); }

  void message(const Message& m) {
    if (m.kind == Message::Kind::Call) {
      begin('{');
      key("methodName");
      string(m.call.method_name);
      next();
      key("params");
      value(m.call.params);
      end('}');
    } else if (!m.response.is_fault) {
      begin('{');
      key("result");
      value(m.response.result);
      end('}');
    } else {
      begin('{');
      key("fault");
      begin('{');
      key("faultCode");
      integer(m.response.fault.code);
      next();
      key("faultString");
      string(m.response.fault.string);
      end('}');
      end('}');
    }
  }

  void value(const Value& v) {
    switch (v.type()) {
      case Type::Nil:
        out_ += "null";
        break;
      case Type::Boolean:
        out_ += v.as_bool() ? "true" : "false";
        break;
      case Type::Int:
        integer(v.as_int());
        break;
      case Type::I8:
        open_tag("$i8");
        integer(v.as_i8());
        out_ += '}';
        break;
      case Type::Double:
        // A bare number where JSON holds it exactly (always with a fraction or an exponent,
        // which is what makes it read back as a double); only NaN and the infinities, which
        // JSON has no numbers for, keep the tag.
        if (std::isfinite(v.as_double())) {
          real(v.as_double());
        } else {
          open_tag("$double");
          real(v.as_double());
          out_ += '}';
        }
        break;
      case Type::String:
        string(v.as_string());
        break;
      case Type::DateTime:
        open_tag("$dateTime");
        string(v.as_datetime().to_string());
        out_ += '}';
        break;
      case Type::Bytes:
        open_tag("$base64");
        out_ += '"';
        append_base64(out_, v.as_bytes());  // one line, padded
        out_ += '"';
        out_ += '}';
        break;
      case Type::Array:
        array(v.as_array());
        break;
      case Type::Struct:
        structure(v.members());
        break;
    }
  }

 private:
  void array(std::span<const Value> items) {
    if (items.empty()) {
      out_ += "[]";
      return;
    }
    begin('[');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) next();
      value(items[i]);
    }
    end(']');
  }

  void structure(std::span<const Member> members) {
    // A lone '$' member would read back as a tagged scalar (or an unknown tag): wrap it.
    bool wrap = members.size() == 1 && is_tag_like(members[0].name());
    if (wrap) {
      begin('{');
      key("$struct");
    }
    if (members.empty()) {
      out_ += "{}";
    } else {
      begin('{');
      for (size_t i = 0; i < members.size(); ++i) {
        if (i) next();
        key(members[i].name());
        value(members[i].value());
      }
      end('}');
    }
    if (wrap) end('}');
  }

  // Containers: in pretty mode each item starts a line one level deeper.
  void begin(char c) {
    out_ += c;
    ++depth_;
    newline();
  }
  void next() {
    out_ += ',';
    newline();
  }
  void end(char c) {
    --depth_;
    newline();
    out_ += c;
  }
  void newline() {
    if (!pretty_) return;
    out_ += '\n';
    out_.append(size_t(depth_) * 2, ' ');
  }
  void key(std::string_view name) {
    string(name);
    out_ += pretty_ ? ": " : ":";
  }
  // A tagged scalar stays on one line even when pretty.
  void open_tag(std::string_view tag) {
    out_ += '{';
    key(tag);
  }

  void integer(int64_t n) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, n);
    out_.append(buf, r.ptr);
  }

  void real(double d) {
    // JSON has no NaN or infinity; XML-RPC cannot carry them either, so these strings are
    // output-only (the reader refuses them) and only a Value built in code can hold them.
    if (std::isnan(d)) {
      out_ += "\"NaN\"";
    } else if (std::isinf(d)) {
      out_ += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    } else {
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof buf, d);  // the shortest text that round-trips
      out_.append(buf, r.ptr);
      // "42" would read back as an int: a double always shows a fraction or an exponent.
      if (std::string_view(buf, size_t(r.ptr - buf)).find_first_of(".e") == std::string_view::npos)
        out_ += ".0";
    }
  }

  // RFC 8259 escaping. Bytes that are not UTF-8 (a Value's string may hold any) become U+FFFD,
  // one per maximal subpart, so the output is always valid JSON; that is lossy, and documented.
  void string(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    auto p = reinterpret_cast<const unsigned char*>(s.data());
    out_ += '"';
    size_t i = 0, n = s.size();
    while (i < n) {
      unsigned char c = p[i];
      if (c >= 0x80) {
        size_t bad = 0, len = utf8_sequence(p + i, n - i, bad);
        if (len) {
          out_.append(s.data() + i, len);
          i += len;
        } else {
          out_ += "\xEF\xBF\xBD";
          i += bad;
        }
        continue;
      }
      ++i;
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\b':
          out_ += "\\b";
          break;
        case '\f':
          out_ += "\\f";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (c < 0x20) {
            out_ += "\\u00";
            out_ += kHex[c >> 4];
            out_ += kHex[c & 15];
          } else {
            out_ += char(c);
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  int depth_ = 0;
  bool pretty_;
};

// ---------------------------------------------------------------------------------------------
// Reading. Every failure is Errc::InvalidArgument; the fault code says which kind: -32700 when
// the text is not JSON at all, -32600 when it is JSON but not the JSON form.

const char* json_type_name(od::json_type t) {
  switch (t) {
    case od::json_type::array:
      return "an array";
    case od::json_type::object:
      return "an object";
    case od::json_type::number:
      return "a number";
    case od::json_type::string:
      return "a string";
    case od::json_type::boolean:
      return "a boolean";
    case od::json_type::null:
      return "null";
  }
  return "something";
}

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_json_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view raw_token(od::value& v) { return trim(v.raw_json_token()); }
std::string_view raw_token(od::document& d) {
  std::string_view s;
  if (d.raw_json_token().get(s)) return {};
  return trim(s);
}

// A piece of the input for a message, cut short if long.
std::string clip(std::string_view s) {
  constexpr size_t kMax = 40;
  return s.size() > kMax ? std::string(s.substr(0, kMax)) + "..." : std::string(s);
}
std::string quote(std::string_view s) { return '"' + clip(s) + '"'; }

// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view s) {
  size_t i = 0, n = s.size();
  auto digits = [&] {
    size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < n && s[i] == '-') ++i;
  if (i < n && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < n && s[i] == '.' && (++i, !digits())) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

// Where the array or object that `text` starts with ends, or npos if it never closes. Only
// brackets outside strings count; simdjson has already checked the rest of the syntax.
size_t end_of_container(std::string_view text) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0 && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Far deeper than any XML-RPC reader allows (64 by default), shallow enough for the stack, and
// below the On Demand parser's own maximum (1024, checked only in its debug builds).
constexpr int kMaxDepth = 1000;

constexpr int32_t kNotJson = fault_code::kParseError;
constexpr int32_t kNotForm = fault_code::kInvalidXmlRpc;

class JsonReader {
 public:
  explicit JsonReader(std::string_view json) {
    // RFC 8259 lets a parser ignore a byte order mark; editors on some systems add one.
    if (json.substr(0, 3) == "\xEF\xBB\xBF") {
      json.remove_prefix(3);
      skipped_ = 3;
    }
    input_ = simdjson::padded_string(json);
  }

  Result<Value> read_value() {
    Value out;
    if (!start() || !value(doc_, out) || !finish()) return std::move(error_);
    return out;
  }

  Result<Message> read_message() {
    Message out;
    if (!start() || !message(out) || !finish()) return std::move(error_);
    return out;
  }

 private:
  bool start() {
    if (auto e = parser_.iterate(input_).get(doc_)) return syntax(e);
    started_ = true;
    return true;
  }

  // Once the root value is read, a location still in the text means more text follows.
  bool finish() {
    const char* at;
    if (!doc_.current_location().get(at)) {
      return syntax(simdjson::TRAILING_CONTENT, {}, size_t(at - input_.data()));
    }
    return true;
  }

  // ---- messages

  bool message(Message& out) {
    od::json_type type;
    if (auto e = doc_.type().get(type)) return syntax(e);
    if (type != od::json_type::object)
      return form(std::string("a message must be an object, not ") + json_type_name(type));
    od::object obj;
    if (auto e = doc_.get_object().get(obj)) return syntax(e);
    bool has_name = false, has_params = false, has_result = false, has_fault = false;
    for (auto field_result : obj) {
      od::field field;
      std::string_view key;
      if (auto e = std::move(field_result).get(field)) return syntax(e);
      if (auto e = field.unescaped_key().get(key)) return syntax(e);
      size_t mark = push_key(key);
      od::value& v = field.value();
      if (key == "methodName") {
        std::string_view name;
        if (!expect(v, od::json_type::string, "methodName")) return false;
        if (auto e = v.get_string().get(name)) return syntax(e);
        out.call.method_name.assign(name);
        has_name = true;
      } else if (key == "params") {
        if (!expect(v, od::json_type::array, "params")) return false;
        Value params;
        if (!value(v, params)) return false;
        out.call.params = std::move(params);
        has_params = true;
      } else if (key == "result") {
        if (!value(v, out.response.result)) return false;
        has_result = true;
      } else if (key == "fault") {
        if (!fault(v, out.response.fault)) return false;
        has_fault = true;
      } else {
        pop(mark);
        return form("unknown member " + quote(key) +
                    ": a message is {\"methodName\": ..., \"params\": [...]}, {\"result\": ...} or "
                    "{\"fault\": {...}}");
      }
      pop(mark);
    }
    int kinds = int(has_name) + int(has_result) + int(has_fault);
    if (has_params && !has_name) return form("\"params\" without \"methodName\"");
    if (kinds == 0)
      return form("a message needs \"methodName\" (a call), \"result\" or \"fault\" (a response)");
    if (kinds > 1)
      return form("a message is one of a call (\"methodName\"), a result or a fault, not several");
    if (has_name) {
      out.kind = Message::Kind::Call;  // no "params" means none, as in XML-RPC
    } else {
      out.kind = Message::Kind::Response;
      out.response.is_fault = has_fault;
    }
    return true;
  }

  bool fault(od::value& v, Fault& out) {
    if (!expect(v, od::json_type::object, "fault")) return false;
    od::object obj;
    if (auto e = v.get_object().get(obj)) return syntax(e);
    bool has_code = false, has_string = false;
    for (auto field_result : obj) {
      od::field field;
      std::string_view key;
      if (auto e = std::move(field_result).get(field)) return syntax(e);
      if (auto e = field.unescaped_key().get(key)) return syntax(e);
      size_t mark = push_key(key);
      od::value& fv = field.value();
      if (key == "faultCode") {
        if (!expect(fv, od::json_type::number, "faultCode")) return false;
        token_ = raw_token(fv);
        std::string bad = "faultCode must be a 32-bit integer, not " + tok();
        od::number_type nt;
        int64_t code = 0;
        if (auto e = fv.get_number_type().get(nt)) return number_error(e, bad);
        if (nt == od::number_type::signed_integer) {
          if (auto e = fv.get_int64().get(code)) return number_error(e, bad);
        }
        if (nt != od::number_type::signed_integer || code < INT32_MIN || code > INT32_MAX)
          return form(bad);
        out.code = int32_t(code);
        has_code = true;
      } else if (key == "faultString") {
        std::string_view s;
        if (!expect(fv, od::json_type::string, "faultString")) return false;
        if (auto e = fv.get_string().get(s)) return syntax(e);
        out.string.assign(s);
        has_string = true;
      } else {
        pop(mark);
        return form("unknown member " + quote(key) +
                    ": a fault has exactly \"faultCode\" and \"faultString\"");
      }
      pop(mark);
    }
    if (!has_code || !has_string)
      return form(std::string("a fault needs \"") + (has_code ? "faultString" : "faultCode") +
                  "\"");
    return true;
  }

  // ---- values

  // V is od::value, or od::document for the root (its scalars have no od::value).
  template <class V>
  bool value(V& v, Value& out) {
    od::json_type type;
    if (auto e = v.type().get(type)) return syntax(e);
    if (type == od::json_type::array || type == od::json_type::object) {
      if (!enter()) return false;
      bool ok = container(v, type, out);
      --depth_;
      return ok;
    }
    switch (type) {
      case od::json_type::null: {
        bool is_null;
        if (auto e = v.is_null().get(is_null)) return syntax(e);
        if (!is_null) return syntax(simdjson::N_ATOM_ERROR);
        out = Value();
        return true;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto e = v.get_bool().get(b)) return syntax(e);
        out = Value(b);
        return true;
      }
      case od::json_type::number:
        return bare_number(v, out);
      case od::json_type::string: {
        std::string_view s;
        if (auto e = v.get_string().get(s)) return syntax(e);
        out = Value(s);
        return true;
      }
      default:
        break;
    }
    return syntax(simdjson::INCORRECT_TYPE);
  }

  template <class V>
  bool container(V& v, od::json_type type, Value& out) {
    switch (type) {
      case od::json_type::array: {
        od::array arr;
        if (auto e = v.get_array().get(arr)) return syntax(e);
        out = Value::array();
        size_t index = 0;
        for (auto item_result : arr) {
          od::value item;
          if (auto e = item_result.get(item)) return syntax(e);
          size_t mark = push_index(index++);
          Value element;
          if (!value(item, element)) return false;
          out.push_back(std::move(element));
          pop(mark);
        }
        return true;
      }
      case od::json_type::object: {
        od::object obj;
        if (auto e = v.get_object().get(obj)) return syntax(e);
        return object(obj, out);
      }
      default:
        return syntax(simdjson::INCORRECT_TYPE);
    }
  }

  // An object is a struct, unless it has one member whose name begins with '$': a tag.
  bool object(od::object& obj, Value& out) {
    // Peek at the first name raw. Unescaping it here and again below would overrun simdjson's
    // string buffer, which has room for each string of the document once.
    bool may_be_tag = false;
    for (auto field_result : obj) {
      od::field field;
      if (auto e = std::move(field_result).get(field)) return syntax(e);
      char first = field.key().raw()[0];
      may_be_tag = first == '$' || first == '\\';  // "\u0024" is a '$' too
      break;
    }
    if (auto e = obj.reset().error()) return syntax(e);
    if (may_be_tag) {
      // Counting walks the whole object, so only objects that may be tags pay for it.
      // TODO(perf): a chain of nested '$' objects makes this quadratic in the depth.
      size_t count;
      if (auto e = obj.count_fields().get(count)) return syntax(e);  // resets the object
      return members(obj, out, count == 1);
    }
    return members(obj, out, false);
  }

  // The members of a struct. With `lone`, the object has one member, a tag if its name begins
  // with '$'. Each name is unescaped exactly once (see object()).
  bool members(od::object& obj, Value& out, bool lone) {
    out = Value::structure();
    for (auto field_result : obj) {
      od::field field;
      std::string_view key;
      if (auto e = std::move(field_result).get(field)) return syntax(e);
      if (auto e = field.unescaped_key().get(key)) return syntax(e);
      // Views into the parser's string buffer live as long as the document.
      size_t mark = push_key(key);
      if (lone && is_tag_like(key)) {
        if (!tagged(key, field.value(), out)) return false;
      } else {
        Value member;
        if (!value(field.value(), member)) return false;
        out.set(key, std::move(member));  // a repeated name: the last value wins
      }
      pop(mark);
    }
    return true;
  }

  bool tagged(std::string_view tag, od::value& v, Value& out) {
    if (tag == "$i8") {
      if (!expect(v, od::json_type::number, "$i8")) return false;
      token_ = raw_token(v);
      od::number_type nt;
      if (auto e = v.get_number_type().get(nt)) return number_error(e, {});
      std::string range = "$i8 " + tok() + " is out of the 64-bit range";
      if (nt == od::number_type::floating_point_number)
        return form("$i8 takes a JSON integer, not " + tok());
      if (nt == od::number_type::unsigned_integer) return form(range);
      int64_t n;
      if (auto e = v.get_int64().get(n)) return number_error(e, range);
      out = Value::i8(n);
      return true;
    }
    if (tag == "$double") {
      if (!expect(v, od::json_type::number, "$double")) return false;
      token_ = raw_token(v);
      double d;
      if (auto e = v.get_double().get(d))
        return number_error(e, "$double " + tok() + " is out of the range of a double");
      out = Value(d);
      return true;
    }
    if (tag == "$dateTime") {
      if (!expect(v, od::json_type::string, "$dateTime")) return false;
      std::string_view s;
      if (auto e = v.get_string().get(s)) return syntax(e);
      auto dt = DateTime::parse(s);
      if (!dt) return form("$dateTime: " + dt.error().message);
      out = Value(*dt);
      return true;
    }
    if (tag == "$base64") {
      if (!expect(v, od::json_type::string, "$base64")) return false;
      std::string_view s;
      if (auto e = v.get_string().get(s)) return syntax(e);
      Result<std::vector<uint8_t>> bytes = base64_decode(s);
      if (!bytes) return form("$base64: " + bytes.error().message);
      out = Value::bytes(bytes->data(), bytes->size());
      return true;
    }
    if (tag == "$struct") {
      if (!expect(v, od::json_type::object, "$struct")) return false;
      od::object obj;
      if (!enter()) return false;  // the wrapped object is one level deeper
      if (auto e = v.get_object().get(obj)) return syntax(e);
      bool ok = members(obj, out, false);
      --depth_;
      return ok;
    }
    return form("unknown tag " + quote(tag) +
                ": the tags are $i8, $double, $dateTime, $base64 and $struct; write a struct whose "
                "one member's name begins with '$' as {\"$struct\": {...}}");
  }

  // A number outside any tag: an int when it is an integer in int32 range, a double when it has
  // a fraction or an exponent; any other integer is refused rather than silently widened.
  template <class V>
  bool bare_number(V& v, Value& out) {
    token_ = raw_token(v);
    od::number_type nt;
    if (auto e = v.get_number_type().get(nt)) return number_error(e, {});
    if (nt == od::number_type::floating_point_number) {
      double d;
      if (auto e = v.get_double().get(d))
        return number_error(e, "number " + tok() + " is out of the range of a double");
      out = Value(d);
      return true;
    }
    std::string too_big =
        "integer " + tok() +
        " is out of the 64-bit range of an XML-RPC i8; write {\"$double\": " + tok() +
        "} for a double";
    if (nt == od::number_type::unsigned_integer) return form(too_big);
    int64_t n;
    if (auto e = v.get_int64().get(n)) return number_error(e, too_big);
    if (n < INT32_MIN || n > INT32_MAX) {
      return form("integer " + tok() + " is out of the 32-bit range of an XML-RPC int; write " +
                  "{\"$i8\": " + tok() + "} for a 64-bit integer");
    }
    out = Value(int32_t(n));
    return true;
  }

  std::string tok() const { return clip(token_); }

  // simdjson says NUMBER_ERROR both for `01`, which is not JSON, and for `1e400`, which is JSON
  // out of range (and INCORRECT_TYPE for an integer below INT64_MIN): the grammar tells them
  // apart.
  bool number_error(simdjson::error_code e, std::string_view out_of_range) {
    bool range = e == simdjson::NUMBER_ERROR || e == simdjson::NUMBER_OUT_OF_RANGE ||
                 e == simdjson::INCORRECT_TYPE;
    if (range && is_json_number(token_)) return form(std::string(out_of_range));
    return syntax(e, range ? "invalid number " + quote(token_) : std::string());
  }

  // On Demand reads as deep as the text goes; the recursion here must not follow it.
  bool enter() {
    if (depth_ == kMaxDepth)
      return form("arrays and objects nested deeper than " + std::to_string(kMaxDepth));
    ++depth_;
    return true;
  }

  // Checks the JSON type of `v`; an error names what was found.
  bool expect(od::value& v, od::json_type want, std::string_view what) {
    od::json_type type;
    if (auto e = v.type().get(type)) return syntax(e);
    if (type == want) return true;
    return form(std::string(what) + " must be " + json_type_name(want) + ", not " +
                json_type_name(type));
  }

  // ---- where we are: a JSON Pointer (RFC 6901) for messages

  size_t push_key(std::string_view key) {
    size_t mark = path_.size();
    path_ += '/';
    for (char c : key) {
      if (c == '~') {
        path_ += "~0";
      } else if (c == '/') {
        path_ += "~1";
      } else {
        path_ += c;
      }
    }
    return mark;
  }
  size_t push_index(size_t index) {
    size_t mark = path_.size();
    path_ += '/';
    path_ += std::to_string(index);
    return mark;
  }
  void pop(size_t mark) { path_.resize(mark); }

  std::string where() const {
    if (path_.empty()) return "";
    constexpr size_t kMax = 200;
    std::string p = path_.size() > kMax ? path_.substr(0, kMax) + "..." : path_;
    return " (at " + p + ")";
  }

  // The line and column (1-based, in bytes) of a position in the input.
  std::string line_column(size_t offset) const {
    std::string_view text(input_.data(), input_.size());
    offset = std::min(offset, text.size());
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') ++line, line_start = i + 1;
    }
    size_t column = offset - line_start + 1 + (line == 1 ? skipped_ : 0);
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
  }

  // What is at `offset`, for a syntax error.
  std::string found(size_t offset) const {
    if (offset >= input_.size()) return "the end of the input";
    unsigned char c = static_cast<unsigned char>(input_.data()[offset]);
    if (c >= 0x21 && c < 0x7f) return std::string("'") + char(c) + "'";
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') return "white space";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
    return buf;
  }

  // The text is not JSON.
  bool syntax(simdjson::error_code e, std::string what = {},
              size_t offset = std::string_view::npos) {
    std::string msg = "invalid JSON";
    std::string_view text(input_.data(), input_.size());
    if (e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
      // simdjson says this too when a complete array or object is followed by more text.
      size_t end = end_of_container(text);
      while (end < text.size() && is_json_space(text[end])) ++end;
      if (end < text.size()) {
        e = simdjson::TRAILING_CONTENT;
        offset = end;
      } else {
        what = "the input ends inside an array or object";
        offset = text.size();
      }
    } else if (e == simdjson::UTF8_ERROR) {
      offset = first_invalid_utf8(text);
    } else if (started_ && offset == std::string_view::npos) {  // no start, no location
      const char* at = nullptr;
      if (!doc_.current_location().get(at)) offset = size_t(at - input_.data());
    }
    if (offset != std::string_view::npos) msg += " at " + line_column(offset);
    msg += ": ";
    if (e == simdjson::EMPTY) {
      msg += "no JSON value in the input";
    } else if (e == simdjson::TRAILING_CONTENT) {
      msg += "more text after the JSON value";
    } else if (!what.empty()) {
      msg += what;
    } else if (e == simdjson::TAPE_ERROR) {
      msg += "a comma, colon, bracket or brace is missing or out of place";
    } else if (e == simdjson::INCORRECT_TYPE) {
      // The reader checks types before it asks for them: this is the parser meeting a token
      // where no value can start (`[1,]`, `tru`).
      msg += "expected a value";
    } else {
      // simdjson's sentences, fitted into ours.
      std::string_view sentence = simdjson::error_message(e);
      if (!sentence.empty() && sentence.back() == '.') sentence.remove_suffix(1);
      size_t at = msg.size();
      msg += sentence;
      if (at < msg.size() && msg[at] >= 'A' && msg[at] <= 'Z') msg[at] = char(msg[at] - 'A' + 'a');
    }
    if (offset != std::string_view::npos && what.empty() && e != simdjson::UTF8_ERROR)
      msg += ", found " + found(offset);
    msg += where();
    error_ = Error(Errc::InvalidArgument, kNotJson, std::move(msg));
    return false;
  }

  // The text is JSON, but not the JSON form.
  bool form(std::string what) {
    error_ = Error(Errc::InvalidArgument, kNotForm, "not the JSON form: " + what + where());
    return false;
  }

  simdjson::padded_string input_;
  size_t skipped_ = 0;  // bytes of a byte order mark left out of input_
  od::parser parser_;
  od::document doc_;
  bool started_ = false;
  int depth_ = 0;
  std::string path_;
  std::string_view token_;  // the text of the number being read (in input_), for messages
  Error error_;
};

}  // namespace

std::string to_json(const Value& value) { return to_json(value, Style::Compact); }
std::string to_json(const Message& message) { return to_json(message, Style::Compact); }

std::string to_json(const Value& value, Style style) {
  JsonWriter w(style);
  w.value(value);
  return w.take();
}

std::string to_json(const Message& message, Style style) {
  JsonWriter w(style);
  w.message(message);
  return w.take();
}

Result<Value> value_from_json(std::string_view json) { return JsonReader(json).read_value(); }

Result<Message> message_from_json(std::string_view json) { return JsonReader(json).read_message(); }

}  // namespace callwire::json_form
