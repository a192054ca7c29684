// callwire: the C API's JSON-RPC 2.0 codec (include/callwire/c/json.h): cw_json_* over
// callwire::json, for C programs with a transport of their own.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "callwire/json.hpp"
#include "capi/capi_internal.hpp"

using callwire::Buffer;
using callwire::Errc;
using callwire::Value;
using namespace callwire::capi;

namespace {

// The reader keeps simdjson's parser between calls; one per thread, as the Reader requires.
callwire::json::Reader& reader() {
  thread_local callwire::json::Reader r;
  return r;
}

// An id given by a C caller is written as it is, so it must be one JSON value an id may be:
// a number, a string or null (else the document would not be JSON, or not JSON-RPC).
cw_status check_id(const char* id, cw_error* error) {
  auto v = reader().read_value(id);
  bool ok = v && (v->is_nil() || v->is_string() || v->is_int() || v->is_i8() || v->is_double());
  if (ok) return CW_OK;
  return set_error(error, Errc::InvalidArgument,
                   std::string("id must be a JSON number, string or null, got '") + id + "'");
}

// A document written into `out`, handed to the caller.
cw_status hand_out(callwire::Status written, const Buffer& out, char** json_out, size_t* len_out,
                   cw_error* error) {
  if (!written) return set_error(error, written.error());
  copy_out(out.view(), json_out, len_out);
  return CW_OK;
}

// Outputs made one by one and handed over together: on a failure part way (out of memory)
// whatever was made is freed and its out pointer reset, so the caller gets all or nothing.
struct PendingOut {
  std::vector<char**> strings;
  std::vector<cw_value**> values;
  bool kept = false;
  ~PendingOut() {
    if (kept) return;
    for (char** s : strings) cw_free(std::exchange(*s, nullptr));
    for (cw_value** v : values) cw_value_free(std::exchange(*v, nullptr));
  }
  void string(std::string_view s, char** out) {
    if (!out) return;
    strings.reserve(strings.size() + 1);
    copy_out(s, out, nullptr);
    strings.push_back(out);
  }
  void value(Value&& v, cw_value** out) {
    if (!out) return;
    values.reserve(values.size() + 1);
    make_handle(std::move(v), out);
    values.push_back(out);
  }
};

// Sets every out pointer given to NULL, so a failure leaves nothing dangling.
template <class... Out>
void clear_outs(Out*... outs) {
  ((outs ? (void)(*outs = nullptr) : (void)0), ...);
}

}  // namespace

extern "C" {

cw_status cw_json_encode_value(const cw_value* value, char** json_out, size_t* len_out,
                               cw_error* error) {
  clear_error(error);
  if (!value || !json_out) {
    return set_error(error, Errc::InvalidArgument, "value and json_out must not be NULL");
  }
  return guard(error, [&] {
    Buffer out;
    return hand_out(callwire::json::write_value(out, value->value), out, json_out, len_out, error);
  });
}

cw_status cw_json_decode_value(const char* json, size_t len, cw_value** out, cw_error* error) {
  clear_error(error);
  if (!out || (!json && len > 0)) {
    return set_error(error, Errc::InvalidArgument, "out must not be NULL, nor json with a length");
  }
  return guard(error, [&] {
    auto v = reader().read_value(std::string_view(json ? json : "", len));
    if (!v) return set_error(error, v.error());
    return make_handle(std::move(*v), out);
  });
}

cw_status cw_json_encode_call(const char* id, const char* method, const cw_value* const* params,
                              size_t param_count, char** json_out, size_t* len_out,
                              cw_error* error) {
  clear_error(error);
  if (!json_out) return set_error(error, Errc::InvalidArgument, "json_out must not be NULL");
  return guard(error, [&] {
    std::vector<Value> values;
    if (cw_status st = copy_params(method, params, param_count, values, error); st != CW_OK) {
      return st;
    }
    if (!*method) return set_error(error, Errc::InvalidArgument, "the method name is empty");
    if (id) {
      if (cw_status st = check_id(id, error); st != CW_OK) return st;
    }
    Buffer out;
    callwire::Status written = callwire::json::write_call(
        out, view(id), method, std::span<const Value>(values.data(), values.size()));
    return hand_out(written, out, json_out, len_out, error);
  });
}

cw_status cw_json_decode_call(const char* json, size_t len, char** id_out, char** method_out,
                              cw_value** params_out, cw_error* error) {
  clear_error(error);
  clear_outs(id_out, method_out);
  clear_outs(params_out);
  if (!json && len > 0) {
    return set_error(error, Errc::InvalidArgument, "json must not be NULL with a length");
  }
  return guard(error, [&] {
    callwire::json::Request request;
    callwire::Status read = reader().read_request(std::string_view(json ? json : "", len), request);
    if (!read) return set_error(error, read.error());
    if (request.batch) {
      return set_error(error, Errc::InvalidRequest,
                       "a batch: cw_json_decode_call reads one request (cw_registry_dispatch_"
                       "content answers batches)");
    }
    callwire::json::Call& call = request.calls.front();
    PendingOut pending;
    if (!call.is_notification()) pending.string(call.id, id_out);
    if (!call.ok()) {
      pending.kept = true;  // the id goes with the refusal, to answer it
      return set_error(error, call.error);
    }
    pending.string(call.method, method_out);
    pending.value(std::move(call.params), params_out);
    pending.kept = true;
    return CW_OK;
  });
}

cw_status cw_json_encode_result(const char* id, const cw_value* result, char** json_out,
                                size_t* len_out, cw_error* error) {
  clear_error(error);
  if (!id || !result || !json_out) {
    return set_error(error, Errc::InvalidArgument, "id, result and json_out must not be NULL");
  }
  return guard(error, [&] {
    if (cw_status st = check_id(id, error); st != CW_OK) return st;
    Buffer out;
    return hand_out(callwire::json::write_result(out, id, result->value), out, json_out, len_out,
                    error);
  });
}

cw_status cw_json_encode_error(const char* id, int32_t code, const char* message,
                               const cw_value* data, char** json_out, size_t* len_out,
                               cw_error* error) {
  clear_error(error);
  if (!id || !json_out) {
    return set_error(error, Errc::InvalidArgument, "id and json_out must not be NULL");
  }
  return guard(error, [&] {
    if (cw_status st = check_id(id, error); st != CW_OK) return st;
    std::string_view text = message ? message : callwire::json::standard_message(code);
    Buffer out;
    callwire::Status written =
        callwire::json::write_error(out, id, code, text, data ? &data->value : nullptr);
    return hand_out(written, out, json_out, len_out, error);
  });
}

cw_status cw_json_decode_response(const char* json, size_t len, char** id_out,
                                  cw_value** result_out, cw_value** data_out, cw_error* error) {
  clear_error(error);
  clear_outs(id_out);
  clear_outs(result_out, data_out);
  if (!result_out || (!json && len > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "result_out must not be NULL, nor json with a length");
  }
  // What the reader calls a document that is not a request or response of the protocol is,
  // for a caller reading an answer, a bad response.
  auto refuse = [&](const callwire::Error& e) {
    if (e.code != Errc::InvalidRequest) return set_error(error, e);
    return set_error(error, Errc::BadResponse, "not a JSON-RPC response: " + e.message);
  };
  return guard(error, [&] {
    callwire::json::Responses responses;
    callwire::Status read =
        reader().read_response(std::string_view(json ? json : "", len), responses);
    if (!read) return refuse(read.error());
    if (responses.batch) {
      return set_error(error, Errc::BadResponse,
                       "a batch: cw_json_decode_response reads one response");
    }
    callwire::json::Response& r = responses.responses.front();
    PendingOut pending;
    pending.string(r.id, id_out);
    if (r.ok()) {
      pending.value(std::move(r.result), result_out);
    } else if (r.is_fault() && r.data) {
      pending.value(std::move(*r.data), data_out);
    }
    pending.kept = true;
    return r.ok() ? CW_OK : refuse(r.error);
  });
}

}  // extern "C"
