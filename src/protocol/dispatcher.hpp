// Internal: what a thread that runs handlers holds to answer requests: one dispatch core (the
// method counters of that thread) and the protocol adapters over it. The transports (HTTP,
// SCGI, CGI, the public RequestDispatcher) hand it request bodies and get answers back.
#pragma once

#include <string_view>
#include <vector>

#include "dispatch/call_core.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/outcome.hpp"
#include "protocol/xml_rpc.hpp"

namespace callwire::detail {

/// The public one (callwire/message.hpp): what a client speaks and a request is in.
using Protocol = callwire::Protocol;

/// The protocol a request's Content-Type names: JSON-RPC for `application/json` (and the
/// older `application/json-rpc` and `application/jsonrequest`), whatever the parameters and
/// the letters' case; XML-RPC for anything else, absent included (XML-RPC peers send text/xml,
/// and some send nothing or something odd: they have always been answered).
Protocol protocol_for_content_type(std::string_view content_type) noexcept;

/// The protocol of a request: its Content-Type's (protocol_for_content_type), or, with no
/// Content-Type at all, JSON-RPC when the body starts with `{` or `[` after white space (a
/// JSON body sent without one, as a JSON-RPC client would expect it read), else XML-RPC.
/// `body` is the request as it arrived (a gzipped one is not looked into: XML-RPC).
Protocol protocol_for_request(std::string_view content_type, std::string_view body) noexcept;

/// The Content-Type of an answer in `protocol` (inline: every answer asks).
inline std::string_view answer_content_type(Protocol protocol) noexcept {
  return protocol == Protocol::JsonRpc ? "application/json" : "text/xml";
}

struct DispatchOptions {
  XmlRpcOptions xml_rpc;
  JsonRpcOptions json_rpc;
  CallCoreOptions core;
};

/// One per thread that runs handlers (see CallCore for the rules). Ownership: `registry` is
/// borrowed, must outlive the dispatcher and must be frozen.
class Dispatcher {
 public:
  Dispatcher(const Registry& registry, DispatchOptions options)
      : core_(registry, std::move(options.core)),
        xml_rpc_(core_, options.xml_rpc),
        json_rpc_(core_, options.json_rpc) {}

  /// Answers a request body in `protocol`, through that protocol's adapter
  /// (ProtocolAdapter::handle).
  DispatchOutcome handle(Protocol protocol, std::string_view body, CallContext& ctx, Buffer& out,
                         size_t readable_after = 0, AnswerProgress* progress = nullptr) {
    return adapters_[static_cast<size_t>(protocol)]->handle(body, ctx, out, readable_after,
                                                            progress);
  }
  /// Answers an XML-RPC request body.
  DispatchOutcome handle(std::string_view body, CallContext& ctx, Buffer& out) {
    return xml_rpc_.handle(body, ctx, out);
  }
  /// See CallCore::add_stats_to.
  void add_stats_to(std::vector<MethodStats>& sums) const { core_.add_stats_to(sums); }

 private:
  CallCore core_;
  XmlRpcDispatcher xml_rpc_;
  JsonRpcDispatcher json_rpc_;
  // Indexed by Protocol: each protocol's adapter, all over the one core.
  ProtocolAdapter* const adapters_[2] = {&xml_rpc_, &json_rpc_};
  static_assert(static_cast<size_t>(Protocol::XmlRpc) == 0 &&
                static_cast<size_t>(Protocol::JsonRpc) == 1);
};

}  // namespace callwire::detail
