// Internal: the HTTP rules of one server connection, apart from its socket and buffers: what a
// request's head alone refuses (method, path, credentials, content coding), who the user is,
// when the call must end (ServerOptions::call_timeout and the client's X-Callwire-Timeout),
// which protocol answers it, whether the connection stays open after it, and whether an answer
// is worth gzipping. I/O-free: tests/unit/server/http_session_test.cpp drives it with parsed
// requests, no socket. The Connection (buffers, flush, linger, worker hand-off, timeouts)
// asks it; framings without an HTTP head (the packet stream, newline-delimited JSON) only
// take its call setup.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/registry.hpp"
#include "callwire/server.hpp"
#include "http/request_parser.hpp"
#include "protocol/dispatcher.hpp"

namespace callwire::detail {

/// The header a client sends its remaining time in, in milliseconds (ClientOptions::send_timeout).
inline constexpr std::string_view kTimeoutHeader = "X-Callwire-Timeout";

/// Ownership: borrows the options and the challenge (the server's, which outlive it).
/// Thread-safety: one connection's; gzip_answer from the worker that runs its call too.
class HttpSession {
 public:
  using Clock = std::chrono::steady_clock;

  /// `www_authenticate`: the 401's challenge, for a server with `authenticate`.
  /// `http`: the framing is HTTP itself (not SCGI behind a gateway): its connections count
  /// toward max_requests_per_connection, and the health path is answered on them.
  /// `websocket`: a GET may upgrade the connection to WebSocket (a "ws://" listener's).
  HttpSession(const ServerOptions& options, const std::string& www_authenticate, bool http = true,
              bool websocket = false)
      : options_(options),
        www_authenticate_(www_authenticate),
        capped_(http),
        websocket_(websocket),
        cors_origin_{"Access-Control-Allow-Origin", options.cors_allow_origin} {
    if (options.cors_max_age.count() > 0) max_age_ = std::to_string(options.cors_max_age.count());
  }

  /// A refusal: the status to answer (0: none), and the fields it needs (Allow,
  /// WWW-Authenticate, a CORS preflight's): views into the session, its options and the
  /// request, valid until the next check_head and while the request stays.
  struct Refusal {
    int status = 0;
    std::span<const http::Header> fields;
    /// The answer's text (the health path's; a 404's, naming the path asked for and those
    /// served: valid until the next check_head); empty: the status's reason.
    std::string_view body;
    /// The metrics path: answer 200 with the server's metrics page.
    bool metrics = false;
    /// A WebSocket handshake accepted: answer 101 with `fields` and speak WebSocket from the
    /// next byte on, carrying `protocol`.
    bool upgrade = false;
    Protocol protocol = Protocol::JsonRpc;
  };
  /// What the head alone decides, in this order: with CORS, an OPTIONS preflight on a served
  /// path is answered 200 with what it asks for (a "refusal" that ends it), 400 when what it asks
  /// for is not a field value (SCGI's variables may carry CR and LF); 405 for a method
  /// other than POST, 404 for a path not served (origin- or absolute-form; the query is
  /// ignored), 401 without accepted credentials, 415 for a content coding other than gzip or
  /// identity. Calls `authenticate` once per new Authorization value: the same credentials
  /// again on this connection are accepted as before. Before all of them, on HTTP: a GET of
  /// health_path (when set) is answered 200 "ok\n", or 503 "stopping\n" when `stopping`,
  /// with Cache-Control: no-store, whatever the credentials; then a GET of metrics_path
  /// (when set) is `metrics`, or 401 without metrics_authorization's exact value. Then, on a
  /// WebSocket listener, a GET asking to upgrade (check_upgrade).
  Refusal check_head(const http::Request& request, bool stopping = false);
  /// A WebSocket handshake (RFC 6455 §4.2): `upgrade` when accepted; else 404 for a path not
  /// served, 403 for a browser's Origin not in WebSocketOptions::allowed_origins, 401 without
  /// accepted credentials, 426 for a version other than 13 (with Sec-WebSocket-Version: 13),
  /// 400 for a handshake that is not one (HTTP/1.0, no "Connection: Upgrade", a bad key, only
  /// subprotocols not served), each with a body naming the mistake.
  Refusal check_upgrade(const http::Request& request);
  /// After the upgrade: the connection carries WebSocket messages, which no
  /// max_requests_per_connection caps.
  void upgraded() noexcept { capped_ = false; }
  /// With CORS (cors_allow_origin set), the field every answer carries; else empty.
  std::span<const http::Header> cors_fields() const noexcept {
    return {&cors_origin_, options_.cors_allow_origin.empty() ? 0u : 1u};
  }

  /// The user the credentials named, or (no `authenticate`) the one a gateway vouched for.
  const std::string& user() const noexcept { return user_; }
  /// Behind a gateway (SCGI), the user is the gateway's to tell, unless we authenticate.
  void take_gateway_user(std::string_view user) {
    if (!options_.authenticate) user_ = user;
  }

  /// How an accepted request's call runs.
  struct CallSetup {
    Clock::time_point deadline = Clock::time_point::max();
    Protocol protocol = Protocol::XmlRpc;
    bool keep_alive = true;  ///< the connection stays open after the answer
  };
  /// Reads from the request's fields and the options the call's setup: the deadline, from
  /// now, is the earlier of call_timeout and the
  /// first X-Callwire-Timeout (1 to 9 digits; anything else is ignored); the protocol is
  /// `fixed` when the framing fixes it, else the one the Content-Type names; the connection
  /// closes after the answer when the client asked to, the server is `stopping`, or this is
  /// the connection's max_requests_per_connection-th request (each call counts one).
  CallSetup setup_call(const http::Request& request, std::optional<Protocol> fixed, bool stopping);

  /// Gzips `body` into `z` when the client accepts gzip, the answer is at least
  /// gzip_min_size (0: never) and it comes out smaller: true when `z` is the answer.
  bool gzip_answer(bool accept_gzip, std::string_view body, Buffer& z) const;

 private:
  bool authorized(const http::Request& request);

  const ServerOptions& options_;
  const std::string& www_authenticate_;
  std::string user_;
  std::string accepted_authorization_;  // the Authorization value last accepted, reused
  bool capped_;
  const bool websocket_;
  std::string accept_key_;  // the 101's Sec-WebSocket-Accept
  size_t requests_ = 0;     // set up so far on this connection
  const http::Header cors_origin_;
  // A refusal's fields; kept here so that the usual answer (no refusal) builds nothing.
  std::array<http::Header, 4> refusal_fields_;
  std::string max_age_;       // Access-Control-Max-Age's value; empty: not sent
  std::string refusal_text_;  // a refusal's words when they name what was asked (404)
};

}  // namespace callwire::detail
