// callwire: answering XML-RPC and JSON-RPC request documents without a server (xmlrpc-c's
// registry::processCall): for CGI programs, a web server or framework of your own, or any
// transport callwire does not offer.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "callwire/export.hpp"
#include "callwire/json.hpp"
#include "callwire/registry.hpp"
#include "callwire/xml.hpp"

namespace callwire {

/// What a RequestDispatcher is told; each field means what ServerOptions' field of the same
/// name means.
struct DispatcherOptions {
  xml::ReaderLimits reader_limits;  ///< depth, elements, string and document sizes
  json::JsonLimits json_limits;     ///< the same for JSON-RPC documents, and batch length
  OutputDialect dialect = OutputDialect::Auto;
  bool introspection = true;  ///< system.listMethods, methodSignature, methodHelp, methodExist
  size_t max_multicall_calls = 1000;  ///< calls in one system.multicall
  /// Each call's deadline, counted from dispatch(): past it a call (or a multicall entry) is
  /// answered -32300 "deadline exceeded" instead of starting; handlers see it as
  /// CallContext::deadline(). 0: none.
  std::chrono::milliseconds call_timeout{0};
};

/// Answers `<methodCall>` documents with `<methodResponse>` documents from a registry's
/// methods: the server's dispatch (signature checks, faults, system.*, multicall, counters)
/// with no sockets and no threads. The transport is the caller's: an HTTP server of its own,
/// CGI (serve_cgi in callwire/cgi.hpp does all of it), a message queue.
///
/// Ownership: the registry is borrowed and must outlive the dispatcher; construction freezes
/// it (no method can be added afterwards). Thread-safety: one dispatch at a time per
/// dispatcher (handlers may run on any thread: make one dispatcher per thread; several may
/// share a registry); stats() from any thread at any time.
class CALLWIRE_API RequestDispatcher {
 public:
  explicit RequestDispatcher(Registry& registry, DispatcherOptions options = {});
  ~RequestDispatcher();
  RequestDispatcher(RequestDispatcher&&) noexcept;
  RequestDispatcher& operator=(RequestDispatcher&&) noexcept;

  /// Appends the complete response document answering `request` to `response`: the result,
  /// or a fault for every failure (not XML: -32700; not XML-RPC: -32600; unknown method:
  /// -32601; bad parameters: -32602; a handler's fault or exception). Whatever the transport
  /// knows of the caller goes in `context` (peer, user, header fields), borrowed for the call.
  /// Never throws except std::bad_alloc (and then `response` is as it was).
  void dispatch(std::string_view request, Buffer& response, CallContext& context);
  /// The same with an empty context, into a new string.
  std::string dispatch(std::string_view request);

  /// Answers `request` in the protocol its Content-Type names: JSON-RPC 2.0 for
  /// `application/json` (parameters and case aside; also `application/json-rpc` and
  /// `application/jsonrequest`), XML-RPC for anything else; with an empty type, JSON-RPC
  /// when the request starts with `{` or `[` after white space, else XML-RPC. Appends
  /// the answer to `response` and returns its Content-Type ("text/xml", "application/json"),
  /// or an empty view when there is no answer at all (a JSON-RPC notification, or a batch of
  /// them: answer HTTP 204 with no body). JSON-RPC's errors: -32700 not JSON, -32600 not
  /// JSON-RPC (or over a limit), then those of XML-RPC above, with each request's own id.
  /// Never throws except std::bad_alloc (and then `response` is as it was).
  std::string_view dispatch(std::string_view content_type, std::string_view request,
                            Buffer& response, CallContext& context);

  /// Calls, faults and time per method since construction, as Server::method_stats().
  std::vector<MethodStats> stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace callwire
