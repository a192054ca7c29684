// Internal: the WebSocket opening handshake's values (RFC 6455 §4): the client's key and the
// server's accept key, the subprotocol the server picks, and the token test for the
// Connection and Upgrade header fields. Pure functions of strings; the HTTP parsing and the
// random bytes are the caller's.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace callwire::ws {

/// The Sec-WebSocket-Accept value answering the client's Sec-WebSocket-Key:
/// base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")). The key is used as sent
/// (check it with is_valid_client_key first). Throws std::bad_alloc only.
std::string accept_key(std::string_view client_key);

/// Whether `key` is a Sec-WebSocket-Key a client may send: the base64 of exactly 16 bytes, 24
/// characters in the canonical form (padding "==", unused bits zero, no white space).
bool is_valid_client_key(std::string_view key) noexcept;

/// The Sec-WebSocket-Key for `nonce`, 16 bytes the caller draws from a strong random source
/// for each connection. Throws std::bad_alloc only.
std::string make_client_key(std::span<const uint8_t, 16> nonce);

/// The subprotocol a server answers with: the first of `supported` (the server's, in its order
/// of preference) that `offered` names, or none. `offered` is the client's
/// Sec-WebSocket-Protocol value, a comma-separated list with optional white space around each
/// name; a client that sent the field more than once has its values joined with ", " (RFC 9110
/// §5.3). Names are compared exactly, as the server echoes the one it picks. The result is one
/// of `supported`'s views.
std::optional<std::string_view> choose_subprotocol(std::string_view offered,
                                                   std::span<const std::string_view> supported);

/// Whether the comma-separated header value `value` holds `token`, compared without regard to
/// ASCII case, as "Connection: keep-alive, Upgrade" holds "upgrade" and "Upgrade: websocket"
/// holds "WebSocket". White space around each element is ignored; empty elements are skipped.
bool header_has_token(std::string_view value, std::string_view token) noexcept;

}  // namespace callwire::ws
