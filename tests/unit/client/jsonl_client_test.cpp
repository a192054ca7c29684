// The client over newline-delimited JSON-RPC (jsonl://, jsonl+unix:): against callwire's own
// jsonl listener (calls, typed calls, batches, notifications that get no line, errors, async
// calls) and against raw-socket servers that answer in odd but lawful ways (blank lines, CRLF,
// a last line without its newline) or wrongly (a line too long, a close before the answer, a
// stray line after a notification).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "fake_server.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

struct LinesServer {
  explicit LinesServer(std::string listen) {
    ServerOptions o;
    o.listen = {std::move(listen)};
    o.threads = 1;
    server = std::make_unique<Server>(o);
    EXPECT_TRUE(server->bind("add", {"a", "b"}, [](int a, int b) { return a + b; }));
    EXPECT_TRUE(server->bind("echo", [](std::string s) { return s; }));
    EXPECT_TRUE(server->bind("count", [this] { return ++counted; }));
    EXPECT_TRUE(server->bind("seen", [this] { return counted.load(); }));
    Status s = server->start();
    EXPECT_TRUE(s) << s.error().message;
  }
  std::unique_ptr<Server> server;
  std::atomic<int> counted{0};
};

TEST(JsonLinesClient, CallsBatchesAndNotificationsAgainstCallwire) {
  const std::string socket_path = "/tmp/callwire-jsonl-client-" + std::to_string(::getpid());
  std::vector<std::string> listeners = {"jsonl://127.0.0.1:0"};
  if (net::sys::kHasUnixSockets) listeners.push_back("jsonl+unix:" + socket_path);
  for (const std::string& listen : listeners) {
    SCOPED_TRACE(listen);
    LinesServer s(listen);
    Result<Client> made = Client::create(s.server->url(0));
    ASSERT_TRUE(made) << made.error().message;
    Client& client = *made;
    EXPECT_EQ(client.call<int>("add", 2, 3).value(), 5);
    EXPECT_EQ(client.call("add", {Value(40), Value(2)}).value(), Value(42));
    // A string with a newline in it travels escaped: the line stays one line.
    EXPECT_EQ(client.call<std::string>("echo", std::string("two\nlines")).value(), "two\nlines");
    Result<int> named = client.call_named<int>("add", Value::structure({{"b", 1}, {"a", 9}}));
    EXPECT_EQ(named.value(), 10);
    Result<int> missing = client.call<int>("nope");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().fault_code, -32601);

    // A notification gets no line: the call ends once it is sent, and the connection goes on.
    ASSERT_TRUE(client.notify("count"));
    ASSERT_TRUE(client.notify("count"));
    EXPECT_EQ(client.call<int>("seen").value(), 2);
    // A batch of notifications only: nothing comes back either.
    auto quiet = client.batch().notify("count").notify("count").send();
    ASSERT_TRUE(quiet) << quiet.error().message;
    EXPECT_TRUE(quiet->empty());
    auto mixed = client.batch().call("add", {1, 1}).notify("count").call("seen").send();
    ASSERT_TRUE(mixed) << mixed.error().message;
    ASSERT_EQ(mixed->size(), 2u);
    EXPECT_EQ((*mixed)[0].value(), Value(2));
    EXPECT_EQ((*mixed)[1].value(), Value(5));

    std::vector<std::future<Result<int>>> pending;
    for (int i = 0; i < 20; ++i) pending.push_back(client.async_call<int>("add", i, i));
    for (int i = 0; i < 20; ++i) EXPECT_EQ(pending[size_t(i)].get().value(), 2 * i);
    EXPECT_GE(client.probe(), 1u);  // a blank line, which the server skips
    EXPECT_EQ(client.call<int>("add", 1, 2).value(), 3);
  }
}

TEST(JsonLinesClient, RefusesWhatALineCannotCarry) {
  ClientOptions headers;
  headers.headers = {{"X-Trace", "1"}};
  EXPECT_EQ(Client::create("jsonl://127.0.0.1:1", headers).error().code, Errc::InvalidArgument);
  ClientOptions user;
  user.user = "u";
  EXPECT_EQ(Client::create("jsonl://127.0.0.1:1", user).error().code, Errc::InvalidArgument);
  ClientOptions timeout;
  timeout.send_timeout = true;
  EXPECT_EQ(Client::create("jsonl://127.0.0.1:1", timeout).error().code, Errc::InvalidArgument);
  ClientOptions piped;
  piped.pipeline_depth = 4;
  EXPECT_EQ(Client::create("jsonl://127.0.0.1:1", piped).error().code, Errc::InvalidArgument);
  // The URL says JSON-RPC, whatever the options say.
  ClientOptions xml;
  xml.protocol = Protocol::XmlRpc;
  Result<Client> json = Client::create("jsonl://127.0.0.1:1", xml);
  ASSERT_TRUE(json) << json.error().message;
  EXPECT_EQ(json->protocol(), Protocol::JsonRpc);
}

// Reads one line (the request) from fd; empty on EOF.
std::string read_line(int fd) {
  std::string got;
  char c;
  while (testing::receive_some(fd, &c, 1) == 1) {
    got.push_back(c);
    if (c == '\n') return got;
  }
  return {};
}

TEST(JsonLinesClient, LawfulOddAnswers) {
  // Blank lines before the answer, CRLF after it, and a last answer without its newline
  // before the close.
  FakeServer fake([](int fd) {
    std::string request = read_line(fd);
    if (request.find(R"("id":)") == std::string::npos) return;
    FakeServer::send_all(fd, "\n  \r\n\n");
    std::string id = request.substr(request.find(R"("id":)") + 5);
    id = id.substr(0, id.find_first_of(",}"));
    FakeServer::send_all(fd, R"({"jsonrpc":"2.0","result":7,"id":)" + id + "}\r\n");
    request = read_line(fd);
    id = request.substr(request.find(R"("id":)") + 5);
    id = id.substr(0, id.find_first_of(",}"));
    FakeServer::send_all(fd, R"({"jsonrpc":"2.0","result":8,"id":)" + id + "}");
  });
  Client client = Client::create("jsonl://127.0.0.1:" + std::to_string(fake.port())).value();
  EXPECT_EQ(client.call<int>("a").value(), 7);
  EXPECT_EQ(client.call<int>("b").value(), 8);
  EXPECT_EQ(fake.accepts(), 1);
}

TEST(JsonLinesClient, WrongAnswersAreErrorsNamingTheFault) {
  {
    // A line longer than max_response_size, never ending.
    FakeServer fake([](int fd) {
      read_line(fd);
      FakeServer::send_all(fd, std::string(64 << 10, 'x'));
    });
    ClientOptions o;
    o.max_response_size = 16 << 10;
    Client client = Client::create("jsonl://127.0.0.1:" + std::to_string(fake.port()), o).value();
    Result<int> r = client.call<int>("a");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::LimitExceeded) << r.error().message;
    EXPECT_NE(r.error().message.find("16384"), std::string::npos) << r.error().message;
  }
  {
    // Closed after a blank line, before the answer.
    FakeServer fake([](int fd) {
      read_line(fd);
      FakeServer::send_all(fd, "\n");
    });
    Client client = Client::create("jsonl://127.0.0.1:" + std::to_string(fake.port())).value();
    Result<int> r = client.call<int>("a");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::ConnectionClosed) << r.error().message;
    EXPECT_NE(r.error().message.find("before the answer"), std::string::npos) << r.error().message;
  }
}

TEST(JsonLinesClient, AStrayLineAfterANotificationIsNotTakenForTheNextAnswer) {
  // This server answers a notification (as it must not), then serves calls on a fresh
  // connection: the client sees the stray line before its next call and goes elsewhere.
  std::atomic<int> notifications{0};
  FakeServer fake([&](int fd) {
    for (;;) {
      std::string request = read_line(fd);
      if (request.empty()) return;
      size_t at = request.find(R"("id":)");
      if (at == std::string::npos) {
        FakeServer::send_all(fd, R"({"jsonrpc":"2.0","result":"stray","id":null})"
                                 "\n");
        ++notifications;  // sent: on loopback, the line is in the client's socket now
        continue;
      }
      std::string id = request.substr(at + 5);
      id = id.substr(0, id.find_first_of(",}"));
      FakeServer::send_all(fd, R"({"jsonrpc":"2.0","result":1,"id":)" + id + "}\n");
    }
  });
  Client client = Client::create("jsonl://127.0.0.1:" + std::to_string(fake.port())).value();
  ASSERT_TRUE(client.notify("log"));
  // Wait for the stray line rather than race it.
  for (int i = 0; i < 1000 && notifications.load() == 0; ++i) std::this_thread::sleep_for(5ms);
  // The fake server serves one connection at a time: the first must end before the second.
  // The client drops the first (it holds a line nobody asked for), so the fake's read ends.
  EXPECT_EQ(client.call<int>("a").value(), 1);
  EXPECT_EQ(fake.accepts(), 2);
}

}  // namespace
}  // namespace callwire
