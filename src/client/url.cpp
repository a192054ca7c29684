#include "client/url.hpp"

#include <charconv>
#include <utility>

#include "base/transports.hpp"

namespace callwire::detail {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool percent_decode(std::string_view in, std::string& out) {
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    int hi = hex_digit(in[i + 1]), lo = hex_digit(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

Error bad(std::string_view url, const std::string& why) {
  return Error(Errc::InvalidArgument, "bad URL '" + std::string(url) + "': " + why);
}

}  // namespace

Result<ClientUrl> parse_client_url(std::string_view url, std::string_view unix_http_path) {
  ClientUrl u;
  if (url.starts_with("jsonrpc+")) {
    std::string_view http = url.substr(8);
    // JSON-RPC over HTTP, or over WebSocket (which says so by its subprotocol too).
    const SchemeMatch inner = match_scheme(http, true);
    const bool http_or_ws =
        inner.transport &&
        (inner.transport->framing == ConnectionFraming::Http || inner.transport->http_upgrade);
    if (!http_or_ws && !http.starts_with("https://") && !http.starts_with("wss://"))
      return bad(url,
                 "expected jsonrpc+http://, jsonrpc+https://, jsonrpc+unix:, jsonrpc+ws://, "
                 "jsonrpc+wss:// or jsonrpc+ws+unix:");
    auto json_url = parse_client_url(http, unix_http_path);
    if (json_url) json_url->json_rpc = true;
    return json_url;
  }
  // Every transport's schemes (kTransports): "http://" and "unix:", "scgi://" and
  // "scgi+unix:", and so on; and "https://".
  const SchemeMatch scheme = match_scheme(url, true);
  if (scheme.transport) {
    u.framing = scheme.transport->framing;
    u.json_rpc = scheme.transport->json_only;
  }
  if (scheme.transport && scheme.unix_socket) {
    std::string_view path = scheme.rest;
    // Accept "unix:///run/x.sock" as well as "unix:/run/x.sock".
    if (path.starts_with("//")) path = path.substr(2);
    if (path.empty()) return bad(url, "no socket path");
    u.endpoint.kind = net::Endpoint::Kind::Unix;
    u.endpoint.path = std::string(path);
    u.host = "localhost";
    u.path = std::string(unix_http_path.empty() ? "/RPC2" : unix_http_path);
    return u;
  }
  std::string_view rest = scheme.rest;
  for (const Transport& t : kTransports) {
    if (scheme.transport || t.tls_scheme.empty() || !url.starts_with(t.tls_scheme)) continue;
    u.tls = true;
    u.framing = t.framing;
    rest = url.substr(t.tls_scheme.size());
    break;
  }
  if (!scheme.transport && !u.tls) {
    std::string expected = "expected";
    for (const Transport& t : kTransports) {
      expected += " " + std::string(t.tcp_scheme) + ", " + std::string(t.unix_scheme) + ",";
      if (!t.tls_scheme.empty()) expected += " " + std::string(t.tls_scheme) + ",";
    }
    return bad(url, expected + " or jsonrpc+ before an HTTP or WebSocket one");
  }
  size_t slash = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, slash);
  std::string_view path =
      slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
  if (path.front() != '/') path = "/";  // "http://host?x": a query without a path
  size_t hash = path.find('#');
  u.path = std::string(path.substr(0, hash));

  size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    std::string_view info = authority.substr(0, at);
    authority = authority.substr(at + 1);
    size_t colon = info.find(':');
    if (!percent_decode(info.substr(0, colon), u.user)) return bad(url, "bad %-escape in the user");
    if (colon != std::string_view::npos && !percent_decode(info.substr(colon + 1), u.password))
      return bad(url, "bad %-escape in the password");
  }
  std::string_view host, port;
  if (authority.starts_with("[")) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad(url, "unclosed '[' in the host");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad(url, "junk after the IPv6 address");
      port = after.substr(1);
    }
  } else {
    size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (host.empty()) return bad(url, "no host");
  unsigned value = u.tls ? 443 : 80;
  const Transport& t = transport_of(u.framing);
  const std::string name = "a " + std::string(t.tcp_scheme) + " URL";
  if (t.needs_port && port.empty()) return bad(url, name + " needs a port");
  // User and password go in an Authorization field (WebSocket's in its opening request);
  // SCGI's comes from the web server.
  if (u.framing != ConnectionFraming::Http && !t.http_upgrade && !u.user.empty())
    return bad(url, name + " has no user");
  // A stream of messages has no request line to carry a path.
  if (!t.has_path && slash != std::string_view::npos && path != "/")
    return bad(url, name + " has no path");
  if (!port.empty()) {
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535)
      return bad(url, "bad port '" + std::string(port) + "'");
  }
  u.host = std::string(host);
  u.port = static_cast<uint16_t>(value);
  u.endpoint.kind = net::Endpoint::Kind::Tcp;
  u.endpoint.host = u.host;
  u.endpoint.port = u.port;
  return u;
}

}  // namespace callwire::detail
