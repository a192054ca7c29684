// callwire: the names every part of callwire shares for how a call travels: its protocol, the
// framing of its connection, the TLS versions. Plain enums, with no other callwire type, so
// that the lowest layers can name them too.
#pragma once

#include <cstdint>

#include "callwire/export.hpp"

namespace callwire {

/// The wire protocol of a call: XML-RPC or JSON-RPC 2.0. A client speaks one
/// (ClientOptions::protocol); a callwire server answers both on one port, by the request's
/// Content-Type.
enum class Protocol : uint8_t { XmlRpc, JsonRpc };

/// How requests and answers travel on a connection handed over (Server::adopt_connection,
/// Server::serve_connection, Client::adopt), as URL schemes choose it for the others: HTTP/1.1
/// ("HOST:PORT", "http://"), SCGI ("scgi://"), xmlrpc-c's packet stream ("pstream://",
/// docs/pstream.md), newline-delimited JSON-RPC ("jsonl://", docs/json-rpc.md) or WebSocket
/// ("ws://", docs/websocket.md: HTTP/1.1 that also takes WebSocket upgrades).
enum class ConnectionFraming : uint8_t { Http, Scgi, Pstream, JsonLines, WebSocket };

/// The oldest TLS version a client or server accepts (TlsOptions::min_version in
/// callwire/tls.hpp). Older versions are never offered; a value other than these
/// two is refused with InvalidArgument.
enum class TlsVersion : uint8_t { Tls1_2 = 12, Tls1_3 = 13 };

}  // namespace callwire
