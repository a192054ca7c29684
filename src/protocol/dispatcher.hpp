// Internal: what a thread that runs handlers holds to answer requests: one dispatch core (the
// method counters of that thread) and the protocol adapters over it. The transports (HTTP,
// SCGI, CGI, the public RequestDispatcher) hand it request bodies and get answers back.
#pragma once

#include <string_view>
#include <vector>

#include "dispatch/call_core.hpp"
#include "protocol/xml_rpc.hpp"

namespace callwire::detail {

struct DispatchOptions {
  XmlRpcOptions xml_rpc;
  CallCoreOptions core;
};

/// One per thread that runs handlers (see CallCore for the rules). Ownership: `registry` is
/// borrowed, must outlive the dispatcher and must be frozen.
class Dispatcher {
 public:
  Dispatcher(const Registry& registry, DispatchOptions options)
      : core_(registry, std::move(options.core)), xml_rpc_(core_, options.xml_rpc) {}

  /// Answers an XML-RPC request body (XmlRpcDispatcher::handle).
  DispatchOutcome handle(std::string_view body, CallContext& ctx, Buffer& out) {
    return xml_rpc_.handle(body, ctx, out);
  }
  /// See CallCore::add_stats_to.
  void add_stats_to(std::vector<MethodStats>& sums) const { core_.add_stats_to(sums); }

 private:
  CallCore core_;
  XmlRpcDispatcher xml_rpc_;
};

}  // namespace callwire::detail
