// Internal: the wire trace (callwire/trace.hpp) as the client and the server make it: each
// message turned into what a TraceEvent shows (its head with credentials hidden, its body
// inflated, unescaped or de-chunked), and handed to the hook. Nothing here runs unless a hook
// is set: a connection asks `if (hook)` first.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/framing.hpp"
#include "callwire/trace.hpp"
#include "http/request_parser.hpp"
#include "http/response_parser.hpp"

namespace callwire::trace {

/// One message's head and body as the trace shows them. `body` points into the message or
/// into `storage`.
struct Shown {
  std::string head;
  std::string_view body;
  Buffer storage;
  Buffer chunks;  // a chunked body's data
};

/// A message as it was sent on `framing`: its bytes, whole (head, body and framing). A
/// chunked body is shown as its data, a body the head says is gzip is inflated (at most
/// `max_body` bytes; past that, or corrupt, it is shown as sent), a packet is unescaped, an
/// SCGI netstring head is shown a field a line.
void show_sent(ConnectionFraming framing, std::string_view bytes, size_t max_body, Shown& out);

/// A received request's or answer's head, from its parsed fields, credentials hidden.
std::string request_head(const http::Request& request);
std::string response_head(const http::Response& response);

/// A received body as the trace shows it: inflated into `storage` when `gzipped` (as
/// show_sent does), else itself.
std::string_view shown_body(std::string_view body, bool gzipped, size_t max_body, Buffer& storage);

/// Calls `hook` with the event; what it throws is dropped (a trace never fails a call).
void emit(const TraceHook& hook, TraceKind kind, std::string_view peer, std::string_view head,
          std::string_view body) noexcept;

/// The hook to use: `configured` when set, else what CALLWIRE_TRACE asks for.
TraceHook chosen(const TraceHook& configured);

}  // namespace callwire::trace
