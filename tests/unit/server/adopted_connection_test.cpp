// Connections handed to the server instead of accepted by a listener: Server::adopt_connection
// (into a running server) and Server::serve_connection (inetd's one-shot form), over
// socketpair() in raw bytes: packet stream, HTTP and SCGI; the peer closing; broken framing;
// what is refused.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

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

// A connected pair: [0] for the test, [1] for the server.
std::pair<int, int> socket_pair() {
  int fds[2] = {-1, -1};
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  return {fds[0], fds[1]};
}

void add_methods(Server& server) {
  EXPECT_TRUE(server.bind("add", [](int a, int b) { return a + b; }));
  EXPECT_TRUE(server.bind("peer", [](const CallContext& c) { return std::string(c.peer()); }));
}

// serve_connection on a thread of its own; the future has its Status.
std::future<Status> serve_async(Server& server, int fd) {
  return std::async(std::launch::async, [&server, fd] {
    return server.serve_connection(fd, ConnectionFraming::Pstream);
  });
}

ServerOptions options() {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 2;
  return o;
}

TEST(AdoptedConnection, ServesASocketPairInARunningServer) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    ServerOptions o = options();
    o.handler_threads = workers;
    Server server(o);
    add_methods(server);
    ASSERT_TRUE(server.start());
    std::vector<std::unique_ptr<RawSocket>> peers;
    for (int i = 0; i < 3; ++i) {
      auto [mine, theirs] = socket_pair();
      Status s = server.adopt_connection(theirs, ConnectionFraming::Pstream);
      ASSERT_TRUE(s) << s.error().message;
      peers.push_back(std::make_unique<RawSocket>(RawSocket::Adopt{mine}));
    }
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(peers[size_t(i)]->send(packet(call("add", {i, 40})) + packet(call("peer", {}))));
    for (int i = 0; i < 3; ++i) {
      std::vector<MethodResponse> got = responses(read_packets(*peers[size_t(i)], 2));
      ASSERT_EQ(got.size(), 2u);
      EXPECT_EQ(got[0].result, Value(i + 40));
      EXPECT_EQ(got[1].result, Value("unix"));
    }
    // The peer closing ends only its connection: the others go on.
    peers[0].reset();
    ASSERT_TRUE(peers[1]->send(packet(call("add", {1, 1}))));
    ASSERT_EQ(responses(read_packets(*peers[1], 1)).at(0).result, Value(2));
  }
}

TEST(AdoptedConnection, SpeaksHttpScgiAndJsonLinesToo) {
  Server server(options());
  add_methods(server);
  ASSERT_TRUE(server.start());
  auto [mine, theirs] = socket_pair();
  ASSERT_TRUE(server.adopt_connection(theirs, ConnectionFraming::Http));
  RawSocket http(RawSocket::Adopt{mine});
  ASSERT_TRUE(http.send(testing::post(call("add", {2, 3}))));
  std::string said = http.read_responses(1);
  EXPECT_TRUE(said.starts_with("HTTP/1.1 200")) << said;
  EXPECT_NE(said.find("<int>5</int>"), std::string::npos) << said;

  auto [mine2, theirs2] = socket_pair();
  ASSERT_TRUE(server.adopt_connection(theirs2, ConnectionFraming::Scgi));
  RawSocket scgi(RawSocket::Adopt{mine2});
  std::string body = call("add", {4, 5});
  std::string headers = std::string("CONTENT_LENGTH") + '\0' + std::to_string(body.size()) + '\0' +
                        "SCGI" + '\0' + "1" + '\0' + "REQUEST_METHOD" + '\0' + "POST" + '\0' +
                        "REQUEST_URI" + '\0' + "/RPC2" + '\0';
  ASSERT_TRUE(scgi.send(std::to_string(headers.size()) + ":" + headers + "," + body));
  said =
      scgi.read_until([](const std::string& s) { return s.find("</methodResponse>") != s.npos; });
  EXPECT_TRUE(said.starts_with("Status: 200")) << said;
  EXPECT_NE(said.find("<int>9</int>"), std::string::npos) << said;

  auto [mine3, theirs3] = socket_pair();
  ASSERT_TRUE(server.adopt_connection(theirs3, ConnectionFraming::JsonLines));
  RawSocket jsonl(RawSocket::Adopt{mine3});
  ASSERT_TRUE(jsonl.send(R"({"jsonrpc":"2.0","method":"add","params":[6,7],"id":1})"
                         "\n"));
  said = jsonl.read_until([](const std::string& s) { return s.find('\n') != s.npos; });
  EXPECT_EQ(said, R"({"jsonrpc":"2.0","result":13,"id":1})"
                  "\n");
}

TEST(AdoptedConnection, BrokenFramingClosesOnlyThatConnection) {
  Server server(options());
  add_methods(server);
  ASSERT_TRUE(server.start());
  auto [bad_mine, bad_theirs] = socket_pair();
  auto [good_mine, good_theirs] = socket_pair();
  ASSERT_TRUE(server.adopt_connection(bad_theirs, ConnectionFraming::Pstream));
  ASSERT_TRUE(server.adopt_connection(good_theirs, ConnectionFraming::Pstream));
  RawSocket bad(RawSocket::Adopt{bad_mine});
  RawSocket good(RawSocket::Adopt{good_mine});
  ASSERT_TRUE(bad.send(packet(call("add", {1, 1})) + "\x1bXYZ"));
  std::string said = bad.read_all();
  EXPECT_TRUE(bad.closed());
  EXPECT_LE(responses(said).size(), 1u);
  ASSERT_TRUE(good.send(packet(call("add", {2, 2}))));
  ASSERT_EQ(responses(read_packets(good, 1)).at(0).result, Value(4));
}

TEST(AdoptedConnection, RefusesWhatItCannotServe) {
  Server idle(options());
  auto [a, b] = socket_pair();
  // Not started: refused, and the descriptor is the server's (closed) all the same.
  Status s = idle.adopt_connection(b, ConnectionFraming::Pstream);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::InvalidArgument);
  RawSocket peer(RawSocket::Adopt{a});
  peer.read_all(std::chrono::seconds(5));
  EXPECT_TRUE(peer.closed());

  Server server(options());
  ASSERT_TRUE(server.start());
  EXPECT_EQ(server.adopt_connection(-1, ConnectionFraming::Http).error().code,
            Errc::InvalidArgument);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_EQ(server.adopt_connection(pipe_fds[0], ConnectionFraming::Pstream).error().code,
            Errc::InvalidArgument);  // not a socket
  ::close(pipe_fds[1]);
  int unconnected = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_EQ(server.adopt_connection(unconnected, ConnectionFraming::Pstream).error().code,
            Errc::InvalidArgument);

  ServerOptions one = options();
  one.max_connections = 1;
  Server full(one);
  ASSERT_TRUE(full.start());
  auto [c, d] = socket_pair();
  auto [e, f] = socket_pair();
  ASSERT_TRUE(full.adopt_connection(d, ConnectionFraming::Pstream));
  EXPECT_EQ(full.adopt_connection(f, ConnectionFraming::Pstream).error().code, Errc::LimitExceeded);
  ::close(c);
  ::close(e);

  ServerOptions with_auth = options();
  with_auth.authenticate = [](std::string_view, std::string_view) { return true; };
  Server auth(with_auth);
  ASSERT_TRUE(auth.start());
  auto [g, h] = socket_pair();
  EXPECT_EQ(auth.adopt_connection(h, ConnectionFraming::Pstream).error().code,
            Errc::InvalidArgument);
  ::close(g);

  server.stop();
  server.wait();
  auto [i, j] = socket_pair();
  EXPECT_EQ(server.adopt_connection(j, ConnectionFraming::Pstream).error().code, Errc::Stopped);
  ::close(i);
}

// inetd's form: the calling thread serves the one connection until the peer closes.
TEST(ServeConnection, ServesUntilThePeerCloses) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    ServerOptions o;
    o.listen = {};  // no listener is needed, nor opened
    o.handler_threads = workers;
    Server server(o);
    add_methods(server);
    auto [mine, theirs] = socket_pair();
    std::future<Status> served = serve_async(server, theirs);
    RawSocket peer(RawSocket::Adopt{mine});
    std::string calls;
    for (int i = 0; i < 50; ++i) calls += packet(call("add", {i, i}));
    ASSERT_TRUE(peer.send(calls));
    std::vector<MethodResponse> got = responses(read_packets(peer, 50));
    ASSERT_EQ(got.size(), 50u);
    for (int i = 0; i < 50; ++i) EXPECT_EQ(got[size_t(i)].result, Value(2 * i));
    EXPECT_EQ(server.port(), 0);
    EXPECT_EQ(server.url(), "");
    peer.shutdown_write();  // EOF: the server is done
    ASSERT_EQ(served.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    Status s = served.get();
    EXPECT_TRUE(s) << s.error().message;
    peer.read_all();
    EXPECT_TRUE(peer.closed());
    // Spent, as after run().
    EXPECT_FALSE(server.start());
    auto [a, b] = socket_pair();
    EXPECT_FALSE(server.serve_connection(b, ConnectionFraming::Pstream));
    ::close(a);
  }
}

TEST(ServeConnection, ReturnsAfterBrokenFramingOrStop) {
  {
    Server server;
    add_methods(server);
    auto [mine, theirs] = socket_pair();
    std::future<Status> served = serve_async(server, theirs);
    RawSocket peer(RawSocket::Adopt{mine});
    ASSERT_TRUE(peer.send(packet(call("add", {1, 2})) + "not a packet"));
    std::string said = peer.read_all();
    EXPECT_TRUE(peer.closed());
    ASSERT_EQ(responses(said).size(), 1u);
    peer.shutdown_write();  // the server lingers for our EOF after its own
    ASSERT_EQ(served.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_TRUE(served.get());
  }
  {
    Server server;
    add_methods(server);
    auto [mine, theirs] = socket_pair();
    std::future<Status> served = serve_async(server, theirs);
    RawSocket peer(RawSocket::Adopt{mine});
    ASSERT_TRUE(peer.send(packet(call("add", {1, 2}))));
    ASSERT_EQ(responses(read_packets(peer, 1)).size(), 1u);
    server.stop();  // an idle connection closes at once
    ASSERT_EQ(served.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_TRUE(served.get());
    peer.read_all();
    EXPECT_TRUE(peer.closed());
  }
  {
    Server server;
    EXPECT_EQ(server.serve_connection(-1, ConnectionFraming::Pstream).error().code,
              Errc::InvalidArgument);
  }
}

}  // namespace
}  // namespace callwire
