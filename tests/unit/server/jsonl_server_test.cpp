// Newline-delimited JSON-RPC listeners (jsonl://, jsonl+unix:) end to end in raw bytes: a line
// per request and per answer, none for notifications, batches, errors that keep the stream in
// step, blank lines and CRLF, lines split anywhere, a line over the limit told and closed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "callwire/server.hpp"
#include "http_test_util.hpp"

namespace callwire {
namespace {

using testing::RawSocket;

struct JsonlServer {
  explicit JsonlServer(ServerOptions o) : server(std::move(o)) {
    EXPECT_TRUE(server.registry().bind("add", {"a", "b"}, [](int a, int b) { return a + b; }));
    Status s = server.start();
    EXPECT_TRUE(s) << s.error().message;
  }
  static ServerOptions options(unsigned handler_threads = 0) {
    ServerOptions o;
    o.listen = {"jsonl://127.0.0.1:0"};
    o.threads = 1;
    o.handler_threads = handler_threads;
    return o;
  }
  Server server;
};

std::string read_lines(RawSocket& s, size_t count) {
  return s.read_until([count](const std::string& got) {
    return size_t(std::count(got.begin(), got.end(), '\n')) >= count;
  });
}

TEST(JsonlServer, ALinePerRequestAndPerAnswer) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    JsonlServer t(JsonlServer::options(workers));
    EXPECT_EQ(t.server.url(0), "jsonl://127.0.0.1:" + std::to_string(t.server.port(0)));
    RawSocket s(t.server.port(0));
    ASSERT_TRUE(s.connected());
    std::string lines = R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":1})"
                        "\n"
                        R"({"jsonrpc":"2.0","method":"add","params":[5,5]})"
                        "\n"        // a notification: no line
                        "\n  \r\n"  // blank lines: ignored
                        R"({"jsonrpc":"2.0","method":"add","params":{"b":2,"a":40},"id":"x"})"
                        "\r\n"
                        R"({"jsonrpc": oops)"
                        "\n"
                        R"([{"jsonrpc":"2.0","method":"add","params":[1,1],"id":7},)"
                        R"({"jsonrpc":"2.0","method":"nope","id":8}])"
                        "\n";
    // Split anywhere: a byte at a time for the first half.
    size_t half = lines.size() / 2;
    for (size_t i = 0; i < half; ++i) ASSERT_TRUE(s.send(lines.substr(i, 1)));
    ASSERT_TRUE(s.send(lines.substr(half)));
    std::string got = read_lines(s, 4);
    ASSERT_NE(got.find(R"("data")"), std::string::npos) << got;
    EXPECT_EQ(got,
              R"({"jsonrpc":"2.0","result":3,"id":1})"
              "\n"
              R"({"jsonrpc":"2.0","result":42,"id":"x"})"
              "\n"
              R"({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error",)" +
                  got.substr(got.find(R"("data")"),
                             got.find("\n", got.find(R"("data")")) - got.find(R"("data")")) +
                  "\n"
                  R"([{"jsonrpc":"2.0","result":2,"id":7},{"jsonrpc":"2.0","error":{"code":-32601,)"
                  R"("message":"unknown method 'nope'"},"id":8}])"
                  "\n");
    EXPECT_FALSE(s.closed());
  }
}

TEST(JsonlServer, ALineOverTheLimitIsToldAndClosed) {
  ServerOptions o = JsonlServer::options();
  o.max_body = 1024;
  JsonlServer t(o);
  RawSocket big(t.server.port(0));
  ASSERT_TRUE(big.send(std::string(2000, ' ')));
  std::string said = big.read_all();
  EXPECT_TRUE(big.closed());
  EXPECT_NE(said.find(R"("code":-32600)"), std::string::npos) << said;
  EXPECT_NE(said.find("limit of 1024 bytes (max_body)"), std::string::npos) << said;
  EXPECT_TRUE(said.ends_with("}\n")) << said;

  RawSocket other(t.server.port(0));
  ASSERT_TRUE(other.send(R"({"jsonrpc":"2.0","method":"add","params":[2,2],"id":1})"
                         "\n"));
  EXPECT_EQ(read_lines(other, 1), R"({"jsonrpc":"2.0","result":4,"id":1})"
                                  "\n");
}

TEST(JsonlServer, UnixSocketsAndNoCredentials) {
  if (!net::sys::kHasUnixSockets) GTEST_SKIP() << testing::kNoUnixSockets;
  ServerOptions o;
  o.listen = {"jsonl+unix:/tmp/callwire-jsonl-test-" + std::to_string(::getpid())};
  JsonlServer t(o);
  EXPECT_EQ(t.server.url(0), o.listen[0]);
  RawSocket s(o.listen[0].substr(11));
  ASSERT_TRUE(s.send(R"({"jsonrpc":"2.0","method":"add","params":[3,4],"id":2})"
                     "\n"));
  EXPECT_EQ(read_lines(s, 1), R"({"jsonrpc":"2.0","result":7,"id":2})"
                              "\n");

  ServerOptions with_auth = JsonlServer::options();
  with_auth.authenticate = [](std::string_view, std::string_view) { return true; };
  Server refused(with_auth);
  EXPECT_FALSE(refused.start());
}

}  // namespace
}  // namespace callwire
