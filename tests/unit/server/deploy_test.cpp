// Running several servers and behind balancers: SO_REUSEPORT, listening sockets inherited
// from a supervisor (systemd's socket activation), the health endpoint. Real sockets on
// loopback, port 0, every wait bounded.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "http_test_util.hpp"
#include "test_cert.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;
using testing::RawSocket;

Value add(Params p, CallContext&) { return p[0].as_int() + p[1].as_int(); }

ServerOptions options_on(const std::string& listen) {
  ServerOptions o;
  o.listen = {listen};
  o.threads = 1;
  return o;
}

uint64_t add_calls(const Server& server) {
  for (const MethodStats& s : server.method_stats())
    if (s.name == "add") return s.calls;
  return 0;
}

TEST(ReusePort, TwoServersShareOnePortAndBothServe) {
  ServerOptions o = options_on("127.0.0.1:0");
  o.reuse_port = true;
  Server first(o);
  ASSERT_TRUE(first.add_method("add", add));
  ASSERT_TRUE(first.start());
  const std::string address = "127.0.0.1:" + std::to_string(first.port());
  o.listen = {address};
  Server second(o);
  ASSERT_TRUE(second.add_method("add", add));
  Status s = second.start();
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(second.port(), first.port());
  // The kernel spreads connections over both by a hash of each one's addresses and ports: 64
  // connections all landing on one of two listeners would happen once in 2^63.
  for (int i = 0; i < 64; ++i) {
    Client client("http://" + address + "/RPC2");  // a new connection (a new source port) each
    auto r = client.call("add", {Value(i), Value(1)});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->as_int(), i + 1);
  }
  EXPECT_GT(add_calls(first), 0u);
  EXPECT_GT(add_calls(second), 0u);
  EXPECT_EQ(add_calls(first) + add_calls(second), 64u);
  // One leaves; the other serves every newcomer.
  first.stop();
  first.wait();
  for (int i = 0; i < 8; ++i) {
    Client client("http://" + address + "/RPC2");
    auto r = client.call("add", {Value(i), Value(2)});
    ASSERT_TRUE(r) << r.error().message;
  }
}

TEST(ReusePort, WithoutItTheSecondServerFindsTheAddressInUse) {
  Server first(options_on("127.0.0.1:0"));
  ASSERT_TRUE(first.add_method("add", add));
  ASSERT_TRUE(first.start());
  ServerOptions o = options_on("127.0.0.1:" + std::to_string(first.port()));
  Server second(o);
  Status s = second.start();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::InvalidArgument);
  EXPECT_NE(s.error().message.find("in use"), std::string::npos) << s.error().message;
  // Only one side asking for it is not enough either.
  o.reuse_port = true;
  Server third(o);
  EXPECT_FALSE(third.start());
}

// A listening TCP socket on a free loopback port, as a supervisor would hand it down.
int listening_socket() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0)
    return -1;
  return fd;
}

TEST(InheritedListener, ServesAListeningSocketGivenByDescriptor) {
  int fd = listening_socket();
  ASSERT_GE(fd, 0);
  Server server(options_on("fd:" + std::to_string(fd)));
  ASSERT_TRUE(server.add_method("add", add));
  Status s = server.start();
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_NE(server.port(), 0);
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/RPC2");
  Client client(server.url());
  auto r = client.call("add", {Value(2), Value(3)});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->as_int(), 5);
  server.stop();
  server.wait();
  EXPECT_EQ(::fcntl(fd, F_GETFD), -1) << "the server closes what it took";
}

// With a certificate an inherited TCP socket speaks HTTPS, as a TCP listener the server opens
// does; an inherited Unix socket is served plain, and its path (the supervisor's) stays.
TEST(InheritedListener, TlsOnTcpAndAUnixSocketWhosePathStays) {
  auto dir =
      std::filesystem::temp_directory_path() / ("callwire-inherited-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  testing::TestCert cert = testing::make_test_cert(dir);
  ASSERT_TRUE(cert.ok);
  const std::string path = (dir / "rpc.sock").string();
  int unix_fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(unix_fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(unix_fd, 16), 0);
  int tcp_fd = listening_socket();
  ASSERT_GE(tcp_fd, 0);
  ServerOptions o = options_on("fd:" + std::to_string(tcp_fd));
  o.listen.push_back("fd:" + std::to_string(unix_fd));
  o.tls.cert_file = cert.cert_file;
  o.tls.key_file = cert.key_file;
  {
    Server server(o);
    ASSERT_TRUE(server.add_method("add", add));
    Status s = server.start();
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(server.url(0).substr(0, 8), "https://");
    EXPECT_EQ(server.url(1), "unix:" + path);
    ClientOptions trusted;
    trusted.tls.ca_file = cert.cert_file;
    auto r = Client(server.url(0), trusted).call("add", {Value(1), Value(2)});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->as_int(), 3);
    r = Client(server.url(1)).call("add", {Value(3), Value(4)});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->as_int(), 7);
  }
  EXPECT_TRUE(std::filesystem::exists(path)) << "a Unix path that is not the server's stays";
  std::filesystem::remove_all(dir);
}

TEST(InheritedListener, RefusesWhatIsNoListeningStreamSocket) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);  // connected, not listening
  int udp = ::socket(AF_INET, SOCK_DGRAM, 0);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  struct Case {
    int fd;
    const char* says;
  } cases[] = {{pair[0], "not a listening socket"},
               {udp, "not a stream socket"},
               {pipe_fds[0], "not a socket"}};
  for (const Case& c : cases) {
    Server server(options_on("fd:" + std::to_string(c.fd)));
    Status s = server.start();
    ASSERT_FALSE(s) << c.says;
    EXPECT_EQ(s.error().code, Errc::InvalidArgument);
    EXPECT_NE(s.error().message.find(c.says), std::string::npos) << s.error().message;
    EXPECT_NE(::fcntl(c.fd, F_GETFD), -1) << "a refused descriptor stays the caller's";
  }
  for (const char* bad : {"fd:", "fd:x", "fd:-1", "fd:3x"}) {
    Server server(options_on(bad));
    Status s = server.start();
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.error().message.find("not a descriptor number"), std::string::npos) << bad;
  }
  ::close(pair[0]);
  ::close(pair[1]);
  ::close(udp);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

TEST(InheritedListener, SystemdSocketsForAnotherProcessAreNotTakenAndTheVariablesGo) {
  // The variables a parent meant for another process (LISTEN_PID not ours): nothing is taken,
  // start() says so, and the variables are gone afterwards (children must not see them).
  const std::string other = std::to_string(getpid() + 1);
  ::setenv("LISTEN_FDS", "1", 1);
  ::setenv("LISTEN_PID", other.c_str(), 1);
  ::setenv("LISTEN_FDNAMES", "rpc", 1);
  Server server(options_on("systemd:"));
  Status s = server.start();
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("no listening socket passed by systemd"), std::string::npos)
      << s.error().message;
  EXPECT_EQ(std::getenv("LISTEN_FDS"), nullptr);
  EXPECT_EQ(std::getenv("LISTEN_PID"), nullptr);
  EXPECT_EQ(std::getenv("LISTEN_FDNAMES"), nullptr);
  // Not a number: an error of its own.
  ::setenv("LISTEN_FDS", "one", 1);
  ::setenv("LISTEN_PID", std::to_string(getpid()).c_str(), 1);
  Server garbled(options_on("systemd:web"));
  s = garbled.start();
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("not a number"), std::string::npos) << s.error().message;
  EXPECT_EQ(std::getenv("LISTEN_FDS"), nullptr);
}

std::string health_check(uint16_t port, std::string_view target = "/healthz") {
  RawSocket s(port);
  if (!s.connected()) return "not connected";
  s.send("GET " + std::string(target) + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
  return s.read_all();  // the answer closes the connection
}

// 200 "ok" while serving, without credentials and without counting as a call; 503 from stop()
// while a slow call is still in flight (the listener keeps accepting through the grace so the
// balancer hears it); the call still finishes.
TEST(Health, OkWhileServingUnavailableWhileStopping) {
  ServerOptions o = options_on("127.0.0.1:0");
  o.health_path = "/healthz";
  o.handler_threads = 2;  // the loop stays free while the slow call runs
  o.authenticate = [](std::string_view user, std::string_view password) {
    const bool user_ok = constant_time_equal(user, "alice");  // both compared, always
    const bool password_ok = constant_time_equal(password, "secret");
    return user_ok && password_ok;
  };
  std::atomic<bool> in_flight{false};
  std::atomic<bool> release{false};
  Server server(o);
  ASSERT_TRUE(server.add_method("add", add));
  ASSERT_TRUE(server.add_method("slow", [&](Params, CallContext&) {
    in_flight = true;
    for (int i = 0; i < 1000 && !release; ++i) std::this_thread::sleep_for(5ms);
    return Value(true);
  }));
  ASSERT_TRUE(server.start());
  std::string ok = health_check(server.port());
  EXPECT_EQ(ok.substr(0, ok.find("\r\n")), "HTTP/1.1 200 OK");
  EXPECT_NE(ok.find("\r\n\r\nok\n"), std::string::npos) << ok;
  EXPECT_NE(ok.find("Cache-Control: no-store"), std::string::npos) << ok;
  std::string query = health_check(server.port(), "/healthz?verbose");
  EXPECT_EQ(query.substr(0, query.find("\r\n")), "HTTP/1.1 200 OK");
  std::string other = health_check(server.port(), "/other");
  EXPECT_EQ(other.substr(0, other.find("\r\n")), "HTTP/1.1 405 Method Not Allowed");
  uint64_t calls = 0;
  for (const MethodStats& m : server.method_stats()) calls += m.calls;
  EXPECT_EQ(calls, 0u) << "health checks are no calls";

  ClientOptions co;
  co.user = "alice";
  co.password = "secret";
  Client client(server.url(), co);
  std::atomic<bool> slow_ok{false};
  std::thread caller([&] {
    auto r = client.call("slow", {});
    slow_ok = r && r->as_bool();
  });
  for (int i = 0; i < 1000 && !in_flight; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(in_flight.load());
  server.stop();
  std::string stopping = health_check(server.port());
  EXPECT_EQ(stopping.substr(0, stopping.find("\r\n")), "HTTP/1.1 503 Service Unavailable");
  EXPECT_NE(stopping.find("\r\n\r\nstopping\n"), std::string::npos) << stopping;
  EXPECT_NE(stopping.find("Retry-After: 1"), std::string::npos) << stopping;
  // A call that still arrives in the grace is answered, and its connection closed.
  RawSocket late(server.port());
  ASSERT_TRUE(late.connected());
  std::string body = testing::call_xml("add",
                                       "<param><value><int>2</int></value></param>"
                                       "<param><value><int>3</int></value></param>");
  late.send(testing::post(body, "Authorization: Basic YWxpY2U6c2VjcmV0\r\n"));
  std::string answer = late.read_all();
  EXPECT_NE(answer.find("<int>5</int>"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  release = true;
  caller.join();
  server.wait();
  EXPECT_TRUE(slow_ok.load());
  // Stopped: nobody listens.
  EXPECT_EQ(health_check(server.port()), "not connected");
}

TEST(Health, OffByDefaultAndCheckedAtStart) {
  Server off(options_on("127.0.0.1:0"));
  ASSERT_TRUE(off.start());
  std::string get = health_check(off.port());
  EXPECT_EQ(get.substr(0, get.find("\r\n")), "HTTP/1.1 405 Method Not Allowed");
  for (const char* bad : {"healthz", "/health z", "/healthz?x"}) {
    ServerOptions o = options_on("127.0.0.1:0");
    o.health_path = bad;
    Server server(o);
    Status s = server.start();
    EXPECT_FALSE(s) << bad;
  }
}

// ServerOptions::trusted_proxies: a handler and the access log see the client a trusted proxy
// names in X-Forwarded-For, and nobody else is believed.
TEST(TrustedProxies, TheClientBehindATrustedProxy) {
  auto serve = [](std::vector<std::string> trusted, std::string* logged) {
    ServerOptions o;
    o.listen = {"127.0.0.1:0"};
    o.threads = 1;
    o.trusted_proxies = std::move(trusted);
    o.access_log = [logged](const AccessLogEntry& e) { *logged = std::string(e.peer); };
    auto server = std::make_unique<Server>(o);
    EXPECT_TRUE(server->bind("peer", [](CallContext& ctx) { return std::string(ctx.peer()); }));
    return server;
  };
  ClientOptions via;
  via.headers = {{"X-Forwarded-For", "198.51.100.1, 203.0.113.7"}};
  std::string logged;
  auto trusting = serve({"127.0.0.0/8"}, &logged);
  ASSERT_TRUE(trusting->start());
  Client client(trusting->url(), via);
  EXPECT_EQ(client.call<std::string>("peer").value(), "203.0.113.7");
  trusting->stop();
  trusting->wait();
  EXPECT_EQ(logged, "203.0.113.7");
  // Without the field: the proxy's own address.
  std::string logged_elsewhere[4];  // one each: their access logs run on their own threads
  auto plain_trusting = serve({"127.0.0.1"}, &logged_elsewhere[0]);
  ASSERT_TRUE(plain_trusting->start());
  EXPECT_TRUE(
      Client(plain_trusting->url()).call<std::string>("peer").value().starts_with("127.0.0.1:"));
  // Not trusted: the field is ignored.
  auto wary = serve({"10.0.0.0/8"}, &logged_elsewhere[1]);
  ASSERT_TRUE(wary->start());
  EXPECT_TRUE(Client(wary->url(), via).call<std::string>("peer").value().starts_with("127.0.0.1:"));
  auto none = serve({}, &logged_elsewhere[2]);
  ASSERT_TRUE(none->start());
  EXPECT_TRUE(Client(none->url(), via).call<std::string>("peer").value().starts_with("127.0.0.1:"));
  // A bad entry is refused at start.
  auto bad = serve({"localhost"}, &logged_elsewhere[3]);
  Status started = bad->start();
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("trusted_proxies"), std::string::npos);
}

}  // namespace
}  // namespace callwire
