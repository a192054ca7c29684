// Internal: XML-RPC's adapter to the dispatch core. A <methodCall> document in, one complete
// <methodResponse> document out: read it, let the CallCore run the call, write the result or
// the fault in the request's dialect. Everything XML about dispatch lives here: the dialect
// choice (and the User-Agent sniffing it needs), typed results written straight into the
// response, and what to do with a result XML cannot carry.
#pragma once

#include <string>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/message.hpp"
#include "callwire/xml.hpp"
#include "dispatch/call_core.hpp"
#include "protocol/outcome.hpp"

namespace callwire::detail {

struct XmlRpcOptions {
  xml::ReaderLimits limits;
  /// Auto: Apache when the request used a prefixed type name (`<ex:i8>`), declared Apache's
  /// extensions namespace, or came with a User-Agent starting "Apache XML RPC"; else I8.
  OutputDialect dialect = OutputDialect::Auto;
  /// Where the limits were set, for a fault over one ("ServerOptions::reader_limits"): the
  /// caller then knows what to raise. Static storage; empty: not said.
  std::string_view limits_option;
};

/// Answers XML-RPC documents through a CallCore. Not thread-safe: one per core, on its thread.
/// Ownership: `core` is borrowed and must outlive the adapter.
class XmlRpcDispatcher final : public ProtocolAdapter {
 public:
  XmlRpcDispatcher(CallCore& core, const XmlRpcOptions& options)
      : core_(core),
        dialect_(options.dialect),
        limits_option_(options.limits_option),
        reader_(options.limits) {}

  /// Reads the <methodCall> in `body`, runs it, appends one complete <methodResponse> document
  /// to `out` (a result or a fault, in every case). `ctx` carries what the transport knows;
  /// its latch is cleared first and its method set for the handler. Never throws except
  /// std::bad_alloc, and then `out` is as it was. With `progress`, a long result is sent as it
  /// is written; one that fails after that is cut short (DispatchOutcome::cut_short), not
  /// replaced by a fault.
  DispatchOutcome handle(std::string_view body, CallContext& ctx, Buffer& out,
                         size_t readable_after = 0, AnswerProgress* progress = nullptr) override;

 private:
  class StreamedCall;  // a call whose typed handler reads its parameters from the request

  xml::WriterOptions writer_options(const CallContext& ctx) const noexcept;
  // After a multicall result failed to write: replaces the entries that cannot be written.
  void repair_multicall(Value& results, const xml::WriterOptions& options);

  CallCore& core_;
  OutputDialect dialect_;
  std::string_view limits_option_;
  xml::Reader reader_;
  MethodCall call_;  // reused from call to call
  Buffer scratch_;   // repair_multicall
};

/// `s` with every byte sequence that is not UTF-8 or not an XML character replaced by U+FFFD:
/// a fault string that can always be written.
std::string xml_safe_text(std::string_view s);

/// A reader's refusal as the fault text a peer gets: over a limit, the option that sets it is
/// named after the reader's account (which names the limit and its value).
std::string refusal_text(const Error& read, std::string_view limits_option);

}  // namespace callwire::detail
