// A client on a connection it is given (Client::adopt, xmlrpc-c's socketexec style): over a
// socketpair whose other end callwire's server adopts, in each framing a client speaks; sync,
// async and pipelined calls; the connection never replaced once closed; calls taking turns;
// what is refused, with the descriptor closed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

struct Pair {
  int mine = -1;
  int server = -1;
};

Pair socket_pair() {
  int fds[2] = {-1, -1};
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  return {fds[0], fds[1]};
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

struct Served {
  Served() : server(options()) {
    EXPECT_TRUE(server.bind("add", [](int a, int b) { return a + b; }));
    EXPECT_TRUE(server.bind("hold", [this](int ms) {
      entered.set_value();
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return ms;
    }));
    EXPECT_TRUE(server.start());
  }
  static ServerOptions options() {
    ServerOptions o;
    o.listen = {"127.0.0.1:0"};
    o.threads = 1;
    o.handler_threads = 1;
    return o;
  }
  // A client on one end of a socketpair whose other end this server serves.
  Client client(ConnectionFraming framing, ClientOptions o = {}) {
    Pair p = socket_pair();
    EXPECT_TRUE(server.adopt_connection(p.server, framing));
    Result<Client> c = Client::adopt(p.mine, framing, o);
    EXPECT_TRUE(c) << c.error().message;
    return std::move(*c);
  }
  Server server;
  std::promise<void> entered;
};

TEST(AdoptedClient, CallsInEachFraming) {
  Served s;
  for (ConnectionFraming framing :
       {ConnectionFraming::Pstream, ConnectionFraming::Http, ConnectionFraming::JsonLines}) {
    SCOPED_TRACE(int(framing));
    Client client = s.client(framing);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(client.call<int>("add", i, 1).value(), i + 1);
    Result<int> fault = client.call<int>("nope");
    ASSERT_FALSE(fault);
    EXPECT_EQ(fault.error().fault_code, -32601);
    std::vector<std::future<Result<int>>> pending;
    for (int i = 0; i < 20; ++i) pending.push_back(client.async_call<int>("add", i, i));
    for (int i = 0; i < 20; ++i) EXPECT_EQ(pending[size_t(i)].get().value(), 2 * i);
    EXPECT_EQ(client.probe(), 1u);
  }
  // SCGI answers one request per connection: an adopted one carries one call.
  Client scgi = s.client(ConnectionFraming::Scgi);
  EXPECT_EQ(scgi.call<int>("add", 2, 2).value(), 4);
  Result<int> second = scgi.call<int>("add", 2, 2);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, Errc::ConnectionClosed);

  ClientOptions piped;
  piped.pipeline_depth = 16;
  Client pipelined = s.client(ConnectionFraming::Pstream, piped);
  std::vector<std::future<Result<int>>> pending;
  for (int i = 0; i < 200; ++i) pending.push_back(pipelined.async_call<int>("add", i, 2));
  for (int i = 0; i < 200; ++i) EXPECT_EQ(pending[size_t(i)].get().value(), i + 2);
}

// Once the peer has closed the connection the client was given, every call fails: there is
// nothing to reconnect to.
TEST(AdoptedClient, NeverReplacesItsConnection) {
  Pair p = socket_pair();
  Result<Client> made = Client::adopt(p.mine, ConnectionFraming::Pstream);
  ASSERT_TRUE(made) << made.error().message;
  ::close(p.server);
  for (int i = 0; i < 2; ++i) {
    Result<int> r = made->call<int>("add", 1, 1);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::ConnectionClosed) << r.error().message;
  }
  Result<int> later = made->async_call<int>("add", 1, 1).get();
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error().code, Errc::ConnectionClosed);
}

// A synchronous call made while another call has the connection fails at once; the one that
// had it is answered, and the connection serves the next call.
TEST(AdoptedClient, CallsTakeTurns) {
  Served s;
  Client client = s.client(ConnectionFraming::Pstream);
  auto held = std::async(std::launch::async, [&] { return client.call<int>("hold", 300); });
  s.entered.get_future().wait();
  Result<int> meanwhile = client.call<int>("add", 1, 2);
  ASSERT_FALSE(meanwhile);
  EXPECT_EQ(meanwhile.error().code, Errc::ConnectionClosed);
  EXPECT_NE(meanwhile.error().message.find("in use"), std::string::npos);
  EXPECT_EQ(held.get().value(), 300);
  EXPECT_EQ(client.call<int>("add", 1, 2).value(), 3);
}

TEST(AdoptedClient, RefusesWhatItCannotUseAndClosesIt) {
  Result<Client> negative = Client::adopt(-1, ConnectionFraming::Pstream);
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().code, Errc::InvalidArgument);

  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  Result<Client> pipe = Client::adopt(pipe_fds[0], ConnectionFraming::Pstream);
  ASSERT_FALSE(pipe);
  EXPECT_EQ(pipe.error().code, Errc::InvalidArgument);
  EXPECT_FALSE(is_open(pipe_fds[0]));
  ::close(pipe_fds[1]);

  int unconnected = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_FALSE(Client::adopt(unconnected, ConnectionFraming::Http));
  EXPECT_FALSE(is_open(unconnected));

  ClientOptions headers;
  headers.headers = {{"X-Trace", "1"}};  // a packet or a JSON line cannot carry them
  Pair p = socket_pair();
  Result<Client> lines = Client::adopt(p.mine, ConnectionFraming::JsonLines, headers);
  ASSERT_FALSE(lines);
  EXPECT_EQ(lines.error().code, Errc::InvalidArgument);
  EXPECT_FALSE(is_open(p.mine));
  Pair q = socket_pair();
  EXPECT_FALSE(Client::adopt(q.mine, ConnectionFraming::Pstream, headers));
  EXPECT_FALSE(is_open(q.mine));
  ::close(p.server);
  ::close(q.server);

  // An adopted connection never used is closed with the client.
  Pair r = socket_pair();
  { Client unused = Client::adopt(r.mine, ConnectionFraming::Pstream).value(); }
  EXPECT_FALSE(is_open(r.mine));
  ::close(r.server);
}

}  // namespace
}  // namespace callwire
