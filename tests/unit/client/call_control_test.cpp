// What a caller controls and learns beyond the result: the answer's HTTP head
// (CallOptions::response_head, Error::http_status and http_head) and cancellation from another
// thread (CallOptions::cancel), synchronous, asynchronous, queued and pipelined.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <future>
#include <stop_token>
#include <string>
#include <thread>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "fake_server.hpp"
#include "http_test_util.hpp"
#include "net/lookup.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kSeven =
    "<?xml version=\"1.0\"?><methodResponse><params><param><value><int>7</int></value>"
    "</param></params></methodResponse>";

// Answers each request on a connection with `answer`, until the client closes.
FakeServer answering(std::string answer) {
  return FakeServer([answer = std::move(answer)](int fd) {
    while (!FakeServer::read_request(fd).empty()) FakeServer::send_all(fd, answer);
  });
}

// Reads the request (counting it in `received`), then waits (without answering) until the
// client closes or 10 s pass; sets `closed` when the client closed first.
FakeServer silent(std::atomic<int>* closed = nullptr, std::atomic<int>* received = nullptr) {
  return FakeServer([closed, received](int fd) {
    FakeServer::read_request(fd);
    if (received) ++*received;
    char byte;
    if (testing::wait_readable(fd, 10000) && testing::receive_some(fd, &byte, 1) <= 0 && closed)
      ++*closed;
  });
}

// Waits (10 s at most) until `count` reaches `n`: the server has what the test waits for.
void wait_until_count(const std::atomic<int>& count, int n) {
  auto until = Clock::now() + 10s;
  while (count.load() < n && Clock::now() < until) std::this_thread::sleep_for(1ms);
  ASSERT_GE(count.load(), n) << "the server did not see it within 10 s";
}

TEST(ResponseHead, AnErrorStatusCarriesItsStatusAndFields) {
  FakeServer busy =
      answering("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n");
  auto r = Client(busy.url()).call("x");
  ASSERT_FALSE(r);
  const Error& e = r.error();
  EXPECT_EQ(e.code, Errc::HttpStatus);
  EXPECT_EQ(e.http_status, 503);
  EXPECT_EQ(e.fault_code, fault_code::kTransportError);  // the status has its own field
  EXPECT_EQ(e.message, "HTTP 503 Service Unavailable");
  ASSERT_TRUE(e.http_head);
  EXPECT_EQ(e.http_head->status, 503);
  EXPECT_EQ(e.http_head->reason, "Service Unavailable");
  EXPECT_EQ(e.http_head->field("retry-after"), "7");  // any case
  EXPECT_FALSE(e.http_head->field("Location"));

  FakeServer locked = answering(
      "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"api\", error=\"invalid_token\""
      "\r\nContent-Length: 0\r\n\r\n");
  auto denied = Client(locked.url()).call("x");
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().http_status, 401);
  ASSERT_TRUE(denied.error().http_head);
  EXPECT_EQ(denied.error().http_head->field("WWW-Authenticate"),
            "Bearer realm=\"api\", error=\"invalid_token\"");

  // Nothing of the kind on other errors.
  FakeServer fault = answering(FakeServer::ok_response(
      "<methodResponse><fault><value><struct><member><name>faultCode</name><value><int>4</int>"
      "</value></member><member><name>faultString</name><value>no</value></member></struct>"
      "</value></fault></methodResponse>"));
  auto f = Client(fault.url()).call("x");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code, Errc::Fault);
  EXPECT_EQ(f.error().http_status, 0);
  EXPECT_FALSE(f.error().http_head);
}

TEST(ResponseHead, FilledOnSuccessAndOnFailureAndClearedWhenNoAnswerCame) {
  FakeServer server =
      answering(FakeServer::ok_response(kSeven, "Set-Cookie: session=42\r\nX-Rate-Left: 99\r\n"));
  Client client(server.url());
  HttpHead head;
  CallOptions options;
  options.response_head = &head;
  auto r = client.call("x", {}, options);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.reason, "OK");
  EXPECT_EQ(head.field("Set-Cookie"), "session=42");
  EXPECT_EQ(head.field("x-rate-left"), "99");
  ASSERT_GE(head.fields.size(), 4u);  // Content-Type, Content-Length and ours, in order
  EXPECT_EQ(head.fields[0].first, "Content-Type");

  // Asynchronous: filled before the future is ready.
  HttpHead async_head;
  CallOptions async_options;
  async_options.response_head = &async_head;
  ASSERT_TRUE(client.async_call("x", {}, async_options).get());
  EXPECT_EQ(async_head.status, 200);
  EXPECT_EQ(async_head.field("X-Rate-Left"), "99");

  // A failed status fills it too.
  FakeServer missing =
      answering("HTTP/1.1 404 Not Found\r\nX-Trace: abc\r\nContent-Length: 0\r\n\r\n");
  EXPECT_FALSE(Client(missing.url()).call("x", {}, options));
  EXPECT_EQ(head.status, 404);
  EXPECT_EQ(head.field("X-Trace"), "abc");

  // No answer at all: cleared, not left as the last call's.
  uint16_t port;
  {
    FakeServer gone([](int) {}, false);
    port = static_cast<uint16_t>(std::stoi(gone.url().substr(17)));
  }
  auto refused =
      Client("http://127.0.0.1:" + std::to_string(port) + "/RPC2").call("x", {}, options);
  EXPECT_EQ(refused.error().code, Errc::ConnectFailed);
  EXPECT_EQ(head.status, 0);
  EXPECT_TRUE(head.fields.empty());
}

TEST(Cancel, ASynchronousCallFromAnotherThread) {
  {  // The calling thread's waker is made at its first cancellable call, and kept.
    FakeServer server = answering(FakeServer::ok_response(kSeven));
    std::stop_source unused;
    CallOptions options;
    options.cancel = unused.get_token();
    ASSERT_TRUE(Client(server.url()).call("x", {}, options));
  }
  int fds = testing::open_fds();
  {
    std::atomic<int> closed{0};
    FakeServer server = silent(&closed);
    ClientOptions o;
    o.timeout = 20s;
    Client client(server.url(), o);
    std::stop_source stop;
    CallOptions options;
    options.cancel = stop.get_token();
    std::thread canceller([&] {
      std::this_thread::sleep_for(200ms);
      stop.request_stop();
    });
    auto start = Clock::now();
    auto r = client.call("x", {}, options);
    auto took = Clock::now() - start;
    canceller.join();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::Cancelled) << r.error().message;
    EXPECT_GE(took, 150ms);
    EXPECT_LT(took, 5s);  // long before the 20 s deadline
    // Its connection is closed, and the server sees it.
    auto wait_until = Clock::now() + 5s;
    while (closed.load() == 0 && Clock::now() < wait_until) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(closed.load(), 1);

    // A token stopped already: nothing is sent, not even a connection opened.
    int accepts = server.accepts();
    EXPECT_EQ(client.call("x", {}, options).error().code, Errc::Cancelled);
    EXPECT_EQ(server.accepts(), accepts);
  }
  EXPECT_EQ(testing::open_fds(), fds);
}

// xmlrpc-c's interrupt pattern: a flag that a signal handler sets ends a waiting call, even
// when the signal went to another thread (here: set from another thread, with no signal to
// wake the caller at all), and stops the calls after it until cleared.
TEST(Interrupt, AFlagEndsAWaitingCallAndTheCallsAfterIt) {
  std::atomic<int> closed{0};
  FakeServer server = silent(&closed);
  static volatile std::sig_atomic_t flag = 0;
  flag = 0;
  ClientOptions o;
  o.timeout = 20s;
  o.interrupt = &flag;
  Client client(server.url(), o);
  std::thread interrupter([] {
    std::this_thread::sleep_for(200ms);
    flag = 1;
  });
  auto start = Clock::now();
  auto r = client.call("x");
  auto took = Clock::now() - start;
  interrupter.join();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Cancelled);
  EXPECT_EQ(r.error().message, "the call was interrupted");
  EXPECT_GE(took, 150ms);
  EXPECT_LT(took, 2s);  // within a slice or so of the flag, long before the 20 s deadline
  // While it is set, a call fails at once, sending nothing.
  int accepts = server.accepts();
  start = Clock::now();
  EXPECT_EQ(client.call("x").error().code, Errc::Cancelled);
  EXPECT_LT(Clock::now() - start, 100ms);
  EXPECT_EQ(server.accepts(), accepts);
  // Cleared, calls go on; set_interrupt(nullptr) removes it.
  flag = 0;
  FakeServer good = answering(FakeServer::ok_response(kSeven));
  Client other(good.url(), o);
  EXPECT_TRUE(other.call("x"));
  flag = 1;
  other.set_interrupt(nullptr);
  EXPECT_TRUE(other.call("x"));
  other.set_interrupt(&flag);
  EXPECT_EQ(other.call("x").error().code, Errc::Cancelled);
}

// xmlrpc-c's event_loop_finish_timeout: wait_async returns once every asynchronous call has
// ended, says Timeout while some are still in flight, and stops at the interrupt flag; with
// host_loop it runs the calls itself.
TEST(WaitAsync, FinishesWhatIsInFlightWithinATimeout) {
  ServerOptions so;
  so.listen = {"127.0.0.1:0"};
  so.threads = 1;
  so.handler_threads = 4;  // the calls sleep at once, side by side
  Server slow(so);
  ASSERT_TRUE(slow.bind("x", [] {
    std::this_thread::sleep_for(150ms);
    return 7;
  }));
  ASSERT_TRUE(slow.start());
  for (bool host_loop : {false, true}) {
    SCOPED_TRACE(host_loop ? "host loop" : "I/O thread");
    static volatile std::sig_atomic_t flag = 0;
    flag = 0;
    ClientOptions o;
    o.host_loop = host_loop;
    o.interrupt = &flag;
    Client client(slow.url(), o);
    EXPECT_TRUE(client.wait_async(0ms));  // nothing in flight
    std::atomic<int> ended{0};
    for (int i = 0; i < 3; ++i)
      client.async_call("x", {}, [&](Result<Value> r) {
        EXPECT_TRUE(r) << r.error().message;
        ++ended;
      });
    Status early = client.wait_async(20ms);
    ASSERT_FALSE(early);
    EXPECT_EQ(early.error().code, Errc::Timeout);
    Status done = client.wait_async(10s);
    EXPECT_TRUE(done) << done.error().message;
    EXPECT_EQ(ended.load(), 3);

    client.async_call("x", {}, [&](Result<Value>) { ++ended; });
    flag = 1;
    auto start = Clock::now();
    Status interrupted = client.wait_async(10s);
    ASSERT_FALSE(interrupted);
    EXPECT_EQ(interrupted.error().code, Errc::Cancelled);
    EXPECT_LT(Clock::now() - start, 1s);
    flag = 0;
    EXPECT_TRUE(client.wait_async(10s));
    EXPECT_EQ(ended.load(), 4);
  }
}

TEST(Cancel, ACallThatEndedIsNotTouchedAndOthersGoOn) {
  FakeServer server = answering(FakeServer::ok_response(kSeven));
  Client client(server.url());
  std::stop_source stop;
  CallOptions options;
  options.cancel = stop.get_token();
  for (int i = 0; i < 3; ++i) {  // a cancellable call works like any other
    auto r = client.call<int>("x");
    ASSERT_TRUE(r);
    auto c = client.call("x", {}, options);
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->as_int(), 7);
  }
  stop.request_stop();  // after the calls: nothing to end
  EXPECT_EQ(client.call<int>("x").value(), 7);
}

TEST(Cancel, AnAsynchronousCallInFlightAndOneWaitingForAConnection) {
  std::atomic<int> received{0};
  FakeServer server = silent(nullptr, &received);
  ClientOptions o;
  o.timeout = 20s;
  o.max_connections = 1;  // the second call waits for the first's connection
  Client client(server.url(), o);
  std::stop_source first_stop, second_stop;
  CallOptions first, second;
  first.cancel = first_stop.get_token();
  second.cancel = second_stop.get_token();
  auto in_flight = client.async_call("x", {}, first);
  auto waiting = client.async_call("y", {}, second);
  wait_until_count(received, 1);  // the first is in flight, so the second waits for its connection

  auto start = Clock::now();
  second_stop.request_stop();
  ASSERT_EQ(waiting.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(waiting.get().error().code, Errc::Cancelled);
  EXPECT_LT(Clock::now() - start, 2s);  // not at a sweep seconds later
  EXPECT_EQ(in_flight.wait_for(100ms), std::future_status::timeout);  // untouched

  first_stop.request_stop();
  ASSERT_EQ(in_flight.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(in_flight.get().error().code, Errc::Cancelled);

  // A callback-style call with a token stopped already ends through its callback.
  std::promise<Errc> code;
  client.async_call(
      "z", {}, [&](Result<Value> r) { code.set_value(r ? Errc::Ok : r.error().code); }, first);
  auto ended = code.get_future();
  ASSERT_EQ(ended.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(ended.get(), Errc::Cancelled);
}

// Pipelined calls on one packet-stream connection: a cancelled one keeps its place in line
// (its answer, when it comes, is dropped) and the others still get their own answers.
TEST(Cancel, APipelinedCallKeepsItsPlaceInLine) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> received{0};  // the server's count of the requests it has read
  FakeServer server([released, &received](int fd) {
    std::string in;
    char buf[4096];
    // Three requests, then (once released) three answers in order: 1, 2, 3.
    size_t packets = 0;
    while (packets < 3) {
      if (!testing::wait_readable(fd, 5000)) return;
      ssize_t n = testing::receive_some(fd, buf, sizeof buf);
      if (n <= 0) return;
      in.append(buf, size_t(n));
      packets = 0;
      for (size_t at = in.find("\x1b"
                               "END");
           at != std::string::npos; at = in.find("\x1b"
                                                 "END",
                                                 at + 1))
        ++packets;
      received = int(packets);
    }
    released.wait_for(10s);
    for (int i = 1; i <= 3; ++i) {
      std::string xml = "<?xml version=\"1.0\"?><methodResponse><params><param><value><int>" +
                        std::to_string(i) + "</int></value></param></params></methodResponse>";
      FakeServer::send_all(fd,
                           "\x1b"
                           "PKT" +
                               xml +
                               "\x1b"
                               "END");
    }
    FakeServer::read_request(fd);  // until the client closes
  });
  std::string url = server.url();
  ClientOptions o;
  o.pipeline_depth = 8;
  o.max_connections = 1;
  o.timeout = 20s;
  Client client("pstream://" + url.substr(7, url.rfind('/') - 7), o);
  std::stop_source stop;
  CallOptions cancellable;
  cancellable.cancel = stop.get_token();
  HttpHead head;
  head.status = 99;
  CallOptions with_head;
  with_head.response_head = &head;
  auto one = client.async_call("a", {}, with_head);
  auto two = client.async_call("b", {}, cancellable);
  auto three = client.async_call("c", {});
  wait_until_count(received, 3);  // all three in line on the connection
  stop.request_stop();
  ASSERT_EQ(two.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(two.get().error().code, Errc::Cancelled);
  release.set_value();
  auto r1 = one.get();
  auto r3 = three.get();
  ASSERT_TRUE(r1) << r1.error().message;
  ASSERT_TRUE(r3) << r3.error().message;
  EXPECT_EQ(r1->as_int(), 1);
  EXPECT_EQ(r3->as_int(), 3);  // not 2: the cancelled call's answer went nowhere
  EXPECT_EQ(head.status, 0);   // a packet stream has no HTTP head
}

// A resolver for "slow.test" that takes `delay` (the first `slow_lookups` times) and then
// answers 127.0.0.1:`port`; reset when it goes out of scope.
class SlowResolver {
 public:
  SlowResolver(uint16_t port, std::chrono::milliseconds delay, int slow_lookups = 1000)
      : state_(std::make_shared<State>()) {
    state_->slow_left = slow_lookups;
    net::set_resolver_for_testing(
        [state = state_, port,
         delay](const net::Endpoint& e) -> Result<std::vector<net::SocketAddress>> {
          ++state->lookups;
          if (state->slow_left.fetch_sub(1) > 0) std::this_thread::sleep_for(delay);
          if (e.host != "slow.test") return Error(Errc::InvalidArgument, "no such name");
          net::Endpoint local;
          local.host = "127.0.0.1";
          local.port = port;
          return net::resolve(local);
        });
  }
  ~SlowResolver() { net::set_resolver_for_testing(nullptr); }
  int lookups() const { return state_->lookups.load(); }

 private:
  struct State {
    std::atomic<int> lookups{0};
    std::atomic<int> slow_left{0};
  };
  std::shared_ptr<State> state_;
};

uint16_t port_of(const FakeServer& s) {
  return static_cast<uint16_t>(std::stoi(s.url().substr(17)));
}

TEST(NameLookup, CountsInsideTheDeadlineAndCanBeCancelled) {
  FakeServer server = answering(FakeServer::ok_response(kSeven));
  SlowResolver resolver(port_of(server), 3s);
  ClientOptions o;
  o.timeout = 300ms;
  Client client("http://slow.test:" + std::to_string(port_of(server)) + "/RPC2", o);
  auto start = Clock::now();
  auto r = client.call("x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Timeout) << r.error().message;
  EXPECT_LT(Clock::now() - start, 2s);  // not the resolver's 3 s

  std::stop_source stop;
  CallOptions options;
  options.timeout = 20s;
  options.cancel = stop.get_token();
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    stop.request_stop();
  });
  start = Clock::now();
  r = client.call("x", {}, options);
  canceller.join();
  EXPECT_EQ(r.error().code, Errc::Cancelled) << r.error().message;
  EXPECT_LT(Clock::now() - start, 2s);

  // The pipelined path resolves on the caller's thread, within the call's deadline too.
  ClientOptions piped = o;
  piped.pipeline_depth = 4;
  Client pstream("pstream://slow.test:" + std::to_string(port_of(server)), piped);
  start = Clock::now();
  auto p = pstream.async_call("x", {}).get();
  EXPECT_EQ(p.error().code, Errc::Timeout) << p.error().message;
  EXPECT_LT(Clock::now() - start, 2s);
}

TEST(NameLookup, NeverHoldsTheIoThreadOrTheCaller) {
  FakeServer server([](int fd) {  // one answer per connection: the next one is not held up
    FakeServer::read_request(fd);
    FakeServer::send_all(fd, FakeServer::ok_response(kSeven, "Connection: close\r\n"));
  });
  SlowResolver resolver(port_of(server), 1500ms, 1);  // only the first lookup is slow
  ClientOptions o;
  o.timeout = 10s;
  o.max_connections = 2;
  Client client("http://slow.test:" + std::to_string(port_of(server)) + "/RPC2", o);
  auto start = Clock::now();
  auto slow = client.async_call("x", {});
  EXPECT_LT(Clock::now() - start, 500ms);  // async_call returned at once
  std::this_thread::sleep_for(50ms);
  auto quick = client.async_call("x", {});
  ASSERT_EQ(quick.wait_for(1s), std::future_status::ready);  // while the first still looks up
  auto q = quick.get();
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(slow.wait_for(0ms), std::future_status::timeout);
  auto s = slow.get();
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_GE(Clock::now() - start, 1400ms);
  EXPECT_EQ(resolver.lookups(), 2);

  // A name that does not resolve is ConnectFailed naming it.
  Client nowhere("http://nowhere.test:1/RPC2", o);
  auto n = nowhere.call("x");
  EXPECT_EQ(n.error().code, Errc::ConnectFailed);
  EXPECT_NE(n.error().message.find("no such name"), std::string::npos) << n.error().message;
  EXPECT_EQ(nowhere.async_call("x", {}).get().error().code, Errc::ConnectFailed);
}

}  // namespace
}  // namespace callwire
