// The server's packet-stream listeners (xmlrpc-c's pstream) end to end over loopback, in raw
// bytes: calls answered in order as packets, pipelined and split anywhere, NOPs ignored, 0x1B
// in both directions, inline and on the worker pool; an oversized packet told with a fault and
// closed, broken framing closed, and every other connection served on.
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "callwire/xml.hpp"
#include "pstream_test_util.hpp"

namespace callwire {
namespace {

using testing::call;
using testing::packet;
using testing::RawSocket;
using testing::read_packets;
using testing::responses;

const std::string kNop = "\x1bNOP";

struct PstreamServer {
  explicit PstreamServer(ServerOptions o) : server(std::move(o)) {
    EXPECT_TRUE(server.registry().bind("add", [](int a, int b) { return a + b; }));
    EXPECT_TRUE(server.registry().bind("echo", [](std::string s) { return s; }));
    EXPECT_TRUE(server.registry().bind("echo_bytes", [](std::vector<uint8_t> b) { return b; }));
    Status s = server.start();
    EXPECT_TRUE(s) << s.error().message;
  }
  static ServerOptions options(unsigned handler_threads = 0) {
    ServerOptions o;
    o.listen = {"pstream://127.0.0.1:0", "127.0.0.1:0"};
    o.threads = 2;
    o.handler_threads = handler_threads;
    return o;
  }
  Server server;
};

TEST(PstreamServer, AnswersCallsInOrderAsPackets) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    PstreamServer t(PstreamServer::options(workers));
    EXPECT_EQ(t.server.url(0), "pstream://127.0.0.1:" + std::to_string(t.server.port(0)));
    RawSocket s(t.server.port(0));
    ASSERT_TRUE(s.connected());
    // Three calls in one send, NOPs before, between and inside a packet.
    std::string second = packet(call("add", {40, 2}));
    second.insert(6, kNop);  // inside the payload: after ESC PKT and two bytes
    ASSERT_TRUE(s.send(kNop + packet(call("add", {2, 3})) + kNop + second +
                       packet(call("echo", {"done"}))));
    std::vector<MethodResponse> got = responses(read_packets(s, 3));
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].result, Value(5));
    EXPECT_EQ(got[1].result, Value(42));
    EXPECT_EQ(got[2].result, Value("done"));
    EXPECT_FALSE(s.closed());
  }
}

TEST(PstreamServer, AnswersAStreamSentByteByByte) {
  PstreamServer t(PstreamServer::options());
  RawSocket s(t.server.port(0));
  std::string bytes = packet(call("add", {1, 2})) + kNop + packet(call("add", {3, 4}));
  for (char c : bytes) ASSERT_TRUE(s.send(std::string(1, c)));
  std::vector<MethodResponse> got = responses(read_packets(s, 2));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].result, Value(7));
}

// 0x1B is no XML character, so an XML-RPC document never holds one; a request that does (sent
// escaped, as the framing requires) is answered -32702 in a packet, and the stream stays in step
// for the next call.
TEST(PstreamServer, AnEscapedByteInARequestKeepsTheStreamInStep) {
  PstreamServer t(PstreamServer::options());
  RawSocket s(t.server.port(0));
  std::string body = call("echo", {"x"});
  body.replace(body.find(">x<") + 1, 1, "\x1b");
  ASSERT_TRUE(s.send(packet(body) + packet(call("add", {1, 2}))));
  std::vector<MethodResponse> got = responses(read_packets(s, 2));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[0].is_fault);
  EXPECT_EQ(got[0].fault.code, -32702);  // a character XML forbids
  EXPECT_EQ(got[1].result, Value(3));
}

TEST(PstreamServer, AnOversizedPacketIsToldAndClosedOthersServed) {
  ServerOptions o = PstreamServer::options();
  o.max_body = 4096;
  PstreamServer t(o);
  RawSocket big(t.server.port(0));
  RawSocket other(t.server.port(0));
  ASSERT_TRUE(big.send("\x1bPKT" + std::string(5000, 'x')));
  std::string said = big.read_all();
  EXPECT_TRUE(big.closed());
  std::vector<MethodResponse> got = responses(said);
  ASSERT_EQ(got.size(), 1u) << said;
  EXPECT_TRUE(got[0].is_fault);
  EXPECT_EQ(got[0].fault.code, -32600);
  EXPECT_NE(got[0].fault.string.find("4096 bytes (max_body)"), std::string::npos)
      << got[0].fault.string;

  ASSERT_TRUE(other.send(packet(call("add", {1, 1}))));
  got = responses(read_packets(other, 1));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].result, Value(2));
}

TEST(PstreamServer, BrokenFramingClosesOnlyThatConnection) {
  PstreamServer t(PstreamServer::options());
  for (std::string bad : {std::string("<methodCall/>"),
                          std::string("\x1b"
                                      "END"),
                          std::string("\x1bPKT\x1bPKT"), std::string("\x1bXYZ"),
                          packet(call("add", {1, 1})) + "junk"}) {
    RawSocket s(t.server.port(0));
    ASSERT_TRUE(s.send(bad));
    std::string said = s.read_all();
    EXPECT_TRUE(s.closed());
    // Whatever was whole before the fault is answered; nothing after it.
    EXPECT_LE(responses(said).size(), 1u);
  }
  RawSocket good(t.server.port(0));
  ASSERT_TRUE(good.send(packet(call("add", {2, 2}))));
  std::vector<MethodResponse> got = responses(read_packets(good, 1));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].result, Value(4));
}

TEST(PstreamServer, ServesUnixSocketsAndRefusesAuthentication) {
  if (!net::sys::kHasUnixSockets) GTEST_SKIP() << testing::kNoUnixSockets;
  ServerOptions o;
  o.listen = {"pstream+unix:/tmp/callwire-pstream-test-" + std::to_string(::getpid())};
  PstreamServer t(o);
  EXPECT_EQ(t.server.url(0), o.listen[0]);
  RawSocket s(o.listen[0].substr(13));
  ASSERT_TRUE(s.send(packet(call("add", {5, 5}))));
  std::vector<MethodResponse> got = responses(read_packets(s, 1));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].result, Value(10));

  ServerOptions with_auth = PstreamServer::options();
  with_auth.authenticate = [](std::string_view, std::string_view) { return true; };
  Server refused(with_auth);
  Status started = refused.start();
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, Errc::InvalidArgument);
}

// callwire's own client over the packet stream: kept connections, faults, a large value whose
// bytes hold many 0x1B (escaped both ways), threads and async calls at once, Unix sockets.
TEST(PstreamClient, CallsThroughTheClient) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    PstreamServer t(PstreamServer::options(workers));
    EXPECT_TRUE(t.server.registry().frozen());
    Result<Client> made = Client::create(t.server.url(0));
    ASSERT_TRUE(made) << made.error().message;
    Client& client = *made;
    for (int i = 0; i < 20; ++i) EXPECT_EQ(client.call<int>("add", i, 1).value(), i + 1);

    Result<int> fault = client.call<int>("nope");
    ASSERT_FALSE(fault);
    EXPECT_EQ(fault.error().code, Errc::Fault);
    EXPECT_EQ(fault.error().fault_code, -32601);

    std::vector<uint8_t> blob(4 << 20);
    for (size_t i = 0; i < blob.size(); ++i) blob[i] = i % 3 == 0 ? 0x1B : uint8_t(i);
    Result<Value> echoed = client.call("echo_bytes", {Value::bytes(blob)});
    ASSERT_TRUE(echoed) << echoed.error().message;
    std::span<const uint8_t> back = echoed->as_bytes();
    EXPECT_TRUE(std::equal(back.begin(), back.end(), blob.begin(), blob.end()));

    std::vector<std::thread> threads;
    std::atomic<int> right{0};
    for (int k = 0; k < 4; ++k)
      threads.emplace_back([&, k] {
        for (int i = 0; i < 50; ++i)
          if (Result<int> r = client.call<int>("add", k, i); r && *r == k + i) ++right;
      });
    for (auto& th : threads) th.join();
    EXPECT_EQ(right.load(), 200);
    std::vector<std::future<Result<int>>> pending;
    for (int i = 0; i < 20; ++i) pending.push_back(client.async_call<int>("add", i, i));
    for (int i = 0; i < 20; ++i) {
      Result<int> r = pending[size_t(i)].get();
      ASSERT_TRUE(r) << r.error().message;
      EXPECT_EQ(*r, 2 * i);
    }
  }
}

TEST(PstreamClient, ReconnectsAfterTheServerDropsAnIdleConnection) {
  ServerOptions o = PstreamServer::options();
  o.idle_timeout = std::chrono::milliseconds(100);
  PstreamServer t(o);
  Client client = Client::create(t.server.url(0)).value();
  EXPECT_EQ(client.call<int>("add", 1, 1).value(), 2);
  // A witness connection, idle from later on: once the server has closed it, it has closed the
  // client's kept connection too.
  RawSocket witness(t.server.port(0));
  ASSERT_TRUE(witness.send(packet(call("add", {0, 0}))));
  ASSERT_EQ(responses(read_packets(witness, 1)).size(), 1u);
  witness.read_all(std::chrono::seconds(5));
  ASSERT_TRUE(witness.closed());
  EXPECT_EQ(client.call<int>("add", 2, 2).value(), 4);  // the stale connection is replaced
}

TEST(PstreamClient, RefusesWhatAPacketCannotCarry) {
  ClientOptions with_auth;
  with_auth.user = "ann";
  with_auth.password = "secret";
  Result<Client> c = Client::create("pstream://127.0.0.1:1", with_auth);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Errc::InvalidArgument);
  ClientOptions with_headers;
  with_headers.headers = {{"X-Trace", "1"}};
  EXPECT_FALSE(Client::create("pstream://127.0.0.1:1", with_headers));
  ClientOptions with_timeout;
  with_timeout.send_timeout = true;  // X-Callwire-Timeout is a header field
  EXPECT_FALSE(Client::create("pstream://127.0.0.1:1", with_timeout));
  EXPECT_TRUE(Client::create("pstream://127.0.0.1:1"));  // nothing is connected yet
}

// A call's own header fields cannot travel either: the call fails before anything is sent,
// and the connection serves the next call.
TEST(PstreamClient, RefusesACallsHeaderFields) {
  PstreamServer t(PstreamServer::options());
  Client client = Client::create(t.server.url(0)).value();
  CallOptions with_header;
  with_header.headers = {{"X-Trace", "1"}};
  Result<Value> r = client.call("add", {Value(1), Value(2)}, with_header);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
  EXPECT_EQ(client.call<int>("add", 1, 2).value(), 3);
  ClientOptions piped;
  piped.pipeline_depth = 2;
  Client pipelined = Client::create(t.server.url(0), piped).value();
  std::promise<Result<Value>> got;
  pipelined.async_call(
      "add", {Value(1), Value(2)}, [&](Result<Value> v) { got.set_value(std::move(v)); },
      with_header);
  Result<Value> async = got.get_future().get();
  ASSERT_FALSE(async);
  EXPECT_EQ(async.error().code, Errc::InvalidArgument);
}

}  // namespace
}  // namespace callwire
