// The server's SCGI listeners end to end over loopback: callwire's own client over TCP and a
// Unix socket, inline and on the worker pool; raw SCGI bytes for every refusal (answered in the
// CGI form, that connection closed, the others served); the gateway's peer and user; gzip.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "http/gzip.hpp"
#include "http_test_util.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;
using testing::RawSocket;

std::string netstring(const std::string& block) {
  return std::to_string(block.size()) + ":" + block + ",";
}

// An SCGI request as a web server sends it; `vars` are more "NAME\0value\0" pairs.
std::string scgi_request(const std::string& body, const std::string& vars = {},
                         const std::string& method = "POST", const std::string& uri = "/RPC2") {
  return netstring("CONTENT_LENGTH\0"s + std::to_string(body.size()) +
                   "\0SCGI\0"
                   "1\0"
                   "REQUEST_METHOD\0"s +
                   method + "\0REQUEST_URI\0"s + uri + "\0"s + vars) +
         body;
}

const std::string kAddCall =
    "<?xml version=\"1.0\"?><methodCall><methodName>add</methodName><params>"
    "<param><value><int>2</int></value></param><param><value><int>3</int></value></param>"
    "</params></methodCall>";
const std::string kWhoCall = "<methodCall><methodName>whoami</methodName></methodCall>";

struct ScgiServer {
  explicit ScgiServer(ServerOptions o) : server(std::move(o)) {
    EXPECT_TRUE(server.registry().bind("add", [](int a, int b) { return a + b; }));
    EXPECT_TRUE(server.registry().bind("whoami", [](CallContext& c) {
      return std::string(c.peer()) + "|" + std::string(c.user()) + "|" +
             std::string(c.header("User-Agent"));
    }));
    EXPECT_TRUE(server.registry().bind("big", [](int n) { return std::string(size_t(n), 'x'); }));
    Status s = server.start();
    EXPECT_TRUE(s) << s.error().message;
  }
  static ServerOptions options(unsigned handler_threads = 0) {
    ServerOptions o;
    o.listen = {"scgi://127.0.0.1:0"};
    o.threads = 2;
    o.handler_threads = handler_threads;
    return o;
  }
  Server server;
};

std::string status_line(const std::string& answer) { return answer.substr(0, answer.find("\r\n")); }

class ScgiServerTest : public ::testing::TestWithParam<unsigned> {};  // handler threads

TEST_P(ScgiServerTest, AnswersTheClientOverTcpAndUnix) {
  std::string path = ::testing::TempDir() + "cw-scgi-srv-" + std::to_string(::getpid()) + "-" +
                     std::to_string(GetParam());
  ServerOptions o = ScgiServer::options(GetParam());
  o.listen.push_back("127.0.0.1:0");
  if (net::sys::kHasUnixSockets) o.listen.push_back("scgi+unix:" + path);
  ScgiServer s(o);
  EXPECT_TRUE(s.server.url(0).starts_with("scgi://127.0.0.1:"));
  EXPECT_TRUE(s.server.url(1).starts_with("http://"));
  if (net::sys::kHasUnixSockets) {
    EXPECT_EQ(s.server.url(2), "scgi+unix:" + path);
  }
  for (size_t i = 0; i < o.listen.size(); ++i) {
    Client client(s.server.url(i));
    EXPECT_EQ(client.call<int>("add", 20, 22).value(), 42) << s.server.url(i);
    std::string big = client.call<std::string>("big", 3 << 20).value();
    EXPECT_EQ(big.size(), size_t{3} << 20);
    Result<int> fault = client.call<int>("nope");
    ASSERT_FALSE(fault);
    EXPECT_EQ(fault.error().fault_code, -32601);
  }
}

INSTANTIATE_TEST_SUITE_P(InlineAndPool, ScgiServerTest, ::testing::Values(0u, 2u));

TEST(ScgiServer, RefusesBadFramingAndKeepsServing) {
  ServerOptions o = ScgiServer::options();
  o.max_body = 1000;
  o.request_timeout = 300ms;
  ScgiServer s(o);
  uint16_t port = s.server.port();
  auto answer_to = [port](const std::string& bytes, bool* closed = nullptr) {
    RawSocket socket(port);
    socket.send(bytes);
    std::string got = socket.read_all(3s);
    if (closed) *closed = socket.closed();
    return got;
  };
  bool closed = false;
  std::string got = answer_to("GET / HTTP/1.1\r\nHost: x\r\n\r\n", &closed);
  EXPECT_EQ(status_line(got), "Status: 400 Bad Request");
  EXPECT_TRUE(closed);
  EXPECT_EQ(status_line(answer_to("99999999999:")), "Status: 431 Request Header Fields Too Large");
  EXPECT_EQ(status_line(answer_to(netstring("CONTENT_LENGTH\0"
                                            "0\0"s))),
            "Status: 400 Bad Request");
  // Refused on its head: the body is never waited for.
  EXPECT_EQ(status_line(answer_to(netstring("CONTENT_LENGTH\0"
                                            "5000\0"
                                            "SCGI\0"
                                            "1\0"s))),
            "Status: 413 Content Too Large");
  got = answer_to(scgi_request(kAddCall, {}, "GET"));
  EXPECT_EQ(status_line(got), "Status: 405 Method Not Allowed");
  EXPECT_NE(got.find("Allow: POST\r\n"), std::string::npos);
  EXPECT_EQ(status_line(answer_to(scgi_request(kAddCall, {}, "POST", "/elsewhere"))),
            "Status: 404 Not Found");
  EXPECT_EQ(status_line(answer_to(scgi_request(kAddCall, "HTTP_CONTENT_ENCODING\0br\0"s))),
            "Status: 415 Unsupported Media Type");
  // Half a request: answered 408 after request_timeout, while another call is served.
  RawSocket slow(port);
  std::string half = scgi_request(kAddCall);
  slow.send(half.substr(0, half.size() / 2));
  got = answer_to(scgi_request(kAddCall));
  EXPECT_EQ(status_line(got), "Status: 200 OK");
  EXPECT_NE(got.find("<int>5</int>"), std::string::npos);
  EXPECT_EQ(status_line(slow.read_all(3s)), "Status: 408 Request Timeout");
  Client client(s.server.url());
  EXPECT_EQ(client.call<int>("add", 1, 1).value(), 2);
}

TEST(ScgiServer, HandlersSeeTheGatewaysPeerAndUser) {
  ScgiServer s(ScgiServer::options());
  RawSocket socket(s.server.port());
  socket.send(scgi_request(kWhoCall,
                           "REMOTE_ADDR\0"
                           "203.0.113.7\0"
                           "REMOTE_PORT\0"
                           "999\0"
                           "REMOTE_USER\0"
                           "ann\0"
                           "HTTP_USER_AGENT\0"
                           "curl/8\0"s));
  std::string got = socket.read_all(3s);
  EXPECT_NE(got.find("<string>203.0.113.7:999|ann|curl/8</string>"), std::string::npos) << got;

  // With the server's own authentication, the gateway's user counts for nothing: the
  // credentials come in HTTP_AUTHORIZATION and are checked.
  ServerOptions o = ScgiServer::options();
  o.authenticate = [](std::string_view user, std::string_view password) {
    return user == "bob" && password == "pw";
  };
  ScgiServer guarded(o);
  RawSocket refused(guarded.server.port());
  refused.send(scgi_request(kWhoCall,
                            "REMOTE_USER\0"
                            "ann\0"s));
  EXPECT_EQ(status_line(refused.read_all(3s)), "Status: 401 Unauthorized");
  RawSocket accepted(guarded.server.port());
  accepted.send(scgi_request(kWhoCall,
                             "HTTP_AUTHORIZATION\0"
                             "Basic Ym9iOnB3\0"s));
  got = accepted.read_all(3s);
  EXPECT_NE(got.find("|bob|"), std::string::npos) << got;
}

TEST(ScgiServer, GzipBothWays) {
  ServerOptions o = ScgiServer::options();
  o.gzip_min_size = 100;
  ScgiServer s(o);
  Buffer gz;
  ASSERT_TRUE(http::gzip_compress(kAddCall, gz));
  RawSocket socket(s.server.port());
  socket.send(scgi_request(std::string(gz.view()), "HTTP_CONTENT_ENCODING\0gzip\0"s));
  EXPECT_NE(socket.read_all(3s).find("<int>5</int>"), std::string::npos);

  ClientOptions co;
  co.accept_gzip = true;
  Client client(s.server.url(), co);
  EXPECT_EQ(client.call<std::string>("big", 5000).value(), std::string(5000, 'x'));
  RawSocket raw(s.server.port());
  raw.send(
      scgi_request("<methodCall><methodName>big</methodName><params><param><value><int>5000"
                   "</int></value></param></params></methodCall>",
                   "HTTP_ACCEPT_ENCODING\0gzip\0"s));
  EXPECT_NE(raw.read_all(3s).find("Content-Encoding: gzip\r\n"), std::string::npos);
}

// What the gateway passed on reaches the access log escaped: REMOTE_ADDR and REMOTE_USER as
// sent (a newline forges a whole line, ESC drives the terminal), and the method a call named.
TEST(ScgiServer, AccessLogGetsWhatTheGatewaySentEscaped) {
  std::mutex m;
  std::vector<std::string> lines;
  ServerOptions o = ScgiServer::options();
  o.access_log = [&](const AccessLogEntry& e) {
    std::lock_guard lock(m);
    lines.push_back(std::string(e.peer) + " " + std::string(e.user) + " " + std::string(e.method));
  };
  ScgiServer s(o);
  RawSocket socket(s.server.port());
  socket.send(scgi_request(kWhoCall,
                           "REMOTE_ADDR\0"
                           "203.0.113.7\n198.51.100.1 - forged\x1b[2J\0"
                           "REMOTE_PORT\0"
                           "999\0"
                           "REMOTE_USER\0"
                           "ann\r\nx\0"s));
  std::string got = socket.read_all(3s);
  EXPECT_EQ(status_line(got), "Status: 200 OK") << got;
  RawSocket named(s.server.port());
  named.send(scgi_request("<methodCall><methodName>who\nami</methodName></methodCall>"));
  got = named.read_all(3s);
  EXPECT_EQ(status_line(got), "Status: 200 OK") << got;
  std::lock_guard lock(m);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "203.0.113.7\\x0A198.51.100.1\\x20-\\x20forged\\x1B[2J:999 ann\\x0D\\x0Ax whoami");
  EXPECT_EQ(lines[1].substr(lines[1].find(' ')), "  who\\x0Aami");  // the socket's peer, no user
}

// A CORS preflight whose Access-Control-Request-Headers carries CR LF (an SCGI variable may) is
// answered 400, not met with silence: echoed, its answer would be refused by the writer.
TEST(ScgiServer, PreflightWithCrLfInTheAskedHeadersIsRefused) {
  ServerOptions o = ScgiServer::options();
  o.cors_allow_origin = "https://app.example";
  ScgiServer s(o);
  auto preflight = [&](const std::string& asked) {
    RawSocket socket(s.server.port());
    socket.send(scgi_request("",
                             "HTTP_ORIGIN\0https://app.example\0"
                             "HTTP_ACCESS_CONTROL_REQUEST_METHOD\0POST\0"
                             "HTTP_ACCESS_CONTROL_REQUEST_HEADERS\0"s +
                                 asked + "\0"s,
                             "OPTIONS"));
    return socket.read_all(3s);
  };
  std::string got = preflight("content-type\r\nX-Injected: 1");
  EXPECT_EQ(status_line(got), "Status: 400 Bad Request") << got;
  EXPECT_EQ(got.find("X-Injected"), std::string::npos) << got;
  got = preflight("content-type");
  EXPECT_EQ(status_line(got), "Status: 200 OK") << got;
  EXPECT_NE(got.find("Access-Control-Allow-Headers: content-type\r\n"), std::string::npos) << got;
}

}  // namespace
}  // namespace callwire
