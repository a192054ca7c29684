#include "client/url.hpp"

#include <charconv>
#include <utility>

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
    if (!http.starts_with("http://") && !http.starts_with("https://") && !http.starts_with("unix:"))
      return bad(url, "expected jsonrpc+http://, jsonrpc+https:// or jsonrpc+unix:");
    auto json_url = parse_client_url(http, unix_http_path);
    if (json_url) json_url->json_rpc = true;
    return json_url;
  }
  for (auto [prefix, framing] :
       {std::pair{std::string_view("scgi+unix:"), UrlFraming::Scgi},
        std::pair{std::string_view("pstream+unix:"), UrlFraming::Pstream},
        std::pair{std::string_view("jsonl+unix:"), UrlFraming::JsonLines}}) {
    if (!url.starts_with(prefix)) continue;
    auto unix_url = parse_client_url(url.substr(prefix.size() - 5), unix_http_path);
    if (!unix_url) return bad(url, "no socket path");
    unix_url->framing = framing;
    unix_url->json_rpc = framing == UrlFraming::JsonLines;
    return unix_url;
  }
  if (url.starts_with("unix:")) {
    std::string_view path = url.substr(5);
    // Accept "unix:///run/x.sock" as well as "unix:/run/x.sock".
    if (path.starts_with("//")) path = path.substr(2);
    if (path.empty()) return bad(url, "no socket path");
    u.endpoint.kind = net::Endpoint::Kind::Unix;
    u.endpoint.path = std::string(path);
    u.host = "localhost";
    u.path = std::string(unix_http_path.empty() ? "/RPC2" : unix_http_path);
    return u;
  }
  std::string_view rest;
  if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else if (url.starts_with("https://")) {
    u.tls = true;
    rest = url.substr(8);
  } else if (url.starts_with("scgi://")) {
    u.framing = UrlFraming::Scgi;
    rest = url.substr(7);
  } else if (url.starts_with("pstream://")) {
    u.framing = UrlFraming::Pstream;
    rest = url.substr(10);
  } else if (url.starts_with("jsonl://")) {
    u.framing = UrlFraming::JsonLines;
    u.json_rpc = true;
    rest = url.substr(8);
  } else {
    return bad(url,
               "expected http://, https://, unix:, scgi://, scgi+unix:, pstream://, pstream+unix:, "
               "jsonrpc+http://, jsonrpc+https://, jsonrpc+unix:, jsonl:// or jsonl+unix:");
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
  const bool gateway = u.framing != UrlFraming::Http;
  const std::string name = u.framing == UrlFraming::Scgi      ? "an SCGI URL"
                           : u.framing == UrlFraming::Pstream ? "a pstream URL"
                                                              : "a jsonl URL";
  if (gateway && port.empty()) return bad(url, name + " needs a port");
  if (gateway && !u.user.empty()) return bad(url, name + " has no user");
  // A stream of messages has no request line to carry a path.
  const bool streams = u.framing == UrlFraming::Pstream || u.framing == UrlFraming::JsonLines;
  if (streams && slash != std::string_view::npos && path != "/")
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
