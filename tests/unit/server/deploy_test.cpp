// Running several servers and behind balancers: SO_REUSEPORT, listening sockets inherited
// from a supervisor (systemd's socket activation), the health endpoint. Real sockets on
// loopback, port 0, every wait bounded.
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

}  // namespace
}  // namespace callwire
