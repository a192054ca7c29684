#include "server/forwarded.hpp"

#include <string>

namespace callwire::detail {

namespace {

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_address(std::string_view a) noexcept {
  unsigned char bytes[16];
  return net::parse_ip_literal(a, bytes) != 0;
}

bool trusted_address(std::string_view a, std::span<const net::IpRange> trusted) noexcept {
  for (const net::IpRange& r : trusted)
    if (net::in_range(r, a)) return true;
  return false;
}

}  // namespace

bool is_trusted_proxy(std::string_view peer, std::span<const net::IpRange> trusted) noexcept {
  return !trusted.empty() && trusted_address(net::peer_address(peer), trusted);
}

std::string_view forwarded_client(const http::Request& request,
                                  std::span<const net::IpRange> trusted) noexcept {
  for (size_t h = request.headers.size(); h-- > 0;) {
    if (!http::iequals(request.headers[h].name, "X-Forwarded-For")) continue;
    std::string_view list = request.headers[h].value;
    while (true) {
      size_t comma = list.rfind(',');
      std::string_view entry =
          trim(comma == std::string_view::npos ? list : list.substr(comma + 1));
      // Some proxies write a port ("192.0.2.1:4711", "[2001:db8::1]:4711").
      std::string_view address = net::peer_address(entry);
      if (!is_address(address)) return {};
      if (!trusted_address(address, trusted)) return address;
      if (comma == std::string_view::npos) break;
      list = list.substr(0, comma);
    }
  }
  return {};
}

}  // namespace callwire::detail
