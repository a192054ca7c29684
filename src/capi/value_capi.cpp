// callwire: the C API over values (include/callwire/c/value.h and xml.h) and its common part
// (c/common.h: statuses, cw_free): building, reading, encoding. The C++ core never sees C; the
// shared pieces are in capi_internal.hpp.
#include <cstring>
#include <string>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/xml.hpp"
#include "capi/capi_internal.hpp"
#include "value/value_build.hpp"

namespace {

using namespace callwire::capi;
using callwire::Errc;
using callwire::Type;
using callwire::Value;

// One table for C and C++: the C names must keep callwire::Errc's numbers.
#define CW_SAME(c, cpp) static_assert(static_cast<int>(c) == static_cast<int>(Errc::cpp))
CW_SAME(CW_OK, Ok);
CW_SAME(CW_INVALID_ARGUMENT, InvalidArgument);
CW_SAME(CW_NO_MEMORY, NoMemory);
CW_SAME(CW_NOT_WELL_FORMED, NotWellFormed);
CW_SAME(CW_UNSUPPORTED_ENCODING, UnsupportedEncoding);
CW_SAME(CW_INVALID_CHARACTER, InvalidCharacter);
CW_SAME(CW_INVALID_REQUEST, InvalidRequest);
CW_SAME(CW_NOT_XMLRPC, NotXmlRpc);
CW_SAME(CW_LIMIT_EXCEEDED, LimitExceeded);
CW_SAME(CW_TYPE_MISMATCH, TypeMismatch);
CW_SAME(CW_UNREPRESENTABLE, Unrepresentable);
CW_SAME(CW_NOT_FOUND, NotFound);
CW_SAME(CW_TIMEOUT, Timeout);
CW_SAME(CW_CONNECT_FAILED, ConnectFailed);
CW_SAME(CW_CONNECTION_CLOSED, ConnectionClosed);
CW_SAME(CW_HTTP_STATUS, HttpStatus);
CW_SAME(CW_BAD_RESPONSE, BadResponse);
CW_SAME(CW_FAULT, Fault);
CW_SAME(CW_TLS_ERROR, TlsError);
CW_SAME(CW_STOPPED, Stopped);
CW_SAME(CW_CANCELLED, Cancelled);
static_assert(static_cast<int>(Errc::Cancelled) == 19, "a new Errc needs its cw_status");
#undef CW_SAME

#define CW_SAME_TYPE(c, cpp) static_assert(static_cast<int>(c) == static_cast<int>(Type::cpp))
CW_SAME_TYPE(CW_TYPE_NIL, Nil);
CW_SAME_TYPE(CW_TYPE_BOOL, Boolean);
CW_SAME_TYPE(CW_TYPE_INT, Int);
CW_SAME_TYPE(CW_TYPE_I8, I8);
CW_SAME_TYPE(CW_TYPE_DOUBLE, Double);
CW_SAME_TYPE(CW_TYPE_STRING, String);
CW_SAME_TYPE(CW_TYPE_DATETIME, DateTime);
CW_SAME_TYPE(CW_TYPE_BYTES, Bytes);
CW_SAME_TYPE(CW_TYPE_ARRAY, Array);
CW_SAME_TYPE(CW_TYPE_STRUCT, Struct);
#undef CW_SAME_TYPE

}  // namespace

// Handles live in value storage, so the allocation-failure tests reach them too.
cw_status callwire::capi::make_handle(Value&& v, cw_value** out) {
  void* p = callwire::detail::value_alloc(sizeof(cw_value));
  *out = new (p) cw_value{std::move(v)};
  return CW_OK;
}

cw_status callwire::capi::copy_params(const char* method, const cw_value* const* params,
                                      size_t param_count, std::vector<Value>& values,
                                      cw_error* error) {
  if (!method || (!params && param_count > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "method must not be NULL, nor params with param_count > 0");
  }
  for (size_t i = 0; i < param_count; ++i) {
    if (!params[i]) {
      return set_error(error, Errc::InvalidArgument, "params[" + std::to_string(i) + "] is NULL");
    }
  }
  values.reserve(param_count);
  for (size_t i = 0; i < param_count; ++i) values.push_back(params[i]->value);
  return CW_OK;
}

void* callwire::capi::alloc_out(size_t size) { return callwire::detail::value_alloc(size); }

void callwire::capi::copy_out(std::string_view bytes, char** out, size_t* len_out) {
  char* copy = static_cast<char*>(callwire::detail::value_alloc(bytes.size() + 1));
  if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
  copy[bytes.size()] = '\0';
  *out = copy;
  if (len_out) *len_out = bytes.size();
}

extern "C" {

const char* cw_status_name(cw_status status) {
  int n = enum_bits(status);
  if (n < CW_OK || n > CW_CANCELLED) return "unknown";
  return callwire::errc_name(static_cast<Errc>(status));
}

// ---- constructors ----

cw_status cw_value_new_nil(cw_value** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value(), out); });
}

cw_status cw_value_new_bool(int b, cw_value** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value(b != 0), out); });
}

cw_status cw_value_new_int(int32_t n, cw_value** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value(n), out); });
}

cw_status cw_value_new_i8(int64_t n, cw_value** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value::i8(n), out); });
}

cw_status cw_value_new_double(double d, cw_value** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value(d), out); });
}

cw_status cw_value_new_string(const char* data, size_t len, cw_value** out) {
  if (!out || (!data && len > 0)) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value(std::string_view(data ? data : "", len)), out); });
}

cw_status cw_value_new_datetime(const cw_datetime* dt, cw_value** out) {
  if (!out || !dt) return CW_INVALID_ARGUMENT;
  callwire::DateTime d;
  if (!from_c_datetime(*dt, d)) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value(d), out); });
}

cw_status cw_value_new_bytes(const void* data, size_t len, cw_value** out) {
  if (!out || (!data && len > 0)) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value::bytes(data ? data : "", len), out); });
}

cw_status cw_value_new_array(cw_value** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value::array(), out); });
}

cw_status cw_value_new_struct(cw_value** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value::structure(), out); });
}

cw_status cw_value_copy(const cw_value* value, cw_value** out) {
  if (!value || !out) return CW_INVALID_ARGUMENT;
  return guard([&] { return make_handle(Value(value->value), out); });
}

void cw_value_free(cw_value* value) {
  if (!value) return;
  value->~cw_value();
  callwire::detail::value_free(value);
}

// ---- reading ----

cw_type cw_value_type(const cw_value* value) {
  if (!value) return CW_TYPE_INVALID;
  return static_cast<cw_type>(value->value.type());
}

int cw_value_equal(const cw_value* a, const cw_value* b) {
  if (!a || !b) return a == b;
  return a->value == b->value ? 1 : 0;
}

cw_status cw_value_get_bool(const cw_value* value, int* out) {
  if (!value || !out) return CW_INVALID_ARGUMENT;
  if (!value->value.is_bool()) return CW_TYPE_MISMATCH;
  *out = value->value.as_bool() ? 1 : 0;
  return CW_OK;
}

cw_status cw_value_get_int(const cw_value* value, int32_t* out) {
  if (!value || !out) return CW_INVALID_ARGUMENT;
  if (!value->value.is_int()) return CW_TYPE_MISMATCH;
  *out = *value->value.try_as_int();
  return CW_OK;
}

cw_status cw_value_get_i8(const cw_value* value, int64_t* out) {
  if (!value || !out) return CW_INVALID_ARGUMENT;
  if (!value->value.is_integer()) return CW_TYPE_MISMATCH;
  *out = *value->value.try_as_i8();
  return CW_OK;
}

cw_status cw_value_get_double(const cw_value* value, double* out) {
  if (!value || !out) return CW_INVALID_ARGUMENT;
  if (!value->value.is_double()) return CW_TYPE_MISMATCH;
  *out = *value->value.try_as_double();
  return CW_OK;
}

cw_status cw_value_get_string(const cw_value* value, const char** data_out, size_t* len_out) {
  if (!value || !data_out || !len_out) return CW_INVALID_ARGUMENT;
  if (!value->value.is_string()) return CW_TYPE_MISMATCH;
  std::string_view s = *value->value.try_as_string();
  *data_out = s.data();
  *len_out = s.size();
  return CW_OK;
}

cw_status cw_value_get_datetime(const cw_value* value, cw_datetime* out) {
  if (!value || !out) return CW_INVALID_ARGUMENT;
  if (!value->value.is_datetime()) return CW_TYPE_MISMATCH;
  *out = to_c_datetime(value->value.as_datetime());
  return CW_OK;
}

cw_status cw_value_get_bytes(const cw_value* value, const void** data_out, size_t* len_out) {
  if (!value || !data_out || !len_out) return CW_INVALID_ARGUMENT;
  if (!value->value.is_bytes()) return CW_TYPE_MISMATCH;
  return guard([&] {
    std::span<const uint8_t> b = value->value.as_bytes();
    *data_out = b.data() ? static_cast<const void*>(b.data()) : static_cast<const void*>("");
    *len_out = b.size();
    return CW_OK;
  });
}

// ---- arrays ----

cw_status cw_value_array_append(cw_value* array, const cw_value* item) {
  if (!array || !item) return CW_INVALID_ARGUMENT;
  if (!array->value.is_array()) return CW_TYPE_MISMATCH;
  return guard([&] {
    Value copy(item->value);  // before the append: `item` may live inside `array`
    array->value.push_back(std::move(copy));
    return CW_OK;
  });
}

cw_status cw_value_array_size(const cw_value* array, size_t* out) {
  if (!array || !out) return CW_INVALID_ARGUMENT;
  if (!array->value.is_array()) return CW_TYPE_MISMATCH;
  *out = array->value.as_array().size();
  return CW_OK;
}

cw_status cw_value_array_get(const cw_value* array, size_t index, const cw_value** out) {
  if (!array || !out) return CW_INVALID_ARGUMENT;
  if (!array->value.is_array()) return CW_TYPE_MISMATCH;
  std::span<const Value> items = array->value.as_array();
  if (index >= items.size()) return CW_NOT_FOUND;
  *out = borrow(items[index]);
  return CW_OK;
}

// ---- structs ----

cw_status cw_value_struct_set(cw_value* strct, const char* name, const cw_value* member) {
  if (!strct || !name || !member) return CW_INVALID_ARGUMENT;
  if (!strct->value.is_struct()) return CW_TYPE_MISMATCH;
  return guard([&] {
    Value copy(member->value);  // before the set: `member` may live inside `strct`
    strct->value.set(name, std::move(copy));
    return CW_OK;
  });
}

cw_status cw_value_struct_get(const cw_value* strct, const char* name, const cw_value** out) {
  if (!strct || !name || !out) return CW_INVALID_ARGUMENT;
  if (!strct->value.is_struct()) return CW_TYPE_MISMATCH;
  const Value* found = strct->value.find(name);
  if (!found) return CW_NOT_FOUND;
  *out = borrow(*found);
  return CW_OK;
}

cw_status cw_value_struct_size(const cw_value* strct, size_t* out) {
  if (!strct || !out) return CW_INVALID_ARGUMENT;
  if (!strct->value.is_struct()) return CW_TYPE_MISMATCH;
  *out = strct->value.members().size();
  return CW_OK;
}

cw_status cw_value_struct_member_at(const cw_value* strct, size_t index, const char** name_out,
                                    size_t* name_len_out, const cw_value** value_out) {
  if (!strct || !name_out || !value_out) return CW_INVALID_ARGUMENT;
  if (!strct->value.is_struct()) return CW_TYPE_MISMATCH;
  std::span<const callwire::Member> members = strct->value.members();
  if (index >= members.size()) return CW_NOT_FOUND;
  std::string_view name = members[index].name();
  *name_out = name.data();
  if (name_len_out) *name_len_out = name.size();
  *value_out = borrow(members[index].value());
  return CW_OK;
}

// ---- XML-RPC ----

cw_status cw_value_encode_response(const cw_value* value, char** xml_out, size_t* len_out,
                                   cw_error* error) {
  clear_error(error);
  if (!value || !xml_out) {
    return set_error(error, Errc::InvalidArgument, "value and xml_out must not be NULL");
  }
  return guard(error, [&] {
    callwire::Buffer buffer;
    callwire::Status st = callwire::xml::write_response(buffer, value->value);
    if (!st) return set_error(error, st.error());
    copy_out(buffer.view(), xml_out, len_out);
    return CW_OK;
  });
}

cw_status cw_value_decode_response(const char* xml, size_t len, cw_value** out, cw_error* error) {
  clear_error(error);
  if (!out || (!xml && len > 0)) {
    return set_error(error, Errc::InvalidArgument, "out must not be NULL, nor xml with len > 0");
  }
  return guard(error, [&] {
    callwire::xml::Reader reader;
    callwire::Result<callwire::MethodResponse> r =
        reader.read_response(std::string_view(xml ? xml : "", len));
    if (!r) return set_error(error, r.error());
    if (r->is_fault) {
      return set_error(error, CW_FAULT, r->fault.code, r->fault.string.c_str());
    }
    return make_handle(std::move(r->result), out);
  });
}

cw_status cw_encode_call(const char* method, const cw_value* const* params, size_t param_count,
                         char** xml_out, size_t* len_out, cw_error* error) {
  clear_error(error);
  if (!method || !*method || !xml_out || (!params && param_count > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "method (not empty) and xml_out must not be NULL, nor params with a count");
  }
  return guard(error, [&] {
    std::vector<Value> values;
    if (cw_status st = copy_params(method, params, param_count, values, error)) return st;
    callwire::Buffer buffer;
    callwire::Status st = callwire::xml::write_call(buffer, method, values);
    if (!st) return set_error(error, st.error());
    copy_out(buffer.view(), xml_out, len_out);
    return CW_OK;
  });
}

cw_status cw_decode_call(const char* xml, size_t len, char** method_out, cw_value** params_out,
                         cw_error* error) {
  clear_error(error);
  if (!method_out || !params_out || (!xml && len > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "method_out and params_out must not be NULL, nor xml with len > 0");
  }
  return guard(error, [&] {
    callwire::xml::Reader reader;
    callwire::Result<callwire::MethodCall> r =
        reader.read_call(std::string_view(xml ? xml : "", len));
    if (!r) return set_error(error, r.error());
    cw_value* params = nullptr;
    if (cw_status st = make_handle(std::move(r->params), &params)) return st;
    try {
      copy_out(r->method_name, method_out, nullptr);
    } catch (...) {
      cw_value_free(params);  // nothing allocated on failure
      throw;
    }
    *params_out = params;
    return CW_OK;
  });
}

cw_status cw_encode_fault(int32_t code, const char* message, char** xml_out, size_t* len_out,
                          cw_error* error) {
  clear_error(error);
  if (!xml_out) return set_error(error, Errc::InvalidArgument, "xml_out must not be NULL");
  return guard(error, [&] {
    callwire::Buffer buffer;
    callwire::Status st =
        callwire::xml::write_fault(buffer, callwire::Fault{code, std::string(view(message))});
    if (!st) return set_error(error, st.error());
    copy_out(buffer.view(), xml_out, len_out);
    return CW_OK;
  });
}

void cw_free(void* p) { callwire::detail::value_free(p); }

}  // extern "C"
