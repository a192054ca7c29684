// libFuzzer driver for the server's dispatch: any body a peer POSTs goes through the reader,
// the method lookup, signature checks, handlers, system.* and multicall, and must come back
// as exactly one well-formed <methodResponse> (a result or a fault) — never a crash, a leak or
// an exception. A body starting with '{' or '[' goes to JSON-RPC instead, and must come back
// as JSON (a response, a batch of them) or as nothing (notifications only). An XML-RPC body is
// answered twice, byte for byte the same: by the bound methods reading their parameters
// straight from the request, and with a pre-invoke hook set, which keeps every call on the
// Value path.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/json.hpp"
#include "callwire/registry.hpp"
#include "callwire/struct.hpp"
#include "callwire/xml.hpp"
#include "protocol/dispatcher.hpp"

namespace {

using namespace callwire;

// A registration the driver depends on; refused, there is nothing to fuzz.
void must(const Status& added) {
  if (!added) abort();
}

struct Pair {
  int32_t x = 0;
  std::string label;
};
CALLWIRE_STRUCT(Pair, x, label);

// The methods, on the streamed path unless `values_only` sets a pre-invoke hook.
Registry* make_registry(bool values_only) {
  auto* reg = new Registry;
  must(
      reg->add("sample.add",
               [](Params p, CallContext&) { return Value(int64_t(p[0].as_int()) + p[1].as_int()); },
               {{{"int", "int", "int"}}, "Adds two integers."}));
  must(reg->add("echo", [](Params p, CallContext&) {
    Value a = Value::array();
    for (Value& v : p) a.push_back(std::move(v));
    return a;
  }));
  must(reg->add("fail", [](Params p, CallContext& c) -> Value {
    if (p.size() > 1) c.latch_fault({1, "latched"});
    if (p.empty()) throw std::runtime_error("plain exception");
    throw FaultError(-1, std::string(p[0].try_as_string().value_or("fault")));
  }));
  must(reg->add("first", [](Params p, CallContext&) { return p.empty() ? Value() : p[0]; },
                {{{"any", "any"}, {"any"}}, ""}));
  must(reg->bind("named", {"a", "b"}, [](int a, std::optional<std::vector<uint8_t>> b) {
    return a + int(b ? b->size() : 0);
  }));
  must(reg->bind("pairs", [](std::vector<Pair> pairs, std::string s, double d) {
    return int(pairs.size() + s.size()) + int(d > 0);
  }));
  if (values_only)
    must(reg->set_preinvoke(
        [](CallContext&, std::span<const Value>) -> std::optional<Fault> { return std::nullopt; }));
  reg->freeze();
  return reg;
}

const Registry& registry() {
  static Registry* r = make_registry(false);
  return *r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const detail::DispatchOptions options = [] {
    detail::DispatchOptions o;
    o.core.max_multicall_calls = 50;
    return o;
  }();
  static detail::Dispatcher* dispatcher = new detail::Dispatcher(registry(), options);
  std::string_view body(reinterpret_cast<const char*>(data), size);
  CallContext context("127.0.0.1:1", "", {});
  Buffer out;
  if (size > 0 && (data[0] == '{' || data[0] == '[')) {
    detail::DispatchOutcome outcome =
        dispatcher->handle(detail::Protocol::JsonRpc, body, context, out);
    if (outcome.no_answer != out.empty()) abort();
    static json::Reader json_reader;
    if (!outcome.no_answer) {
      // Valid JSON (an echoed 30-digit id or deep echo may pass the reader's value limits).
      auto answer = json_reader.read_value(out.view());
      if (!answer && answer.error().code == Errc::NotWellFormed) abort();
    }
    return 0;
  }
  dispatcher->handle(body, context, out);
  static xml::Reader reader;
  auto response = reader.read_response(out.view());
  if (!response) abort();  // the answer must always be a valid methodResponse
  static Registry* values_only = make_registry(true);
  static detail::Dispatcher* values = new detail::Dispatcher(*values_only, options);
  Buffer value_path;
  CallContext again("127.0.0.1:1", "", {});
  values->handle(body, again, value_path);
  if (value_path.view() != out.view()) abort();  // the two paths answer alike
  return 0;
}
