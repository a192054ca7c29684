// The client speaking JSON-RPC 2.0: against callwire's own server (which answers JSON-RPC by
// Content-Type on the same port), over HTTP, a Unix socket and SCGI; and against raw-socket
// servers that answer wrongly (ids that do not match, batches out of order or short).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/registry.hpp"
#include "callwire/server.hpp"
#include "fake_server.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

// A callwire server with a few methods, on `listen` (port 0).
struct JsonServer {
  explicit JsonServer(std::string listen = "127.0.0.1:0", size_t gzip_min_size = 0) {
    ServerOptions so;
    so.listen = {std::move(listen)};
    so.threads = 2;
    so.gzip_min_size = gzip_min_size;
    server = std::make_unique<Server>(so);
    EXPECT_TRUE(server->bind("add", [](int a, int b) { return a + b; }));
    EXPECT_TRUE(server->bind("echo", [](std::string s) { return s; }));
    EXPECT_TRUE(server->add_method(
        "boom", [](Params, CallContext&) -> Value { throw FaultError(42, "boom"); }));
    EXPECT_TRUE(server->add_method("busy", [](Params, CallContext&) -> Value {
      throw FaultError(-32001, "busy", Value::structure({{"retry_after", 5}}));
    }));
    EXPECT_TRUE(server->bind("blob", [](int n) { return std::vector<uint8_t>(size_t(n), 7); }));
    EXPECT_TRUE(server->bind("epoch_plus", [](int seconds) {
      return std::chrono::sys_seconds(std::chrono::seconds(seconds));
    }));
    EXPECT_TRUE(
        server->add_method("count", [this](Params, CallContext&) { return Value(++counted); }));
    EXPECT_TRUE(server->add_method("same", [](Params p, CallContext&) { return p[0]; }));
    EXPECT_TRUE(
        server->add_method("seen", [this](Params, CallContext&) { return Value(counted.load()); }));
    EXPECT_TRUE(
        server->bind("subtract", {"minuend", "subtrahend"}, [](int a, int b) { return a - b; }));
    // XML-RPC's way of naming arguments: one struct.
    EXPECT_TRUE(server->add_method("keywords", [](Params p, CallContext&) {
      return p.size() == 1 && p[0].is_struct() ? Value(static_cast<int>(p[0].size())) : Value(-1);
    }));
    EXPECT_TRUE(server->start());
  }
  std::string url() const { return server->url(); }
  std::string json_url() const { return "jsonrpc+" + server->url(); }

  std::atomic<int> counted{0};
  std::unique_ptr<Server> server;
};

ClientOptions json_options() {
  ClientOptions o;
  o.protocol = Protocol::JsonRpc;
  o.timeout = 5s;
  return o;
}

TEST(JsonClient, CallsFaultsAndTypedCalls) {
  JsonServer s;
  for (bool by_scheme : {true, false}) {
    SCOPED_TRACE(by_scheme ? "jsonrpc+http://" : "options.protocol");
    Client client = by_scheme ? Client(s.json_url()) : Client(s.url(), json_options());
    EXPECT_EQ(client.protocol(), Protocol::JsonRpc);
    auto r = client.call("add", {Value(2), Value(3)});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, Value(5));
    EXPECT_EQ(client.call<int>("add", 40, 2).value(), 42);
    EXPECT_EQ(client.call<std::string>("echo", "h\u00e9\n\"").value(), "h\u00e9\n\"");
    auto typed = client.call<std::string>("add", 1, 1);
    ASSERT_FALSE(typed);
    EXPECT_EQ(typed.error().code, Errc::TypeMismatch);
    auto fault = client.call("boom");
    ASSERT_FALSE(fault);
    EXPECT_EQ(fault.error().code, Errc::Fault);
    EXPECT_EQ(fault.error().fault_code, 42);
    EXPECT_EQ(fault.error().message, "boom");
    auto missing = client.call("nope", {Value(1)});
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, Errc::Fault);
    EXPECT_EQ(missing.error().fault_code, -32601);
    EXPECT_EQ(client.call("add", {Value(1)}).error().fault_code, -32602);
    // i8, nil, doubles and structs make the round trip (JSON has no bytes: they come back as
    // base64 text).
    Value v = Value::structure({{"i8", Value::i8(int64_t{1} << 40)},
                                {"nil", Value()},
                                {"d", Value(0.1)},
                                {"a", Value::array({true, "x"})}});
    Client echo_all(s.json_url());
    EXPECT_EQ(echo_all.call("same", {v}).value(), v);
  }
}

TEST(JsonClient, AsyncCallsTakeTheSamePath) {
  JsonServer s;
  ClientOptions o = json_options();
  o.max_connections = 3;
  Client client(s.json_url(), o);
  std::vector<std::future<Result<Value>>> futures;
  for (int i = 0; i < 50; ++i) futures.push_back(client.async_call("add", {Value(i), Value(1)}));
  for (int i = 0; i < 50; ++i) EXPECT_EQ(futures[i].get().value(), Value(i + 1));
  EXPECT_EQ(client.async_call<int>("add", 2, 2).get().value(), 4);
  EXPECT_EQ(client.async_call("boom", {}).get().error().fault_code, 42);
  std::promise<Result<int>> done;
  client.async_call<int>([&](Result<int> r) { done.set_value(std::move(r)); }, "add", 5, 6);
  EXPECT_EQ(done.get_future().get().value(), 11);
}

// JSON has no bytes or times: they come as base64 and ISO 8601 strings, and a typed call
// reads them from those, on every path (straight into R, async, batch, by name), as the
// XML-RPC client reads its native types.
TEST(JsonClient, TypedResultsTakeBytesAndTimesFromTheirStrings) {
  JsonServer s;
  using Bytes = std::vector<uint8_t>;
  const Bytes three{7, 7, 7};
  const auto day = std::chrono::sys_seconds(std::chrono::seconds(86400));
  for (const std::string& url : {s.json_url(), s.url()}) {
    SCOPED_TRACE(url);
    Client client(url);
    EXPECT_EQ(client.call<Bytes>("blob", 3).value(), three);
    EXPECT_EQ(client.call<std::optional<Bytes>>("blob", 0).value(), Bytes());
    EXPECT_EQ(client.call<std::chrono::sys_seconds>("epoch_plus", 86400).value(), day);
    EXPECT_EQ(client.async_call<Bytes>("blob", 3).get().value(), three);
    EXPECT_EQ(client.async_call<std::chrono::sys_seconds>("epoch_plus", 86400).get().value(), day);
    Batch batch = client.batch();
    BatchResult<Bytes> blob = batch.call<Bytes>("blob", 3);
    BatchResult<DateTime> when = batch.call<DateTime>("epoch_plus", 86400);
    ASSERT_TRUE(batch.send());
    EXPECT_EQ(blob.get().value(), three);
    EXPECT_EQ(when.get().value().day, 2);
  }
  Client client(s.json_url());
  EXPECT_EQ(client.call_named<Bytes>("blob", Value::structure({{"n", 2}})).error().code,
            Errc::Fault);  // bound without names: one struct param, which is no int
  // A string that is not base64 is no bytes: named as a typed call's mismatch.
  Result<Bytes> not_bytes = client.call<Bytes>("echo", "not*base64");
  ASSERT_FALSE(not_bytes);
  EXPECT_EQ(not_bytes.error().code, Errc::TypeMismatch);
  EXPECT_NE(not_bytes.error().message.find("echo: result must be base64, got a string that is "
                                           "not base64"),
            std::string::npos)
      << not_bytes.error().message;
  Result<Bytes> async_not_bytes = client.async_call<Bytes>("echo", "not*base64").get();
  EXPECT_EQ(async_not_bytes.error().code, Errc::TypeMismatch);
  // A string that is base64 stays a string where R is one.
  EXPECT_EQ(client.call<std::string>("echo", "AAEC").value(), "AAEC");
}

TEST(JsonClient, Notifications) {
  JsonServer s;
  Client client(s.json_url());
  for (int i = 0; i < 3; ++i) {
    Status n = client.notify("count");
    ASSERT_TRUE(n) << n.error().message;
  }
  // Unknown methods and bad params are not answered either: a notification never fails on
  // the server's side.
  EXPECT_TRUE(client.notify("nope", {Value(1)}));
  EXPECT_TRUE(client.notify("add", {Value("x")}));
  // The server answers each notification (204) once its handler has run.
  EXPECT_EQ(client.call<int>("seen").value(), 3);
}

TEST(JsonClient, Batches) {
  JsonServer s;
  Client client(s.json_url());
  Batch batch = client.batch();
  batch.call("add", {Value(1), Value(2)})
      .notify("count")
      .call("boom")
      .call("nope")
      .notify("count")
      .call("echo", {Value("x")});
  EXPECT_EQ(batch.calls(), 4u);
  EXPECT_EQ(batch.size(), 6u);
  for (int round = 1; round <= 2; ++round) {
    auto r = batch.send();
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->size(), 4u);
    EXPECT_EQ((*r)[0].value(), Value(3));
    EXPECT_EQ((*r)[1].error().code, Errc::Fault);
    EXPECT_EQ((*r)[1].error().fault_code, 42);
    EXPECT_EQ((*r)[2].error().fault_code, -32601);
    EXPECT_EQ((*r)[3].value(), Value("x"));
    EXPECT_EQ(client.call<int>("seen").value(), 2 * round);
  }
  // Notifications only: no answer body (204), success and no results.
  auto quiet = client.batch().notify("count").notify("count").send();
  ASSERT_TRUE(quiet) << quiet.error().message;
  EXPECT_TRUE(quiet->empty());
  EXPECT_EQ(client.call<int>("seen").value(), 6);
  // Nothing at all: nothing sent.
  EXPECT_TRUE(client.batch().send().value().empty());
  // A parameter JSON cannot carry fails the whole batch before anything is sent.
  auto nan = client.batch().call("add").call("same", {Value(std::nan(""))}).send();
  ASSERT_FALSE(nan);
  EXPECT_EQ(nan.error().code, Errc::Unrepresentable);
  EXPECT_NE(nan.error().message.find("batch entry 2 (same)"), std::string::npos);
}

// Typed calls in a batch: arguments converted as call<R> converts them, each result read from
// its BatchResult after send(), over JSON-RPC and XML-RPC (one system.multicall) alike.
TEST(JsonClient, TypedBatchEntries) {
  JsonServer s;
  for (const std::string& url : {s.json_url(), s.url()}) {
    SCOPED_TRACE(url);
    Client client(url);
    Batch batch = client.batch();
    BatchResult<int> sum = batch.call<int>("add", 2, 3);
    batch.notify("count");
    BatchResult<std::string> echoed = batch.call<std::string>("echo", "hi");
    BatchResult<int> wrong_type = batch.call<int>("echo", "not a number");
    BatchResult<void> fault = batch.call<void>("boom");
    BatchResult<std::string> untyped_neighbour = batch.call<std::string>("echo", std::string("x"));
    // Not sent yet: get() says so.
    EXPECT_EQ(sum.get().error().code, Errc::InvalidArgument);
    auto all = batch.send();
    ASSERT_TRUE(all) << all.error().message;
    ASSERT_EQ(all->size(), 5u);
    EXPECT_EQ(sum.get().value(), 5);
    EXPECT_EQ(echoed.get().value(), "hi");
    Result<int> mismatch = wrong_type.get();
    ASSERT_FALSE(mismatch);
    EXPECT_EQ(mismatch.error().code, Errc::TypeMismatch);
    EXPECT_NE(mismatch.error().message.find("echo: result must be int"), std::string::npos)
        << mismatch.error().message;
    Status boom = fault.get();
    ASSERT_FALSE(boom);
    EXPECT_EQ(boom.error().code, Errc::Fault);
    EXPECT_EQ(boom.error().fault_code, 42);
    EXPECT_EQ(untyped_neighbour.get().value(), "x");
    // The handles outlive the batch and keep its last results.
    {
      Batch again = client.batch();
      BatchResult<int> kept = again.call<int>("add", 40, 2);
      ASSERT_TRUE(again.send());
      sum = kept;
    }
    EXPECT_EQ(sum.get().value(), 42);
  }
}

// A typed argument that cannot be converted fails the whole batch at send(), nothing sent;
// the typed calls then give that error too.
TEST(JsonClient, TypedBatchBadArgumentFailsTheBatch) {
  JsonServer s;
  Client client(s.json_url());
  Batch batch = client.batch();
  BatchResult<int> fine = batch.call<int>("count");
  BatchResult<int> bad = batch.call<int>("add", uint64_t{1} << 63, 1);
  auto all = batch.send();
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().code, Errc::Unrepresentable);
  EXPECT_EQ(fine.get().error().code, Errc::Unrepresentable);
  EXPECT_EQ(bad.get().error().code, Errc::Unrepresentable);
  EXPECT_EQ(client.call<int>("seen").value(), 0);  // "count" never ran
}

// Parameters by name: JSON-RPC's "params" object, placed by the method's names (in any order,
// typed too, in a batch too); XML-RPC sends the struct as the one parameter. Not a struct:
// InvalidArgument before anything is sent.
TEST(JsonClient, ParametersByName) {
  JsonServer s;
  Client client(s.json_url());
  const Value named = Value::structure({{"subtrahend", 23}, {"minuend", 42}});
  auto r = client.call_named("subtract", named);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, Value(19));
  EXPECT_EQ(client.call_named<int>("subtract", named).value(), 19);
  auto unknown = client.call_named("subtract", Value::structure({{"minuend", 1}, {"x", 2}}));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().fault_code, -32602);
  auto not_struct = client.call_named("subtract", Value::array({1, 2}));
  ASSERT_FALSE(not_struct);
  EXPECT_EQ(not_struct.error().code, Errc::InvalidArgument);
  EXPECT_NE(not_struct.error().message.find("call_named takes a struct, got array"),
            std::string::npos);
  EXPECT_EQ(client.call<int>("seen").value(), 0);  // nothing reached the server

  auto batch = client.batch()
                   .call_named("subtract", named)
                   .notify_named("count", Value::structure())
                   .call("subtract", {Value(1), Value(2)})
                   .send();
  ASSERT_TRUE(batch) << batch.error().message;
  ASSERT_EQ(batch->size(), 2u);
  EXPECT_EQ((*batch)[0].value(), Value(19));
  EXPECT_EQ((*batch)[1].value(), Value(-1));
  EXPECT_EQ(client.call<int>("seen").value(), 1);
  auto bad = client.batch().call("add", {Value(1), Value(2)}).call_named("add", Value(3)).send();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Errc::InvalidArgument);
  EXPECT_NE(bad.error().message.find("batch entry 2 (add)"), std::string::npos);

  Client xml(s.url());
  EXPECT_EQ(xml.call_named<int>("keywords", named).value(), 2);
  auto multicall = xml.batch().call_named("keywords", named).call("add", {1, 2}).send();
  ASSERT_TRUE(multicall) << multicall.error().message;
  EXPECT_EQ((*multicall)[0].value(), Value(2));
  EXPECT_EQ((*multicall)[1].value(), Value(3));
}

// An error's "data" reaches the caller in Error::data, from a call, a typed call and a batch;
// an error without data has none, and XML-RPC's faults never do.
TEST(JsonClient, ErrorsKeepTheirData) {
  JsonServer s;
  Client client(s.json_url());
  const Value data = Value::structure({{"retry_after", 5}});
  auto r = client.call("busy");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().fault_code, -32001);
  ASSERT_NE(r.error().data, nullptr);
  EXPECT_EQ(*r.error().data, data);
  auto typed = client.call<int>("busy");
  ASSERT_FALSE(typed);
  ASSERT_NE(typed.error().data, nullptr);
  EXPECT_EQ(*typed.error().data, data);
  auto batch = client.batch().call("busy").call("boom").send();
  ASSERT_TRUE(batch) << batch.error().message;
  ASSERT_NE((*batch)[0].error().data, nullptr);
  EXPECT_EQ(*(*batch)[0].error().data, data);
  EXPECT_EQ((*batch)[1].error().data, nullptr);
  Client xml(s.url());
  auto x = xml.call("busy");
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error().fault_code, -32001);
  EXPECT_EQ(x.error().data, nullptr);
}

TEST(JsonClient, XmlRpcClientsMapNotifyAndBatch) {
  JsonServer s;
  Client client(s.url());
  EXPECT_EQ(client.protocol(), Protocol::XmlRpc);
  ASSERT_TRUE(client.notify("count"));  // a call whose result is dropped
  EXPECT_EQ(client.notify("boom").error().fault_code, 42);
  auto r = client.batch().call("add", {Value(1), Value(2)}).notify("count").call("nope").send();
  ASSERT_TRUE(r) << r.error().message;  // system.multicall
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].value(), Value(3));
  EXPECT_EQ((*r)[1].error().fault_code, -32601);
  EXPECT_EQ(client.call<int>("seen").value(), 2);
}

TEST(JsonClient, GzipBothWays) {
  JsonServer s("127.0.0.1:0", 1);
  ClientOptions o = json_options();
  o.accept_gzip = true;
  o.gzip_request_min_size = 1;
  Client client(s.url(), o);
  std::string big(100000, 'z');
  EXPECT_EQ(client.call<std::string>("echo", big).value(), big);
  auto b = client.batch().call("echo", {Value(big)}).call("add", {Value(1), Value(1)}).send();
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ((*b)[0].value(), Value(big));
}

TEST(JsonClient, UnixSocketAndScgi) {
  std::string path = "/tmp/callwire-json-client-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  if (net::sys::kHasUnixSockets) {
    JsonServer s("unix:" + path);
    Client client("jsonrpc+unix:" + path);
    EXPECT_EQ(client.call<int>("add", 1, 2).value(), 3);
    EXPECT_TRUE(client.notify("count"));
  }
  ::unlink(path.c_str());
  // SCGI carries CONTENT_TYPE: JSON-RPC travels over it too.
  JsonServer scgi("scgi://127.0.0.1:0");
  Client client(scgi.url(), json_options());
  EXPECT_EQ(client.call<int>("add", 2, 3).value(), 5);
  EXPECT_EQ(client.call("boom").error().fault_code, 42);
  EXPECT_TRUE(client.notify("count"));
  auto b = client.batch().call("add", {Value(1), Value(1)}).call("nope").send();
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ((*b)[0].value(), Value(2));
  EXPECT_EQ((*b)[1].error().fault_code, -32601);
}

TEST(JsonClient, PacketStreamsRefuseJson) {
  auto c = Client::create("pstream://127.0.0.1:1", json_options());
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Errc::InvalidArgument);
  EXPECT_TRUE(Client::create("pstream://127.0.0.1:1"));
}

// A server that answers every request with `answer(request)`.
struct Answering {
  explicit Answering(std::function<std::string(const std::string&)> answer)
      : server([answer = std::move(answer)](int fd) {
          for (std::string req; !(req = FakeServer::read_request(fd)).empty();)
            FakeServer::send_all(fd, answer(req));
        }) {}
  std::string url() const { return "jsonrpc+" + server.url(); }
  FakeServer server;
};

std::string json_answer(std::string_view body, std::string_view status = "200 OK") {
  return "HTTP/1.1 " + std::string(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + std::string(body);
}

// The id of the n-th (from 0) call in a request we sent: `"id":N`.
std::string nth_id(const std::string& request, int n) {
  size_t at = 0;
  for (int i = 0; i <= n; ++i) at = request.find("\"id\":", at) + 5;
  return request.substr(at, request.find('}', at) - at);
}

TEST(JsonClient, TheAnswersIdMustBeTheCalls) {
  ClientOptions o;
  o.timeout = 2s;
  {
    std::string sent;
    Answering peer([&](const std::string& req) {
      sent = req;
      return json_answer(R"({"jsonrpc":"2.0","result":1,"id":999})");
    });
    auto r = Client(peer.url(), o).call("m");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::BadResponse);
    EXPECT_NE(r.error().message.find("999"), std::string::npos) << r.error().message;
    EXPECT_NE(sent.find("Content-Type: application/json\r\n"), std::string::npos) << sent;
    EXPECT_NE(sent.find(R"({"jsonrpc":"2.0","method":"m","params":[],"id":)"), std::string::npos)
        << sent;
  }
  struct Case {
    const char* name;
    std::function<std::string(const std::string&)> answer;
    Errc code;
    int32_t fault;
  };
  Case cases[] = {
      {"echoed id",
       [](const std::string& q) {
         return json_answer(R"({"jsonrpc":"2.0","result":7,"id":)" + nth_id(q, 0) + "}");
       },
       Errc::Ok, 0},
      {"id as a string",
       [](const std::string& q) {
         return json_answer(R"({"jsonrpc":"2.0","result":7,"id":")" + nth_id(q, 0) + "\"}");
       },
       Errc::BadResponse, 0},
      {"a batch",
       [](const std::string& q) {
         return json_answer(R"([{"jsonrpc":"2.0","result":7,"id":)" + nth_id(q, 0) + "}]");
       },
       Errc::BadResponse, 0},
      {"an error with id null",
       [](const std::string&) {
         return json_answer(R"({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},)"
                            R"("id":null})");
       },
       Errc::Fault, -32700},
      {"a result with id null",
       [](const std::string&) { return json_answer(R"({"jsonrpc":"2.0","result":7,"id":null})"); },
       Errc::BadResponse, 0},
      {"an error sent with 500",
       [](const std::string& q) {
         return json_answer(R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"down"},"id":)" +
                                nth_id(q, 0) + "}",
                            "500 Internal Server Error");
       },
       Errc::Fault, -32000},
      {"HTML with 500",
       [](const std::string&) {
         return json_answer("<html>oops</html>", "500 Internal Server Error");
       },
       Errc::HttpStatus, 500},
      {"no body", [](const std::string&) { return std::string("HTTP/1.1 204 No Content\r\n\r\n"); },
       Errc::BadResponse, 0},
      {"XML",
       [](const std::string&) { return json_answer("<?xml version=\"1.0\"?><methodResponse/>"); },
       Errc::BadResponse, 0},
      {"JSON-RPC 1.0",
       [](const std::string& q) {
         return json_answer(R"({"result":7,"error":null,"id":)" + nth_id(q, 0) + "}");
       },
       Errc::BadResponse, 0},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    Answering peer(c.answer);
    Client client(peer.url(), o);
    for (int i = 0; i < 2; ++i) {  // a second call: the connection is still usable, or replaced
      auto r = client.call("m");
      if (c.code == Errc::Ok) {
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(*r, Value(7));
        continue;
      }
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().code, c.code) << r.error().message;
      if (c.code == Errc::HttpStatus) {
        EXPECT_EQ(r.error().http_status, c.fault);  // the status, in its own field
      } else if (c.fault) {
        EXPECT_EQ(r.error().fault_code, c.fault);
      }
    }
  }
}

// The answer's JSON is read in place where its buffer has room after it (the body in the
// receive buffer, or the chunked body's), copied otherwise: either way, of any size, framed by
// its length, in chunks or by the connection's close, it reads the same.
TEST(JsonClient, AnswersReadTheSameInPlaceOrCopied) {
  ClientOptions o;
  o.timeout = 5s;
  for (size_t size : {0, 1, 100, 64 << 10, 1 << 20}) {
    std::string text(size, 'x');
    for (size_t i = 0; i < size; i += 97) text[i] = char('a' + i % 26);
    for (int framing = 0; framing < 3; ++framing) {
      SCOPED_TRACE(std::to_string(size) + " bytes, framing " + std::to_string(framing));
      auto answer = [&](const std::string& q) {
        std::string body =
            R"({"jsonrpc":"2.0","result":")" + text + R"(","id":)" + nth_id(q, 0) + "}";
        if (framing == 0) return json_answer(body);
        std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
        if (framing == 2) return head + "Connection: close\r\n\r\n" + body;
        size_t half = body.size() / 2;
        auto chunk = [](std::string_view c) {
          char hex[32];
          std::snprintf(hex, sizeof hex, "%zx\r\n", c.size());
          return hex + std::string(c) + "\r\n";
        };
        return head + "Transfer-Encoding: chunked\r\n\r\n" + chunk(body.substr(0, half)) +
               chunk(body.substr(half)) + "0\r\n\r\n";
      };
      // A body ended by the close: one answer a connection.
      FakeServer server([&](int fd) {
        for (std::string req; !(req = FakeServer::read_request(fd)).empty();) {
          FakeServer::send_all(fd, answer(req));
          if (framing == 2) return;
        }
      });
      Client client("jsonrpc+" + server.url(), o);
      for (int i = 0; i < 2; ++i) {
        auto r = client.call("m");
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(*r, Value(text));
      }
    }
  }
}

TEST(JsonClient, BatchAnswersAreMatchedById) {
  ClientOptions o;
  o.timeout = 2s;
  auto result = [](const std::string& id, int v) {
    return R"({"jsonrpc":"2.0","result":)" + std::to_string(v) + R"(,"id":)" + id + "}";
  };
  {  // reversed, an error inside
    Answering peer([&](const std::string& q) {
      return json_answer("[" + result(nth_id(q, 2), 3) + "," +
                         R"({"jsonrpc":"2.0","error":{"code":5,"message":"five"},"id":)" +
                         nth_id(q, 1) + "}," + result(nth_id(q, 0), 1) + "]");
    });
    Client client(peer.url(), o);
    auto r = client.batch().call("a").call("b").notify("n").call("c").send();
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->size(), 3u);
    EXPECT_EQ((*r)[0].value(), Value(1));
    EXPECT_EQ((*r)[1].error().fault_code, 5);
    EXPECT_EQ((*r)[1].error().message, "five");
    EXPECT_EQ((*r)[2].value(), Value(3));
  }
  {  // one answer missing: that call alone is BadResponse
    Answering peer(
        [&](const std::string& q) { return json_answer("[" + result(nth_id(q, 1), 2) + "]"); });
    auto r = Client(peer.url(), o).batch().call("a").call("b").send();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ((*r)[0].error().code, Errc::BadResponse);
    EXPECT_EQ((*r)[1].value(), Value(2));
  }
  {  // a server that cannot read batches answers one error with id null: every call's
    Answering peer([&](const std::string&) {
      return json_answer(
          R"({"jsonrpc":"2.0","error":{"code":-32600,"message":"no batches"},"id":null})");
    });
    auto r = Client(peer.url(), o).batch().call("a").call("b").send();
    ASSERT_TRUE(r) << r.error().message;
    for (auto& one : *r) EXPECT_EQ(one.error().fault_code, -32600);
  }
  for (const char* bad : {"unknown", "twice"}) {  // the whole batch is BadResponse
    SCOPED_TRACE(bad);
    Answering peer([&](const std::string& q) {
      std::string second = std::string(bad) == "twice" ? nth_id(q, 0) : "12345678";
      return json_answer("[" + result(nth_id(q, 0), 1) + "," + result(second, 2) + "]");
    });
    auto r = Client(peer.url(), o).batch().call("a").call("b").send();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::BadResponse) << r.error().message;
  }
}

TEST(JsonClient, NotificationAnswers) {
  ClientOptions o;
  o.timeout = 2s;
  for (const char* answer :
       {"HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}) {
    Answering peer([&](const std::string&) { return std::string(answer); });
    Status s = Client(peer.url(), o).notify("n", {Value(1)});
    EXPECT_TRUE(s) << answer << ": " << s.error().message;
  }
  Answering parse_error([](const std::string&) {
    return json_answer(
        R"({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null})");
  });
  EXPECT_EQ(Client(parse_error.url(), o).notify("n").error().fault_code, -32700);
  Answering missing([](const std::string&) {
    return std::string("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
  });
  EXPECT_EQ(Client(missing.url(), o).notify("n").error().code, Errc::HttpStatus);
  std::string sent;
  Answering quiet([&](const std::string& q) {
    sent = q;
    return std::string("HTTP/1.1 204 No Content\r\n\r\n");
  });
  ASSERT_TRUE(Client(quiet.url(), o).notify("n", {Value(1)}));
  EXPECT_TRUE(sent.ends_with(R"({"jsonrpc":"2.0","method":"n","params":[1]})")) << sent;
}

}  // namespace
}  // namespace callwire
