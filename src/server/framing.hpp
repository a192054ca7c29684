// Internal: how requests and answers are framed on a listener's connections: HTTP/1.1, SCGI,
// xmlrpc-c's packet stream, newline-delimited JSON-RPC, or WebSocket after an HTTP upgrade. A
// connection (connection.hpp) reads, checks and answers through this and never asks which; each
// framing is an I/O-free parser and writer from src/http or src/pstream.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/transports.hpp"
#include "callwire/buffer.hpp"
#include "callwire/message.hpp"
#include "http/request_parser.hpp"
#include "http/response_writer.hpp"

namespace callwire::detail {

class RequestFraming {
 public:
  explicit RequestFraming(const Transport& transport) noexcept : transport_(transport) {}
  virtual ~RequestFraming() = default;
  /// Its row of kTransports: whether requests carry a head (method, path, credentials,
  /// codings) for the connection to check, whether every request is JSON-RPC whatever it says.
  const Transport& transport() const noexcept { return transport_; }

  // The request parser (RequestParser's contract; a virtual call per read, not per byte),
  // with one addition: Incomplete may report `consumed` bytes the framing is done with, which
  // the connection drops before the next call (HTTP and SCGI report 0: they read a request
  // again from its start; the packet stream consumes escaped bytes and NOPs as it goes).
  virtual http::ParseResult parse(std::string_view input, Buffer& chunked_body) = 0;
  virtual void reset() noexcept = 0;
  virtual bool headers_complete() const noexcept = 0;
  virtual const http::Request& request() const noexcept = 0;

  /// Writes the head of an answer into the gap before its body (place_response_head's
  /// contract): returns where the answer starts, or http::kNoRoom.
  virtual size_t place_head(Buffer& out, size_t body_offset, const http::ResponseHead& head) = 0;
  /// Appends a whole error answer (the connection closes after it) to a refusal of the
  /// connection's or of HTTP's, said as an HTTP status (413, 408, 503, ...); a framing says it
  /// in its own words, or not at all.
  virtual void append_error(Buffer& out, int status, std::span<const http::Header> extra,
                            std::string_view date) = 0;
  /// Whether parse() answers its own refusals: on Error it has put its last word (if any) in
  /// own_output(), and http_status only says what the refusal counts as in the metrics and the
  /// access log (0: nothing to count). The packet stream, JSON lines and WebSocket do; HTTP's
  /// and SCGI's refusals are answered by append_error with the status.
  virtual bool answers_own_refusals() const noexcept { return false; }
  /// The protocol of every request whatever it says (JSON lines: JSON-RPC; WebSocket: its
  /// subprotocol's); none: the Content-Type decides.
  virtual std::optional<Protocol> fixed_protocol() const noexcept { return std::nullopt; }
  /// What the framing says before the server closes the connection of its own accord (it
  /// stops, or the peer went quiet): a WebSocket Close. Nothing for the others.
  virtual void append_goodbye(Buffer&) {}
  /// Asks a quiet peer whether it is still there (a WebSocket Ping); nothing for the others.
  virtual void append_ping(Buffer&) {}
  /// Bytes the framing sends of its own accord while parsing (a WebSocket Pong, the Close
  /// answering the peer's, a refusal it answers itself): the connection queues them after each
  /// parse and clears them.
  Buffer& own_output() noexcept { return own_output_; }
  /// The client behind a gateway, when the framing says (SCGI's REMOTE_ADDR and REMOTE_PORT),
  /// and the user the gateway authenticated (REMOTE_USER); empty otherwise.
  virtual std::string gateway_peer() const { return {}; }
  virtual std::string_view gateway_user() const { return {}; }
  /// Whether the framing consumed part of a request it has not completed (a packet whose
  /// escapes it copies as they come): the connection is inside a request although its receive
  /// buffer may be empty. HTTP, SCGI and JSON lines consume nothing of an unfinished request.
  virtual bool in_request() const noexcept { return false; }
  /// Whether each byte read now grows the framing's own storage rather than the receive
  /// buffer (a copied packet): such reads are weighed against the memory budget.
  virtual bool copies_input() const noexcept { return false; }
  /// Bytes of storage the framing owns (its copies), counted in the connection's budget.
  size_t held_bytes() const noexcept { return storage_ ? storage_->capacity() : 0; }
  /// Between requests: gives back storage a large request left behind.
  virtual void release_storage() noexcept {}

 protected:
  // The framing's own storage, if it has any (read on every event: not a virtual call).
  const Buffer* storage_ = nullptr;
  Buffer own_output_;

 private:
  const Transport& transport_;
};

/// `limits.max_body` caps a packet's payload too.
std::unique_ptr<RequestFraming> make_framing(ConnectionFraming kind,
                                             const http::RequestLimits& limits);

/// After a WebSocket handshake, the connection's framing from its next byte on: each message a
/// request in `protocol`, of at most `max_message` bytes.
std::unique_ptr<RequestFraming> make_websocket_framing(size_t max_message, Protocol protocol);

/// What a connection refused at the cap is sent before it is closed.
std::string_view over_capacity_answer(ConnectionFraming kind) noexcept;

}  // namespace callwire::detail
