// The JSON-RPC writers: values and response envelopes appended straight to a Buffer, no
// intermediate strings. The mapping is in include/callwire/json.hpp.
#include <span>
#include <string>

#include "callwire/json.hpp"
#include "json/json_writer.hpp"

namespace callwire::json {

const char* standard_message(int32_t code) noexcept {
  switch (code) {
    case fault_code::kParseError:
      return "Parse error";
    case fault_code::kInvalidXmlRpc:
      return "Invalid Request";
    case fault_code::kMethodNotFound:
      return "Method not found";
    case fault_code::kInvalidParams:
      return "Invalid params";
    case fault_code::kInternalError:
      return "Internal error";
    default:
      return code >= -32099 && code <= -32000 ? "Server error" : "Error";
  }
}

Status write_value(Buffer& out, const Value& value) {
  JsonWriter w(out);
  if (!w.value(value)) return w.fail();
  return {};
}

Status write_result(Buffer& out, std::string_view id, const Value& result) {
  JsonWriter w(out);
  w.raw(kVersion);
  w.raw("\"result\":");
  if (!w.value(result)) return w.fail();
  w.id_and_close(id);
  return {};
}

Status write_error(Buffer& out, std::string_view id, int32_t code, std::string_view message,
                   const Value* data) {
  JsonWriter w(out);
  w.raw(kVersion);
  w.raw("\"error\":{\"code\":");
  w.integer(code);
  w.raw(",\"message\":");
  if (!w.string(message)) return w.fail();
  if (data) {
    w.raw(",\"data\":");
    if (!w.value(*data)) return w.fail();
  }
  w.raw("}");
  w.id_and_close(id);
  return {};
}

namespace {

// A request whose params `write_params` writes.
template <class WriteParams>
Status write_call_with(Buffer& out, std::string_view id, std::string_view method,
                       WriteParams write_params) {
  JsonWriter w(out);
  w.raw(kVersion);
  w.raw("\"method\":");
  if (!w.string(method)) return w.fail();
  w.raw(",\"params\":");
  if (!write_params(w)) return w.fail();
  if (id.empty()) {
    w.raw("}");
  } else {
    w.id_and_close(id);
  }
  return {};
}

}  // namespace

Status write_call(Buffer& out, std::string_view id, std::string_view method, const Value& params) {
  if (!params.is_array() && !params.is_struct())
    return Error(Errc::InvalidArgument, "JSON-RPC params must be an array or a struct");
  return write_call_with(out, id, method, [&](JsonWriter& w) { return w.value(params); });
}

Status write_call(Buffer& out, std::string_view id, std::string_view method,
                  std::span<const Value> params) {
  return write_call_with(out, id, method, [&](JsonWriter& w) { return w.array(params); });
}

void BatchWriter::separate() { out_.push_back(count_ == 0 ? '[' : ','); }

Status BatchWriter::settle(size_t mark, Status written) {
  if (written) {
    ++count_;
  } else {
    out_.truncate(mark);  // the separator too
  }
  return written;
}

Status BatchWriter::result(std::string_view id, const Value& result) {
  size_t mark = out_.size();
  separate();
  return settle(mark, write_result(out_, id, result));
}

Status BatchWriter::error(std::string_view id, int32_t code, std::string_view message,
                          const Value* data) {
  size_t mark = out_.size();
  separate();
  return settle(mark, write_error(out_, id, code, message, data));
}

bool BatchWriter::finish() {
  if (count_ == 0) return false;
  out_.push_back(']');
  return true;
}

}  // namespace callwire::json
