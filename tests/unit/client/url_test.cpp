// The URLs a client takes: HTTP, HTTPS, Unix sockets and SCGI, and every refusal.
#include "client/url.hpp"

#include <gtest/gtest.h>

#include "callwire/client.hpp"
#include "client/framing.hpp"

namespace callwire::detail {
namespace {

TEST(ClientUrl, Http) {
  ClientUrl u = parse_client_url("http://user:p%40ss@example.org:8080/RPC2?x#frag", "").value();
  EXPECT_FALSE(u.tls);
  EXPECT_EQ(u.framing, ConnectionFraming::Http);
  EXPECT_EQ(u.host, "example.org");
  EXPECT_EQ(u.port, 8080);
  EXPECT_EQ(u.path, "/RPC2?x");
  EXPECT_EQ(u.user, "user");
  EXPECT_EQ(u.password, "p@ss");
  EXPECT_EQ(parse_client_url("http://h", "").value().port, 80);
  EXPECT_EQ(parse_client_url("http://h", "").value().path, "/");
  EXPECT_EQ(parse_client_url("http://h?q", "").value().path, "/");
  ClientUrl s = parse_client_url("https://[::1]/x", "").value();
  EXPECT_TRUE(s.tls);
  EXPECT_EQ(s.host, "::1");
  EXPECT_EQ(s.port, 443);
}

TEST(ClientUrl, UnixSockets) {
  ClientUrl u = parse_client_url("unix:/run/app.sock", "").value();
  EXPECT_EQ(u.endpoint.kind, net::Endpoint::Kind::Unix);
  EXPECT_EQ(u.endpoint.path, "/run/app.sock");
  EXPECT_EQ(u.path, "/RPC2");
  EXPECT_EQ(parse_client_url("unix:///run/app.sock", "/api").value().path, "/api");
}

TEST(ClientUrl, JsonRpcOverHttp) {
  ClientUrl u = parse_client_url("jsonrpc+http://h:81/api", "").value();
  EXPECT_TRUE(u.json_rpc);
  EXPECT_EQ(u.framing, ConnectionFraming::Http);
  EXPECT_EQ(u.port, 81);
  EXPECT_EQ(u.path, "/api");
  ClientUrl s = parse_client_url("jsonrpc+https://h", "").value();
  EXPECT_TRUE(s.json_rpc);
  EXPECT_TRUE(s.tls);
  ClientUrl x = parse_client_url("jsonrpc+unix:/run/a.sock", "/json").value();
  EXPECT_TRUE(x.json_rpc);
  EXPECT_EQ(x.endpoint.kind, net::Endpoint::Kind::Unix);
  EXPECT_EQ(x.path, "/json");
  EXPECT_FALSE(parse_client_url("http://h", "").value().json_rpc);
  for (const char* bad : {"jsonrpc+scgi://h:1", "jsonrpc+pstream://h:1", "jsonrpc+", "jsonrpc:h",
                          "jsonrpc+http://", "jsonrpc+unix:"})
    EXPECT_EQ(parse_client_url(bad, "").error().code, Errc::InvalidArgument) << bad;
}

TEST(ClientUrl, Scgi) {
  ClientUrl u = parse_client_url("scgi://127.0.0.1:5000", "").value();
  EXPECT_EQ(u.framing, ConnectionFraming::Scgi);
  EXPECT_FALSE(u.tls);
  EXPECT_EQ(u.port, 5000);
  EXPECT_EQ(u.path, "/");
  EXPECT_EQ(parse_client_url("scgi://[::1]:5000/RPC2", "").value().path, "/RPC2");
  ClientUrl local = parse_client_url("scgi+unix:/run/rtorrent.sock", "").value();
  EXPECT_EQ(local.framing, ConnectionFraming::Scgi);
  EXPECT_EQ(local.endpoint.kind, net::Endpoint::Kind::Unix);
  EXPECT_EQ(local.endpoint.path, "/run/rtorrent.sock");
  EXPECT_EQ(local.path, "/RPC2");
}

TEST(ClientUrl, Pstream) {
  ClientUrl u = parse_client_url("pstream://127.0.0.1:8081", "").value();
  EXPECT_EQ(u.framing, ConnectionFraming::Pstream);
  EXPECT_EQ(u.endpoint.kind, net::Endpoint::Kind::Tcp);
  EXPECT_EQ(u.port, 8081);
  EXPECT_EQ(parse_client_url("pstream://[::1]:1/", "").value().port, 1);
  ClientUrl local = parse_client_url("pstream+unix:/run/app.sock", "").value();
  EXPECT_EQ(local.framing, ConnectionFraming::Pstream);
  EXPECT_EQ(local.endpoint.kind, net::Endpoint::Kind::Unix);
  EXPECT_EQ(local.endpoint.path, "/run/app.sock");
}

TEST(ClientUrl, JsonLines) {
  ClientUrl u = parse_client_url("jsonl://127.0.0.1:8082", "").value();
  EXPECT_EQ(u.framing, ConnectionFraming::JsonLines);
  EXPECT_TRUE(u.json_rpc);
  EXPECT_EQ(u.port, 8082);
  ClientUrl local = parse_client_url("jsonl+unix:/run/app.sock", "").value();
  EXPECT_EQ(local.framing, ConnectionFraming::JsonLines);
  EXPECT_TRUE(local.json_rpc);
  EXPECT_EQ(local.endpoint.path, "/run/app.sock");
  EXPECT_NE(parse_client_url("jsonl://h", "").error().message.find("a jsonl:// URL needs a port"),
            std::string::npos);
}

TEST(ClientUrl, RefusesWhatItCannotUse) {
  for (const char* bad : {"ftp://h/",        "http://",     "http://:80",         "http://h:0",
                          "http://h:65536",  "http://h:x",  "http://[::1",        "http://[::1]x",
                          "http://u:%zz@h/", "unix:",       "scgi://h",           "scgi://u:p@h:1",
                          "scgi+unix:",      "pstream://h", "pstream://h:1/RPC2", "pstream://u@h:1",
                          "pstream+unix:",   "jsonl://h",   "jsonl://h:1/x",      "jsonl://u:p@h:1",
                          "jsonl+unix:",     "nonsense"}) {
    Result<ClientUrl> u = parse_client_url(bad, "");
    EXPECT_FALSE(u) << bad;
    if (!u) {
      EXPECT_EQ(u.error().code, Errc::InvalidArgument) << bad;
      EXPECT_NE(u.error().message.find(bad), std::string::npos) << u.error().message;
    }
  }
}

// ws:// parses (the transport table has it) and the client says plainly that it cannot use it
// yet, rather than speaking HTTP to the URL.
TEST(ClientUrl, WebSocketSchemes) {
  ClientUrl plain = parse_client_url("ws://alice:pw@127.0.0.1/RPC2", "").value();
  EXPECT_EQ(plain.framing, ConnectionFraming::WebSocket);
  EXPECT_FALSE(plain.tls);
  EXPECT_FALSE(plain.json_rpc);
  EXPECT_EQ(plain.port, 80);
  EXPECT_EQ(plain.path, "/RPC2");
  EXPECT_EQ(plain.user, "alice");
  ClientUrl secure = parse_client_url("jsonrpc+wss://[::1]/", "").value();
  EXPECT_EQ(secure.framing, ConnectionFraming::WebSocket);
  EXPECT_TRUE(secure.tls);
  EXPECT_TRUE(secure.json_rpc);
  EXPECT_EQ(secure.port, 443);
  ClientUrl local = parse_client_url("jsonrpc+ws+unix:/run/a.sock", "/ws").value();
  EXPECT_EQ(local.framing, ConnectionFraming::WebSocket);
  EXPECT_EQ(local.endpoint.kind, net::Endpoint::Kind::Unix);
  EXPECT_EQ(local.path, "/ws");
  EXPECT_EQ(parse_client_url("https://h", "").value().framing, ConnectionFraming::Http);
  Result<ClientUrl> bad = parse_client_url("wsx://h", "");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("wss://"), std::string::npos) << bad.error().message;
  // The framing: a WebSocket URL makes one; notifications ask for it.
  EXPECT_TRUE(make_client_framing(plain, "text/xml", false, "Basic eA==", "", {}));
  NotificationHandler handler = [](std::string_view, const Value&) {};
  ClientUrl http = parse_client_url("http://h/", "").value();
  EXPECT_FALSE(make_client_framing(http, "application/json", false, "", "", {}, nullptr, &handler));
}

}  // namespace
}  // namespace callwire::detail
