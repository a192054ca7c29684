#include "server/http_session.hpp"

#include <algorithm>
#include <optional>

#include "base/log_text.hpp"
#include "http/basic_auth.hpp"
#include "http/gzip.hpp"
#include "http/syntax.hpp"
#include "ws/handshake.hpp"

namespace callwire::detail {

namespace {

// Runs on every request: an origin-form target is checked without a library call (a query
// found by a loop, not memchr, in a target of a few bytes).
[[gnu::always_inline]] inline bool path_matches(std::string_view target,
                                                std::span<const std::string> paths) {
  if (target.empty()) return false;
  if (target[0] != '/') {  // absolute-form ("http://host/RPC2"), as a proxy would send
    if (!target.starts_with("http://") && !target.starts_with("https://")) return false;
    size_t slash = target.find('/', target.find("//") + 2);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  for (size_t i = 0; i < target.size(); ++i)
    if (target[i] == '?') {
      target = target.substr(0, i);
      break;
    }
  for (const std::string& p : paths)
    if (p.size() == target.size() && std::equal(p.begin(), p.end(), target.begin())) return true;
  return false;
}

// The milliseconds of an X-Callwire-Timeout value: 1 to 9 decimal digits, nothing else.
std::optional<int64_t> timeout_millis(std::string_view value) {
  if (value.empty() || value.size() > 9) return std::nullopt;
  int64_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

HttpSession::Refusal HttpSession::check_head(const http::Request& request, bool stopping) {
  Refusal r;
  size_t n = 0;
  auto add = [&](std::string_view name, std::string_view value) {
    refusal_fields_[n++] = {name, value};
    r.fields = {refusal_fields_.data(), n};
  };
  // Health first: a balancer holds no credentials, and asks whether to send calls here.
  // (SCGI's requests come through a web server, whose own health is what its balancer asks.)
  if (capped_ && !options_.health_path.empty() && request.method == "GET" &&
      path_matches(request.target, {&options_.health_path, 1})) {
    r.status = stopping ? 503 : 200;
    r.body = stopping ? "stopping\n" : "ok\n";
    add("Cache-Control", "no-store");
    if (stopping) add("Retry-After", "1");
    return r;
  }
  if (capped_ && !options_.metrics_path.empty() && request.method == "GET" &&
      path_matches(request.target, {&options_.metrics_path, 1})) {
    add("Cache-Control", "no-store");
    const std::string& want = options_.metrics_authorization;
    if (!want.empty() && !constant_time_equal(request.find_header("Authorization"), want)) {
      r.status = 401;
      // The scheme of the value expected, so a client knows what to send.
      std::string_view scheme = std::string_view(want).substr(0, want.find(' '));
      add("WWW-Authenticate",
          http::iequals(scheme, "Basic") ? "Basic realm=\"metrics\"" : "Bearer realm=\"metrics\"");
      return r;
    }
    r.status = 200;
    r.metrics = true;
    return r;
  }
  const bool cors = !options_.cors_allow_origin.empty();
  if (request.method == "GET" && !request.find_header("Upgrade").empty()) {
    if (websocket_) return check_upgrade(request);
    r.status = 400;
    r.body = "400 Bad Request: this listener serves no WebSocket (its URL would be ws://)\n";
    return r;
  }
  if (request.method != "POST") {
    if (cors && request.method == "OPTIONS" && path_matches(request.target, options_.paths)) {
      // A browser's preflight: POST is what there is, and the fields it means to send
      // (Content-Type, Authorization, its own) are allowed. The origin comes with every answer.
      r.status = 200;
      add("Access-Control-Allow-Methods", "POST");
      for (const http::Header& h : request.headers)
        if (http::iequals(h.name, "Access-Control-Request-Headers")) {
          // Echoed into the answer's head, so it must be a field value. HTTP's parser refuses
          // a head with CR, LF or another control character in a value; SCGI's variables
          // are NUL-terminated and may carry them, and an answer with them would be refused
          // by the writer (no answer at all): the request is malformed, and said so.
          if (!http::syntax::is_field_value(h.value)) {
            r = {};
            r.status = 400;
            return r;
          }
          add("Access-Control-Allow-Headers", h.value);
          break;
        }
      if (!max_age_.empty()) add("Access-Control-Max-Age", max_age_);
      return r;
    }
    r.status = 405;
    add("Allow", cors ? "POST, OPTIONS" : "POST");
    return r;
  }
  if (!path_matches(request.target, options_.paths)) {
    r.status = 404;
    // Which path was asked for, and which are served: the mistake named. HTTP only (capped_:
    // the framing is HTTP itself); behind a gateway the web server has its own error pages.
    if (!capped_) return r;
    refusal_text_ = "404 Not Found: nothing is served at ";
    base::append_log_text(refusal_text_, request.target.substr(0, 256), base::LogField::Word);
    refusal_text_ += "; this server answers at ";
    for (size_t i = 0; i < options_.paths.size(); ++i)
      refusal_text_.append(i ? ", " : "").append(options_.paths[i]);
    refusal_text_ += '\n';
    r.body = refusal_text_;
  } else if (options_.authenticate && !authorized(request)) {
    r.status = 401;
    add("WWW-Authenticate", www_authenticate_);
  } else if (!request.content_encoding.empty() && !request.content_encoding_gzip &&
             !http::iequals(request.content_encoding, "identity")) {
    r.status = 415;
  }
  return r;
}

HttpSession::Refusal HttpSession::check_upgrade(const http::Request& request) {
  Refusal r;
  // A refusal: its words in the body (none: the status's own text), and at most one field of
  // its own (WWW-Authenticate, Sec-WebSocket-Version).
  auto refuse = [&](int status, const std::string& text,
                    std::optional<http::Header> field = std::nullopt) {
    r.status = status;
    if (!text.empty()) {
      refusal_text_ = std::to_string(status) + " " + text + "\n";
      r.body = refusal_text_;
    }
    if (field) {
      refusal_fields_[0] = *field;
      r.fields = {refusal_fields_.data(), 1};
    }
    return r;
  };
  if (!path_matches(request.target, options_.paths)) {
    std::string shown;
    return refuse(404, "Not Found: no WebSocket is served at " +
                           std::string(base::log_text(request.target.substr(0, 256), shown,
                                                      base::LogField::Word)));
  }
  // A browser says which page opens the socket; anything else sends no Origin.
  if (std::string_view origin = request.find_header("Origin"); !origin.empty()) {
    const auto& allowed = options_.websocket.allowed_origins;
    if (std::none_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return a == "*" || a == origin; })) {
      std::string shown;
      return refuse(
          403, "Forbidden: WebSocket from origin " +
                   std::string(base::log_text(origin.substr(0, 256), shown, base::LogField::Word)) +
                   " is not allowed (WebSocketOptions::allowed_origins)");
    }
  }
  if (options_.authenticate && !authorized(request))
    return refuse(401, {}, http::Header{"WWW-Authenticate", www_authenticate_});
  if (request.find_header("Sec-WebSocket-Version") != "13")
    return refuse(426, "Upgrade Required: this server speaks WebSocket version 13",
                  http::Header{"Sec-WebSocket-Version", "13"});
  if (request.version != http::HttpVersion::Http11 ||
      !ws::header_has_token(request.find_header("Upgrade"), "websocket") ||
      !ws::header_has_token(request.find_header("Connection"), "upgrade"))
    return refuse(400,
                  "Bad Request: a WebSocket handshake is an HTTP/1.1 GET with "
                  "\"Upgrade: websocket\" and \"Connection: Upgrade\"");
  std::string_view key = request.find_header("Sec-WebSocket-Key");
  if (request.content_length.value_or(0) > 0 || request.chunked)
    return refuse(400, "Bad Request: a WebSocket handshake carries no body");
  if (!ws::is_valid_client_key(key))
    return refuse(400, "Bad Request: Sec-WebSocket-Key must be the base64 of 16 bytes");
  // The subprotocol names the RPC protocol; none offered is JSON-RPC, as browsers' and
  // Ethereum's clients speak it.
  static constexpr std::string_view kServed[] = {"jsonrpc", "xmlrpc"};
  std::optional<std::string_view> chosen;
  if (std::string_view offered = request.find_header("Sec-WebSocket-Protocol"); !offered.empty()) {
    chosen = ws::choose_subprotocol(offered, kServed);
    if (!chosen) {
      std::string shown;
      return refuse(400, "Bad Request: none of the subprotocols offered (" +
                             std::string(base::log_text(offered.substr(0, 256), shown,
                                                        base::LogField::Text)) +
                             ") is served: jsonrpc, xmlrpc");
    }
  }
  accept_key_ = ws::accept_key(key);
  size_t n = 0;
  refusal_fields_[n++] = {"Upgrade", "websocket"};
  refusal_fields_[n++] = {"Connection", "Upgrade"};
  refusal_fields_[n++] = {"Sec-WebSocket-Accept", accept_key_};
  if (chosen) refusal_fields_[n++] = {"Sec-WebSocket-Protocol", *chosen};
  r.status = 101;
  r.fields = {refusal_fields_.data(), n};
  r.upgrade = true;
  r.protocol = chosen == "xmlrpc" ? Protocol::XmlRpc : Protocol::JsonRpc;
  return r;
}

bool HttpSession::authorized(const http::Request& request) {
  if (request.authorization.empty()) return false;
  if (!accepted_authorization_.empty() && request.authorization == accepted_authorization_)
    return true;  // the same credentials as this connection's last accepted request
  http::BasicCredentials credentials;
  if (!http::parse_basic_auth(request.authorization, credentials).ok()) return false;
  if (!options_.authenticate(credentials.user, credentials.password)) return false;
  accepted_authorization_ = std::string(request.authorization);
  user_ = credentials.user;
  return true;
}

HttpSession::CallSetup HttpSession::setup_call(const http::Request& request,
                                               std::optional<Protocol> fixed, bool stopping) {
  CallSetup setup;
  std::optional<int64_t> sent_timeout;
  for (const http::Header& h : request.headers) {
    if (h.name.size() == kTimeoutHeader.size() && http::iequals(h.name, kTimeoutHeader)) {
      sent_timeout = timeout_millis(h.value);  // the first one counts, as CallContext::header
      break;
    }
  }
  // The clock is read only when there is a deadline.
  const std::chrono::milliseconds call_timeout = options_.call_timeout;
  if (call_timeout.count() > 0 || sent_timeout) {
    std::chrono::milliseconds limit = call_timeout;
    if (sent_timeout && (limit.count() <= 0 || *sent_timeout < limit.count()))
      limit = std::chrono::milliseconds(*sent_timeout);
    setup.deadline = Clock::now() + limit;
  }
  ++requests_;
  const size_t cap = options_.max_requests_per_connection;
  setup.keep_alive = request.keep_alive && !stopping && !(capped_ && cap && requests_ >= cap);
  // The parsers keep Content-Type as they read the head: no second walk of the fields here.
  setup.protocol = fixed ? *fixed
                         : protocol_for_request(request.content_type, request.content_encoding_gzip
                                                                          ? std::string_view()
                                                                          : request.body);
  return setup;
}

bool HttpSession::gzip_answer(bool accept_gzip, std::string_view body, Buffer& z) const {
  const size_t min_size = options_.gzip_min_size;
  if (!accept_gzip || !min_size || body.size() < min_size) return false;
  z.clear();
  return http::gzip_compress(body, z) && z.size() < body.size();
}

}  // namespace callwire::detail
