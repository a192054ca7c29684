// Values described in place (cw_arg, cw_out; include/callwire/c/described.h): building a value,
// or reading one into variables, in one call from C, with messages that say where a
// description went wrong.
#include <span>
#include <string>

#include "callwire/convert.hpp"
#include "capi/capi_internal.hpp"

using callwire::Errc;
using callwire::Value;
using namespace callwire::capi;

namespace {

// Deeper than any value a peer could send us (the reader stops at 1000 too): a description
// this deep contains itself.
constexpr int kMaxDepth = 1000;

// Appends "[i]" or ".name" (just "name" first) to a path.
std::string element_path(const std::string& where, size_t index) {
  return where + "[" + std::to_string(index) + "]";
}
std::string member_path(const std::string& where, const char* name) {
  return where.empty() ? std::string(name) : where + "." + name;
}

cw_status fail(cw_error* error, Errc code, const std::string& where, std::string_view what) {
  return set_error(error, code,
                   where.empty() ? std::string(what) : where + ": " + std::string(what));
}

class Builder {
 public:
  explicit Builder(cw_error* error) : error_(error) {}

  cw_status build(const cw_arg& a, Value& out, const std::string& where, int depth) {
    if (depth > kMaxDepth)
      return fail(error_, Errc::LimitExceeded, where, "nested deeper than 1000");
    switch (enum_bits(a.kind)) {
      case CW_ARG_NIL:
        out = Value();
        return CW_OK;
      case CW_ARG_BOOL:
        out = Value(a.u.boolean != 0);
        return CW_OK;
      case CW_ARG_INT:
        out = Value(a.u.i);
        return CW_OK;
      case CW_ARG_I8:
        out = Value::i8(a.u.i8);
        return CW_OK;
      case CW_ARG_DOUBLE:
        out = Value(a.u.d);
        return CW_OK;
      case CW_ARG_STRING:
        if (a.u.text.len == CW_ARG_NULL_STRING || (!a.u.text.data && a.u.text.len > 0))
          return fail(error_, Errc::InvalidArgument, where, "a NULL string");
        out = Value(std::string_view(a.u.text.data ? a.u.text.data : "", a.u.text.len));
        return CW_OK;
      case CW_ARG_BYTES:
        if (!a.u.text.data && a.u.text.len > 0)
          return fail(error_, Errc::InvalidArgument, where, "NULL bytes with a length");
        out = Value::bytes(a.u.text.data ? a.u.text.data : "", a.u.text.len);
        return CW_OK;
      case CW_ARG_DATETIME: {
        callwire::DateTime d;
        if (!a.u.datetime) return fail(error_, Errc::InvalidArgument, where, "a NULL datetime");
        if (!from_c_datetime(*a.u.datetime, d))
          return fail(error_, Errc::InvalidArgument, where, "a datetime out of range");
        out = Value(d);
        return CW_OK;
      }
      case CW_ARG_ARRAY:
        return build_array(a, out, where, depth);
      case CW_ARG_STRUCT:
        return build_struct(a, out, where, depth);
      case CW_ARG_VALUE:
        if (!a.u.value) return fail(error_, Errc::InvalidArgument, where, "a NULL value");
        out = a.u.value->value;
        return CW_OK;
      default:
        return fail(error_, Errc::InvalidArgument, where,
                    "an unknown kind " + std::to_string(enum_bits(a.kind)));
    }
  }

 private:
  cw_status build_array(const cw_arg& a, Value& out, const std::string& where, int depth) {
    if (!a.u.array.items && a.u.array.count > 0)
      return fail(error_, Errc::InvalidArgument, where, "NULL items with a count");
    Value array = Value::array();
    array.reserve(a.u.array.count);
    for (size_t i = 0; i < a.u.array.count; ++i) {
      Value item;
      if (cw_status st = build(a.u.array.items[i], item, element_path(where, i), depth + 1))
        return st;
      array.push_back(std::move(item));
    }
    out = std::move(array);
    return CW_OK;
  }

  cw_status build_struct(const cw_arg& a, Value& out, const std::string& where, int depth) {
    if (!a.u.strct.members && a.u.strct.count > 0)
      return fail(error_, Errc::InvalidArgument, where, "NULL members with a count");
    Value strct = Value::structure();
    for (size_t i = 0; i < a.u.strct.count; ++i) {
      const cw_arg_member& m = a.u.strct.members[i];
      if (!m.name)
        return fail(error_, Errc::InvalidArgument, where,
                    "member " + std::to_string(i) + " has a NULL name");
      Value member;
      if (cw_status st = build(m.value, member, member_path(where, m.name), depth + 1)) return st;
      strct.set(m.name, std::move(member));
    }
    out = std::move(strct);
    return CW_OK;
  }

  cw_error* error_;
};

// Reads in two passes over the same description: check() finds every error without writing,
// then write() stores, so a failed read leaves every variable as it was.
class Reader {
 public:
  explicit Reader(cw_error* error) : error_(error) {}

  cw_status check(const Value& v, const cw_out& o, const std::string& where, int depth) {
    if (depth > kMaxDepth)
      return fail(error_, Errc::LimitExceeded, where, "nested deeper than 1000");
    switch (enum_bits(o.kind)) {
      case CW_OUT_SKIP:
        return CW_OK;
      case CW_OUT_BOOL:
        return scalar(v.is_bool(), o.u.boolean, "boolean", v, where);
      case CW_OUT_INT:
        return scalar(v.is_int(), o.u.i, "int", v, where);
      case CW_OUT_I8:
        return scalar(v.is_integer(), o.u.i8, "i8", v, where);
      case CW_OUT_DOUBLE:
        return scalar(v.is_double(), o.u.d, "double", v, where);
      case CW_OUT_STRING:
        if (!o.u.text.len) return null_target(where);
        return scalar(v.is_string(), o.u.text.data, "string", v, where);
      case CW_OUT_DATETIME:
        return scalar(v.is_datetime(), o.u.datetime, "dateTime", v, where);
      case CW_OUT_BYTES:
        if (!o.u.bytes.len) return null_target(where);
        return scalar(v.is_bytes(), o.u.bytes.data, "base64", v, where);
      case CW_OUT_VALUE:
        return o.u.value ? CW_OK : null_target(where);
      case CW_OUT_ARRAY:
        return check_array(v, o, where, depth);
      case CW_OUT_STRUCT:
        return check_struct(v, o, where, depth);
      default:
        return fail(error_, Errc::InvalidArgument, where,
                    "an unknown kind " + std::to_string(enum_bits(o.kind)));
    }
  }

  // Only after check() said CW_OK for the same value and description.
  void write(const Value& v, const cw_out& o) {
    switch (enum_bits(o.kind)) {
      case CW_OUT_BOOL:
        *o.u.boolean = v.as_bool() ? 1 : 0;
        break;
      case CW_OUT_INT:
        *o.u.i = v.as_int();
        break;
      case CW_OUT_I8:
        *o.u.i8 = v.as_i8();
        break;
      case CW_OUT_DOUBLE:
        *o.u.d = v.as_double();
        break;
      case CW_OUT_STRING: {
        std::string_view s = v.as_string();
        *o.u.text.data = s.data() ? s.data() : "";
        *o.u.text.len = s.size();
        break;
      }
      case CW_OUT_DATETIME:
        *o.u.datetime = to_c_datetime(v.as_datetime());
        break;
      case CW_OUT_BYTES: {
        std::span<const uint8_t> b = v.as_bytes();
        *o.u.bytes.data = b.data() ? static_cast<const void*>(b.data()) : "";
        *o.u.bytes.len = b.size();
        break;
      }
      case CW_OUT_VALUE:
        *o.u.value = borrow(v);
        break;
      case CW_OUT_ARRAY:
        for (size_t i = 0; i < o.u.array.count; ++i) write(v.as_array()[i], o.u.array.items[i]);
        break;
      case CW_OUT_STRUCT:
        for (size_t i = 0; i < o.u.strct.count; ++i) {
          const cw_out_member& m = o.u.strct.members[i];
          if (const Value* member = v.find(m.name)) write(*member, m.value);
        }
        break;
      default:  // CW_OUT_SKIP
        break;
    }
  }

 private:
  template <class Target>
  cw_status scalar(bool right_type, Target* target, std::string_view type, const Value& v,
                   const std::string& where) {
    if (!target) return null_target(where);
    if (!right_type) return type_mismatch(where, callwire::type_error(type, v).message);
    return CW_OK;
  }

  cw_status null_target(const std::string& where) {
    return fail(error_, Errc::InvalidArgument, where, "a NULL pointer to read into");
  }

  // "[1].label must be string, got int", as the C++ API says it.
  cw_status type_mismatch(const std::string& where, const std::string& what) {
    return set_error(error_, Errc::TypeMismatch, where.empty() ? what : where + " " + what);
  }

  cw_status check_array(const Value& v, const cw_out& o, const std::string& where, int depth) {
    if (!o.u.array.items && o.u.array.count > 0)
      return fail(error_, Errc::InvalidArgument, where, "NULL items with a count");
    if (!v.is_array()) return type_mismatch(where, callwire::type_error("array", v).message);
    if (v.size() != o.u.array.count)
      return type_mismatch(where, "must be an array of " + std::to_string(o.u.array.count) +
                                      ", got " + std::to_string(v.size()) + " elements");
    for (size_t i = 0; i < o.u.array.count; ++i) {
      if (cw_status st =
              check(v.as_array()[i], o.u.array.items[i], element_path(where, i), depth + 1))
        return st;
    }
    return CW_OK;
  }

  cw_status check_struct(const Value& v, const cw_out& o, const std::string& where, int depth) {
    if (!o.u.strct.members && o.u.strct.count > 0)
      return fail(error_, Errc::InvalidArgument, where, "NULL members with a count");
    if (!v.is_struct()) return type_mismatch(where, callwire::type_error("struct", v).message);
    for (size_t i = 0; i < o.u.strct.count; ++i) {
      const cw_out_member& m = o.u.strct.members[i];
      if (!m.name)
        return fail(error_, Errc::InvalidArgument, where,
                    "member " + std::to_string(i) + " has a NULL name");
      const Value* member = v.find(m.name);
      if (!member) {
        if (m.optional) continue;
        return fail(error_, Errc::NotFound, where, "member '" + std::string(m.name) + "' missing");
      }
      if (cw_status st = check(*member, m.value, member_path(where, m.name), depth + 1)) return st;
    }
    return CW_OK;
  }

  cw_error* error_;
};

}  // namespace

namespace callwire::capi {

cw_status build_described(const cw_arg& arg, Value& out, std::string where, cw_error* error) {
  return Builder(error).build(arg, out, where, 0);
}

}  // namespace callwire::capi

extern "C" {

cw_status cw_value_new_cstring(const char* s, cw_value** out) {
  if (!s) return CW_INVALID_ARGUMENT;
  return cw_value_new_string(s, std::strlen(s), out);
}

cw_status cw_value_build(const cw_arg* arg, cw_value** out, cw_error* error) {
  clear_error(error);
  if (!arg || !out) return set_error(error, Errc::InvalidArgument, "arg and out must not be NULL");
  return guard(error, [&] {
    Value v;
    if (cw_status st = build_described(*arg, v, "", error)) return st;
    return make_handle(std::move(v), out);
  });
}

cw_status cw_value_read(const cw_value* value, const cw_out* out, cw_error* error) {
  clear_error(error);
  if (!value || !out)
    return set_error(error, Errc::InvalidArgument, "value and out must not be NULL");
  return guard(error, [&] {
    Reader reader(error);
    if (cw_status st = reader.check(value->value, *out, "", 0)) return st;
    reader.write(value->value, *out);
    return CW_OK;
  });
}

}  // extern "C"
