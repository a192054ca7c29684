// call<R>'s arguments, written straight into the request with Convert<T>::write (no Value
// between, so a blob is encoded from the caller's bytes): the request is the one the Value
// call sends, byte for byte, in XML-RPC and JSON-RPC; to_value is never used for a type that
// has write; and an argument that cannot be written fails the call before anything is sent.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "callwire/client.hpp"
#include "fake_server.hpp"

namespace callwire {
namespace {

// A type whose Convert counts how often each way of writing it is used.
struct Counted {
  int n = 0;
};
int g_to_value_calls = 0;

}  // namespace

template <>
struct Convert<Counted> {
  static constexpr std::string_view type_name = "int";
  static Value to_value(const Counted& c) {
    ++g_to_value_calls;
    return Value(c.n);
  }
  static void write(ValueWriter& w, const Counted& c) { w.int32(c.n); }
  static Result<Counted> from_value(const Value& v) {
    if (!v.is_int()) return Error(Errc::TypeMismatch, "must be int");
    return Counted{v.as_int()};
  }
};

namespace {

// Answers every request with `answer` (XML-RPC or JSON-RPC by the request's body) and keeps
// the request bodies it was sent.
class Recorder {
 public:
  Recorder()
      : server_([this](int fd) {
          for (;;) {
            std::string request = FakeServer::read_request(fd);
            if (request.empty()) return;
            std::string body = request.substr(request.find("\r\n\r\n") + 4);
            const bool json = !body.empty() && body[0] == '{';
            {
              std::lock_guard lock(mutex_);
              bodies_.push_back(body);
            }
            std::string answer =
                json ? R"({"jsonrpc":"2.0","result":7,"id":)" + json_id(body) + "}"
                     : "<?xml version=\"1.0\"?><methodResponse><params><param><value><int>7"
                       "</int></value></param></params></methodResponse>";
            FakeServer::send_all(fd, FakeServer::ok_response(answer));
          }
        }) {}
  std::string url() const { return server_.url(); }
  std::vector<std::string> bodies() {
    std::lock_guard lock(mutex_);
    return bodies_;
  }
  int accepts() const { return server_.accepts(); }

  // A JSON-RPC request's id, as written.
  static std::string json_id(const std::string& body) {
    size_t at = body.rfind("\"id\":");
    return at == std::string::npos ? "null" : body.substr(at + 5, body.size() - at - 6);
  }
  // The body without its id, which differs from call to call.
  static std::string without_id(const std::string& body) {
    size_t at = body.rfind(",\"id\":");
    return at == std::string::npos ? body : body.substr(0, at);
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> bodies_;
  FakeServer server_;
};

// The same call both ways: typed (written straight) and as Values (to_value first).
template <class... Args>
void expect_same_request(Client& client, Recorder& recorder, const Args&... args) {
  Result<int> typed = client.call<int>("m.call", args...);
  ASSERT_TRUE(typed) << typed.error().message;
  EXPECT_EQ(*typed, 7);
  std::vector<Value> values{Value(Convert<detail::ArgType<Args>>::to_value(args))...};
  Result<Value> untyped = client.call("m.call", values);
  ASSERT_TRUE(untyped) << untyped.error().message;
  std::vector<std::string> bodies = recorder.bodies();
  ASSERT_GE(bodies.size(), 2u);
  EXPECT_EQ(Recorder::without_id(bodies[bodies.size() - 2]),
            Recorder::without_id(bodies[bodies.size() - 1]));
}

void expect_same_requests(const std::string& scheme) {
  Recorder recorder;
  Client client(scheme + recorder.url());
  const std::vector<uint8_t> blob{0, 1, 2, 250, 251, 252, 253};
  expect_same_request(client, recorder);
  expect_same_request(client, recorder, 1, int64_t{1} << 40, true, 2.5);
  expect_same_request(client, recorder, "a literal <&> \r\n", std::string("é ü"),
                      std::string_view("view"));
  expect_same_request(client, recorder, blob, std::span<const uint8_t>(blob));
  expect_same_request(client, recorder, std::vector<int>{1, 2, 3},
                      std::map<std::string, std::vector<std::string>>{{"k", {"v", "w"}}, {"e", {}}},
                      std::optional<int>(), std::vector<std::vector<int>>{{}, {4}});
  expect_same_request(client, recorder, Value::structure({{"x", Value::array({1, "two"})}}),
                      DateTime{2026, 12, 3, 13, 5, 0});
}

TEST(TypedArgs, AreTheBytesTheValueCallSendsInXmlRpc) { expect_same_requests(""); }

TEST(TypedArgs, AreTheBytesTheValueCallSendsInJsonRpc) { expect_same_requests("jsonrpc+"); }

TEST(TypedArgs, AreWrittenWithoutToValue) {
  Recorder recorder;
  Client client(recorder.url());
  g_to_value_calls = 0;
  ASSERT_TRUE(client.call<int>("m.call", Counted{5}, std::vector<Counted>{{6}, {7}}));
  EXPECT_EQ(g_to_value_calls, 0);
  std::vector<std::string> bodies = recorder.bodies();
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_NE(bodies[0].find("<param><value><int>5</int></value></param>"), std::string::npos)
      << bodies[0];
  EXPECT_NE(bodies[0].find("<data><value><int>6</int></value><value><int>7</int></value></data>"),
            std::string::npos)
      << bodies[0];
}

TEST(TypedArgs, AnArgumentThatCannotBeWrittenFailsBeforeAnythingIsSent) {
  for (std::string scheme : {"", "jsonrpc+"}) {
    Recorder recorder;
    Client client(scheme + recorder.url());
    Result<int> too_large = client.call<int>("m.call", 1, std::numeric_limits<uint64_t>::max());
    ASSERT_FALSE(too_large);
    EXPECT_EQ(too_large.error().code, Errc::Unrepresentable) << too_large.error().message;
    // Not UTF-8: refused the way the Value call refuses it.
    Result<int> typed = client.call<int>("m.call", std::string("\xff\xfe"));
    Result<Value> untyped = client.call("m.call", {Value(std::string("\xff\xfe"))});
    ASSERT_FALSE(typed);
    ASSERT_FALSE(untyped);
    EXPECT_EQ(typed.error().code, untyped.error().code);
    EXPECT_EQ(typed.error().message, untyped.error().message);
    if (scheme.empty()) {
      Result<int> unnamed = client.call<int>("", 1);
      ASSERT_FALSE(unnamed);
      EXPECT_NE(unnamed.error().message.find("empty method name"), std::string::npos)
          << unnamed.error().message;
    }
    EXPECT_TRUE(recorder.bodies().empty()) << recorder.bodies()[0];
    // The client is none the worse: the next call goes through.
    Result<int> next = client.call<int>("m.call", 1);
    ASSERT_TRUE(next) << next.error().message;
    EXPECT_EQ(*next, 7);
  }
}

}  // namespace
}  // namespace callwire
