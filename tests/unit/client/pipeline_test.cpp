// The client's pipelined asynchronous calls over a packet stream (ClientOptions::pipeline_depth)
// and its liveness probe (Client::probe): against fake servers in raw sockets, which show what
// went over the wire and when, and against callwire's own server.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "callwire/xml.hpp"
#include "fake_server.hpp"
#include "pstream/pstream.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

std::string pstream_url(const FakeServer& s) {
  std::string url = s.url();  // http://127.0.0.1:PORT/RPC2
  return "pstream://" + url.substr(7, url.rfind('/') - 7);
}

// Reads from `fd` until `count` whole packets have come (their payloads), the peer closes or
// `timeout` passes. Everything read, NOPs included, is appended to `raw`.
std::vector<std::string> read_packets(int fd, size_t count, std::string* raw = nullptr,
                                      std::chrono::milliseconds timeout = 5s) {
  std::vector<std::string> packets;
  pstream::Decoder decoder(1 << 20);
  std::string in;
  char buf[65536];
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (packets.size() < count && std::chrono::steady_clock::now() < deadline) {
    if (!testing::wait_readable(fd, 100)) continue;
    ssize_t n = testing::receive_some(fd, buf, sizeof buf);
    if (n <= 0) break;
    in.append(buf, size_t(n));
    if (raw) raw->append(buf, size_t(n));
    size_t used = 0;
    for (;;) {
      Result<pstream::Decoded> d = decoder.decode(std::string_view(in).substr(used));
      EXPECT_TRUE(d) << d.error().message;
      if (!d) return packets;
      if (d->packet) packets.emplace_back(d->payload);
      used += d->consumed;
      if (!d->packet) break;
    }
    in.erase(0, used);
  }
  return packets;
}

// The answer to a call of add(a, b), or to anything else a fault naming it.
std::string answer_to(std::string_view request) {
  xml::Reader reader;
  Result<MethodCall> call = reader.read_call(request);
  Buffer body;
  if (call && call->method_name == "add" && call->params.size() == 2) {
    int64_t sum = *call->params[0].try_as_i8() + *call->params[1].try_as_i8();
    EXPECT_TRUE(xml::write_response(body, Value(sum)));
  } else {
    EXPECT_TRUE(xml::write_fault(body, Fault{-32601, "no such method"}));
  }
  Buffer packet;
  pstream::append_packet(packet, body.view());
  return std::string(packet.view());
}

ClientOptions pipelined(size_t depth, size_t connections = 1) {
  ClientOptions o;
  o.pipeline_depth = depth;
  o.max_connections = connections;
  o.timeout = 5s;
  return o;
}

// Collects async results by index.
struct Results {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::optional<Result<Value>>> got;
  explicit Results(size_t n) : got(n) {}
  std::function<void(Result<Value>)> slot(size_t i) {
    return [this, i](Result<Value> r) {
      std::lock_guard lock(mutex);
      got[i] = std::move(r);
      changed.notify_all();
    };
  }
  bool wait_all(std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] {
      for (auto& g : got)
        if (!g) return false;
      return true;
    });
  }
};

// The server reads all eight requests before it answers any: only a client that pipelines
// gets its answers (one call at a time would wait for the first answer forever).
TEST(Pipeline, WritesRequestsBeforeTheAnswersComeAndMatchesThemInOrder) {
  constexpr size_t kCalls = 8;
  FakeServer server([&](int fd) {
    std::vector<std::string> requests = read_packets(fd, kCalls);
    ASSERT_EQ(requests.size(), kCalls);
    std::string answers;
    for (const std::string& r : requests) answers += answer_to(r);
    FakeServer::send_all(fd, answers);
    read_packets(fd, 1);  // until the client closes
  });
  Results results(kCalls);
  {
    Client client = Client::create(pstream_url(server), pipelined(kCalls)).value();
    for (size_t i = 0; i < kCalls; ++i) {
      if (i == 3)
        client.async_call("nope", {}, results.slot(i));
      else
        client.async_call("add", {Value(int(i)), Value(100)}, results.slot(i));
    }
    ASSERT_TRUE(results.wait_all());
  }
  EXPECT_EQ(server.accepts(), 1);
  for (size_t i = 0; i < kCalls; ++i) {
    const Result<Value>& r = *results.got[i];
    if (i == 3) {
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().code, Errc::Fault);
      EXPECT_EQ(r.error().fault_code, -32601);
    } else {
      ASSERT_TRUE(r) << i << ": " << r.error().message;
      EXPECT_EQ(r->try_as_i8(), int64_t(i) + 100);
    }
  }
}

// Depth 2 on one connection: the third call waits for room, so the server sees two requests
// before it answers, then the third.
TEST(Pipeline, KeepsNoMoreThanTheDepthInFlight) {
  std::atomic<size_t> first_batch{0};
  FakeServer server([&](int fd) {
    std::vector<std::string> two = read_packets(fd, 3, nullptr, 500ms);  // only two can come
    first_batch = two.size();
    std::string answers;
    for (const std::string& r : two) answers += answer_to(r);
    FakeServer::send_all(fd, answers);
    std::vector<std::string> third = read_packets(fd, 1);
    ASSERT_EQ(third.size(), 1u);
    FakeServer::send_all(fd, answer_to(third[0]));
    read_packets(fd, 1);
  });
  Client client = Client::create(pstream_url(server), pipelined(2)).value();
  Results results(3);
  for (size_t i = 0; i < 3; ++i)
    client.async_call("add", {Value(int(i)), Value(1)}, results.slot(i));
  ASSERT_TRUE(results.wait_all());
  EXPECT_EQ(first_batch.load(), 2u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(*results.got[i]) << results.got[i]->error().message;
    EXPECT_EQ((*results.got[i])->try_as_i8(), int64_t(i) + 1);
  }
}

// A call that times out keeps its place in line: the answers behind it still reach their own
// callers, and its late answer is dropped.
TEST(Pipeline, ATimedOutCallLeavesTheOthersInStep) {
  std::promise<void> first_timed_out;
  auto timed_out = first_timed_out.get_future();
  FakeServer server([&](int fd) {
    std::vector<std::string> requests = read_packets(fd, 3);
    ASSERT_EQ(requests.size(), 3u);
    timed_out.wait_for(5s);
    std::string answers;
    for (const std::string& r : requests) answers += answer_to(r);
    FakeServer::send_all(fd, answers);
    read_packets(fd, 1);
  });
  Client client = Client::create(pstream_url(server), pipelined(4)).value();
  Results results(3);
  CallOptions short_deadline;
  short_deadline.timeout = 50ms;
  client.async_call(
      "add", {Value(1), Value(1)},
      [&, slot = results.slot(0)](Result<Value> r) {
        slot(std::move(r));
        first_timed_out.set_value();
      },
      short_deadline);
  client.async_call("add", {Value(2), Value(2)}, results.slot(1));
  client.async_call("add", {Value(3), Value(3)}, results.slot(2));
  ASSERT_TRUE(results.wait_all());
  ASSERT_FALSE(*results.got[0]);
  EXPECT_EQ(results.got[0]->error().code, Errc::Timeout);
  ASSERT_TRUE(*results.got[1]);
  EXPECT_EQ((*results.got[1])->try_as_i8(), 4);
  ASSERT_TRUE(*results.got[2]);
  EXPECT_EQ((*results.got[2])->try_as_i8(), 6);
}

// The server answers one of three and closes: the two unanswered calls fail, and the next call
// goes on a new connection.
TEST(Pipeline, AClosedConnectionFailsItsCallsAndTheNextCallReconnects) {
  int served = 0;
  FakeServer server([&](int fd) {
    if (++served == 1) {
      std::vector<std::string> requests = read_packets(fd, 3);
      ASSERT_EQ(requests.size(), 3u);
      FakeServer::send_all(fd, answer_to(requests[0]));
      return;  // closed with two unanswered
    }
    std::vector<std::string> request = read_packets(fd, 1);
    ASSERT_EQ(request.size(), 1u);
    FakeServer::send_all(fd, answer_to(request[0]));
    read_packets(fd, 1);
  });
  Client client = Client::create(pstream_url(server), pipelined(4)).value();
  Results results(3);
  for (size_t i = 0; i < 3; ++i)
    client.async_call("add", {Value(int(i)), Value(0)}, results.slot(i));
  ASSERT_TRUE(results.wait_all());
  ASSERT_TRUE(*results.got[0]);
  EXPECT_EQ((*results.got[0])->try_as_i8(), 0);
  for (size_t i : {1, 2}) {
    ASSERT_FALSE(*results.got[i]);
    EXPECT_EQ(results.got[i]->error().code, Errc::ConnectionClosed)
        << results.got[i]->error().message;
  }
  // The first connection's server thread has moved on to a new accept only after it closed.
  Results again(1);
  client.async_call("add", {Value(20), Value(22)}, again.slot(0));
  ASSERT_TRUE(again.wait_all());
  ASSERT_TRUE(*again.got[0]) << again.got[0]->error().message;
  EXPECT_EQ((*again.got[0])->try_as_i8(), 42);
  EXPECT_EQ(server.accepts(), 2);
}

// An answer over max_response_size fails its own call with LimitExceeded (as soon as the cap
// is passed); the call behind it loses the connection.
TEST(Pipeline, AnOversizedAnswerFailsItsCallOnly) {
  FakeServer server([&](int fd) {
    std::vector<std::string> requests = read_packets(fd, 2);
    ASSERT_EQ(requests.size(), 2u);
    Buffer body;
    EXPECT_TRUE(xml::write_response(body, Value(std::string(5000, 'x'))));
    Buffer packet;
    pstream::append_packet(packet, body.view());
    FakeServer::send_all(fd, std::string(packet.view()) + answer_to(requests[1]));
    read_packets(fd, 1);
  });
  ClientOptions o = pipelined(4);
  o.max_response_size = 1000;
  Client client = Client::create(pstream_url(server), o).value();
  Results results(2);
  for (size_t i = 0; i < 2; ++i) client.async_call("add", {Value(1), Value(1)}, results.slot(i));
  ASSERT_TRUE(results.wait_all());
  ASSERT_FALSE(*results.got[0]);
  EXPECT_EQ(results.got[0]->error().code, Errc::LimitExceeded) << results.got[0]->error().message;
  ASSERT_FALSE(*results.got[1]);
  EXPECT_EQ(results.got[1]->error().code, Errc::ConnectionClosed);
}

// A server that never answers: the calls end by their deadline, and the client's destructor
// waits for that, so every callback has run when it returns.
TEST(Pipeline, TheDestructorWaitsForCallsInFlight) {
  FakeServer server([&](int fd) { read_packets(fd, 100, nullptr, 2s); });
  std::atomic<int> timed_out{0};
  {
    ClientOptions o = pipelined(4);
    o.timeout = 100ms;
    Client client = Client::create(pstream_url(server), o).value();
    for (int i = 0; i < 3; ++i)
      client.async_call("add", {Value(1), Value(1)}, [&](Result<Value> r) {
        if (!r && r.error().code == Errc::Timeout) ++timed_out;
      });
  }
  EXPECT_EQ(timed_out.load(), 3);
}

TEST(Pipeline, NeedsAPacketStreamAndADepth) {
  ClientOptions o;
  o.pipeline_depth = 4;
  for (const char* url : {"http://127.0.0.1:1/RPC2", "scgi://127.0.0.1:1", "unix:/tmp/x.sock"}) {
    Result<Client> c = Client::create(url, o);
    ASSERT_FALSE(c) << url;
    EXPECT_EQ(c.error().code, Errc::InvalidArgument);
  }
  EXPECT_TRUE(Client::create("pstream://127.0.0.1:1", o));
  EXPECT_TRUE(Client::create("pstream+unix:/tmp/x.sock", o));
  o.pipeline_depth = 0;
  EXPECT_FALSE(Client::create("pstream://127.0.0.1:1", o));
}

TEST(Pipeline, NothingListeningFailsTheCalls) {
  // A port bound but not listening: every connection is refused.
  net::UniqueFd fd(net::open_stream_socket(AF_INET, false));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  Client client = Client::create("pstream://127.0.0.1:" + std::to_string(net::local_port(fd.get())),
                                 pipelined(4, 2))
                      .value();
  Results results(5);
  for (size_t i = 0; i < 5; ++i) client.async_call("add", {Value(1), Value(1)}, results.slot(i));
  ASSERT_TRUE(results.wait_all());
  for (auto& r : results.got) {
    ASSERT_FALSE(*r);
    EXPECT_EQ(r->error().code, Errc::ConnectFailed) << r->error().message;
  }
}

// callwire's own server, inline and on its worker pool: thousands of calls pipelined on one
// connection and on two, each answer reaching its caller, faults among them.
TEST(Pipeline, ManyCallsAgainstCallwiresServer) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    ServerOptions so;
    so.listen = {"pstream://127.0.0.1:0"};
    so.threads = 1;
    so.handler_threads = workers;
    Server server(so);
    ASSERT_TRUE(server.registry().bind("add", [](int a, int b) { return a + b; }));
    ASSERT_TRUE(server.start());
    for (size_t connections : {1u, 2u}) {
      constexpr size_t kCalls = 3000;
      // A call's deadline counts its time queued for a place in the pipeline ("no connection
      // free before the deadline"): under Wine on a loaded CI machine these 3,000 calls took
      // 9 s, and a quarter failed at pipelined()'s 5 s. The test is about the answers.
      ClientOptions options = pipelined(32, connections);
      options.timeout = 60s;
      Client client = Client::create(server.url(0), options).value();
      Results results(kCalls);
      for (size_t i = 0; i < kCalls; ++i) {
        if (i % 500 == 7)
          client.async_call("nope", {}, results.slot(i));
        else
          client.async_call("add", {Value(int(i)), Value(int(i))}, results.slot(i));
      }
      ASSERT_TRUE(results.wait_all(90s));
      size_t right = 0;
      std::string first_wrong;
      for (size_t i = 0; i < kCalls; ++i) {
        const Result<Value>& r = *results.got[i];
        const bool ok = i % 500 == 7 ? !r && r.error().code == Errc::Fault
                                     : r && r->try_as_i8() == int64_t(2 * i);
        right += ok;
        if (!ok && first_wrong.empty())
          first_wrong =
              "call " + std::to_string(i) + ": " + (r ? "a wrong value" : r.error().message);
      }
      EXPECT_EQ(right, kCalls) << first_wrong;
      EXPECT_LE(client.probe(), connections);
    }
  }
}

// The probe's ESC NOP reaches the server on the connection kept after a synchronous call and
// on the pipeline's, and callwire's server ignores it: the connection still serves calls.
TEST(Probe, SendsANopOnEachIdleConnection) {
  std::promise<std::string> seen;
  FakeServer server([&](int fd) {
    std::vector<std::string> request = read_packets(fd, 1);
    ASSERT_EQ(request.size(), 1u);
    FakeServer::send_all(fd, answer_to(request[0]));
    std::string raw;
    read_packets(fd, 1, &raw);  // until the client closes; the NOP is no packet
    seen.set_value(raw);
  });
  {
    Client client = Client::create(pstream_url(server)).value();
    ASSERT_EQ(client.call<int>("add", 2, 3).value(), 5);
    EXPECT_EQ(client.probe(), 1u);
  }
  EXPECT_EQ(seen.get_future().get(), std::string(pstream::kNop));

  ServerOptions so;
  so.listen = {"pstream://127.0.0.1:0"};
  Server real(so);
  ASSERT_TRUE(real.registry().bind("add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(real.start());
  Client sync = Client::create(real.url(0)).value();
  ASSERT_EQ(sync.call<int>("add", 1, 1).value(), 2);
  Client piped = Client::create(real.url(0), pipelined(4)).value();
  ASSERT_EQ(piped.async_call<int>("add", 1, 2).get().value(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(sync.probe(20ms), 1u);
    EXPECT_EQ(piped.probe(20ms), 1u);
  }
  EXPECT_EQ(sync.call<int>("add", 2, 2).value(), 4);
  EXPECT_EQ(piped.async_call<int>("add", 2, 3).get().value(), 5);
}

// Connections the server has closed, or reset, are dropped by the probe; the next call opens
// a new one. Over HTTP there is no NOP, but closed connections are found the same way.
TEST(Probe, DropsConnectionsThePeerClosedOrReset) {
  for (bool reset : {false, true}) {
    SCOPED_TRACE(reset ? "reset" : "closed");
    std::promise<void> closed;
    int served = 0;
    FakeServer server([&](int fd) {
      std::vector<std::string> request = read_packets(fd, 1);
      if (request.empty()) return;
      FakeServer::send_all(fd, answer_to(request[0]));
      if (++served == 1) {
        if (reset) {  // closing with no linger resets the connection
          testing::reset_on_close(fd);
        }
        closed.set_value();
        return;  // FakeServer closes fd: within the probe's wait below
      }
      read_packets(fd, 1);
    });
    Client client = Client::create(pstream_url(server)).value();
    ASSERT_EQ(client.call<int>("add", 2, 3).value(), 5);
    closed.get_future().wait();
    EXPECT_EQ(client.probe(200ms), 0u);
    EXPECT_EQ(client.call<int>("add", 3, 4).value(), 7);
    EXPECT_EQ(server.accepts(), 2);
  }
}

}  // namespace
}  // namespace callwire
