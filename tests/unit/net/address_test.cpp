// Endpoints as listeners name them (ServerOptions::listen), their text, numeric resolution
// without a lookup, and peers as CallContext::peer() shows them.
#include "net/address.hpp"

#include <gtest/gtest.h>

#include <string>

namespace callwire::net {
namespace {

TEST(Endpoint, ParsesEveryForm) {
  Endpoint e = parse_endpoint("127.0.0.1:8080").value();
  EXPECT_EQ(e.kind, Endpoint::Kind::Tcp);
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, 8080);
  EXPECT_EQ(e.to_string(), "127.0.0.1:8080");
  e = parse_endpoint("[::1]:0").value();
  EXPECT_EQ(e.host, "::1");
  EXPECT_EQ(e.port, 0);
  EXPECT_EQ(e.to_string(), "[::1]:0");
  e = parse_endpoint(":9000").value();
  EXPECT_EQ(e.host, "0.0.0.0");
  e = parse_endpoint("localhost:65535").value();
  EXPECT_EQ(e.host, "localhost");
  e = parse_endpoint("unix:/run/app.sock").value();
  EXPECT_EQ(e.kind, Endpoint::Kind::Unix);
  EXPECT_EQ(e.path, "/run/app.sock");
  EXPECT_EQ(e.to_string(), "unix:/run/app.sock");
}

TEST(Endpoint, RefusesWhatItCannotUse) {
  for (const char* bad : {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1",
                          "127.0.0.1:80x", "::1:80", "[::1]80", "[::1", "unix:"}) {
    Result<Endpoint> e = parse_endpoint(bad);
    EXPECT_FALSE(e) << bad;
    if (!e) {
      EXPECT_EQ(e.error().code, Errc::InvalidArgument) << bad;
    }
  }
  EXPECT_FALSE(parse_endpoint("unix:/" + std::string(200, 'x')));  // over sun_path
}

TEST(Endpoint, LiteralsResolveWithoutALookup) {
  auto v4 = resolve(parse_endpoint("127.0.0.1:80").value()).value();
  ASSERT_EQ(v4.size(), 1u);
  EXPECT_EQ(v4[0].family(), AF_INET);
  auto v6 = resolve(parse_endpoint("[::1]:80").value()).value();
  ASSERT_EQ(v6.size(), 1u);
  EXPECT_EQ(v6[0].family(), AF_INET6);
  auto unix_socket = resolve(parse_endpoint("unix:/tmp/x.sock").value());
  if (!sys::kHasUnixSockets) {  // refused, saying what to use instead
    ASSERT_FALSE(unix_socket);
    EXPECT_NE(unix_socket.error().message.find("use a TCP address"), std::string::npos);
    return;
  }
  ASSERT_EQ(unix_socket->size(), 1u);
  EXPECT_EQ((*unix_socket)[0].family(), AF_UNIX);
}

TEST(Peer, FormatsAddressesAsHandlersSeeThem) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(40312);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(format_peer(reinterpret_cast<sockaddr*>(&a), sizeof a), "127.0.0.1:40312");
  sockaddr_in6 b{};
  b.sin6_family = AF_INET6;
  b.sin6_port = htons(1);
  b.sin6_addr.s6_addr[15] = 1;  // ::1
  EXPECT_EQ(format_peer(reinterpret_cast<sockaddr*>(&b), sizeof b), "[::1]:1");
}

}  // namespace
}  // namespace callwire::net

namespace callwire::net {
namespace {

TEST(IpRange, ParsesAndMatchesAddressesAndRanges) {
  auto range = [](std::string_view text) { return parse_ip_range(text).value(); };
  EXPECT_TRUE(in_range(range("127.0.0.1"), "127.0.0.1"));
  EXPECT_FALSE(in_range(range("127.0.0.1"), "127.0.0.2"));
  EXPECT_TRUE(in_range(range("10.0.0.0/8"), "10.200.3.4"));
  EXPECT_FALSE(in_range(range("10.0.0.0/8"), "11.0.0.1"));
  EXPECT_TRUE(in_range(range("192.168.1.0/25"), "192.168.1.127"));
  EXPECT_FALSE(in_range(range("192.168.1.0/25"), "192.168.1.128"));
  EXPECT_TRUE(in_range(range("0.0.0.0/0"), "203.0.113.9"));
  EXPECT_TRUE(in_range(range("::1"), "::1"));
  EXPECT_TRUE(in_range(range("fd00::/8"), "fd12:3456::1"));
  EXPECT_FALSE(in_range(range("fd00::/8"), "fe80::1"));
  EXPECT_TRUE(in_range(range("10.0.0.0/8"), "::ffff:10.1.2.3"));  // IPv4-mapped
  EXPECT_FALSE(in_range(range("::1"), "127.0.0.1"));
  EXPECT_TRUE(in_range(range("unix"), "unix"));
  EXPECT_FALSE(in_range(range("unix"), "127.0.0.1"));
  EXPECT_FALSE(in_range(range("127.0.0.1"), "unix"));
  EXPECT_FALSE(in_range(range("127.0.0.1"), "not an address"));
  for (std::string_view bad :
       {"", "localhost", "10.0.0.0/33", "::/129", "10.0.0.0/", "1.2.3.4/x", "10.0.0.0/8/8"})
    EXPECT_EQ(parse_ip_range(bad).error().code, Errc::InvalidArgument) << bad;
}

TEST(IpRange, PeerAddressDropsThePort) {
  EXPECT_EQ(peer_address("127.0.0.1:40312"), "127.0.0.1");
  EXPECT_EQ(peer_address("[::1]:40312"), "::1");
  EXPECT_EQ(peer_address("unix"), "unix");
  EXPECT_EQ(peer_address("2001:db8::1"), "2001:db8::1");  // no brackets: no port to drop
}

}  // namespace
}  // namespace callwire::net
