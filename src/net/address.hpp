// Internal: endpoints (TCP host:port or a Unix-domain path), parsed from text and resolved into
// socket addresses, and peer addresses formatted for logs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "net/system.hpp"

namespace callwire::net {

/// Where to listen or connect: a TCP host and port, or a Unix-domain socket path.
struct Endpoint {
  enum class Kind { Tcp, Unix };
  Kind kind = Kind::Tcp;
  std::string host;  ///< Tcp: a name, an IPv4 literal or an IPv6 literal (without brackets)
  uint16_t port = 0;
  std::string path;  ///< Unix: the socket's path

  /// "host:port", "[v6]:port", or "unix:PATH".
  std::string to_string() const;
};

/// Parses "HOST:PORT", "[IPV6]:PORT", ":PORT" (all IPv4 interfaces) or "unix:PATH".
/// Errors: InvalidArgument naming what is wrong.
Result<Endpoint> parse_endpoint(std::string_view text);

/// A resolved socket address.
struct SocketAddress {
  sockaddr_storage storage{};
  sys::SockLen length = 0;
  int family() const noexcept { return storage.ss_family; }
  const sockaddr* get() const noexcept { return reinterpret_cast<const sockaddr*>(&storage); }
};

/// Resolves a TCP endpoint (numeric literals without a lookup; names through getaddrinfo,
/// which blocks) or makes a Unix address. Errors: InvalidArgument (a path too long for
/// sockaddr_un, a name that does not resolve).
Result<std::vector<SocketAddress>> resolve(const Endpoint& endpoint);

/// "127.0.0.1:40312", "[::1]:40312", or "unix" — for logs and CallContext::peer().
std::string format_peer(const sockaddr* address, sys::SockLen length);

/// An IPv4 or IPv6 address range: an address with a prefix length ("10.0.0.0/8",
/// "2001:db8::/32"; a bare address is all of its bits), or "unix" for Unix-domain peers.
struct IpRange {
  int family = 0;  ///< AF_INET, AF_INET6, or AF_UNIX for "unix"
  unsigned char bytes[16] = {};
  unsigned prefix = 0;
};
/// Errors: InvalidArgument naming the text.
Result<IpRange> parse_ip_range(std::string_view text);
/// Whether `address` (an IPv4 or IPv6 literal without brackets or port; "unix" for a Unix
/// peer) is in `range`. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) counts as the IPv4 one.
bool in_range(const IpRange& range, std::string_view address) noexcept;
/// The address of a peer as format_peer wrote it ("127.0.0.1:40312" → "127.0.0.1",
/// "[::1]:40312" → "::1", "unix" → "unix").
std::string_view peer_address(std::string_view peer) noexcept;

/// An IPv4 or IPv6 literal (IPv6 without brackets) as bytes: returns 4 or 16, the bytes
/// written to `out`, or 0 when `text` is not a literal.
size_t parse_ip_literal(std::string_view text, unsigned char (&out)[16]) noexcept;

/// The port a bound TCP socket got (after binding port 0); 0 for other sockets.
uint16_t local_port(int fd) noexcept;

/// "what: strerror(err)".
std::string errno_message(std::string_view what, int err);

}  // namespace callwire::net
