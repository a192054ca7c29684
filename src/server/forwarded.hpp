// Internal: the client behind a trusted proxy (ServerOptions::trusted_proxies), from the
// X-Forwarded-For fields the proxies appended.
#pragma once

#include <span>
#include <string_view>

#include "http/request_parser.hpp"
#include "net/address.hpp"

namespace callwire::detail {

/// Whether the connection's peer (as net::format_peer wrote it) is one of `trusted`.
bool is_trusted_proxy(std::string_view peer, std::span<const net::IpRange> trusted) noexcept;

/// The client a trusted proxy forwarded `request` for: walking the X-Forwarded-For entries
/// (every such field, in order, comma-separated) from the right, the first address that is
/// not itself a trusted proxy; each proxy appends the address it got the request from, so
/// what lies left of an untrusted hop is the client's own say and is not believed. Empty when
/// there is no field, every entry is trusted, or an entry is not an address (a malformed
/// field is no evidence). A view into the request.
std::string_view forwarded_client(const http::Request& request,
                                  std::span<const net::IpRange> trusted) noexcept;

}  // namespace callwire::detail
