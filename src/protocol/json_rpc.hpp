// Internal: JSON-RPC 2.0's adapter to the dispatch core. A request document (one request or a
// batch) in, its answer out: one response object, an array of them, or nothing at all when
// every request was a notification. The calls themselves run in the CallCore, as XML-RPC's do,
// so a method answers both protocols with the same checks, faults and counters.
#pragma once

#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/json.hpp"
#include "callwire/message.hpp"
#include "dispatch/call_core.hpp"
#include "protocol/outcome.hpp"

namespace callwire::detail {

struct JsonRpcOptions {
  json::JsonLimits limits;
  /// As XmlRpcOptions::limits_option ("ServerOptions::json_limits").
  std::string_view limits_option;
};

/// Answers JSON-RPC documents through a CallCore. Not thread-safe: one per core, on its thread.
/// Ownership: `core` is borrowed and must outlive the adapter.
class JsonRpcDispatcher final : public ProtocolAdapter {
 public:
  JsonRpcDispatcher(CallCore& core, const JsonRpcOptions& options)
      : core_(core), limits_option_(options.limits_option), reader_(options.limits) {}

  /// Reads the request document in `body`, runs its calls in order, and appends the answer to
  /// `out`: a response object, a batch's array, or nothing (outcome.no_answer) when every
  /// request was a notification. A document that cannot be read gets one error object with id
  /// null (-32700 not JSON; -32600 not JSON-RPC, `[]`, or over a limit). Named params reach
  /// the method as one struct parameter. Never throws except std::bad_alloc, and then `out`
  /// is as it was. `readable_after`: the readable bytes after `body` in memory (their contents
  /// do not matter); at least json::kPadding and the body is read in place, else copied.
  /// `progress` is not used: JSON-RPC answers are sent whole.
  DispatchOutcome handle(std::string_view body, CallContext& ctx, Buffer& out,
                         size_t readable_after = 0, AnswerProgress* progress = nullptr) override;

 private:
  // Runs one decoded request; writes its response unless it is a notification.
  void answer(json::Call& call, CallContext& ctx, json::BatchWriter* batch, Buffer& out,
              DispatchOutcome& outcome);

  CallCore& core_;
  std::string_view limits_option_;
  json::Reader reader_;
  json::Request request_;  // reused from document to document
};

}  // namespace callwire::detail
