// Internal: HTTP proxies for the client: the proxy URL, the proxy environment variables
// (http_proxy, https_proxy, no_proxy) and the route a client's connections take through a
// proxy. No I/O: the connection (client_connection.cpp) does the CONNECT, the framing
// (framing.cpp) writes the absolute-form request-target.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "callwire/error.hpp"
#include "net/address.hpp"

namespace callwire::detail {

struct ClientUrl;

/// How a client's connections reach its server through an HTTP proxy.
struct ProxyRoute {
  net::Endpoint endpoint;     ///< the proxy's host and port: the only name the client resolves
  std::string name;           ///< "host:port" ("[v6]:port"), for error messages
  std::string authorization;  ///< the Proxy-Authorization value ("Basic ..."); empty: none
  /// https: a CONNECT tunnel to the origin, then TLS with the origin inside it. Otherwise the
  /// requests go to the proxy with the absolute-form request-target.
  bool tunnel = false;
  /// tunnel: the whole CONNECT request (its head), the same for every connection.
  std::string connect_request;
};

/// Parses a proxy URL "http://[user:password@]host[:port][/]" (user and password
/// percent-decoded; the port defaults to 1080, as curl's does). `schemeless`: a value without
/// "scheme://" is taken as http:// (as curl takes the environment's). Errors: InvalidArgument
/// for another scheme (https://, socks5://, ...), a path, or a malformed URL or credential.
Result<ProxyRoute> parse_proxy_url(std::string_view url, bool schemeless = false);

/// Whether `host` (a name or an IP literal without brackets, as in ClientUrl::host) is listed
/// in `no_proxy`: a list separated by commas or white space of host names, domain suffixes
/// (leading dot optional: "example.com" and ".example.com" both match example.com and
/// www.example.com, not notexample.com), IP literals (IPv6 with or without brackets), IP
/// ranges in CIDR notation ("10.0.0.0/8", "fd00::/8"), or "*" alone for every host. Names
/// compare case-insensitively, a trailing dot ignored; entries carry no port. curl's rules
/// (CURLOPT_NOPROXY since 7.86).
bool no_proxy_matches(std::string_view no_proxy, std::string_view host);

/// Reads an environment variable: its value, or null when it is unset.
using GetEnv = std::function<const char*(const char*)>;

/// A proxy URL taken from the environment, and the variable it came from.
struct EnvironmentProxy {
  const char* variable = "";  ///< static storage: "http_proxy", "HTTPS_PROXY", ...
  std::string url;
};

/// The proxy the environment names for `url`, or nullopt for none. As curl does:
/// `http_proxy` for http:// (lower case only: an upper-case HTTP_PROXY is ignored, since a CGI
/// program receives a request's `Proxy:` header as HTTP_PROXY, "httpoxy"), `https_proxy` or
/// `HTTPS_PROXY` for https:// (a lower-case variable that is set wins, even empty), an empty
/// value meaning none; then `no_proxy` or `NO_PROXY` (lower case first) can exempt the host.
/// Unix-socket, SCGI and packet-stream URLs are never proxied. ALL_PROXY is not read (it
/// often names a SOCKS proxy, which this client cannot use).
std::optional<EnvironmentProxy> proxy_from_environment(const ClientUrl& url, const GetEnv& getenv);

/// The route to use for `url`: from `proxy` (a proxy URL; empty: none), else from the
/// environment when `from_environment`; for https its CONNECT request, which says
/// `user_agent` (empty: the default one). Errors: InvalidArgument for a bad proxy URL (an
/// environment one names its variable), for an explicit proxy with a Unix-socket, SCGI or
/// packet-stream URL, and for a User-Agent that cannot be sent.
Result<std::optional<ProxyRoute>> choose_proxy(const ClientUrl& url, std::string_view proxy,
                                               bool from_environment, std::string_view user_agent,
                                               const GetEnv& getenv);

}  // namespace callwire::detail
