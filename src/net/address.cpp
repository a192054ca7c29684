#include "net/address.hpp"

#include <charconv>
#include <cstring>

namespace callwire::net {

std::string Endpoint::to_string() const {
  if (kind == Kind::Unix) return "unix:" + path;
  std::string out;
  if (host.find(':') != std::string::npos)
    out = "[" + host + "]";
  else
    out = host;
  return out + ":" + std::to_string(port);
}

Result<Endpoint> parse_endpoint(std::string_view text) {
  Endpoint e;
  if (text.starts_with("unix:")) {
    e.kind = Endpoint::Kind::Unix;
    e.path = std::string(text.substr(5));
    if (e.path.empty()) return Error(Errc::InvalidArgument, "unix: needs a socket path");
    if (e.path.size() >= sizeof(sockaddr_un{}.sun_path))
      return Error(Errc::InvalidArgument, "unix socket path too long: " + e.path);
    return e;
  }
  std::string_view host, port;
  if (text.starts_with("[")) {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return Error(Errc::InvalidArgument,
                   "bad address '" + std::string(text) + "': expected [IPV6]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return Error(Errc::InvalidArgument,
                   "bad address '" + std::string(text) + "': expected HOST:PORT or unix:PATH");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return Error(Errc::InvalidArgument,
                   "bad address '" + std::string(text) + "': write an IPv6 address as [ADDR]:PORT");
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535)
    return Error(Errc::InvalidArgument, "bad port '" + std::string(port) + "'");
  e.host = host.empty() ? "0.0.0.0" : std::string(host);
  e.port = static_cast<uint16_t>(value);
  return e;
}

Result<std::vector<SocketAddress>> resolve(const Endpoint& endpoint) {
  std::vector<SocketAddress> out;
  if (endpoint.kind == Endpoint::Kind::Unix) {
    if (!sys::kHasUnixSockets)
      return Error(Errc::InvalidArgument,
                   "unix:" + endpoint.path +
                       ": Unix-domain sockets are not supported on this system; use a TCP "
                       "address (127.0.0.1:PORT)");
    SocketAddress a;
    auto* un = reinterpret_cast<sockaddr_un*>(&a.storage);
    if (endpoint.path.size() >= sizeof(un->sun_path))
      return Error(Errc::InvalidArgument, "unix socket path too long: " + endpoint.path);
    un->sun_family = AF_UNIX;
    std::memcpy(un->sun_path, endpoint.path.data(), endpoint.path.size());
    a.length =
        static_cast<sys::SockLen>(offsetof(sockaddr_un, sun_path) + endpoint.path.size() + 1);
    out.push_back(a);
    return out;
  }
  // Numeric literals: no resolver, no blocking.
  SocketAddress a;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&a.storage);
  if (inet_pton(AF_INET, endpoint.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(endpoint.port);
    a.length = sizeof(sockaddr_in);
    out.push_back(a);
    return out;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
  if (inet_pton(AF_INET6, endpoint.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(endpoint.port);
    a.length = sizeof(sockaddr_in6);
    out.push_back(a);
    return out;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* list = nullptr;
  std::string port = std::to_string(endpoint.port);
  int rc = getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &list);
  if (rc != 0)
    return Error(Errc::InvalidArgument,
                 "cannot resolve '" + endpoint.host + "': " + gai_strerror(rc));
  for (addrinfo* p = list; p; p = p->ai_next) {
    if (p->ai_addrlen > sizeof(sockaddr_storage)) continue;
    SocketAddress r;
    std::memcpy(&r.storage, p->ai_addr, p->ai_addrlen);
    r.length = p->ai_addrlen;
    out.push_back(r);
  }
  freeaddrinfo(list);
  if (out.empty()) return Error(Errc::InvalidArgument, "no address for '" + endpoint.host + "'");
  return out;
}

size_t parse_ip_literal(std::string_view text, unsigned char (&out)[16]) noexcept {
  char z[64];  // inet_pton takes a C string; the longest IPv6 text is 45 characters
  // A NUL inside would end the C string early: "10.0.0.1\0junk" is not a literal.
  if (text.empty() || text.size() >= sizeof z || text.find('\0') != text.npos) return 0;
  text.copy(z, text.size());
  z[text.size()] = '\0';
  if (inet_pton(AF_INET, z, out) == 1) return 4;
  if (inet_pton(AF_INET6, z, out) == 1) return 16;
  return 0;
}

Result<IpRange> parse_ip_range(std::string_view text) {
  IpRange r;
  if (text == "unix") {
    r.family = AF_UNIX;
    return r;
  }
  std::string address(text.substr(0, text.find('/')));
  if (inet_pton(AF_INET, address.c_str(), r.bytes) == 1) {
    r.family = AF_INET;
    r.prefix = 32;
  } else if (inet_pton(AF_INET6, address.c_str(), r.bytes) == 1) {
    r.family = AF_INET6;
    r.prefix = 128;
  } else {
    return Error(Errc::InvalidArgument,
                 "not an IP address or range: '" + std::string(text.substr(0, 64)) + "'");
  }
  if (size_t slash = text.find('/'); slash != std::string_view::npos) {
    std::string_view bits = text.substr(slash + 1);
    unsigned prefix = 0;
    auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
    if (bits.empty() || ec != std::errc() || end != bits.data() + bits.size() || prefix > r.prefix)
      return Error(Errc::InvalidArgument,
                   "a bad prefix length in '" + std::string(text.substr(0, 64)) + "'");
    r.prefix = prefix;
  }
  return r;
}

bool in_range(const IpRange& range, std::string_view address) noexcept {
  if (range.family == AF_UNIX) return address == "unix";
  char text[INET6_ADDRSTRLEN];
  if (address.empty() || address.size() >= sizeof text) return false;
  std::memcpy(text, address.data(), address.size());
  text[address.size()] = '\0';
  unsigned char bytes[16];
  int family = 0;
  if (inet_pton(AF_INET, text, bytes) == 1) {
    family = AF_INET;
  } else if (inet_pton(AF_INET6, text, bytes) == 1) {
    family = AF_INET6;
    static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (range.family == AF_INET && std::memcmp(bytes, kMapped, 12) == 0) {
      std::memmove(bytes, bytes + 12, 4);
      family = AF_INET;
    }
  }
  if (family != range.family) return false;
  unsigned full = range.prefix / 8, rest = range.prefix % 8;
  if (std::memcmp(bytes, range.bytes, full) != 0) return false;
  if (rest == 0) return true;
  unsigned char mask = static_cast<unsigned char>(0xff << (8 - rest));
  return (bytes[full] & mask) == (range.bytes[full] & mask);
}

std::string_view peer_address(std::string_view peer) noexcept {
  if (peer.starts_with('[')) {
    size_t close = peer.find(']');
    return close == std::string_view::npos ? peer : peer.substr(1, close - 1);
  }
  size_t colon = peer.rfind(':');
  if (colon == std::string_view::npos || peer.find(':') != colon) return peer;
  return peer.substr(0, colon);
}

std::string format_peer(const sockaddr* address, sys::SockLen length) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address->sa_family == AF_INET && size_t(length) >= sizeof(sockaddr_in)) {
    auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  if (address->sa_family == AF_INET6 && size_t(length) >= sizeof(sockaddr_in6)) {
    auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    // Appended, not "[" + std::string(text): g++ 12 at -O3 warns falsely about that
    // (-Wrestrict, GCC bug 105329).
    std::string peer = "[";
    peer += text;
    peer += "]:";
    peer += std::to_string(ntohs(v6->sin6_port));
    return peer;
  }
  if (address->sa_family == AF_UNIX) return "unix";
  return "unknown";
}

uint16_t local_port(int fd) noexcept {
  sockaddr_storage s{};
  sys::SockLen len = sizeof s;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&s), &len) != 0) return 0;
  if (s.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&s)->sin_port);
  if (s.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&s)->sin6_port);
  return 0;
}

std::string errno_message(std::string_view what, int err) {
  return std::string(what) + ": " + sys::error_text(err);
}

}  // namespace callwire::net
