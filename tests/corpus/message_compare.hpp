// callwire tests: strict comparison and printing of decoded messages, shared by the corpus
// tests and the fuzz drivers. Header-only; depends on the public API alone.
//
// Strict means stricter than Value::operator==: struct members must be in the same order
// (the reader promises insertion order, and "last value wins in the position of the first" for
// duplicates), int and i8 differ, and doubles compare bit for bit (so -0.0 is not 0.0).
#pragma once

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "callwire/message.hpp"
#include "callwire/value.hpp"

namespace callwire::testing {

/// `text` as a double-quoted string, with control characters, quotes and backslashes escaped;
/// other bytes (UTF-8) are kept.
inline std::string quote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

inline std::string describe_datetime(const DateTime& dt) {
  char buf[96];
  int n = std::snprintf(buf, sizeof buf, "%04u-%02u-%02uT%02u:%02u:%02u", unsigned{dt.year},
                        unsigned{dt.month}, unsigned{dt.day}, unsigned{dt.hour},
                        unsigned{dt.minute}, unsigned{dt.second});
  std::string out(buf, static_cast<size_t>(n));
  if (dt.fraction_digits > 0) {
    std::snprintf(buf, sizeof buf, ".%09u(%u digits)", unsigned{dt.nanosecond},
                  unsigned{dt.fraction_digits});
    out += buf;
  }
  if (dt.zone == DateTime::Zone::Utc) out += "Z";
  if (dt.zone == DateTime::Zone::Offset) {
    std::snprintf(buf, sizeof buf, "%+dmin", int{dt.offset_minutes});
    out += buf;
  }
  return out;
}

/// A readable, type-exact rendering of a Value (not the JSON form: it shows every distinction
/// the strict comparison makes). Truncated after about `limit` bytes.
inline void describe_to(std::string& out, const Value& v, size_t limit) {
  if (out.size() > limit) return;
  char buf[64];
  switch (v.type()) {
    case Type::Nil:
      out += "nil";
      break;
    case Type::Boolean:
      out += v.as_bool() ? "true" : "false";
      break;
    case Type::Int:
      std::snprintf(buf, sizeof buf, "%" PRId32, v.as_int());
      out += buf;
      break;
    case Type::I8:
      std::snprintf(buf, sizeof buf, "i8:%" PRId64, v.as_i8());
      out += buf;
      break;
    case Type::Double:
      std::snprintf(buf, sizeof buf, "double:%.17g", v.as_double());
      out += buf;
      break;
    case Type::String:
      out += quote(v.as_string());
      break;
    case Type::DateTime:
      out += "dateTime:" + describe_datetime(v.as_datetime());
      break;
    case Type::Bytes: {
      auto bytes = v.as_bytes();
      std::snprintf(buf, sizeof buf, "bytes[%zu]:", bytes.size());
      out += buf;
      for (size_t i = 0; i < bytes.size() && i < 32; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
        out += buf;
      }
      if (bytes.size() > 32) out += "...";
      break;
    }
    case Type::Array: {
      out += '[';
      bool first = true;
      for (const Value& item : v.as_array()) {
        if (!first) out += ',';
        first = false;
        describe_to(out, item, limit);
        if (out.size() > limit) break;
      }
      out += ']';
      break;
    }
    case Type::Struct: {
      out += '{';
      bool first = true;
      for (const Member& m : v.members()) {
        if (!first) out += ',';
        first = false;
        out += quote(m.name());
        out += ':';
        describe_to(out, m.value(), limit);
        if (out.size() > limit) break;
      }
      out += '}';
      break;
    }
  }
  if (out.size() > limit) out += "...";
}

inline std::string describe(const Value& v, size_t limit = 2000) {
  std::string out;
  describe_to(out, v, limit);
  return out;
}

inline std::string describe(const Message& m, size_t limit = 2000) {
  if (m.kind == Message::Kind::Call) {
    return "call " + quote(m.call.method_name) + " params " + describe(m.call.params, limit);
  }
  if (m.response.is_fault) {
    return "fault " + std::to_string(m.response.fault.code) + " " + quote(m.response.fault.string);
  }
  return "response " + describe(m.response.result, limit);
}

/// The first difference between `a` and `b` under the strict comparison, as "path: a vs b";
/// nullopt when they are the same.
inline std::optional<std::string> first_difference(const Value& a, const Value& b,
                                                   const std::string& path = "$") {
  auto differ = [&](const std::string& what) {
    return std::optional<std::string>(path + ": " + what);
  };
  if (a.type() != b.type()) {
    return differ(std::string(type_name(a.type())) + " " + describe(a, 200) + " vs " +
                  type_name(b.type()) + " " + describe(b, 200));
  }
  switch (a.type()) {
    case Type::Nil:
      return std::nullopt;
    case Type::Boolean:
    case Type::Int:
    case Type::I8:
    case Type::String:
    case Type::Bytes:
      if (a == b) return std::nullopt;
      return differ(describe(a, 200) + " vs " + describe(b, 200));
    case Type::Double: {
      double x = a.as_double(), y = b.as_double();
      if (std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y))) {
        return std::nullopt;
      }
      return differ(describe(a) + " vs " + describe(b));
    }
    case Type::DateTime:
      if (a.as_datetime() == b.as_datetime()) return std::nullopt;
      return differ(describe(a) + " vs " + describe(b));
    case Type::Array: {
      auto x = a.as_array(), y = b.as_array();
      if (x.size() != y.size()) {
        return differ("array of " + std::to_string(x.size()) + " vs " + std::to_string(y.size()));
      }
      for (size_t i = 0; i < x.size(); ++i) {
        if (auto d = first_difference(x[i], y[i], path + "[" + std::to_string(i) + "]")) return d;
      }
      return std::nullopt;
    }
    case Type::Struct: {
      auto x = a.members(), y = b.members();
      if (x.size() != y.size()) {
        return differ("struct of " + std::to_string(x.size()) + " members vs " +
                      std::to_string(y.size()));
      }
      for (size_t i = 0; i < x.size(); ++i) {
        if (x[i].name() != y[i].name()) {
          return differ("member " + std::to_string(i) + " named " + quote(x[i].name()) + " vs " +
                        quote(y[i].name()));
        }
        if (auto d = first_difference(x[i].value(), y[i].value(),
                                      path + "." + std::string(x[i].name()))) {
          return d;
        }
      }
      return std::nullopt;
    }
  }
  return differ("unknown type");
}

inline std::optional<std::string> first_difference(const Message& a, const Message& b) {
  if (a.kind != b.kind) {
    return std::string("kind: ") + (a.kind == Message::Kind::Call ? "call" : "response") + " vs " +
           (b.kind == Message::Kind::Call ? "call" : "response");
  }
  if (a.kind == Message::Kind::Call) {
    if (a.call.method_name != b.call.method_name) {
      return "methodName: " + quote(a.call.method_name) + " vs " + quote(b.call.method_name);
    }
    return first_difference(a.call.params, b.call.params, "params");
  }
  if (a.response.is_fault != b.response.is_fault) {
    return std::string("fault: ") + (a.response.is_fault ? "fault" : "result") + " vs " +
           (b.response.is_fault ? "fault" : "result");
  }
  if (a.response.is_fault) {
    if (a.response.fault.code != b.response.fault.code) {
      return "faultCode: " + std::to_string(a.response.fault.code) + " vs " +
             std::to_string(b.response.fault.code);
    }
    if (a.response.fault.string != b.response.fault.string) {
      return "faultString: " + quote(a.response.fault.string) + " vs " +
             quote(b.response.fault.string);
    }
    return std::nullopt;
  }
  return first_difference(a.response.result, b.response.result, "result");
}

inline std::optional<std::string> first_difference(const MethodCall& a, const MethodCall& b) {
  Message x, y;
  x.call = a;
  y.call = b;
  return first_difference(x, y);
}

inline std::optional<std::string> first_difference(const MethodResponse& a,
                                                   const MethodResponse& b) {
  Message x, y;
  x.kind = y.kind = Message::Kind::Response;
  x.response = a;
  y.response = b;
  return first_difference(x, y);
}

}  // namespace callwire::testing
