// The server and the client end to end over loopback: real sockets, port 0, every wait
// bounded. Bad HTTP is sent raw; good calls go through callwire's client.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "http/gzip.hpp"
#include "http_test_util.hpp"
#include "test_cert.hpp"
#include "value/value_build.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;
using testing::call_xml;
using testing::post;
using testing::RawSocket;

Value add(Params p, CallContext&) { return p[0].as_int() + p[1].as_int(); }

// A started server with `add`, `echo`, `whoami`, `sleep` (ms) and `big` (n bytes).
struct TestServer {
  explicit TestServer(ServerOptions options = base_options()) : server(std::move(options)) {
    EXPECT_TRUE(server.add_method("add", add, {{{"int", "int", "int"}}, "Adds two integers."}));
    EXPECT_TRUE(server.add_method("echo", [](Params p, CallContext&) {
      Value a = Value::array();
      for (Value& v : p) a.push_back(std::move(v));
      return a;
    }));
    EXPECT_TRUE(server.add_method("whoami", [](Params, CallContext& c) {
      return Value::structure({{"user", Value(c.user())},
                               {"peer", Value(c.peer())},
                               {"agent", Value(c.header("user-agent"))}});
    }));
    EXPECT_TRUE(server.add_method("sleep", [this](Params p, CallContext&) {
      ++sleepers;
      std::this_thread::sleep_for(std::chrono::milliseconds(p[0].as_int()));
      return Value(true);
    }));
    EXPECT_TRUE(server.add_method("big", [](Params p, CallContext&) {
      return Value(std::string(static_cast<size_t>(p[0].as_int()), 'x'));
    }));
    Status s = server.start();
    EXPECT_TRUE(s) << s.error().message;
  }
  static ServerOptions base_options() {
    ServerOptions o;
    o.listen = {"127.0.0.1:0"};
    o.threads = 2;
    return o;
  }
  uint16_t port() const { return server.port(); }
  std::string url() const { return server.url(); }
  // Waits until `n` calls of `sleep` have begun: the call is in its handler, not on its way.
  void wait_for_sleepers(int n) const {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (sleepers.load() < n && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_GE(sleepers.load(), n) << "no sleep call began within 10 s";
  }
  std::atomic<int> sleepers{0};  // before `server`, whose handler counts them
  Server server;
};

std::string status_line(const std::string& response) {
  return response.substr(0, response.find("\r\n"));
}

TEST(HttpServer, AnswersACallThroughTheClient) {
  TestServer t;
  ASSERT_NE(t.port(), 0);
  EXPECT_EQ(t.url(), "http://127.0.0.1:" + std::to_string(t.port()) + "/RPC2");
  Client client(t.url());
  auto r = client.call("add", {Value(3), Value(5)});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->as_int(), 8);
}

TEST(HttpServer, FaultsReachTheClientAsFaults) {
  TestServer t;
  Client client(t.url());
  auto r = client.call("nope");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Fault);
  EXPECT_EQ(r.error().fault_code, -32601);
  auto bad = client.call("add", {Value("x"), Value(1)});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().fault_code, -32602);
  EXPECT_NE(bad.error().message.find("parameter 1"), std::string::npos) << bad.error().message;
}

TEST(HttpServer, ServesIpv6AndUnixSockets) {
  if (!net::sys::kHasUnixSockets) GTEST_SKIP() << testing::kNoUnixSockets;
  auto dir = std::filesystem::temp_directory_path() / ("callwire-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "s.sock").string();
  ServerOptions o = TestServer::base_options();
  o.listen = {"[::1]:0", "unix:" + path};
  TestServer t(o);
  EXPECT_EQ(t.server.url(1), "unix:" + path);
  Client v6(t.server.url(0));
  auto r = v6.call("add", {Value(1), Value(2)});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->as_int(), 3);
  Client unix_client("unix:" + path);
  auto who = unix_client.call("whoami");
  ASSERT_TRUE(who) << who.error().message;
  EXPECT_EQ((*who)["peer"].as_string(), "unix");
  t.server.stop();
  t.server.wait();
  EXPECT_FALSE(std::filesystem::exists(path));  // the server removes its socket
  std::filesystem::remove_all(dir);
}

// Windows (under Wine): a Unix-domain address is refused by the server and by the client,
// saying why and what to use instead; IPv6 on loopback works.
TEST(HttpServer, UnixSocketsAreRefusedWhereThereAreNone) {
  if (net::sys::kHasUnixSockets) GTEST_SKIP() << "this system has Unix-domain sockets";
  ServerOptions o = TestServer::base_options();
  o.listen = {"unix:C:/callwire-test.sock"};
  Server server(o);
  Status started = server.start();
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, Errc::InvalidArgument);
  EXPECT_NE(started.error().message.find("Unix-domain sockets are not supported on this system"),
            std::string::npos)
      << started.error().message;
  Result<Value> called = Client("unix:C:/callwire-test.sock").call("add");
  ASSERT_FALSE(called);
  EXPECT_NE(called.error().message.find("use a TCP address"), std::string::npos)
      << called.error().message;
  o.listen = {"[::1]:0"};
  TestServer v6(o);
  EXPECT_EQ(Client(v6.server.url(0)).call<int>("add", 1, 2).value(), 3);
}

TEST(HttpServer, TheClientReusesItsConnection) {
  std::mutex m;
  std::set<std::string> peers;
  ServerOptions o = TestServer::base_options();
  o.access_log = [&](const AccessLogEntry& e) {
    std::lock_guard lock(m);
    peers.insert(std::string(e.peer));
  };
  TestServer t(o);
  Client client(t.url());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(client.call("add", {Value(i), Value(1)}));
  std::lock_guard lock(m);
  EXPECT_EQ(peers.size(), 1u);  // one connection, one peer port, for 20 calls
}

TEST(HttpServer, AnswersPipelinedRequestsInOrder) {
  TestServer t;
  RawSocket s(t.port());
  ASSERT_TRUE(s.connected());
  std::string three;
  for (int i = 0; i < 3; ++i)
    three += post(
        call_xml("add", "<param><value><int>" + std::to_string(i) +
                            "</int></value></param><param><value><int>100</int></value></param>"));
  ASSERT_TRUE(s.send(three));
  std::string got = s.read_responses(3);
  ASSERT_EQ(RawSocket::complete_responses(got), 3) << got;
  size_t a = got.find("<int>100</int>"), b = got.find("<int>101</int>"),
         c = got.find("<int>102</int>");
  ASSERT_NE(a, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

// max_requests_per_connection: the second answer says Connection: close and the connection
// closes; the third pipelined request is never answered. The client reconnects by itself.
TEST(HttpServer, CapsTheRequestsOfAKeepAliveConnection) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    ServerOptions o = TestServer::base_options();
    o.max_requests_per_connection = 2;
    o.handler_threads = workers;
    TestServer t(o);
    RawSocket s(t.port());
    ASSERT_TRUE(s.connected());
    std::string three;
    for (int i = 0; i < 3; ++i)
      three += post(call_xml("add",
                             "<param><value><int>1</int></value></param>"
                             "<param><value><int>2</int></value></param>"));
    ASSERT_TRUE(s.send(three));
    std::string got = s.read_all(5s);
    EXPECT_TRUE(s.closed());
    EXPECT_EQ(RawSocket::complete_responses(got), 2) << got;
    size_t second = got.find("HTTP/1.1 200", 1);
    ASSERT_NE(second, std::string::npos);
    EXPECT_EQ(got.find("Connection: close"), got.find("Connection: close", second)) << got;
    EXPECT_NE(got.find("Connection: close", second), std::string::npos) << got;
    Client client = Client::create(t.url()).value();
    for (int i = 0; i < 5; ++i) EXPECT_EQ(client.call<int>("add", i, 1).value(), i + 1);
  }
}

TEST(HttpServer, AnswersEachByteOfARequestSentAlone) {
  TestServer t;
  RawSocket s(t.port());
  std::string request = post(call_xml("add",
                                      "<param><value><int>2</int></value></param>"
                                      "<param><value><int>2</int></value></param>"));
  for (char c : request) ASSERT_TRUE(s.send(std::string_view(&c, 1)));
  std::string got = s.read_responses(1);
  EXPECT_NE(got.find("<int>4</int>"), std::string::npos) << got;
}

struct BadCase {
  const char* name;
  std::string request;
  const char* status;
};

TEST(HttpServer, RefusesBadHttpAndKeepsServing) {
  ServerOptions o = TestServer::base_options();
  o.max_body = 4096;
  o.max_header_bytes = 1024;
  TestServer t(o);
  std::string body = call_xml("add");
  std::vector<BadCase> cases = {
      {"GET", "GET /RPC2 HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 405"},
      {"other path", post(body, {}, "/other"), "HTTP/1.1 404"},
      {"garbage request line", "HELLO\r\n\r\n", "HTTP/1.1 400"},
      {"CL and TE",
       "POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
       "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
       "HTTP/1.1 400"},
      {"two CL",
       "POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcde",
       "HTTP/1.1 400"},
      {"body too large", "POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n",
       "HTTP/1.1 413"},
      {"headers too large",
       "POST /RPC2 HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n",
       "HTTP/1.1 431"},
      {"unknown coding", post(body, "Content-Encoding: br\r\n"), "HTTP/1.1 415"},
      {"bad gzip", post("not gzip at all", "Content-Encoding: gzip\r\n"), "HTTP/1.1 400"},
  };
  for (const BadCase& c : cases) {
    RawSocket s(t.port());
    ASSERT_TRUE(s.send(c.request)) << c.name;
    std::string got = s.read_all(3s);
    EXPECT_EQ(status_line(got).substr(0, 12), c.status) << c.name << ": " << got;
    EXPECT_TRUE(s.closed()) << c.name << ": the connection should close";
    if (std::string(c.status) == "HTTP/1.1 405") {
      EXPECT_NE(got.find("Allow: POST\r\n"), std::string::npos) << got;
    }
  }
  Client client(t.url());
  auto r = client.call("add", {Value(1), Value(1)});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->as_int(), 2);
}

TEST(HttpServer, NotWellFormedXmlIsAFaultInA200) {
  TestServer t;
  RawSocket s(t.port());
  ASSERT_TRUE(s.send(post("<methodCall><methodName>add</methodName>")));
  std::string got = s.read_responses(1);
  EXPECT_EQ(status_line(got), "HTTP/1.1 200 OK");
  EXPECT_NE(got.find("<int>-32700</int>"), std::string::npos) << got;
}

TEST(HttpServer, ExpectContinue) {
  TestServer t;
  RawSocket s(t.port());
  std::string body = call_xml("add",
                              "<param><value><int>20</int></value></param>"
                              "<param><value><int>22</int></value></param>");
  std::string request = post(body, "Expect: 100-continue\r\n");
  std::string head = request.substr(0, request.size() - body.size());
  ASSERT_TRUE(s.send(head));
  std::string interim =
      s.read_until([](const std::string& g) { return g.find("\r\n\r\n") != std::string::npos; });
  EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(s.send(body));
  std::string got = s.read_responses(1);
  EXPECT_NE(got.find("<int>42</int>"), std::string::npos) << got;
}

TEST(HttpServer, ExpectContinueRefusedOnItsHead) {
  TestServer t;
  RawSocket s(t.port());
  ASSERT_TRUE(
      s.send("POST /elsewhere HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n"
             "Expect: 100-continue\r\n\r\n"));
  std::string got = s.read_all(3s);
  EXPECT_EQ(status_line(got), "HTTP/1.1 404 Not Found") << got;
}

TEST(HttpServer, GzipBothWays) {
  // Inline, and on a worker pool (where the worker inflates and deflates).
  for (unsigned handler_threads : {0u, 2u}) {
    SCOPED_TRACE(handler_threads);
    ServerOptions o = TestServer::base_options();
    o.gzip_min_size = 1000;
    o.handler_threads = handler_threads;
    TestServer t(o);
    // A gzipped request body.
    Buffer z;
    std::string body = call_xml("add",
                                "<param><value><int>1</int></value></param>"
                                "<param><value><int>2</int></value></param>");
    ASSERT_TRUE(http::gzip_compress(body, z));
    RawSocket s(t.port());
    ASSERT_TRUE(s.send(post(z.view(), "Content-Encoding: gzip\r\n")));
    std::string got = s.read_responses(1);
    EXPECT_NE(got.find("<int>3</int>"), std::string::npos) << got;
    // Not gzip at all: 400.
    RawSocket s1(t.port());
    ASSERT_TRUE(s1.send(post("not gzip", "Content-Encoding: gzip\r\n")));
    EXPECT_EQ(status_line(s1.read_all(3s)), "HTTP/1.1 400 Bad Request");
    // A large response, gzipped for a client that accepts it.
    RawSocket s2(t.port());
    ASSERT_TRUE(s2.send(post(call_xml("big", "<param><value><int>50000</int></value></param>"),
                             "Accept-Encoding: gzip\r\n")));
    std::string big = s2.read_responses(1);
    EXPECT_NE(big.find("Content-Encoding: gzip\r\n"), std::string::npos);
    EXPECT_LT(big.size(), 5000u);
    // The client asks for gzip (when told to) and inflates.
    ClientOptions gzip_client;
    gzip_client.accept_gzip = true;
    Client client(t.url(), gzip_client);
    auto r = client.call("big", {Value(50000)});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->as_string().size(), 50000u);
  }
  // A gzip bomb is refused: 413, inline and by a worker.
  std::string zeros(8 << 20, '\0');
  Buffer bomb;
  ASSERT_TRUE(http::gzip_compress(zeros, bomb, 9));
  for (unsigned handler_threads : {0u, 2u}) {
    ServerOptions small = TestServer::base_options();
    small.max_body = 1 << 20;
    small.handler_threads = handler_threads;
    TestServer t2(small);
    RawSocket s3(t2.port());
    ASSERT_TRUE(s3.send(post(bomb.view(), "Content-Encoding: gzip\r\n")));
    EXPECT_EQ(status_line(s3.read_all(3s)).substr(0, 12), "HTTP/1.1 413") << handler_threads;
  }
}

TEST(HttpServer, ConstantTimeEqual) {
  EXPECT_TRUE(constant_time_equal("s3cret", "s3cret"));
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_FALSE(constant_time_equal("s3creT", "s3cret"));
  EXPECT_FALSE(constant_time_equal("s3cre", "s3cret"));  // a prefix is not a match
  EXPECT_FALSE(constant_time_equal("s3cret", "s3cre"));
  EXPECT_FALSE(constant_time_equal(std::string_view("a\0b", 3), std::string_view("a\0c", 3)));
  EXPECT_FALSE(constant_time_equal(std::string_view("\0", 1), ""));  // padding is not a match
}

TEST(HttpServer, BasicAuthentication) {
  ServerOptions o = TestServer::base_options();
  o.authenticate = [](std::string_view u, std::string_view p) {
    return u == "ann" && p == "s3:cret";
  };
  o.realm = "test realm";
  TestServer t(o);
  RawSocket s(t.port());
  ASSERT_TRUE(s.send(post(call_xml("whoami"))));
  std::string got = s.read_all(3s);
  EXPECT_EQ(status_line(got), "HTTP/1.1 401 Unauthorized");
  EXPECT_NE(got.find("WWW-Authenticate: Basic realm=\"test realm\""), std::string::npos) << got;

  ClientOptions wrong;
  wrong.user = "ann";
  wrong.password = "guess";
  auto denied = Client(t.url(), wrong).call("whoami");
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, Errc::HttpStatus);
  EXPECT_EQ(denied.error().http_status, 401);
  ASSERT_TRUE(denied.error().http_head);
  EXPECT_EQ(denied.error().http_head->field("WWW-Authenticate"),
            "Basic realm=\"test realm\", charset=\"UTF-8\"");

  ClientOptions right;
  right.user = "ann";
  right.password = "s3:cret";
  Client client(t.url(), right);
  for (int i = 0; i < 3; ++i) {
    auto r = client.call("whoami");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ((*r)["user"].as_string(), "ann");
    EXPECT_EQ((*r)["agent"].as_string(), "callwire/0.1");
  }
  // Credentials in the URL.
  std::string url = "http://ann:s3%3Acret@127.0.0.1:" + std::to_string(t.port()) + "/RPC2";
  auto r = Client(url).call("whoami");
  ASSERT_TRUE(r) << r.error().message;
}

// Any Authorization scheme and a User-Agent of the client's choosing reach the handler (no
// `authenticate` here: the handler is the one to check a token), over HTTP and SCGI.
TEST(HttpServer, SendsAnyAuthorizationAndItsOwnUserAgent) {
  ServerOptions o = TestServer::base_options();
  o.listen = {"127.0.0.1:0", "scgi://127.0.0.1:0"};
  Server server(o);
  ASSERT_TRUE(server.bind(
      "auth", [](const CallContext& c) { return std::string(c.header("authorization")); }));
  ASSERT_TRUE(server.bind(
      "agent", [](const CallContext& c) { return std::string(c.header("user-agent")); }));
  ASSERT_TRUE(server.start());
  ClientOptions co;
  co.authorization = "Bearer abc.def";
  co.user_agent = "supervisorctl/4.2";
  for (std::string url : {server.url(0), server.url(1)}) {
    SCOPED_TRACE(url);
    Client client = Client::create(url, co).value();
    for (int i = 0; i < 2; ++i) {  // the fixed head is built once, used every time
      EXPECT_EQ(client.call<std::string>("auth").value(), "Bearer abc.def");
      EXPECT_EQ(client.call<std::string>("agent").value(), "supervisorctl/4.2");
    }
  }
  // Refused: both an Authorization value and Basic credentials; a control character; a
  // packet stream, which carries no header field.
  ClientOptions both = co;
  both.user = "ann";
  EXPECT_EQ(Client::create(server.url(), both).error().code, Errc::InvalidArgument);
  std::string with_url_user = "http://ann:x@127.0.0.1:" + std::to_string(server.port()) + "/RPC2";
  EXPECT_EQ(Client::create(with_url_user, co).error().code, Errc::InvalidArgument);
  ClientOptions bad;
  bad.authorization = "Bearer a\r\nX-Evil: 1";
  EXPECT_EQ(Client::create(server.url(), bad).error().code, Errc::InvalidArgument);
  bad = {};
  bad.user_agent = "a\nb";
  EXPECT_EQ(Client::create(server.url(), bad).error().code, Errc::InvalidArgument);
  ClientOptions agent_only;
  agent_only.user_agent = "x/1";
  EXPECT_EQ(Client::create("pstream://127.0.0.1:1", agent_only).error().code,
            Errc::InvalidArgument);
}

// CORS end to end: a preflight answered with what it asks for, every answer (errors too, inline
// and on the worker pool) carrying the origin, an origin as long as allowed still fitting
// the head's room; bad origins refused at start.
TEST(HttpServer, CorsForBrowsers) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    for (std::string origin :
         {std::string("https://app.example"), "https://" + std::string(1016, 'a')}) {
      ServerOptions o = TestServer::base_options();
      o.handler_threads = workers;
      o.cors_allow_origin = origin;
      o.cors_max_age = std::chrono::seconds(86400);
      TestServer t(o);
      const std::string allow = "Access-Control-Allow-Origin: " + origin + "\r\n";
      {
        RawSocket s(t.port());
        ASSERT_TRUE(
            s.send("OPTIONS /RPC2 HTTP/1.1\r\nHost: h\r\nOrigin: x\r\n"
                   "Access-Control-Request-Method: POST\r\n"
                   "Access-Control-Request-Headers: content-type\r\n\r\n"));
        std::string got = s.read_all(5s);
        EXPECT_EQ(status_line(got), "HTTP/1.1 200 OK");
        EXPECT_NE(got.find(allow), std::string::npos);
        EXPECT_NE(got.find("Access-Control-Allow-Methods: POST\r\n"), std::string::npos);
        EXPECT_NE(got.find("Access-Control-Allow-Headers: content-type\r\n"), std::string::npos);
        EXPECT_NE(got.find("Access-Control-Max-Age: 86400\r\n"), std::string::npos);
      }
      {
        RawSocket s(t.port());
        ASSERT_TRUE(s.send(post(call_xml("add",
                                         "<param><value><int>1</int></value></param>"
                                         "<param><value><int>2</int></value></param>"))));
        std::string got = s.read_responses(1);
        EXPECT_EQ(status_line(got), "HTTP/1.1 200 OK");
        EXPECT_NE(got.find(allow), std::string::npos) << got.substr(0, 300);
        EXPECT_NE(got.find("<int>3</int>"), std::string::npos);
      }
      {
        RawSocket s(t.port());
        ASSERT_TRUE(s.send("POST /elsewhere HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"));
        std::string got = s.read_all(5s);
        EXPECT_EQ(status_line(got), "HTTP/1.1 404 Not Found");
        EXPECT_NE(got.find(allow), std::string::npos);
      }
      Client client = Client::create(t.url()).value();
      EXPECT_EQ(client.call<int>("add", 20, 22).value(), 42);
    }
  }
  for (std::string bad : {std::string("a\r\nb"), std::string(1025, 'a')}) {
    ServerOptions o = TestServer::base_options();
    o.cors_allow_origin = bad;
    Server server(o);
    Status s = server.start();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::InvalidArgument);
  }
}

TEST(HttpServer, TimesOutSlowAndIdleConnections) {
  ServerOptions o = TestServer::base_options();
  o.request_timeout = 300ms;
  o.idle_timeout = 300ms;
  TestServer t(o);
  // A slowloris: half a request, then nothing.
  RawSocket slow(t.port());
  ASSERT_TRUE(slow.send("POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Le"));
  auto start = std::chrono::steady_clock::now();
  std::string got = slow.read_all(3s);
  EXPECT_TRUE(slow.closed());
  EXPECT_EQ(status_line(got).substr(0, 12), "HTTP/1.1 408") << got;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  // An idle keep-alive connection after one answer.
  RawSocket idle(t.port());
  ASSERT_TRUE(idle.send(post(call_xml("add",
                                      "<param><value><int>1</int></value></param>"
                                      "<param><value><int>1</int></value></param>"))));
  ASSERT_EQ(RawSocket::complete_responses(idle.read_responses(1)), 1);
  idle.read_all(3s);
  EXPECT_TRUE(idle.closed());
  // A client trickling a byte at a time does not extend its request deadline.
  RawSocket trickle(t.port());
  start = std::chrono::steady_clock::now();
  std::string request = post(call_xml("add"));
  for (char c : request) {
    if (!trickle.send(std::string_view(&c, 1))) break;
    std::this_thread::sleep_for(50ms);
    if (std::chrono::steady_clock::now() - start > 2s) break;
  }
  trickle.read_all(2s);
  EXPECT_TRUE(trickle.closed());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

// The idle clock of a connection starts when its answer goes, not at the loop's last tick:
// the loop reads the time as each turn's events arrive. Before, a connection answered just
// before a tick could be closed at that tick, its idle time counted from up to a tick (100 ms)
// earlier; with idle_timeout at one tick, most of these twenty would have been.
TEST(HttpServer, IdleTimeCountsFromTheAnswerNotFromTheLastTick) {
  ServerOptions o = TestServer::base_options();
  o.idle_timeout = 100ms;
  TestServer t(o);
  for (int i = 0; i < 20; ++i) {
    RawSocket s(t.port());
    ASSERT_TRUE(s.send(post(call_xml("add",
                                     "<param><value><int>1</int></value></param>"
                                     "<param><value><int>1</int></value></param>"))));
    ASSERT_EQ(RawSocket::complete_responses(s.read_responses(1)), 1);
    // Well inside the idle timeout after the answer: still open.
    EXPECT_FALSE(testing::wait_readable(s.fd(), 40))
        << "closed less than 40 ms after its answer, try " << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(7 * i % 50));  // another tick phase
  }
}

TEST(HttpServer, ConnectionCapRefusesNewcomersOnly) {
  ServerOptions o = TestServer::base_options();
  o.max_connections = 2;
  TestServer t(o);
  std::string request = post(call_xml("add",
                                      "<param><value><int>1</int></value></param>"
                                      "<param><value><int>2</int></value></param>"));
  RawSocket a(t.port()), b(t.port());
  ASSERT_TRUE(a.send(request));
  ASSERT_EQ(RawSocket::complete_responses(a.read_responses(1)), 1);
  ASSERT_TRUE(b.send(request));
  ASSERT_EQ(RawSocket::complete_responses(b.read_responses(1)), 1);
  // A newcomer is told 503 and closed, whether or not it has sent its request yet.
  RawSocket c(t.port());
  c.send(request);
  std::string refused = c.read_all(2s);
  EXPECT_TRUE(c.closed());
  EXPECT_EQ(refused.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u) << refused;
  EXPECT_NE(refused.find("Retry-After: 1\r\n"), std::string::npos);
  RawSocket d(t.port());
  EXPECT_EQ(d.read_all(2s).rfind("HTTP/1.1 503 ", 0), 0u);
  EXPECT_TRUE(d.closed());
  // The two already served still are.
  ASSERT_TRUE(a.send(request));
  EXPECT_EQ(RawSocket::complete_responses(a.read_responses(1)), 1);
  ASSERT_TRUE(b.send(request));
  EXPECT_EQ(RawSocket::complete_responses(b.read_responses(1)), 1);
}

TEST(HttpServer, BufferMemoryBudgetRefusesNewcomersNotServedConnections) {
  // A budget so small that one connection's first receive buffer spends it: while that
  // connection is open every newcomer is refused, and it keeps its own service.
  ServerOptions o = TestServer::base_options();
  o.threads = 1;
  o.max_buffer_memory = 1;
  TestServer t(o);
  std::string add_call = post(call_xml("add",
                                       "<param><value><int>2</int></value></param>"
                                       "<param><value><int>3</int></value></param>"));
  {
    RawSocket served(t.port());
    ASSERT_TRUE(served.send(add_call));
    ASSERT_EQ(RawSocket::complete_responses(served.read_responses(1)), 1);
    RawSocket newcomer(t.port());
    newcomer.send(add_call);
    std::string refused = newcomer.read_all(3s);
    EXPECT_EQ(status_line(refused), "HTTP/1.1 503 Service Unavailable");
    EXPECT_NE(refused.find("Retry-After: 1\r\n"), std::string::npos);
    for (int i = 0; i < 3; ++i) {  // served, again and again
      ASSERT_TRUE(served.send(add_call));
      std::string again = served.read_responses(1);
      EXPECT_NE(again.find("<int>5</int>"), std::string::npos) << again;
    }
  }
  // Closed: its memory is back, and the next connection is served.
  std::string answer;
  for (auto until = std::chrono::steady_clock::now() + 3s;
       std::chrono::steady_clock::now() < until &&
       answer.find("<int>5</int>") == std::string::npos;) {
    RawSocket next(t.port());  // the close may not have reached the loop yet: retry
    next.send(add_call);
    answer = next.read_responses(1, 1s);
  }
  EXPECT_NE(answer.find("<int>5</int>"), std::string::npos) << answer;
}

TEST(HttpServer, BufferMemoryBudgetRefusesARequestThatWouldExceedIt) {
  ServerOptions o = TestServer::base_options();
  o.threads = 1;
  o.max_buffer_memory = 2 << 20;
  TestServer t(o);
  RawSocket hog(t.port());
  // 3 MiB: more than the budget
  std::string body = call_xml(
      "echo", "<param><value><string>" + std::string(3 << 20, 'h') + "</string></value></param>");
  ASSERT_TRUE(hog.send(post(body)) || true);  // the server may refuse before it all arrives
  std::string answer = hog.read_all(5s);
  EXPECT_EQ(status_line(answer), "HTTP/1.1 503 Service Unavailable");
  EXPECT_TRUE(hog.closed());
  // The next caller, with a request that fits, is served.
  Client client(t.url());
  auto r = client.call("add", {Value(20), Value(22)});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->as_int(), 42);
  auto echoed = client.call("echo", {Value(std::string(256 << 10, 'e'))});
  ASSERT_TRUE(echoed) << echoed.error().message;
}

TEST(HttpServer, StopFinishesCallsInFlight) {
  TestServer t;
  Client client(t.url());
  std::atomic<bool> ok{false};
  std::thread caller([&] {
    auto r = client.call("sleep", {Value(300)});
    ok = r && r->as_bool();
  });
  t.wait_for_sleepers(1);
  auto start = std::chrono::steady_clock::now();
  t.server.stop();
  t.server.wait();
  caller.join();
  EXPECT_TRUE(ok.load());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  // Stopped: nobody listens any more.
  auto after = client.call("add", {Value(1), Value(1)});
  EXPECT_FALSE(after);
}

TEST(HttpServer, StopFinishesCallsInFlightOnTheWorkerPool) {
  // The call is on a worker when the stop begins; its answer must close the connection, or
  // the client's idle keep-alive connection holds the server until stop_grace (10 s).
  ServerOptions o = TestServer::base_options();
  o.threads = 1;
  o.handler_threads = 1;
  TestServer t(o);
  auto start = std::chrono::steady_clock::now();
  {
    RawSocket s(t.port());
    ASSERT_TRUE(s.connected());
    ASSERT_TRUE(s.send(post(call_xml("sleep", "<param><value><int>300</int></value></param>"))));
    t.wait_for_sleepers(1);
    start = std::chrono::steady_clock::now();
    t.server.stop();
    std::string answer = s.read_responses(1);
    EXPECT_EQ(RawSocket::complete_responses(answer), 1);
    EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << answer;
  }  // the client closes, as it must after "Connection: close"; the server stops lingering
  t.server.wait();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

// Value allocations fail on every thread but the test's own while set: the worker reading a
// call runs out of memory (the loop thread only parses HTTP, which makes no Values).
std::thread::id g_allocating_thread;
bool fail_off_the_test_thread() { return std::this_thread::get_id() == g_allocating_thread; }

TEST(HttpServer, WorkerOutOfMemoryDropsOnlyItsConnection) {
  ServerOptions o = TestServer::base_options();
  o.threads = 1;
  o.handler_threads = 1;
  TestServer t(o);
  std::string long_string(200, 'x');  // a heap block, not inline in the Value
  std::string request =
      post(call_xml("echo", "<param><value><string>" + long_string + "</string></value></param>"));
  g_allocating_thread = std::this_thread::get_id();
  detail::set_value_alloc_hook(&fail_off_the_test_thread);
  std::string answer;
  {
    RawSocket s(t.port());
    ASSERT_TRUE(s.send(request));
    answer = s.read_all(3s);
    EXPECT_TRUE(s.closed());  // answered or dropped, but not left hanging
  }
  detail::set_value_alloc_hook(nullptr);
  // No complete 200 with the echo: the call could not be read.
  EXPECT_EQ(answer.find(long_string), std::string::npos);
  // The process and the worker are alive; the next call is served.
  Client client(t.url());
  auto r = client.call("add", {Value(2), Value(3)});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->as_int(), 5);
}

TEST(HttpServer, WorkerPoolKeepsFastCallsFast) {
  ServerOptions o = TestServer::base_options();
  o.threads = 1;
  o.handler_threads = 2;
  TestServer t(o);
  Client slow_client(t.url()), fast_client(t.url());
  std::thread slow([&] { EXPECT_TRUE(slow_client.call("sleep", {Value(800)})); });
  t.wait_for_sleepers(1);
  auto start = std::chrono::steady_clock::now();
  auto r = fast_client.call("add", {Value(2), Value(3)});
  auto took = std::chrono::steady_clock::now() - start;
  slow.join();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->as_int(), 5);
  EXPECT_LT(took, 500ms);  // did not wait for the sleeping handler on the same loop
}

// The worker-pool path under the requests that broke it: a request's buffers (the decoded
// chunked body, the inflated gzip body) belong to it until its answer is written, and an
// answer due on a closing connection is still sent.
ServerOptions pool_options() {
  ServerOptions o = TestServer::base_options();
  o.threads = 1;
  o.handler_threads = 2;
  return o;
}

// A chunked body of `body`, cut into chunks of `chunk` bytes.
std::string chunked_post(std::string_view body, size_t chunk, std::string_view extra = {}) {
  std::string r =
      "POST /RPC2 HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml\r\n"
      "Transfer-Encoding: chunked\r\n";
  r += extra;
  r += "\r\n";
  char size[32];
  for (size_t at = 0; at < body.size(); at += chunk) {
    size_t n = std::min(chunk, body.size() - at);
    std::snprintf(size, sizeof size, "%zx\r\n", n);
    r += size;
    r.append(body.substr(at, n));
    r += "\r\n";
  }
  r += "0\r\n\r\n";
  return r;
}

std::string echo_string_call(const std::string& text) {
  return call_xml("echo", "<param><value><string>" + text + "</string></value></param>");
}

// Decoded chunked data beyond 256 KiB was once released as "idle" between two reads of the
// same request, inline or on the pool.
TEST(HttpServer, ReadsLargeChunkedBodiesInlineAndOnTheWorkerPool) {
  for (unsigned handler_threads : {0u, 2u}) {
    SCOPED_TRACE(handler_threads);
    ServerOptions o = pool_options();
    o.handler_threads = handler_threads;
    TestServer t(o);
    std::string text(1 << 20, 'c');
    for (int i = 0; i < 4; ++i) {  // kept alive: the buffers of one request are reused by the next
      text[static_cast<size_t>(i)] = 'a' + static_cast<char>(i);
      RawSocket s(t.port());
      ASSERT_TRUE(s.send(chunked_post(echo_string_call(text), 64 * 1024)));
      std::string got = s.read_responses(1, 10s);
      ASSERT_EQ(status_line(got), "HTTP/1.1 200 OK");
      EXPECT_EQ(got.find("faultCode"), std::string::npos) << got.substr(0, 400);
      EXPECT_NE(got.find(text), std::string::npos);
    }
  }
}

TEST(HttpServer, WorkerPoolReadsLargeGzipBodies) {
  TestServer t(pool_options());
  std::string text(1 << 20, 'g');
  text[7] = 'h';
  Buffer z;
  ASSERT_TRUE(http::gzip_compress(echo_string_call(text), z));
  RawSocket s(t.port());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(s.send(post(z.view(), "Content-Encoding: gzip\r\n")));
    std::string got = s.read_responses(1, 10s);
    ASSERT_EQ(status_line(got), "HTTP/1.1 200 OK");
    EXPECT_EQ(got.find("faultCode"), std::string::npos) << got.substr(0, 400);
    EXPECT_NE(got.find(text), std::string::npos);
  }
}

TEST(HttpServer, WorkerPoolAnswersBeforeClosing) {
  TestServer t(pool_options());
  std::string add_call = call_xml("add",
                                  "<param><value><int>20</int></value></param>"
                                  "<param><value><int>22</int></value></param>");
  for (std::string_view version : {"HTTP/1.1 + Connection: close", "HTTP/1.0"}) {
    SCOPED_TRACE(std::string(version));
    std::string request =
        version == "HTTP/1.0" ? post(add_call) : post(add_call, "Connection: close\r\n");
    if (version == "HTTP/1.0") request.replace(request.find("HTTP/1.1"), 8, "HTTP/1.0");
    RawSocket s(t.port());
    ASSERT_TRUE(s.send(request));
    std::string got = s.read_all(5s);
    EXPECT_TRUE(s.closed());
    EXPECT_EQ(RawSocket::complete_responses(got), 1) << got;
    EXPECT_NE(got.find("<int>42</int>"), std::string::npos) << got;
    EXPECT_NE(got.find("Connection: close\r\n"), std::string::npos) << got;
  }
  // Pipelined, the last asking to close: every answer, in order, then the close.
  RawSocket s(t.port());
  std::string burst;
  for (int i = 0; i < 5; ++i)
    burst += post(call_xml("add", "<param><value><int>" + std::to_string(i) +
                                      "</int></value></param><param><value><int>100</int>"
                                      "</value></param>"),
                  i == 4 ? "Connection: close\r\n" : "");
  ASSERT_TRUE(s.send(burst));
  std::string got = s.read_all(5s);
  EXPECT_TRUE(s.closed());
  ASSERT_EQ(RawSocket::complete_responses(got), 5) << got;
  size_t at = 0;
  for (int i = 0; i < 5; ++i) {
    at = got.find("<int>" + std::to_string(100 + i) + "</int>", at);
    EXPECT_NE(at, std::string::npos) << i;
  }
}

// JSON-RPC on the same port and path as XML-RPC, chosen by Content-Type, inline and on the
// worker pool: a JSON answer with its own type; 204 with no body for notifications only, and
// the connection serves on.
std::string json_post(std::string_view body) {
  std::string r = "POST /RPC2 HTTP/1.1\r\nHost: localhost\r\n";
  r += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size());
  return r + "\r\n\r\n" + std::string(body);
}

TEST(HttpServer, AJsonBodyWithoutAContentTypeIsAnsweredAsJsonRpc) {
  TestServer t;
  RawSocket s(t.port());
  std::string body = R"( {"jsonrpc":"2.0","method":"add","params":[2,3],"id":7})";
  ASSERT_TRUE(s.send("POST /RPC2 HTTP/1.1\r\nHost: h\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n" + body));
  std::string got = s.read_responses(1);
  EXPECT_NE(got.find("Content-Type: application/json\r\n"), std::string::npos) << got;
  EXPECT_TRUE(got.ends_with(R"({"jsonrpc":"2.0","result":5,"id":7})")) << got;
  // XML without a Content-Type stays XML-RPC.
  std::string xml = call_xml("add",
                             "<param><value><int>1</int></value></param>"
                             "<param><value><int>2</int></value></param>");
  ASSERT_TRUE(s.send("POST /RPC2 HTTP/1.1\r\nHost: h\r\nContent-Length: " +
                     std::to_string(xml.size()) + "\r\n\r\n" + xml));
  got = s.read_responses(1);
  EXPECT_NE(got.find("<int>3</int>"), std::string::npos) << got;
}

TEST(HttpServer, JsonRpcBesideXmlRpcOnOnePort) {
  for (bool pool : {false, true}) {
    SCOPED_TRACE(pool ? "worker pool" : "inline");
    TestServer t(pool ? pool_options() : TestServer::base_options());
    RawSocket s(t.port());
    ASSERT_TRUE(s.connected());
    ASSERT_TRUE(s.send(json_post(R"({"jsonrpc":"2.0","method":"add","params":[2,3],"id":7})")));
    std::string got = s.read_responses(1);
    EXPECT_EQ(status_line(got), "HTTP/1.1 200 OK");
    EXPECT_NE(got.find("Content-Type: application/json\r\n"), std::string::npos) << got;
    EXPECT_TRUE(got.ends_with(R"({"jsonrpc":"2.0","result":5,"id":7})")) << got;

    // A notification, pipelined with an XML-RPC call and a JSON batch.
    ASSERT_TRUE(s.send(json_post(R"({"jsonrpc":"2.0","method":"add","params":[1,1]})") +
                       post(call_xml("add",
                                     "<param><value><int>1</int></value></param>"
                                     "<param><value><int>2</int></value></param>")) +
                       json_post(R"([{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},)"
                                 R"({"jsonrpc":"2.0","method":"nope","id":2}])")));
    got = s.read_responses(3);
    ASSERT_EQ(RawSocket::complete_responses(got), 3) << got;
    size_t second = got.find("HTTP/1.1", 1), third = got.find("HTTP/1.1", second + 1);
    std::string first_answer = got.substr(0, second);
    EXPECT_EQ(status_line(first_answer), "HTTP/1.1 204 No Content");
    EXPECT_EQ(first_answer.find("Content-Length"), std::string::npos) << first_answer;
    EXPECT_EQ(first_answer.find("Content-Type"), std::string::npos) << first_answer;
    std::string xml_answer = got.substr(second, third - second);
    EXPECT_NE(xml_answer.find("Content-Type: text/xml"), std::string::npos);
    EXPECT_NE(xml_answer.find("<int>3</int>"), std::string::npos);
    std::string batch = got.substr(third);
    EXPECT_TRUE(batch.ends_with(R"([{"jsonrpc":"2.0","result":3,"id":1},)"
                                R"({"jsonrpc":"2.0","error":{"code":-32601,)"
                                R"("message":"unknown method 'nope'"},"id":2}])"))
        << batch;
    EXPECT_FALSE(s.closed());
  }
}

// ServerOptions::json_limits bound JSON-RPC documents as reader_limits bound XML ones, inline and
// on the worker pool: a batch over max_batch_size and nesting over max_depth are -32600, and the
// connection serves on. (A param counts from itself: [[[[1]]]] is depth 4.)
TEST(HttpServer, JsonLimitsAreTheServersOwn) {
  for (bool pool : {false, true}) {
    SCOPED_TRACE(pool ? "worker pool" : "inline");
    ServerOptions o = pool ? pool_options() : TestServer::base_options();
    o.json_limits.max_batch_size = 2;
    o.json_limits.max_depth = 3;
    TestServer t(o);
    RawSocket s(t.port());
    ASSERT_TRUE(s.connected());
    const std::string call = R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":1})";
    ASSERT_TRUE(
        s.send(json_post("[" + call + "," + call + "]") +
               json_post("[" + call + "," + call + "," + call + "]") +
               json_post(R"({"jsonrpc":"2.0","method":"add","params":[[[[[1]]]]],"id":2})") +
               json_post(call)));
    std::string got = s.read_responses(4);
    ASSERT_EQ(RawSocket::complete_responses(got), 4) << got;
    size_t second = got.find("HTTP/1.1", 1), third = got.find("HTTP/1.1", second + 1),
           fourth = got.find("HTTP/1.1", third + 1);
    EXPECT_NE(got.substr(0, second).find(R"("result":3)"), std::string::npos) << got;
    std::string over_batch = got.substr(second, third - second);
    EXPECT_NE(over_batch.find(R"("code":-32600)"), std::string::npos) << over_batch;
    EXPECT_NE(over_batch.find("batch"), std::string::npos) << over_batch;
    std::string over_depth = got.substr(third, fourth - third);
    EXPECT_NE(over_depth.find(R"("code":-32600)"), std::string::npos) << over_depth;
    EXPECT_NE(over_depth.find("deeper than 3"), std::string::npos) << over_depth;
    EXPECT_TRUE(got.ends_with(R"({"jsonrpc":"2.0","result":3,"id":1})")) << got;
  }
}

// A large JSON-RPC body, read where it lies (in the receive buffer, the decoded chunked
// body, the inflated body), inline and on the worker pool, kept alive and followed by a small
// call pipelined right behind it.
TEST(HttpServer, LargeJsonRpcBodies) {
  std::string text(1 << 20, 'j');
  text[3] = 'k';
  const std::string big =
      R"({"jsonrpc":"2.0","method":"echo","params":[")" + text + R"("],"id":1})";
  const std::string small = R"({"jsonrpc":"2.0","method":"add","params":[2,3],"id":2})";
  std::string chunked = chunked_post(big, 64 * 1024);
  chunked.replace(chunked.find("text/xml"), 8, "application/json");
  Buffer z;
  ASSERT_TRUE(http::gzip_compress(big, z));
  std::string gzipped = json_post(z.view());
  gzipped.insert(gzipped.find("\r\n\r\n") + 2, "Content-Encoding: gzip\r\n");
  for (bool pool : {false, true}) {
    SCOPED_TRACE(pool ? "worker pool" : "inline");
    TestServer t(pool ? pool_options() : TestServer::base_options());
    RawSocket s(t.port());
    for (const std::string& request : {json_post(big), chunked, gzipped}) {
      ASSERT_TRUE(s.send(request + json_post(small)));
      std::string got = s.read_responses(2, 10s);
      ASSERT_EQ(RawSocket::complete_responses(got), 2) << got.substr(0, 400);
      size_t second = got.find("HTTP/1.1", 1);
      EXPECT_TRUE(got.substr(0, second).ends_with(R"({"jsonrpc":"2.0","result":[")" + text +
                                                  R"("],"id":1})"))
          << got.substr(0, 400);
      EXPECT_TRUE(got.ends_with(R"({"jsonrpc":"2.0","result":5,"id":2})")) << got.substr(second);
    }
  }
}

TEST(HttpServer, MethodStatsCountCallsAndFaults) {
  TestServer t;
  Client client(t.url());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client.call("add", {Value(1), Value(2)}));
  ASSERT_FALSE(client.call("add", {Value("x"), Value(2)}));
  uint64_t calls = 0, faults = 0;
  for (const MethodStats& s : t.server.method_stats())
    if (s.name == "add") calls += s.calls, faults += s.faults;
  EXPECT_EQ(calls, 6u);
  EXPECT_EQ(faults, 1u);
}

TEST(HttpServer, ShutdownOnlyWhenEnabled) {
  TestServer off;
  auto r = Client(off.url()).call("system.shutdown");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().fault_code, -32601);
  ServerOptions o = TestServer::base_options();
  o.enable_shutdown = true;
  TestServer on(o);
  auto s = Client(on.url()).call("system.shutdown");
  EXPECT_TRUE(s) << s.error().message;
  on.server.wait();  // returns: the server stopped itself
}

TEST(HttpServer, Tls) {
  auto dir = std::filesystem::temp_directory_path() / ("callwire-tls-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  testing::TestCert cert = testing::make_test_cert(dir);
  ASSERT_TRUE(cert.ok);
  ServerOptions o = TestServer::base_options();
  o.tls.cert_file = cert.cert_file;
  o.tls.key_file = cert.key_file;
  TestServer t(o);
  ASSERT_EQ(t.url().substr(0, 8), "https://");
  ClientOptions trusted;
  trusted.tls.ca_file = cert.cert_file;
  Client client(t.url(), trusted);
  for (int i = 0; i < 3; ++i) {
    auto r = client.call("add", {Value(i), Value(10)});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->as_int(), i + 10);
  }
  // Verification is on by default: a self-signed certificate is refused.
  auto refused = Client(t.url()).call("add", {Value(1), Value(1)});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::TlsError) << refused.error().message;
  // ... unless turned off explicitly.
  ClientOptions insecure;
  insecure.verify_peer = false;
  EXPECT_TRUE(Client(t.url(), insecure).call("add", {Value(1), Value(1)}));
  // Plain HTTP to a TLS port: the server says so in plain HTTP (OpenSSL sends no alert for
  // it) and closes, and keeps serving.
  RawSocket s(t.port());
  s.send(post(call_xml("add")));
  std::string said = s.read_all(3s);
  EXPECT_TRUE(s.closed());
  EXPECT_TRUE(said.starts_with("HTTP/1.1 400 Bad Request\r\n")) << said;
  EXPECT_NE(said.find("use https://"), std::string::npos) << said;
  EXPECT_TRUE(client.call("add", {Value(1), Value(1)}));
  // The client with http:// for https:// is told to use https://.
  auto plain = Client("http://" + t.url().substr(8)).call("add", {Value(1), Value(1)});
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().http_status, 400) << plain.error().message;
  EXPECT_NE(plain.error().message.find("use https://"), std::string::npos) << plain.error().message;
  // And https:// for http:// is told to use http://.
  TestServer plain_server;
  auto tls =
      Client("https://" + plain_server.url().substr(7), insecure).call("add", {Value(1), Value(1)});
  ASSERT_FALSE(tls);
  EXPECT_EQ(tls.error().code, Errc::TlsError) << tls.error().message;
  EXPECT_NE(tls.error().message.find("use http://"), std::string::npos) << tls.error().message;
  std::filesystem::remove_all(dir);
}

TEST(HttpServer, A404NamesThePathAskedForAndThoseServed) {
  TestServer t;
  std::string url = t.url();  // http://127.0.0.1:PORT/RPC2
  auto r = Client(url.substr(0, url.rfind('/')) + "/rpc2").call("add", {Value(1), Value(1)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().http_status, 404);
  EXPECT_NE(r.error().message.find("nothing is served at /rpc2"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("/RPC2"), std::string::npos) << r.error().message;
  // A target a gateway sent with a control character in it comes back escaped.
  RawSocket s(t.port());
  s.send("POST /x\x1b[2J HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
  std::string said = s.read_all(3s);
  EXPECT_TRUE(said.starts_with("HTTP/1.1 4")) << said;
  EXPECT_EQ(said.find('\x1b'), std::string::npos) << said;
}

// Mutual TLS: the server asks for a client certificate from its CA; a handler reads the
// verified subject; a client without one is refused (required) or served (optional).
TEST(HttpServer, MutualTls) {
  auto dir = std::filesystem::temp_directory_path() / ("callwire-mtls-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "server");
  std::filesystem::create_directories(dir / "alice");
  std::filesystem::create_directories(dir / "mallory");
  testing::TestCert server_cert = testing::make_test_cert(dir / "server");
  testing::TestCert alice = testing::make_test_cert(dir / "alice", "alice");
  testing::TestCert mallory = testing::make_test_cert(dir / "mallory", "mallory");
  ASSERT_TRUE(server_cert.ok && alice.ok && mallory.ok);
  for (bool optional : {false, true}) {
    SCOPED_TRACE(optional ? "optional" : "required");
    ServerOptions o = TestServer::base_options();
    o.tls.cert_file = server_cert.cert_file;
    o.tls.key_file = server_cert.key_file;
    o.tls.ca_file = alice.cert_file;  // alice's certificate is its own CA
    o.client_cert_optional = optional;
    Server server(o);
    ASSERT_TRUE(
        server.bind("who", [](const CallContext& c) { return std::string(c.tls_subject()); }));
    ASSERT_TRUE(server.start());

    ClientOptions as_alice;
    as_alice.tls.ca_file = server_cert.cert_file;
    as_alice.tls.cert_file = alice.cert_file;
    as_alice.tls.key_file = alice.key_file;
    Client client = Client::create(server.url(), as_alice).value();
    for (int i = 0; i < 2; ++i) EXPECT_EQ(client.call<std::string>("who").value(), "CN=alice");

    ClientOptions anonymous;
    anonymous.tls.ca_file = server_cert.cert_file;
    Result<std::string> none =
        Client::create(server.url(), anonymous).value().call<std::string>("who");
    if (optional) {
      EXPECT_EQ(none.value(), "");
    } else {
      ASSERT_FALSE(none);
      EXPECT_TRUE(none.error().code == Errc::TlsError ||
                  none.error().code == Errc::ConnectionClosed)
          << none.error().message;
    }
    // A certificate from a CA the server does not trust is refused either way.
    ClientOptions as_mallory = anonymous;
    as_mallory.tls.cert_file = mallory.cert_file;
    as_mallory.tls.key_file = mallory.key_file;
    Result<std::string> refused =
        Client::create(server.url(), as_mallory).value().call<std::string>("who");
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().code == Errc::TlsError ||
                refused.error().code == Errc::ConnectionClosed)
        << refused.error().message;
    EXPECT_EQ(client.call<std::string>("who").value(), "CN=alice");  // still serving
  }
  // The client's files are read at creation: a key that does not match, a missing file.
  ClientOptions mismatched;
  mismatched.tls.cert_file = alice.cert_file;
  mismatched.tls.key_file = mallory.key_file;
  EXPECT_EQ(Client::create("https://127.0.0.1:1/", mismatched).error().code, Errc::TlsError);
  ClientOptions missing;
  missing.tls.cert_file = (dir / "nope.pem").string();
  missing.tls.key_file = alice.key_file;
  EXPECT_EQ(Client::create("https://127.0.0.1:1/", missing).error().code, Errc::TlsError);
  ClientOptions half;
  half.tls.cert_file = alice.cert_file;
  Result<Client> half_client = Client::create("https://127.0.0.1:1/", half);
  ASSERT_FALSE(half_client);
  EXPECT_EQ(half_client.error().code, Errc::InvalidArgument);
  EXPECT_NE(half_client.error().message.find("tls.key_file"), std::string::npos)
      << half_client.error().message;
  std::filesystem::remove_all(dir);
}

// Collects what a server reports to ServerOptions::error_log (from its threads).
struct ErrorLog {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::function<void(const ErrorLogEntry&)> hook() {
    return [this](const ErrorLogEntry& e) {
      std::lock_guard lock(mutex);
      lines.push_back(std::string(e.peer) + " " + std::string(e.message));
    };
  }
  // Waits (bounded) for a line containing `text`: the server logs as it closes the
  // connection, which may be just after the client saw the failure.
  bool saw(const std::string& text) {
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard lock(mutex);
        for (const std::string& l : lines)
          if (l.find(text) != std::string::npos) return true;
      }
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  std::string all() {
    std::lock_guard lock(mutex);
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
  }
};

struct TempDir {
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("callwire-" + name + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::filesystem::path sub(const std::string& name) const {
    std::filesystem::create_directories(path / name);
    return path / name;
  }
  std::filesystem::path path;
};

ServerOptions tls_options(const testing::TestCert& cert) {
  ServerOptions o = TestServer::base_options();
  o.tls.cert_file = cert.cert_file;
  o.tls.key_file = cert.key_file;
  return o;
}

// TlsOptions is one struct for both sides: an encrypted key opens with tls.key_password on a
// server as on a client, and a wrong password is refused naming the field.
TEST(HttpServer, TlsEncryptedKeysOnBothSides) {
  TempDir dir("tls-key-password");
  std::filesystem::create_directories(dir.path / "server");
  std::filesystem::create_directories(dir.path / "alice");
  testing::CertSpec encrypted;
  encrypted.key_password = "s3cret";
  testing::TestCert server_cert =
      testing::make_test_cert(dir.path / "server", "localhost", encrypted);
  testing::TestCert alice = testing::make_test_cert(dir.path / "alice", "alice", encrypted);
  ASSERT_TRUE(server_cert.ok && alice.ok);

  ServerOptions wrong = tls_options(server_cert);
  wrong.tls.key_password = "guess";
  Server refused(wrong);
  Status st = refused.start();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, Errc::TlsError);
  EXPECT_NE(st.error().message.find("tls.key_file"), std::string::npos) << st.error().message;

  ServerOptions o = tls_options(server_cert);
  o.tls.key_password = "s3cret";
  o.tls.ca_file = alice.cert_file;
  Server server(o);
  ASSERT_TRUE(
      server.bind("who", [](const CallContext& c) { return std::string(c.tls_subject()); }));
  ASSERT_TRUE(server.start());
  ClientOptions as_alice;
  as_alice.tls.ca_file = server_cert.cert_file;
  as_alice.tls.cert_file = alice.cert_file;
  as_alice.tls.key_file = alice.key_file;
  as_alice.tls.key_password = "s3cret";
  EXPECT_EQ(Client::create(server.url(), as_alice).value().call<std::string>("who").value(),
            "CN=alice");
  as_alice.tls.key_password = "guess";
  Result<Client> wrong_client = Client::create(server.url(), as_alice);
  ASSERT_FALSE(wrong_client);
  EXPECT_EQ(wrong_client.error().code, Errc::TlsError);
  EXPECT_NE(wrong_client.error().message.find("tls.key_file"), std::string::npos)
      << wrong_client.error().message;
}

TEST(HttpServer, TlsCaDirectories) {
  TempDir dir("tls-ca-dir");
  testing::TestCert server_cert = testing::make_test_cert(dir.sub("server"));
  testing::TestCert alice = testing::make_test_cert(dir.sub("alice"), "alice");
  testing::TestCert mallory = testing::make_test_cert(dir.sub("mallory"), "mallory");
  ASSERT_TRUE(server_cert.ok && alice.ok && mallory.ok);
  // Hashed directories as `openssl rehash` makes them: the server's CA for the client, alice's
  // for the server; and one that holds only mallory's.
  ASSERT_TRUE(testing::add_to_hashed_dir(server_cert.cert_file, dir.path / "client-cas"));
  ASSERT_TRUE(testing::add_to_hashed_dir(alice.cert_file, dir.path / "server-cas"));
  ASSERT_TRUE(testing::add_to_hashed_dir(mallory.cert_file, dir.path / "other-cas"));

  ErrorLog log;
  ServerOptions o = tls_options(server_cert);
  o.tls.ca_dir = (dir.path / "server-cas").string();
  o.error_log = log.hook();
  Server server(o);
  ASSERT_TRUE(
      server.bind("who", [](const CallContext& c) { return std::string(c.tls_subject()); }));
  ASSERT_TRUE(server.start());

  ClientOptions as_alice;
  as_alice.tls.ca_dir = (dir.path / "client-cas").string();
  as_alice.tls.cert_file = alice.cert_file;
  as_alice.tls.key_file = alice.key_file;
  Result<std::string> who = Client::create(server.url(), as_alice).value().call<std::string>("who");
  ASSERT_TRUE(who) << who.error().message;
  EXPECT_EQ(*who, "CN=alice");
  // Both a file and a directory: either's CAs count.
  ClientOptions both = as_alice;
  both.tls.ca_file = mallory.cert_file;
  EXPECT_EQ(Client::create(server.url(), both).value().call<std::string>("who").value(),
            "CN=alice");

  // A directory without the server's CA: the chain does not verify.
  ClientOptions wrong_dir = as_alice;
  wrong_dir.tls.ca_dir = (dir.path / "other-cas").string();
  Result<std::string> untrusted =
      Client::create(server.url(), wrong_dir).value().call<std::string>("who");
  ASSERT_FALSE(untrusted);
  EXPECT_EQ(untrusted.error().code, Errc::TlsError) << untrusted.error().message;
  EXPECT_NE(untrusted.error().message.find("certificate verify failed"), std::string::npos)
      << untrusted.error().message;

  // The server's directory does not hold mallory's CA: refused, and the reason logged.
  ClientOptions as_mallory = as_alice;
  as_mallory.tls.cert_file = mallory.cert_file;
  as_mallory.tls.key_file = mallory.key_file;
  Result<std::string> refused =
      Client::create(server.url(), as_mallory).value().call<std::string>("who");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(log.saw("self-signed certificate")) << log.all();

  // A directory that is not there is an error at creation, and at start.
  ClientOptions missing;
  missing.tls.ca_dir = (dir.path / "nope").string();
  Result<Client> no_client = Client::create("https://127.0.0.1:1/", missing);
  ASSERT_FALSE(no_client);
  EXPECT_EQ(no_client.error().code, Errc::TlsError);
  EXPECT_NE(no_client.error().message.find("nope"), std::string::npos);
  ServerOptions bad = tls_options(server_cert);
  bad.tls.ca_dir = server_cert.cert_file;  // a file, not a directory
  Server bad_server(bad);
  Status s = bad_server.start();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::TlsError);
}

TEST(HttpServer, TlsMinVersionAndCiphers) {
  TempDir dir("tls-versions");
  testing::TestCert cert = testing::make_test_cert(dir.path);
  ASSERT_TRUE(cert.ok);
  ClientOptions trusting;
  trusting.tls.ca_file = cert.cert_file;

  {
    ServerOptions o = tls_options(cert);
    o.tls.min_version = TlsVersion::Tls1_3;
    TestServer t(o);
    ClientOptions c = trusting;
    c.tls.min_version = TlsVersion::Tls1_3;
    Result<int> sum = Client::create(t.url(), c).value().call<int>("add", 2, 3);
    ASSERT_TRUE(sum) << sum.error().message;
    EXPECT_EQ(*sum, 5);
  }
  {
    // No suite in common: the handshake fails, the client says so, the server logs why.
    ErrorLog log;
    ServerOptions o = tls_options(cert);
    o.tls.min_version = TlsVersion::Tls1_3;
    o.tls.ciphersuites = "TLS_AES_256_GCM_SHA384";
    o.error_log = log.hook();
    TestServer t(o);
    ClientOptions c = trusting;
    c.tls.ciphersuites = "TLS_CHACHA20_POLY1305_SHA256";
    Result<int> sum = Client::create(t.url(), c).value().call<int>("add", 2, 3);
    ASSERT_FALSE(sum);
    EXPECT_EQ(sum.error().code, Errc::TlsError) << sum.error().message;
    EXPECT_NE(sum.error().message.find("handshake failure"), std::string::npos)
        << sum.error().message;
    EXPECT_TRUE(log.saw("no shared cipher")) << log.all();
    c.tls.ciphersuites = "TLS_AES_256_GCM_SHA384";
    EXPECT_EQ(Client::create(t.url(), c).value().call<int>("add", 2, 3).value(), 5);
  }
  {
    // TLS 1.2 cipher lists: the server's EC key takes ECDSA suites only.
    ServerOptions o = tls_options(cert);
    o.tls.ciphers = "ECDHE-ECDSA-AES256-GCM-SHA384";
    TestServer t(o);
    EXPECT_EQ(Client::create(t.url(), trusting).value().call<int>("add", 1, 1).value(), 2);
  }
  // Bad settings are refused when made, naming what is wrong.
  ServerOptions bad_version = tls_options(cert);
  bad_version.tls.min_version = static_cast<TlsVersion>(11);
  Server s1(bad_version);
  Status st = s1.start();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, Errc::InvalidArgument);
  for (const char* list : {"NOPE", "ECDHE+AESGCM:TYPO"}) {
    ServerOptions bad = tls_options(cert);
    bad.tls.ciphers = list;
    Server s(bad);
    Status started = s.start();
    ASSERT_FALSE(started) << list;
    EXPECT_EQ(started.error().code, Errc::InvalidArgument);
    EXPECT_NE(started.error().message.find(list == std::string("NOPE") ? "NOPE" : "TYPO"),
              std::string::npos)
        << started.error().message;
    ClientOptions c = trusting;
    c.tls.ciphers = list;
    Result<Client> client = Client::create("https://127.0.0.1:1/", c);
    ASSERT_FALSE(client);
    EXPECT_EQ(client.error().code, Errc::InvalidArgument) << client.error().message;
  }
  ClientOptions bad_suites = trusting;
  bad_suites.tls.ciphersuites = "TLS_AES_256_GCM_SHA384:TLS_NO_SUCH_SUITE";
  Result<Client> c1 = Client::create("https://127.0.0.1:1/", bad_suites);
  ASSERT_FALSE(c1);
  EXPECT_EQ(c1.error().code, Errc::InvalidArgument);
  EXPECT_NE(c1.error().message.find("TLS_NO_SUCH_SUITE"), std::string::npos);
  ClientOptions bad_client_version = trusting;
  bad_client_version.tls.min_version = static_cast<TlsVersion>(10);
  EXPECT_EQ(Client::create("https://127.0.0.1:1/", bad_client_version).error().code,
            Errc::InvalidArgument);
}

TEST(HttpServer, TlsHostnameVerification) {
  TempDir dir("tls-names");
  testing::CertSpec wrong;
  wrong.subject_alt_names = "DNS:wrong.example";
  testing::TestCert cert = testing::make_test_cert(dir.path, "wrong.example", wrong);
  ASSERT_TRUE(cert.ok);
  TestServer t(tls_options(cert));
  ClientOptions trusting;
  trusting.tls.ca_file = cert.cert_file;
  const std::string port = std::to_string(t.port());
  // By IP literal: checked against the IP addresses, which it has none of.
  Result<int> by_ip = Client::create("https://127.0.0.1:" + port + "/RPC2", trusting)
                          .value()
                          .call<int>("add", 1, 2);
  ASSERT_FALSE(by_ip);
  EXPECT_EQ(by_ip.error().code, Errc::TlsError);
  EXPECT_NE(by_ip.error().message.find("IP address mismatch"), std::string::npos)
      << by_ip.error().message;
  EXPECT_NE(by_ip.error().message.find("127.0.0.1"), std::string::npos) << by_ip.error().message;
  // By name: localhost is not wrong.example.
  Result<int> by_name = Client::create("https://localhost:" + port + "/RPC2", trusting)
                            .value()
                            .call<int>("add", 1, 2);
  ASSERT_FALSE(by_name);
  EXPECT_EQ(by_name.error().code, Errc::TlsError);
  EXPECT_NE(by_name.error().message.find("hostname mismatch"), std::string::npos)
      << by_name.error().message;
  EXPECT_NE(by_name.error().message.find("localhost"), std::string::npos)
      << by_name.error().message;
  // Without verification the name is not checked.
  ClientOptions blind;
  blind.verify_peer = false;
  EXPECT_EQ(Client::create("https://localhost:" + port + "/RPC2", blind)
                .value()
                .call<int>("add", 1, 2)
                .value(),
            3);

  // The usual certificate (DNS:localhost, IP:127.0.0.1) passes by either; an IP SAN does
  // not pass for the name, nor a DNS SAN for the address.
  testing::TestCert good = testing::make_test_cert(dir.sub("good"));
  ASSERT_TRUE(good.ok);
  TestServer g(tls_options(good));
  ClientOptions trusting_good;
  trusting_good.tls.ca_file = good.cert_file;
  const std::string gport = std::to_string(g.port());
  for (const char* host : {"127.0.0.1", "localhost"}) {
    Result<int> sum =
        Client::create(std::string("https://") + host + ":" + gport + "/RPC2", trusting_good)
            .value()
            .call<int>("add", 2, 2);
    ASSERT_TRUE(sum) << host << ": " << sum.error().message;
  }
  testing::CertSpec name_as_ip;
  name_as_ip.subject_alt_names = "DNS:127.0.0.1";  // the address written as a DNS name
  testing::TestCert tricky = testing::make_test_cert(dir.sub("tricky"), "127.0.0.1", name_as_ip);
  ASSERT_TRUE(tricky.ok);
  TestServer tr(tls_options(tricky));
  ClientOptions trusting_tricky;
  trusting_tricky.tls.ca_file = tricky.cert_file;
  Result<int> tricked =
      Client::create("https://127.0.0.1:" + std::to_string(tr.port()) + "/RPC2", trusting_tricky)
          .value()
          .call<int>("add", 2, 2);
  ASSERT_FALSE(tricked);
  EXPECT_NE(tricked.error().message.find("IP address mismatch"), std::string::npos)
      << tricked.error().message;
}

TEST(HttpServer, TlsOverTheConnectionCapIsAnswered503) {
  TempDir dir("tls-cap");
  testing::TestCert cert = testing::make_test_cert(dir.path);
  ASSERT_TRUE(cert.ok);
  ServerOptions o = tls_options(cert);
  o.max_connections = 1;
  o.threads = 1;
  TestServer t(o);
  ClientOptions trusting;
  trusting.tls.ca_file = cert.cert_file;
  trusting.max_connections = 1;
  Client holder = Client::create(t.url(), trusting).value();
  ASSERT_EQ(holder.call<int>("add", 1, 1).value(), 2);  // its connection stays open, idle
  for (int i = 0; i < 3; ++i) {
    Result<int> refused = Client::create(t.url(), trusting).value().call<int>("add", 1, 1);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, Errc::HttpStatus) << refused.error().message;
    EXPECT_EQ(refused.error().http_status, 503) << refused.error().message;
  }
  EXPECT_EQ(holder.call<int>("add", 2, 2).value(), 4);  // the held one is still served

  // Refusals in flight are capped: newcomers that stall their handshake take the few places,
  // the next is closed at once, and the stalled ones are let go after a few seconds.
  std::vector<std::unique_ptr<RawSocket>> stalled;
  for (int i = 0; i < 8; ++i) {
    stalled.push_back(std::make_unique<RawSocket>(t.port()));
    ASSERT_TRUE(stalled.back()->connected());
  }
  // The server takes them in order; the ninth finds every place taken.
  std::this_thread::sleep_for(200ms);
  RawSocket ninth(t.port());
  std::string got = ninth.read_all(1s);
  EXPECT_TRUE(got.empty() && ninth.closed());
  auto start = std::chrono::steady_clock::now();
  for (auto& s : stalled) {
    s->read_all(6s);
    EXPECT_TRUE(s->closed());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  // Places free again: a newcomer is answered 503 once more.
  Result<int> again = Client::create(t.url(), trusting).value().call<int>("add", 1, 1);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().http_status, 503) << again.error().message;
}

TEST(HttpServer, TlsRefusedClientCertificatesAreLogged) {
  TempDir dir("tls-refusals");
  testing::TestCert server_cert = testing::make_test_cert(dir.sub("server"));
  testing::TestCert ca = testing::make_test_cert(dir.sub("ca"), "Test CA");
  ASSERT_TRUE(server_cert.ok && ca.ok);
  testing::CertSpec leaf;
  leaf.ca = false;
  leaf.issuer = &ca;
  leaf.subject_alt_names = "";
  testing::TestCert alice = testing::make_test_cert(dir.sub("alice"), "alice", leaf);
  testing::CertSpec expired_spec = leaf;
  expired_spec.valid_from = -3 * 86400;
  expired_spec.valid_to = -86400;
  testing::TestCert expired = testing::make_test_cert(dir.sub("expired"), "bob", expired_spec);
  testing::TestCert mallory = testing::make_test_cert(dir.sub("mallory"), "mallory");
  ASSERT_TRUE(alice.ok && expired.ok && mallory.ok);

  ErrorLog log;
  ServerOptions o = tls_options(server_cert);
  o.tls.ca_file = ca.cert_file;
  o.error_log = log.hook();
  Server server(o);
  ASSERT_TRUE(
      server.bind("who", [](const CallContext& c) { return std::string(c.tls_subject()); }));
  ASSERT_TRUE(server.start());
  auto as = [&](const testing::TestCert& who) {
    ClientOptions c;
    c.tls.ca_file = server_cert.cert_file;
    c.tls.cert_file = who.cert_file;
    c.tls.key_file = who.key_file;
    return Client::create(server.url(), c).value().call<std::string>("who");
  };
  EXPECT_EQ(as(alice).value(), "CN=alice");
  Result<std::string> old = as(expired);
  ASSERT_FALSE(old);
  EXPECT_TRUE(log.saw("certificate has expired")) << log.all();
  Result<std::string> stranger = as(mallory);
  ASSERT_FALSE(stranger);
  EXPECT_TRUE(log.saw("self-signed certificate")) << log.all();
  EXPECT_TRUE(log.saw("TLS handshake failed")) << log.all();
  EXPECT_TRUE(log.saw("127.0.0.1:")) << log.all();  // the peer
  EXPECT_EQ(as(alice).value(), "CN=alice");         // still serving
}

TEST(HttpServer, BadStartOptionsAreErrors) {
  ServerOptions o;
  o.listen = {"127.0.0.1:99999"};
  Server bad_port(o);
  EXPECT_FALSE(bad_port.start());
  o.listen = {"127.0.0.1:0"};
  o.tls.cert_file = "/nonexistent.pem";
  o.tls.key_file = "/nonexistent.key";
  Server bad_tls(o);
  Status s = bad_tls.start();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::TlsError);
  TestServer running;
  ServerOptions same = TestServer::base_options();
  same.listen = {"127.0.0.1:" + std::to_string(running.port())};
  Server clash(same);
  EXPECT_FALSE(clash.start());
}

// An HTTP/1.0 request with Connection: keep-alive is kept alive, and its answer says so (an
// HTTP/1.0 client takes an answer without it as the last, RFC 9112 Appendix C.2.2), inline and
// on the worker pool; without keep-alive the answer says close and the connection closes.
TEST(HttpServer, Http10KeepAliveIsSaidAndHonoured) {
  for (bool pool : {false, true}) {
    SCOPED_TRACE(pool ? "worker pool" : "inline");
    TestServer t(pool ? pool_options() : TestServer::base_options());
    auto http10 = [](int a, std::string_view extra) {
      std::string r = post(call_xml("add", "<param><value><int>" + std::to_string(a) +
                                               "</int></value></param><param><value><int>1"
                                               "</int></value></param>"),
                           extra);
      return r.replace(r.find("HTTP/1.1"), 8, "HTTP/1.0");
    };
    RawSocket s(t.port());
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(s.send(http10(i, "Connection: keep-alive\r\n")));
      std::string got = s.read_responses(1);
      ASSERT_EQ(RawSocket::complete_responses(got), 1) << got;
      EXPECT_EQ(status_line(got), "HTTP/1.1 200 OK");
      EXPECT_NE(got.find("\r\nConnection: keep-alive\r\n"), std::string::npos) << got;
      EXPECT_NE(got.find("<int>" + std::to_string(i + 1) + "</int>"), std::string::npos) << got;
      EXPECT_FALSE(s.closed());
    }
    RawSocket last(t.port());
    ASSERT_TRUE(last.send(http10(7, "")));
    std::string got = last.read_all(5s);
    EXPECT_TRUE(last.closed());
    EXPECT_NE(got.find("\r\nConnection: close\r\n"), std::string::npos) << got;
    EXPECT_EQ(got.find("keep-alive"), std::string::npos) << got;
  }
}

// HTTP's half of an SCGI finding: a preflight asking for a header list with a control
// character is refused 400 by the parser (never echoed, never met with silence).
TEST(HttpServer, PreflightWithAControlCharacterIsRefused) {
  ServerOptions o = TestServer::base_options();
  o.cors_allow_origin = "https://app.example";
  TestServer t(o);
  RawSocket s(t.port());
  ASSERT_TRUE(
      s.send("OPTIONS /RPC2 HTTP/1.1\r\nHost: h\r\nOrigin: https://app.example\r\n"
             "Access-Control-Request-Headers: content-type\x1b[2J\r\n\r\n"));
  std::string got = s.read_all(5s);
  EXPECT_EQ(status_line(got), "HTTP/1.1 400 Bad Request") << got;
  EXPECT_EQ(got.find("\x1b"), std::string::npos) << got;
}

// What a peer chose reaches the access log escaped: a JSON-RPC method with a newline and a
// terminal escape, a Basic user with a space and a C1 CSI (Basic refuses C0 controls itself).
// Unescaped, each would forge a log line or a field, or drive the terminal of whoever reads the
// log.
TEST(HttpServer, AccessLogGetsWhatThePeerChoseEscaped) {
  std::mutex m;
  std::vector<std::string> users, methods;
  ServerOptions o = TestServer::base_options();
  o.authenticate = [](std::string_view, std::string_view password) { return password == "pw"; };
  o.access_log = [&](const AccessLogEntry& e) {
    std::lock_guard lock(m);
    users.emplace_back(e.user);
    methods.emplace_back(e.method);
  };
  TestServer t(o);
  RawSocket s(t.port());
  // "ann 200\xc2\x9b31m:pw" in Basic's base64.
  std::string body =
      R"({"jsonrpc":"2.0","method":"add\n127.0.0.1:1 add 200 0\u001b[2J","params":[1,2],"id":1})";
  std::string request = json_post(body);
  request.insert(request.find("\r\n") + 2, "Authorization: Basic YW5uIDIwMMKbMzFtOnB3\r\n");
  ASSERT_TRUE(s.send(request));
  std::string got = s.read_responses(1);
  EXPECT_EQ(status_line(got), "HTTP/1.1 200 OK") << got;
  std::lock_guard lock(m);
  ASSERT_EQ(methods.size(), 1u);
  EXPECT_EQ(methods[0], "add\\x0A127.0.0.1:1\\x20add\\x20200\\x200\\x1B[2J");
  EXPECT_EQ(users[0], "ann\\x20200\\xC2\\x9B31m");
}

}  // namespace
}  // namespace callwire
