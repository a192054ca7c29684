// One client over several servers (Client::create_group): calls spread round-robin, a server
// that fails is skipped for its backoff, and a call moves on to another server only when it
// cannot have reached one, or when its method may run twice.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "fake_server.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

// A callwire server whose "who" answers its number and counts the calls it served.
struct Backend {
  explicit Backend(int number) : served(std::make_shared<std::atomic<int>>(0)) {
    ServerOptions o;
    o.listen = {"127.0.0.1:0"};
    o.threads = 1;
    server = std::make_unique<Server>(o);
    auto count = served;
    EXPECT_TRUE(server->bind("who", [count, number] {
      ++*count;
      return number;
    }));
    EXPECT_TRUE(server->bind("fault", []() -> Result<int> { return Error(Errc::Fault, 7, "no"); }));
    EXPECT_TRUE(server->start());
    url = server->url();
  }
  std::shared_ptr<std::atomic<int>> served;
  std::unique_ptr<Server> server;
  std::string url;
};

// A port nobody listens on.
std::string refused_url() {
  std::string url;
  {
    FakeServer closed([](int) {}, false);
    url = closed.url();
  }
  return url;
}

// Answers every request with `answer` and counts the connections.
FakeServer answering(std::string answer) {
  return FakeServer([answer = std::move(answer)](int fd) {
    if (!FakeServer::read_request(fd).empty()) FakeServer::send_all(fd, answer);
  });
}

const std::string kUnavailable =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

TEST(Failover, CallsGoRoundRobin) {
  Backend a(1), b(2), c(3);
  std::vector<std::string> urls = {a.url, b.url, c.url};
  Client group = Client::create_group(urls).value();
  EXPECT_EQ(group.url(), a.url + ", " + b.url + ", " + c.url);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(group.call<int>("who"));
  EXPECT_EQ(a.served->load(), 10);
  EXPECT_EQ(b.served->load(), 10);
  EXPECT_EQ(c.served->load(), 10);
  // Typed, asynchronous and batch calls go through it too.
  std::vector<std::future<Result<int>>> futures;
  for (int i = 0; i < 6; ++i) futures.push_back(group.async_call<int>("who"));
  for (auto& f : futures) EXPECT_TRUE(f.get());
  auto batch = group.batch().call("who").call("who").send();
  ASSERT_TRUE(batch) << batch.error().message;
  EXPECT_EQ(batch->size(), 2u);
  EXPECT_EQ(a.served->load() + b.served->load() + c.served->load(), 38);
}

TEST(Failover, AServerThatIsGoneCostsNoCall) {
  Backend a(1), c(3);
  std::vector<std::string> urls = {a.url, refused_url(), c.url};
  Client group = Client::create_group(urls).value();
  for (int i = 0; i < 30; ++i) {
    auto r = group.call<int>("who");
    ASSERT_TRUE(r) << r.error().message;
  }
  EXPECT_EQ(a.served->load() + c.served->load(), 30);
  // Asynchronous calls move on the same way.
  std::vector<std::future<Result<Value>>> futures;
  for (int i = 0; i < 9; ++i) futures.push_back(group.async_call("who", {}));
  for (auto& f : futures) {
    auto r = f.get();
    EXPECT_TRUE(r) << r.error().message;
  }
}

TEST(Failover, AFailedServerIsSkippedForItsBackoff) {
  Backend good(1);
  FakeServer busy = answering(kUnavailable);
  std::vector<std::string> urls = {busy.url(), good.url};
  FailoverOptions f;
  f.backoff = 300ms;
  Client group = Client::create_group(urls, {}, f).value();
  for (int i = 0; i < 20; ++i) {
    auto r = group.call<int>("who");  // a 503 did not take the call: it goes to the other
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, 1);
  }
  EXPECT_EQ(busy.accepts(), 1);  // tried once, then skipped
  std::this_thread::sleep_for(400ms);
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(group.call<int>("who"));
  EXPECT_EQ(busy.accepts(), 2);  // back in the rotation after its backoff, and skipped again
}

TEST(Failover, OnlyIdempotentMethodsAreSentTwice) {
  Backend good(1);
  // Reads the request, then closes without answering: the server may have run it.
  FakeServer dropping([](int fd) { FakeServer::read_request(fd); });
  std::vector<std::string> urls = {dropping.url(), good.url};
  {
    Client group = Client::create_group(urls).value();
    auto r = group.call<int>("who");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::ConnectionClosed) << r.error().message;
    EXPECT_EQ(good.served->load(), 0);
  }
  FailoverOptions f;
  f.idempotent_methods = {"who"};
  Client group = Client::create_group(urls, {}, f).value();
  auto r = group.call<int>("who");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(good.served->load(), 1);
  auto async = group.async_call<int>("who").get();  // first the good one, in turn
  EXPECT_TRUE(async) << async.error().message;
}

TEST(Failover, AnAnswerIsNeverSentElsewhere) {
  Backend a(1), b(2);
  std::vector<std::string> urls = {a.url, b.url};
  FailoverOptions f;
  f.all_idempotent = true;
  Client group = Client::create_group(urls, {}, f).value();
  auto r = group.call<int>("fault");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Fault);
  EXPECT_EQ(r.error().fault_code, 7);
  auto missing = group.call<int>("nonesuch");
  EXPECT_EQ(missing.error().fault_code, fault_code::kMethodNotFound);
}

TEST(Failover, WhenEveryServerFailsTheErrorNamesEach) {
  std::string first = refused_url(), second = refused_url();
  std::vector<std::string> urls = {first, second};
  Client group = Client::create_group(urls).value();
  auto r = group.call("who");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::ConnectFailed);
  EXPECT_NE(r.error().message.find("no server answered"), std::string::npos);
  EXPECT_NE(r.error().message.find(first), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(second), std::string::npos) << r.error().message;
  auto async = group.async_call("who", {}).get();
  EXPECT_EQ(async.error().code, Errc::ConnectFailed);
  EXPECT_NE(async.error().message.find(second), std::string::npos) << async.error().message;

  EXPECT_EQ(Client::create_group({}).error().code, Errc::InvalidArgument);
  std::vector<std::string> bad = {first, "ftp://nowhere"};
  auto made = Client::create_group(bad);
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message.find("ftp://nowhere"), std::string::npos);
}

// Destroying the client while asynchronous calls move from server to server: each ends, and
// nothing runs on a member that is gone (TSan and ASan watch this one).
TEST(Failover, DestroyedWithCallsInFlight) {
  Backend good(1);
  std::vector<std::string> urls = {refused_url(), good.url, refused_url()};
  std::atomic<int> ended{0};
  {
    Client group = Client::create_group(urls).value();
    for (int i = 0; i < 50; ++i) group.async_call("who", {}, [&](Result<Value>) { ++ended; });
  }
  EXPECT_EQ(ended.load(), 50);
}

}  // namespace
}  // namespace callwire
