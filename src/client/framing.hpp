// Internal: how a client's requests and answers look on the wire: HTTP/1.1, SCGI, xmlrpc-c's
// packet stream or newline-delimited JSON-RPC. One object
// per client, made from its URL and options, builds every request's head and makes the parser
// of every answer; the connection and the call paths never ask which framing it is.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/transports.hpp"
#include "callwire/buffer.hpp"
#include "callwire/client.hpp"
#include "callwire/error.hpp"
#include "http/request_parser.hpp"
#include "http/response_parser.hpp"

namespace callwire::detail {

struct ClientUrl;
struct ProxyRoute;

/// One answer's parser (ResponseParser's contract; a virtual call per read, not per byte).
class AnswerParser {
 public:
  virtual ~AnswerParser() = default;
  virtual http::ResponseParseResult parse(std::string_view input, Buffer& chunked_body) = 0;
  virtual http::ResponseParseResult parse_eof(std::string_view input, Buffer& chunked_body) = 0;
  /// Bytes at the front of the input that this parser is done with, since the last call:
  /// after an Incomplete parse, the caller drops them, and the next parse is given the input
  /// from the first byte after them. HTTP and SCGI keep every byte of an answer (0).
  virtual size_t take_consumed() noexcept { return 0; }
  virtual void reset() noexcept = 0;
  /// A new connection begins: everything of the last is forgotten. reset() forgets one answer;
  /// a WebSocket parser's frame reader lives as long as its connection.
  virtual void reset_stream() noexcept { reset(); }
  /// Bytes that came while no call waited for them (a kept connection, watched while idle):
  /// true when the connection can still carry calls. For most framings any byte is one nobody
  /// asked for; a WebSocket parser hands notifications on and answers pings.
  virtual bool read_idle(std::string_view input) { return input.empty(); }
  /// Bytes the parser owes the peer (a WebSocket Pong, or the Close that answers the server's):
  /// the connection sends them as soon as it can, and says how many went with output_sent.
  virtual std::string_view owed_output() const noexcept { return {}; }
  virtual void output_sent(size_t) noexcept {}
  virtual bool headers_complete() const noexcept = 0;
  /// The part of the answer's body that has come, while more is due, where its framing says
  /// the body's `length` up front: ResponseParser::arriving_body's contract. Empty otherwise.
  virtual std::string_view arriving_body(std::string_view /*input*/,
                                         uint64_t& /*length*/) const noexcept {
    return {};
  }
  /// The data of a chunked body decoded so far, while more is due:
  /// ResponseParser::arriving_chunks's contract. Empty otherwise.
  virtual std::string_view arriving_chunks(const Buffer& /*chunked_body*/) const noexcept {
    return {};
  }
  /// How many bytes of a chunk's data the caller may read straight to the end of the chunked
  /// body, past the input, and then report with chunk_data_read:
  /// ResponseParser::chunk_data_due's contract. 0 for framings without chunks.
  virtual uint64_t chunk_data_due(std::string_view /*input*/) const noexcept { return 0; }
  virtual void chunk_data_read(size_t /*n*/) noexcept {}
  virtual const http::Response& response() const noexcept = 0;
  virtual std::string_view error() const noexcept = 0;
};

/// What one request's head says beyond what every request of the client says.
struct RequestFacts {
  uint64_t body_size = 0;
  bool gzipped = false;                   ///< the body is gzip
  std::span<const http::Header> headers;  ///< this call's extra fields
  std::optional<int64_t> timeout_ms;      ///< sent as X-Callwire-Timeout
};

/// Thread-safety: const, shared by every thread that calls.
class ClientFraming {
 public:
  explicit ClientFraming(const Transport& transport) noexcept : transport_(transport) {}
  virtual ~ClientFraming() = default;
  /// Its row of kTransports: what it can carry (gzip travels where header fields do), whether
  /// a notification is answered, whether a kept connection is checked before reuse.
  const Transport& transport() const noexcept { return transport_; }
  /// Appends the head of a request (the body follows it). Errors: InvalidArgument for a
  /// call's header field that cannot be sent (nothing appended then).
  virtual Status append_head(Buffer& out, const RequestFacts& facts) const = 0;
  virtual std::unique_ptr<AnswerParser> make_answer_parser(
      const http::ResponseLimits& limits) const = 0;
  /// After the head is in place before the body at `body_offset`: whatever must follow the
  /// body (the packet stream escapes it and ends the packet). Throws std::bad_alloc only.
  virtual void finish_request(Buffer&, size_t /*body_offset*/) const {}
  /// What an idle kept connection is sent to see whether it is still there: nothing for HTTP
  /// and SCGI (a reset shows without), a packet stream's NOP, a blank line for JSON lines.
  virtual std::string_view idle_probe() const noexcept { return {}; }
  /// A transport an HTTP/1.1 upgrade opens (transport().http_upgrade): appends the request
  /// that opens each new connection, and returns what its answer must carry for
  /// check_opening (a WebSocket accept key). Throws std::bad_alloc only.
  virtual std::string append_opening(Buffer&) const { return {}; }
  /// The last words of a connection the client closes between calls (a WebSocket's Close,
  /// 1001 "going away"); nothing for the others. Throws std::bad_alloc only.
  virtual void append_goodbye(Buffer&) const {}
  /// Whether `answer` (a 101, or a refusal) opens the connection. Errors: HttpStatus for a
  /// refusal (401, 403, 404, ...), BadResponse for a 101 that does not answer the request.
  virtual Status check_opening(const http::Response&, std::string_view /*expected*/) const {
    return Status();
  }
  /// An answer of `bytes` came: once one is long (kLongAnswer), HTTP requests from then on
  /// say `TE: trailers`, so that a server may send long answers while it writes them. A
  /// client that only makes small calls never sends the two fields (they cost a server about
  /// 1,000 instructions a call). Any thread.
  static constexpr size_t kLongAnswer = 256 * 1024;
  void answer_came(size_t bytes) const noexcept {
    if (bytes >= kLongAnswer && !long_answers_.load(std::memory_order_relaxed))
      long_answers_.store(true, std::memory_order_relaxed);
  }

 protected:
  bool long_answers() const noexcept { return long_answers_.load(std::memory_order_relaxed); }

 private:
  const Transport& transport_;
  mutable std::atomic<bool> long_answers_{false};
};

/// The framing `url` names, with what every request says: its Content-Type (static storage:
/// "text/xml" or "application/json"; a packet stream carries none, and refuses any other than
/// text/xml), gzip accepted, the Authorization value ("Basic ..." or empty), the extra header
/// fields. `proxy` (HTTP only; borrowed, outlives the framing): through a proxy that is not a
/// CONNECT tunnel, every request's target is in absolute form and carries the proxy's
/// Proxy-Authorization. Errors: InvalidArgument for a field that cannot be sent, JSON over a
/// packet stream, XML over JSON lines, or `on_notification` set (borrowed, outlives the
/// framing) for another framing than WebSocket, the only one notifications come over.
Result<std::unique_ptr<ClientFraming>> make_client_framing(
    const ClientUrl& url, std::string_view content_type, bool accept_gzip,
    std::string authorization, std::string user_agent,
    std::vector<std::pair<std::string, std::string>> headers, const ProxyRoute* proxy = nullptr,
    const NotificationHandler* on_notification = nullptr);

}  // namespace callwire::detail
