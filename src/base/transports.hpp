// Internal: the one table of transports. Each framing a connection can speak (HTTP, SCGI,
// xmlrpc-c's packet stream, newline-delimited JSON-RPC, WebSocket) with its URL schemes and
// what it can carry. The server's listen specs and URLs, the client's URLs and framings, the
// command and the C API read it here, so a new transport is a row, not a search of the tree.
#pragma once

#include <string_view>

#include "callwire/framing.hpp"

namespace callwire::detail {

struct Transport {
  ConnectionFraming framing;
  std::string_view name;         ///< for messages: "credentials cannot travel over JSON lines"
  std::string_view tcp_scheme;   ///< "scgi://" (HTTP: "http://"; a server's spec has none)
  std::string_view unix_scheme;  ///< "scgi+unix:" (HTTP: "unix:")
  std::string_view tls_scheme;   ///< over TLS: "https://", "wss://"; empty: never TLS
  bool carries_fields;           ///< header fields, credentials and gzip travel with a message
  bool has_path;                 ///< a request names a path ("/RPC2")
  bool needs_port;               ///< a TCP URL must say its port: there is no default
  /// The one protocol it carries (the packet stream XML-RPC, JSON lines JSON-RPC), or none.
  bool xml_only;
  bool json_only;
  /// Whether a JSON-RPC notification gets an answer (HTTP's 204); JSON lines answer nothing.
  bool answers_notifications;
  /// Whether a kept connection is checked before it is reused: where a notification gets no
  /// answer, a connection that closed, or holds a line nobody asked for, would swallow one
  /// without a word.
  bool checked_before_reuse;
  /// An HTTP/1.1 upgrade opens it (WebSocket): the handshake carries header fields and
  /// credentials, the messages after it none. Its listeners and connections speak HTTP too.
  bool http_upgrade;
};

// clang-format off
inline constexpr Transport kTransports[] = {
  // framing                      name               tcp           unix             tls          fields path   port   xml    json   notif. reuse  upgrade
  {ConnectionFraming::Http,      "HTTP",            "http://",    "unix:",         "https://",  true,  true,  false, false, false, true,  false, false},
  {ConnectionFraming::Scgi,      "SCGI",            "scgi://",    "scgi+unix:",    "",          true,  true,  true,  false, false, true,  false, false},
  {ConnectionFraming::Pstream,   "a packet stream", "pstream://", "pstream+unix:", "",          false, false, true,  true,  false, true,  false, false},
  {ConnectionFraming::JsonLines, "JSON lines",      "jsonl://",   "jsonl+unix:",   "",          false, false, true,  false, true,  false, true,  false},
  {ConnectionFraming::WebSocket, "WebSocket",       "ws://",      "ws+unix:",      "wss://",    false, true,  false, false, false, false, false, true},
};
// clang-format on

/// The row of `framing`; HTTP's for a value outside the enum.
constexpr const Transport& transport_of(ConnectionFraming framing) noexcept {
  for (const Transport& t : kTransports)
    if (t.framing == framing) return t;
  return kTransports[0];
}

/// The scheme's word, "pstream" for "pstream://": what an adopted descriptor's URL is named
/// by ("pstream+fd:7").
constexpr std::string_view scheme_name(const Transport& t) noexcept {
  return t.tcp_scheme.substr(0, t.tcp_scheme.find(':'));
}

/// Whether `framing` is one of the enum's values (a C caller may pass anything).
constexpr bool is_transport(ConnectionFraming framing) noexcept {
  for (const Transport& t : kTransports)
    if (t.framing == framing) return true;
  return false;
}

/// A scheme found at the start of a URL or listen spec.
struct SchemeMatch {
  const Transport* transport = nullptr;  ///< null: no scheme of the table's matched
  bool unix_socket = false;              ///< the "+unix:" form (HTTP's "unix:")
  std::string_view rest;                 ///< what follows the scheme
};

/// The transport whose TCP or Unix scheme begins `text`. `with_http`: HTTP's own schemes
/// ("http://", "unix:") count too; a server's listen spec leaves them out ("HOST:PORT").
constexpr SchemeMatch match_scheme(std::string_view text, bool with_http) noexcept {
  for (const Transport& t : kTransports) {
    if (t.framing == ConnectionFraming::Http && !with_http) continue;
    if (text.starts_with(t.tcp_scheme)) return {&t, false, text.substr(t.tcp_scheme.size())};
    if (text.starts_with(t.unix_scheme)) return {&t, true, text.substr(t.unix_scheme.size())};
  }
  return {};
}

}  // namespace callwire::detail
