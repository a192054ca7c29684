// callwire: a wire trace, every request and answer as it travels, for debugging (xmlrpc-c's
// XMLRPC_TRACE_XML). Turned on three ways:
//   - CALLWIRE_TRACE=1 in the environment of any program using callwire (its clients and
//     servers, from C or C++), or CALLWIRE_TRACE=1:4096 to cut each body after 4096 bytes:
//     every message on standard error;
//   - `callwire call --trace` and `callwire serve --trace` (the command line tool);
//   - ClientOptions::trace / ServerOptions::trace: a hook given each message (cw_*_options'
//     trace in C).
//
// What a message shows: the HTTP (or SCGI) head, with Authorization and Proxy-Authorization
// values hidden; then the body as the protocol reads it: inflated when it was sent gzipped, a
// packet stream's payload unescaped (the XML), chunked transfer decoded. A hook set in the
// options wins over the environment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "callwire/export.hpp"

namespace callwire {

/// Which message a TraceEvent is.
enum class TraceKind : uint8_t {
  ClientRequest,  ///< a client sent a request
  ClientAnswer,   ///< a client received an answer
  ServerRequest,  ///< a server received a request
  ServerAnswer,   ///< a server sent an answer (an error answer too: 400, 404, 413, ...)
};

/// One message, as the trace shows it. The views live for the hook's call only.
struct TraceEvent {
  TraceKind kind = TraceKind::ClientRequest;
  /// The other end: the server's URL for a client, the client's address for a server.
  std::string_view peer;
  /// The head, one field a line ("POST /RPC2 HTTP/1.1\r\nHost: ...\r\n"), credentials hidden;
  /// empty for a framing without one (packet stream, JSON lines).
  std::string_view head;
  /// The body as the protocol reads it (inflated, unescaped, de-chunked).
  std::string_view body;
};

/// Called for each message. On a server it runs on the server's threads, possibly several at
/// once: it must be thread-safe. It must not throw (what it throws is dropped).
using TraceHook = std::function<void(const TraceEvent&)>;

/// A hook that writes each message to standard error, one write per message (messages of
/// several threads do not interleave), bytes that could drive a terminal written `\xHH`, each
/// body cut after `max_body` bytes (0: whole). What CALLWIRE_TRACE and --trace install.
CALLWIRE_API TraceHook trace_to_stderr(size_t max_body = 0);

/// The hook CALLWIRE_TRACE asks for: empty when the variable is unset, empty or "0"; else
/// trace_to_stderr with the length after a colon ("1:4096"). Read each time it is called.
CALLWIRE_API TraceHook trace_from_environment();

}  // namespace callwire
