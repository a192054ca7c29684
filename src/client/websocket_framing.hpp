// Internal: the client's side of WebSocket (RFC 6455): the opening handshake each new
// connection makes, each request a masked text frame, and the parser that reads the server's
// frames: the answer, the notifications that come before and after it (handed to
// ClientOptions::on_notification), and the pings it answers. The frames themselves are
// src/ws's; this puts them behind ClientFraming and AnswerParser.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/error.hpp"
#include "client/framing.hpp"

namespace callwire::detail {

struct ClientUrl;

/// What a WebSocket client says and hears beyond its URL.
struct WebSocketClientSetup {
  bool json_rpc = false;      ///< the subprotocol offered: "jsonrpc", else "xmlrpc"
  std::string authorization;  ///< sent with the opening request ("Basic ..."); empty: none
  std::string user_agent;     ///< empty: the writer's default
  std::vector<std::pair<std::string, std::string>> headers;  ///< extra opening fields
  /// Borrowed (the client's options outlive the framing); null or empty: dropped.
  const NotificationHandler* on_notification = nullptr;
};

/// The framing for a ws://, wss:// or ws+unix: URL (borrowed: it outlives the framing).
/// Errors: InvalidArgument for a header field that cannot be sent, or one the handshake
/// writes itself (Upgrade, Sec-WebSocket-*).
Result<std::unique_ptr<ClientFraming>> make_websocket_framing(const ClientUrl& url,
                                                              WebSocketClientSetup setup);

}  // namespace callwire::detail
