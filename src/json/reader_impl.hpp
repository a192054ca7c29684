// Internal: the JSON-RPC reader's walk, shared by reader.cpp (documents into Values) and
// result_reader.cpp (a response's result straight into a ValueSink). Only src/json includes it.
//
// The JSON-RPC reader: simdjson's On Demand API walked straight into Values. On Demand is
// chosen over its DOM because it reads numbers lazily: an integer beyond 64 bits (which the
// DOM refuses with the whole document) is then one request's invalid params, and the request's
// id can still be read and answered.
//
// Every value of the document is walked, members the protocol ignores included: On Demand only
// checks what is read, and a document with a bad atom anywhere must be a parse error. Two kinds
// of failure: `hard` ones end the document (invalid JSON, a limit), `soft` ones (a repeated
// member name, a number no Value holds) belong to the request they are in, so the walk goes on
// with a nil in the value's place.
#pragma once

#include <simdjson.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "base/literal.hpp"
#include "base/read_double.hpp"
#include "callwire/json.hpp"
#include "callwire/value_reader.hpp"
#include "value/value_build.hpp"

namespace callwire::json {

namespace od = simdjson::ondemand;

namespace reading {

inline constexpr int32_t kInvalidRequest = fault_code::kInvalidXmlRpc;

inline std::string_view trim_right(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

using base::is_literal;

enum class Number : uint8_t { Invalid, Integer, Float };

// JSON's number grammar, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, checked on `s`. For
// an integer, `fits` says whether it is within int64 and `n` holds it then. For a float,
// `exact` says whether `d` holds its magnitude, read in one exact operation (the usual few
// digits and decimals: exact_decimal); else the caller reads it the general way.
inline Number scan_number(std::string_view s, int64_t& n, bool& fits, double& d, bool& exact) {
  const char* p = s.data();
  const char* end = p + s.size();
  bool negative = p < end && *p == '-';
  if (negative) ++p;
  if (p == end || *p < '0' || *p > '9') return Number::Invalid;
  uint64_t magnitude = 0;
  fits = true;
  const char* first = p;
  if (*p == '0') {
    ++p;
  } else {
    // Up to 19 digits cannot overflow 64 bits: no test per digit; more are beyond int64.
    for (unsigned digit; p < end && (digit = unsigned(static_cast<unsigned char>(*p)) - '0') <= 9;
         ++p)
      magnitude = magnitude * 10 + digit;
    if (p - first > 19) fits = false;
  }
  size_t digit_count = size_t(p - first);
  int64_t scale = 0;
  bool fraction = false, exponent = false;
  if (p < end && *p == '.') {
    fraction = true;
    const char* start = ++p;
    for (unsigned digit; p < end && (digit = unsigned(static_cast<unsigned char>(*p)) - '0') <= 9;
         ++p)
      if (++digit_count <= 19) magnitude = magnitude * 10 + digit;
    if (p == start) return Number::Invalid;
    scale = -int64_t(p - start);
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    exponent = true;
    ++p;
    bool exponent_negative = false;
    if (p < end && (*p == '+' || *p == '-')) exponent_negative = *p++ == '-';
    const char* start = p;
    int64_t e = 0;
    for (; p < end && *p >= '0' && *p <= '9'; ++p)
      if (e < 100000) e = e * 10 + (*p - '0');
    if (p == start) return Number::Invalid;
    scale += exponent_negative ? -e : e;
  }
  if (p != end) return Number::Invalid;
  if (fraction || exponent) {
    exact = digit_count <= 19 && exact_decimal(magnitude, scale, d);
    return Number::Float;
  }
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  if (fits && (negative ? magnitude > kLimit : magnitude >= kLimit)) fits = false;
  if (fits) n = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
  return Number::Integer;
}
// The same where only the grammar and integers matter.
inline Number scan_number(std::string_view s, int64_t& n, bool& fits) {
  double d;
  bool exact;
  return scan_number(s, n, fits, d, exact);
}

// The values waiting for their array or struct. A Value is trivially relocatable
// (value_build.hpp), so the stack grows with realloc; and make_array / make_struct leave the
// values they take nil, so a closed container's are dropped without running destructors
// (std::vector's resize ran them one by one: 2% of a read of many small structs).
class ValueStack {
 public:
  ValueStack() = default;
  ValueStack(const ValueStack&) = delete;
  ValueStack& operator=(const ValueStack&) = delete;
  ~ValueStack() {
    clear();
    std::free(items_);
  }

  size_t size() const noexcept { return size_; }
  Value* at(size_t i) noexcept { return items_ + i; }
  // A new nil slot on top.
  Value& push() {
    if (size_ == capacity_) grow();
    return *new (items_ + size_++) Value();
  }
  // The top value, taken off.
  Value pop() noexcept { return std::move(items_[--size_]); }
  // Drops the values from `n` on, all nil (taken by make_array or make_struct).
  void drop_nil(size_t n) noexcept { size_ = n; }
  void clear() noexcept {
    while (size_ > 0) items_[--size_].~Value();
  }

 private:
  void grow() {
    size_t capacity = capacity_ ? 2 * capacity_ : 256;
    void* items = std::realloc(static_cast<void*>(items_), capacity * sizeof(Value));
    if (!items) throw std::bad_alloc();
    items_ = static_cast<Value*>(items);
    capacity_ = capacity;
  }

  Value* items_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Where each of a request's four members stands while it is read.
struct Seen {
  bool jsonrpc = false, method = false, params = false, id = false;
};

}  // namespace reading

using namespace reading;  // NOLINT: the walk's own helpers, in src/json only

struct ReaderImpl {
  explicit ReaderImpl(JsonLimits l) : limits(l) {
    if (limits.max_depth > JsonLimits::kMaxDepth) limits.max_depth = JsonLimits::kMaxDepth;
  }

  JsonLimits limits;
  od::parser parser;
  od::document doc;
  std::unique_ptr<char[]> padded;  // read_request's copy of the document
  size_t padded_capacity = 0;
  std::string_view input;  // the document being read
  ValueStack stack;
  bool started = false;  // simdjson has the document (a location can be asked for)
  size_t elements = 0;
  uint32_t depth = 0;
  Error hard;  // ends the document
  Error soft;  // the first one in the request being read

  // ---- failures

  bool syntax(simdjson::error_code e) {
    std::string msg = "invalid JSON";
    const char* at = nullptr;
    if (started && !doc.current_location().get(at) && at >= input.data() &&
        at <= input.data() + input.size())
      msg += " near byte " + std::to_string(at - input.data());
    msg += ": ";
    msg += simdjson::error_message(e);
    hard = Error(Errc::NotWellFormed, fault_code::kParseError, std::move(msg));
    return false;
  }
  bool limit(std::string msg) {
    hard = Error(Errc::LimitExceeded, kInvalidRequest, std::move(msg));
    return false;
  }
  void soft_error(Errc code, int32_t fault, std::string msg) {
    if (soft.code == Errc::Ok) soft = Error(code, fault, std::move(msg));
  }

  // Run for every element and string: the checks inline, their messages out of line (built
  // with std::to_string, they kept the checks themselves from inlining: about 9% of a read).
  bool count_element() {
    if (++elements > limits.max_elements) [[unlikely]]
      return too_many_elements();
    return true;
  }
  bool check_string(std::string_view s) {
    if (s.size() > limits.max_string_size) [[unlikely]]
      return string_too_long(s.size());
    return true;
  }
  [[gnu::cold, gnu::noinline]] bool too_many_elements() {
    return limit("more than " + std::to_string(limits.max_elements) +
                 " array elements and object members in the document (max_elements)");
  }
  [[gnu::cold, gnu::noinline]] bool string_too_long(size_t size) {
    // Worded as the XML reader words it: the limit's name and value.
    return limit("a string of " + std::to_string(size) + " bytes exceeds max_string_size (" +
                 std::to_string(limits.max_string_size) + " bytes)");
  }

  // ---- values. V is od::value, or od::document at the root (its scalars have no od::value).

  template <class V>
  static std::string_view raw_token(V& v) {
    std::string_view s;
    if constexpr (std::is_same_v<V, od::document>) {
      if (v.raw_json_token().get(s)) return {};
    } else {
      s = v.raw_json_token();
    }
    return trim_right(s);
  }

  // One value into `out`, which is released first.
  template <class V>
  bool value(V& v, Value& out) {
    od::json_type type;
    if (auto e = v.type().get(type)) {
      out = Value();
      return syntax(e);
    }
    return value(v, type, out);
  }
  // The same where its JSON type was asked for already (a typed read peeks first).
  template <class V>
  bool value(V& v, od::json_type type, Value& out) {
    out = Value();
    if (type != od::json_type::array && type != od::json_type::object) return scalar(v, type, out);
    if (!nested(v, type)) return false;
    out = stack.pop();
    return true;
  }

  // One array or object deeper, within max_depth: every walk's way in (--depth on the way out).
  bool go_deeper() {
    if (depth == limits.max_depth)
      return limit("arrays and objects nested deeper than " + std::to_string(limits.max_depth) +
                   " (max_depth)");
    ++depth;
    return true;
  }

  // An array or object below the current depth, onto the stack.
  template <class V>
  bool nested(V& v, od::json_type type) {
    if (!go_deeper()) return false;
    bool ok = container(v, type);
    --depth;
    return ok;
  }

  // `null`, `true` or `false`, read from the text as numbers are: `nul` or `truex` are not
  // JSON. Both walks (building and skipping) take it from here.
  enum class Atom : uint8_t { Null, True, False, Bad };
  template <class V>
  static Atom atom(V& v) {
    std::string_view text = raw_token(v);
    if (is_literal(text, "null")) return Atom::Null;
    if (is_literal(text, "true")) return Atom::True;
    if (is_literal(text, "false")) return Atom::False;
    return Atom::Bad;
  }

  // Anything but an array or object, written straight into `out` (nil, or a scalar).
  template <class V>
  bool scalar(V& v, od::json_type type, Value& out) {
    switch (type) {
      case od::json_type::null:
      case od::json_type::boolean: {
        Atom a = atom(v);
        if (a == Atom::Bad) return syntax(simdjson::T_ATOM_ERROR);
        if (a != Atom::Null) ValueAccess::set_bool(out, a == Atom::True);  // else nil already
        return true;
      }
      case od::json_type::number:
        return number(v, out);
      case od::json_type::string:
        return string(v, out);
      default:
        break;
    }
    return syntax(simdjson::INCORRECT_TYPE);
  }

  // A string copied once, from the input into its Value, when it has no escapes (most
  // strings): the bytes between its quotes are then the string, and stage 1 has checked their
  // UTF-8 and that no control character is in them. Else unescaped by simdjson, then copied.
  template <class V>
  bool string(V& v, Value& out) {
    std::string_view s;
    if (!string_text(v, s)) return false;
    set_string(out, s);
    return true;
  }

  // A string's text, unescaped, checked against the limit; valid while the document is read.
  // Inlined wherever strings are read (a call per string cost a typed read 2%).
  template <class V>
  [[gnu::always_inline]] bool string_text(V& v, std::string_view& s) {
    std::string_view token = raw_token(v);
    if (token.size() >= 2 && token.back() == '"' &&
        !std::memchr(token.data() + 1, '\\', token.size() - 2)) {
      // Consumed all the same, without unescaping: a string left for simdjson to skip is taken
      // for a member name when a ':' follows it, and what follows is skipped unchecked
      // (`[1,"":2}]` would read as [1,""]).
      if (auto e = v.get_raw_json_string().error()) return syntax(e);
      s = std::string_view(token.data() + 1, token.size() - 2);  // size >= 2: no check
    } else if (auto e = v.get_string().get(s)) {
      return syntax(e);
    }
    return check_string(s);
  }

  // `s` into `out`, a nil Value.
  static void set_string(Value& out, std::string_view s) {
    ValueAccess::set_text(out, Type::String, s);
  }

  // A member name: straight from the input when it has no escapes, as strings are.
  bool key(od::field& field, std::string_view& out) {
    const char* raw = field.key().raw();
    const char* p = raw;
    while (*p != '"' && *p != '\\') ++p;
    if (*p == '"') {
      out = std::string_view(raw, size_t(p - raw));
      return true;
    }
    if (auto e = field.unescaped_key().get(out)) return syntax(e);
    return true;
  }

  template <class V>
  bool number(V& v, Value& out) {
    std::string_view text = raw_token(v);
    int64_t n = 0;
    bool fits = false, exact = false;
    double d = 0;
    switch (scan_number(text, n, fits, d, exact)) {
      case Number::Invalid:
        return syntax(simdjson::NUMBER_ERROR);
      case Number::Integer:
        if (!fits) {
          soft_error(Errc::Unrepresentable, fault_code::kInvalidParams,
                     "integer " + std::string(text.substr(0, 40)) +
                         (text.size() > 40 ? "..." : "") + " is beyond 64 bits");
        } else if (n >= INT32_MIN && n <= INT32_MAX) {
          ValueAccess::set_int32(out, int32_t(n));
        } else {
          ValueAccess::set_int64(out, n);
        }
        return true;
      case Number::Float: {
        // The grammar is right, so the only complaint can be the range (1e400); below it a
        // number reads as zero. Not simdjson's get_double: its On Demand reader (3.0.1) reads
        // a number of more than 19 digits from their low 64 bits (0.65260029164365297418 as
        // 0.0992).
        const bool negative = text[0] == '-';
        if (exact || read_decimal(text.substr(negative ? 1 : 0), d)) {
          ValueAccess::set_double(out, negative ? -d : d);
        } else {
          soft_error(Errc::Unrepresentable, fault_code::kInvalidParams,
                     "number " + std::string(text.substr(0, 40)) + (text.size() > 40 ? "..." : "") +
                         " is beyond the range of a double");
        }
        return true;
      }
    }
    return syntax(simdjson::NUMBER_ERROR);
  }

  // The element or member an iterator gave, used where simdjson built it (null on an error).
  // Not copied out: simdjson writes it field by field, and a copy loads it whole at once, a
  // load that waits for the stores (on one document a sixth of the read's time went there).
  template <class T>
  static T* in_place(simdjson::simdjson_result<T>& result) noexcept {
    return result.error() ? nullptr : &result.value_unsafe();
  }

  // An array or an object (`json_type` says which) onto the stack: a slot for it, then its
  // values after the slot until it closes, then moved into the slot with one allocation of the
  // exact size. Everything is built in place on the stack, no temporary Values.
  template <class V>
  bool container(V& v, od::json_type type) {
    size_t at = stack.size();
    stack.push();
    bool is_struct = type == od::json_type::object;
    auto on_member = [this](std::string_view name, od::value& value) {
      set_string(stack.push(), name);
      return element(value);
    };
    auto on_element = [this](od::value& item) { return element(item); };
    if (!children(v, is_struct, on_member, on_element)) return false;
    Value* items = stack.at(at + 1);
    size_t count = stack.size() - at - 1;
    Value& out = *stack.at(at);
    if (is_struct) {
      ValueAccess::make_struct(out, items, count / 2);
      if (out.size() != count / 2)
        soft_error(Errc::InvalidRequest, kInvalidRequest, "an object repeats a member name");
    } else {
      ValueAccess::make_array(out, items, count);
    }
    stack.drop_nil(at + 1);
    return true;
  }

  // One array element or member value, onto the stack.
  bool element(od::value& v) {
    if (!count_element()) return false;
    od::json_type type;
    if (auto e = v.type().get(type)) return syntax(e);
    if (type == od::json_type::array || type == od::json_type::object) return nested(v, type);
    return scalar(v, type, stack.push());
  }

  // A value nobody reads (a member the protocol ignores, what a typed read leaves): walked
  // with every check the building walk makes, in the same order (syntax, depth, element
  // count, string sizes), so bad JSON in it is still a parse error and the limits count it;
  // but nothing is built, so what no Value could hold (a number beyond 64 bits, a repeated
  // name) spoils nothing.
  [[gnu::noinline]] bool skip(od::value& v) {  // out of line: the usual read passes by it
    od::json_type type;
    if (auto e = v.type().get(type)) return syntax(e);
    switch (type) {
      case od::json_type::array:
      case od::json_type::object: {
        if (!go_deeper()) return false;
        bool ok = skip_container(v, type);
        --depth;
        return ok;
      }
      case od::json_type::null:
      case od::json_type::boolean:
        return atom(v) != Atom::Bad || syntax(simdjson::T_ATOM_ERROR);
      case od::json_type::number: {
        int64_t n = 0;
        bool fits = false;
        if (scan_number(raw_token(v), n, fits) == Number::Invalid)
          return syntax(simdjson::NUMBER_ERROR);
        return true;
      }
      case od::json_type::string: {
        std::string_view text;
        return string_text(v, text);
      }
    }
    return syntax(simdjson::INCORRECT_TYPE);
  }
  bool skip_container(od::value& v, od::json_type type) {
    auto on_element = [this](od::value& item) { return count_element() && skip(item); };
    auto on_member = [&](std::string_view, od::value& value) { return on_element(value); };
    return children(v, type == od::json_type::object, on_member, on_element);
  }

  // The members of an object (`on_member(name, value)`, the name checked first) or the
  // elements of an array (`on_element(value)`), in order; false at the first that fails.
  template <class V, class OnMember, class OnElement>
  [[gnu::always_inline]] bool children(V& v, bool is_object, OnMember&& on_member,
                                       OnElement&& on_element) {
    if (is_object) {
      od::object obj;
      if (auto e = v.get_object().get(obj)) return syntax(e);
      for (auto field_result : obj) {
        od::field* field = in_place(field_result);
        if (!field) return syntax(field_result.error());
        std::string_view name;
        if (!key(*field, name) || !check_string(name)) return false;
        if (!on_member(name, field->value())) return false;
      }
      return true;
    }
    od::array arr;
    if (auto e = v.get_array().get(arr)) return syntax(e);
    for (auto item_result : arr) {
      od::value* item = in_place(item_result);
      if (!item) return syntax(item_result.error());
      if (!on_element(*item)) return false;
    }
    return true;
  }

  // Walks an object's members: `on_member(key, value, type)`, each counted and its name
  // checked first; stops at the first that returns false.
  template <class OnMember>
  bool members(od::object& obj, OnMember on_member) {
    for (auto field_result : obj) {
      od::field* field = in_place(field_result);
      if (!field) return syntax(field_result.error());
      std::string_view key;
      if (!this->key(*field, key) || !count_element() || !check_string(key)) return false;
      od::value& fv = field->value();
      od::json_type ft;
      if (auto e = fv.type().get(ft)) return syntax(e);
      if (!on_member(key, fv, ft)) return false;
    }
    return true;
  }

  // ---- requests

  // One request of the document into `call`.
  template <class V>
  bool request(V& v, Call& call) {
    od::json_type type;
    if (auto e = v.type().get(type)) return syntax(e);
    if (type != od::json_type::object) {
      Value ignored;
      if (!value(v, ignored)) return false;
      call.id = kNullId;
      call.error = Error(Errc::InvalidRequest, kInvalidRequest, "a request must be an object");
      return true;
    }
    od::object obj;
    if (auto e = v.get_object().get(obj)) return syntax(e);
    Seen seen;
    bool id_usable = false;
    std::string invalid;  // why the request is invalid, when it is
    auto refuse = [&](std::string why) {
      if (invalid.empty()) invalid = std::move(why);
    };
    soft = Error();
    bool walked = members(obj, [&](std::string_view key, od::value& fv, od::json_type ft) {
      bool* flag = is_literal(key, "jsonrpc")  ? &seen.jsonrpc
                   : is_literal(key, "method") ? &seen.method
                   : is_literal(key, "params") ? &seen.params
                   : is_literal(key, "id")     ? &seen.id
                                               : nullptr;
      if (flag && *flag) {
        refuse("member \"" + std::string(key) + "\" repeated");
        if (flag == &seen.id) id_usable = false;
      }
      if (flag == &seen.jsonrpc && ft == od::json_type::string) {
        std::string_view version;
        if (auto e = fv.get_string().get(version)) return syntax(e);
        if (!is_literal(version, "2.0")) refuse("\"jsonrpc\" must be \"2.0\"");
      } else if (flag == &seen.method && ft == od::json_type::string) {
        std::string_view name;
        if (auto e = fv.get_string().get(name)) return syntax(e);
        if (!check_string(name)) return false;
        call.method.assign(name);
      } else if (flag == &seen.params &&
                 (ft == od::json_type::array || ft == od::json_type::object)) {
        // The params array or object is not a value of its own: its members start at depth 0.
        if (!container(fv, ft)) return false;
        call.params = stack.pop();
      } else if (flag == &seen.id && ft != od::json_type::array && ft != od::json_type::object &&
                 ft != od::json_type::boolean) {
        if (!id(fv, ft, call.id)) return false;
        id_usable = !*flag;
      } else {
        if (!skip(fv)) return false;
        if (flag == &seen.jsonrpc) refuse("\"jsonrpc\" must be \"2.0\"");
        if (flag == &seen.method) refuse("\"method\" must be a string");
        if (flag == &seen.params) refuse("\"params\" must be an array or an object");
        if (flag == &seen.id) refuse("\"id\" must be a number, a string or null");
      }
      if (flag) *flag = true;
      return true;
    });
    if (!walked) return false;
    if (!seen.jsonrpc) refuse("no \"jsonrpc\": \"2.0\"");
    if (!seen.method) refuse("no \"method\"");
    if (!invalid.empty()) {
      call.error = Error(Errc::InvalidRequest, kInvalidRequest, "invalid request: " + invalid);
      if (!id_usable) call.id = kNullId;
    } else if (soft.code != Errc::Ok) {
      // A repeated name in the params makes the request invalid, answered even without an id;
      // a number no Value holds is invalid params, and a notification stays one.
      if (soft.fault_code == kInvalidRequest && !id_usable) call.id = kNullId;
      call.error = std::move(soft);
    }
    return true;
  }

  // An id's JSON text, checked (a string's escapes, a number's grammar), kept as written.
  bool id(od::value& v, od::json_type type, std::string& out) {
    std::string_view text = raw_token(v);
    if (type == od::json_type::string) {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return syntax(e);
      if (!check_string(s)) return false;
    } else if (type == od::json_type::number) {
      int64_t n;
      bool fits;
      if (scan_number(text, n, fits) == Number::Invalid) return syntax(simdjson::NUMBER_ERROR);
    } else if (!is_literal(text, "null")) {
      return syntax(simdjson::N_ATOM_ERROR);
    }
    out.assign(text);
    return true;
  }

  // A fresh Call at `calls[n]`, reusing what a previous document left there.
  static Call& next_call(std::vector<Call>& calls, size_t n) {
    if (n == calls.size()) return calls.emplace_back();
    Call& c = calls[n];
    c.id.clear();
    c.method.clear();
    c.params = Value();
    c.error = Error();
    return c;
  }

  // A document of one entry (an object) or a batch of them (an array): `read_one(value, n,
  // in_batch)` reads entry n; returns how many there were, in `count`. `what` names the entries
  // ("request", "response") in errors.
  template <class ReadOne>
  bool entries(bool& batch, size_t& count, std::string_view what, ReadOne read_one) {
    od::json_type type;
    if (auto e = doc.type().get(type)) return syntax(e);
    size_t n = 0;
    if (type == od::json_type::array) {
      batch = true;
      od::array arr;
      if (auto e = doc.get_array().get(arr)) return syntax(e);
      for (auto item_result : arr) {
        od::value item;
        if (auto e = item_result.get(item)) return syntax(e);
        if (n == limits.max_batch_size)
          return limit("a batch of more than " + std::to_string(limits.max_batch_size) + " " +
                       std::string(what) + "s (max_batch_size)");
        if (!count_element()) return false;
        if (!read_one(item, n++, true)) return false;
      }
      if (n == 0) {
        hard = Error(Errc::InvalidRequest, kInvalidRequest, "an empty batch");
        return false;
      }
    } else if (type == od::json_type::object) {
      batch = false;
      if (!read_one(doc, n++, false)) return false;
    } else {
      Value ignored;
      if (!root(ignored)) return false;
      hard = Error(Errc::InvalidRequest, kInvalidRequest,
                   "a " + std::string(what) + " document must be an object or an array of them");
      return false;
    }
    count = n;
    return true;
  }

  bool document(Request& out) {
    size_t n = 0;
    bool ok = entries(out.batch, n, "request", [&](auto& v, size_t i, bool) {
      Call& call = next_call(out.calls, i);
      if (!request(v, call)) return false;
      if (call.params.is_nil()) call.params = Value::array();
      return true;
    });
    if (ok) out.calls.resize(n);
    return ok;
  }

  // ---- responses

  bool malformed(size_t index, bool batch, std::string why) {
    std::string where =
        batch ? "response " + std::to_string(index + 1) + " of the batch" : "the response";
    hard = Error(Errc::InvalidRequest, kInvalidRequest, where + ": " + std::move(why));
    return false;
  }

  // The "error" object of a response into `r`; `why` says what is wrong with it, if anything.
  bool error_object(od::value& v, Response& r, std::string& why) {
    od::object obj;
    if (auto e = v.get_object().get(obj)) return syntax(e);
    bool code = false, message = false, data = false;
    int64_t code_value = 0;
    std::string message_text;
    bool walked = members(obj, [&](std::string_view key, od::value& fv, od::json_type ft) {
      bool* flag = is_literal(key, "code")      ? &code
                   : is_literal(key, "message") ? &message
                   : is_literal(key, "data")    ? &data
                                                : nullptr;
      if (flag && *flag && why.empty()) why = "\"error\" repeats \"" + std::string(key) + "\"";
      if (flag == &code && ft == od::json_type::number) {
        bool fits = false;
        Number kind = scan_number(raw_token(fv), code_value, fits);
        if (kind == Number::Invalid) return syntax(simdjson::NUMBER_ERROR);
        if ((kind != Number::Integer || !fits || code_value < INT32_MIN ||
             code_value > INT32_MAX) &&
            why.empty())
          why = "the error's \"code\" must be an integer within 32 bits";
      } else if (flag == &message && ft == od::json_type::string) {
        std::string_view text;
        if (auto e = fv.get_string().get(text)) return syntax(e);
        if (!check_string(text)) return false;
        message_text.assign(text);
      } else if (flag == &data) {
        Value d;
        if (!value(fv, d)) return false;
        r.data = std::move(d);
      } else {
        if (!skip(fv)) return false;
        if (why.empty() && flag == &code) why = "the error's \"code\" must be an integer";
        if (why.empty() && flag == &message) why = "the error's \"message\" must be a string";
      }
      if (flag) *flag = true;
      return true;
    });
    if (!walked) return false;
    if (why.empty() && !code) why = "the error has no \"code\"";
    if (why.empty() && !message) why = "the error has no \"message\"";
    r.error = Error(Errc::Fault, static_cast<int32_t>(code_value), std::move(message_text));
    return true;
  }

  // One response of the document into `r`.
  template <class V>
  bool response(V& v, Response& r, size_t index, bool batch) {
    od::json_type type;
    if (auto e = v.type().get(type)) return syntax(e);
    if (type != od::json_type::object) {
      Value ignored;
      if (!value(v, ignored)) return false;
      return malformed(index, batch, "not an object");
    }
    od::object obj;
    if (auto e = v.get_object().get(obj)) return syntax(e);
    bool jsonrpc = false, result = false, error = false, id = false;
    std::string why;  // what is wrong with the response, when something is
    auto refuse = [&](std::string reason) {
      if (why.empty()) why = std::move(reason);
    };
    soft = Error();
    bool walked = members(obj, [&](std::string_view key, od::value& fv, od::json_type ft) {
      bool* flag = is_literal(key, "jsonrpc")  ? &jsonrpc
                   : is_literal(key, "result") ? &result
                   : is_literal(key, "error")  ? &error
                   : is_literal(key, "id")     ? &id
                                               : nullptr;
      if (flag && *flag) refuse("member \"" + std::string(key) + "\" repeated");
      if (flag == &jsonrpc && ft == od::json_type::string) {
        std::string_view version;
        if (auto e = fv.get_string().get(version)) return syntax(e);
        if (!is_literal(version, "2.0")) refuse("\"jsonrpc\" must be \"2.0\"");
      } else if (flag == &result) {
        if (!(result_sink ? sink_result(fv) : value(fv, r.result))) return false;
      } else if (flag == &error && ft == od::json_type::object) {
        std::string bad;
        if (!error_object(fv, r, bad)) return false;
        if (!bad.empty()) refuse(std::move(bad));
      } else if (flag == &id && ft != od::json_type::array && ft != od::json_type::object &&
                 ft != od::json_type::boolean) {
        if (!this->id(fv, ft, r.id)) return false;
      } else {
        if (!skip(fv)) return false;
        if (flag == &jsonrpc) refuse("\"jsonrpc\" must be \"2.0\"");
        if (flag == &error) refuse("\"error\" must be an object");
        if (flag == &id) refuse("\"id\" must be a number, a string or null");
      }
      if (flag) *flag = true;
      return true;
    });
    if (!walked) return false;
    if (!jsonrpc) refuse("no \"jsonrpc\": \"2.0\"");
    if (!id) refuse("no \"id\"");
    if (result && error) refuse("both \"result\" and \"error\"");
    if (!result && !error) refuse("neither \"result\" nor \"error\"");
    if (!why.empty()) return malformed(index, batch, std::move(why));
    if (soft.code != Errc::Ok) {
      r.error = std::move(soft);
      r.result = Value();
      r.data.reset();
    }
    return true;
  }

  static Response& next_response(std::vector<Response>& responses, size_t n) {
    if (n == responses.size()) return responses.emplace_back();
    return next_response_of(responses[n]);
  }
  static Response& next_response_of(Response& r) {
    r.id.clear();
    r.result = Value();
    r.error = Error();
    r.data.reset();
    return r;
  }

  // A document of one response whose result goes to `result_sink` (set by the caller).
  bool single_response(Response& out) {
    od::json_type type;
    if (auto e = doc.type().get(type)) return syntax(e);
    if (type == od::json_type::object) return response(doc, next_response_of(out), 0, false);
    Value ignored;
    if (!root(ignored)) return false;
    hard = Error(Errc::InvalidRequest, kInvalidRequest,
                 type == od::json_type::array ? "a batch where one response was expected"
                                              : "a response document must be an object");
    return false;
  }

  // The result `v` read by `result_sink` through a ValueReader (result_reader.cpp), then what
  // it left of the value walked; the sink's own status goes to `*sink_status`. False when the
  // document failed (`hard`).
  bool sink_result(od::value& v);
  ValueSink* result_sink = nullptr;
  Status* sink_status = nullptr;

  bool response_document(Responses& out) {
    size_t n = 0;
    bool ok = entries(out.batch, n, "response", [&](auto& v, size_t i, bool in_batch) {
      return response(v, next_response(out.responses, i), i, in_batch);
    });
    if (ok) out.responses.resize(n);
    return ok;
  }

  // ---- the document as a whole

  // Starts a document: limits, then simdjson's first pass (which checks UTF-8 and structure).
  bool start(std::string_view padded_document) {
    hard = Error();
    soft = Error();
    started = false;
    elements = 0;
    depth = 0;
    stack.clear();
    input = padded_document;
    if (padded_document.size() > limits.max_document_size)
      return limit("a document of " + std::to_string(padded_document.size()) +
                   " bytes exceeds max_document_size (" + std::to_string(limits.max_document_size) +
                   " bytes)");
    auto e = parser
                 .iterate(padded_document.data(), padded_document.size(),
                          padded_document.size() + kPadding)
                 .get(doc);
    if (e) return syntax(e);
    started = true;
    return true;
  }

  // A scalar at the root is read without moving simdjson's iterator past it (numbers are read
  // from their text), so what follows it is checked here, before it is read: its token (which
  // runs on over white space) must reach the end of the input.
  bool lone_root_scalar() {
    std::string_view token;
    if (auto e = doc.raw_json_token().get(token)) return syntax(e);
    if (token.data() + token.size() != input.data() + input.size())
      return syntax(simdjson::TRAILING_CONTENT);
    return true;
  }

  // The root value, and nothing but white space after it.
  bool root(Value& out) {
    od::json_type type;
    if (auto e = doc.type().get(type)) return syntax(e);
    if (type != od::json_type::array && type != od::json_type::object)
      return lone_root_scalar() && value(doc, out);
    return value(doc, out) && finish();
  }

  // Nothing but white space may follow an array or object at the root.
  bool finish() {
    // (simdjson 3.0's document has no at_end: a location means there is text left.)
    const char* at;
    if (!doc.current_location().get(at)) return syntax(simdjson::TRAILING_CONTENT);
    return true;
  }

  std::string_view pad(std::string_view document) {
    size_t need = document.size() + kPadding;
    if (need > padded_capacity) {
      padded.reset(new char[need]);
      padded_capacity = need;
    }
    // An empty document may have no data at all (a WebSocket's empty message): memcpy from
    // null is undefined even for 0 bytes.
    if (!document.empty()) std::memcpy(padded.get(), document.data(), document.size());
    std::memset(padded.get() + document.size(), 0, kPadding);
    return {padded.get(), document.size()};
  }
};

}  // namespace callwire::json
