// Running several servers and behind balancers: SO_REUSEPORT, listening sockets inherited
// from a supervisor (systemd's socket activation), the health endpoint. Real sockets on
// loopback, port 0, every wait bounded.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "http_test_util.hpp"

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

}  // namespace
}  // namespace callwire
