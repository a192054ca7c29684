// Internal: the URLs a client accepts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "callwire/error.hpp"
#include "callwire/message.hpp"
#include "net/address.hpp"

namespace callwire::detail {

struct ClientUrl {
  bool tls = false;
  ConnectionFraming framing = ConnectionFraming::Http;  ///< a row of kTransports
  net::Endpoint endpoint;                               ///< where to connect
  std::string host;   ///< for Host, SNI and the certificate check (no brackets)
  uint16_t port = 0;  ///< 0 for a Unix socket
  std::string path;   ///< origin-form, e.g. "/RPC2"
  std::string user;   ///< from "user:password@", percent-decoded
  std::string password;
  bool json_rpc = false;  ///< a jsonrpc+ or jsonl scheme: JSON-RPC only
};

/// Parses "http://[user:password@]host[:port][/path]", "https://..." (host a name, an IPv4
/// address or a bracketed IPv6 address; default ports 80 and 443; default path "/"), or
/// "unix:/path/to/socket" (HTTP path `unix_http_path`); or SCGI: "scgi://host:port[/path]"
/// (the port is required: SCGI has no default) and "scgi+unix:/path/to/socket" (REQUEST_URI
/// `unix_http_path`); or the packet stream: "pstream://host:port" (port required, no path,
/// no user) and "pstream+unix:/path/to/socket"; or JSON-RPC over HTTP: "jsonrpc+http://...",
/// "jsonrpc+https://..." and "jsonrpc+unix:/path" (json_rpc set); or newline-delimited JSON-RPC:
/// "jsonl://host:port" and "jsonl+unix:/path" (as pstream's; json_rpc set); or WebSocket:
/// "ws://[user:password@]host[:port][/path]", "wss://..." (as http's and https's) and
/// "ws+unix:/path/to/socket", each also after "jsonrpc+" (json_rpc set). Errors:
/// InvalidArgument naming the problem.
Result<ClientUrl> parse_client_url(std::string_view url, std::string_view unix_http_path);

}  // namespace callwire::detail
