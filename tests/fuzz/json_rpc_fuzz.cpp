// libFuzzer driver: the JSON-RPC reader, then the writers and the reader again.
//
// For any input: Reader::read_request never crashes (the padded and the copying entry points
// alike, on one Reader kept across inputs, as a server keeps it); a whole-document refusal
// carries -32700 or -32600 and a message, and leaves no calls; each refused call carries -32600
// or -32602 and an id to answer with (or none, only for -32602). For every accepted call: its
// params written back as JSON are read again to the same Value (strict: member order, int vs
// i8, doubles), and writing that Value gives the same bytes again (the round trip is stable);
// the call and its answers written as envelopes are read back with the same id and method.
// An accepted document is JSON by simdjson's DOM parser too (but for numbers beyond a double
// or 64 bits). Any violation prints what differs and traps.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/json.hpp"
#include "json_is_json.hpp"

namespace {

using callwire::Buffer;
using callwire::Error;
using callwire::Value;
namespace fault_code = callwire::fault_code;
namespace json = callwire::json;

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "\n*** json_rpc_fuzz: %s\n%.*s\n", what, int(detail.size()), detail.data());
  std::fflush(stderr);
  __builtin_trap();
}

void check_error(const Error& e, bool whole_document) {
  using callwire::Errc;
  int32_t f = e.fault_code;
  bool invalid_request = f == fault_code::kInvalidXmlRpc &&
                         (e.code == Errc::InvalidRequest || e.code == Errc::LimitExceeded);
  bool known =
      whole_document
          ? invalid_request || (f == fault_code::kParseError && e.code == Errc::NotWellFormed)
          : invalid_request || (f == fault_code::kInvalidParams && e.code == Errc::Unrepresentable);
  if (!known || e.message.empty())
    fail("a refusal with an unexpected code or no message",
         std::string(callwire::errc_name(e.code)) + " " + std::to_string(f) + " " + e.message);
}

json::JsonLimits small_limits() {
  json::JsonLimits limits;
  limits.max_document_size = size_t{1} << 20;
  limits.max_elements = 100000;
  limits.max_string_size = size_t{1} << 20;
  limits.max_batch_size = 100;
  return limits;
}

// What the reader accepts is JSON (json_is_json.hpp).
void check_is_json(std::string_view doc) {
  std::string why = fuzz::why_not_json(doc);
  if (!why.empty())
    fail("accepted, but simdjson's DOM parser refuses it", why + "\n" + std::string(doc));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static json::Reader reader(small_limits());
  static json::Reader rereader;  // written output may be larger than its input: default limits
  std::string_view doc(reinterpret_cast<const char*>(data), size);

  json::Request req;
  callwire::Status s = reader.read_request(doc, req);
  // The padded entry point, with the input flush against the end of a Buffer's contents.
  Buffer padded;
  padded.append(doc);
  padded.prepare(json::kPadding);
  json::Request again;
  callwire::Status s2 = reader.read_request_padded(padded.view(), again);
  if (s.ok() != s2.ok() || req.calls.size() != again.calls.size())
    fail("read_request and read_request_padded disagree", doc);
  if (!s) {
    check_error(s.error(), true);
    if (!req.calls.empty()) fail("calls left after a refusal", doc);
    return 0;
  }
  if (req.calls.empty() || (!req.batch && req.calls.size() != 1)) fail("no calls", doc);
  check_is_json(doc);

  for (const json::Call& call : req.calls) {
    if (!call.ok()) {
      check_error(call.error, false);
      if (call.error.fault_code == fault_code::kInvalidXmlRpc && call.id.empty())
        fail("an invalid request with no id to answer", doc);
      Buffer out;
      if (!json::write_error(out, call.id, call.error.fault_code,
                             json::standard_message(call.error.fault_code)))
        fail("an error response could not be written", doc);
      continue;
    }
    if (!call.params.is_array() && !call.params.is_struct()) fail("params of another type", doc);

    // params -> JSON -> params -> JSON: the same Value, the same bytes.
    Buffer first;
    callwire::Status w = json::write_value(first, call.params);
    if (!w) fail("accepted params could not be written", w.error().message);
    callwire::Result<Value> reread = rereader.read_value(first.view());
    if (!reread)
      fail("written params were refused",
           reread.error().message + "\n" + std::string(first.view()));
    if (!(*reread == call.params)) fail("params changed in a round trip", first.view());
    Buffer second;
    if (!json::write_value(second, *reread) || second.view() != first.view())
      fail("the round trip is not stable",
           std::string(first.view()) + "\n" + std::string(second.view()));

    // The call as a request, and a result carrying the params, read back.
    Buffer request;
    if (!json::write_call(request, call.id, call.method, call.params))
      fail("the call could not be written", call.method);
    json::Request back;
    callwire::Status rs = rereader.read_request(request.view(), back);
    if (!rs || back.calls.size() != 1 || !back.calls[0].ok() || back.calls[0].id != call.id ||
        back.calls[0].method != call.method || !(back.calls[0].params == call.params))
      fail("a written call does not read back the same", request.view());
  }
  return 0;
}
