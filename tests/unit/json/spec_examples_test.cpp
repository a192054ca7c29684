// Every example of the JSON-RPC 2.0 specification's section 7 ("Examples"), at the message
// level: the reader decodes the spec's requests, a stand-in for the dispatcher (the methods the
// examples call, answered by hand) picks each answer, and the writers must produce the spec's
// responses byte for byte (once the spec's white space between tokens is taken out).
#include <gtest/gtest.h>

#include <string>

#include "callwire/json.hpp"

namespace callwire::json {
namespace {

// The spec's text without the white space between tokens (strings kept as they are).
std::string compact(std::string_view text) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\') {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out += c;
    } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
      out += c;
    }
  }
  return out;
}

// The examples' methods: subtract (positional or named), sum, get_data, and notifications of
// anything. Everything else is "Method not found".
void answer(const Call& call, BatchWriter& batch) {
  if (!call.ok()) {
    // An invalid request is answered even without an id (its id is then null); any other error
    // of a notification is not.
    if (!call.is_notification()) {
      ASSERT_TRUE(
          batch.error(call.id, call.error.fault_code, standard_message(call.error.fault_code)));
    }
    return;
  }
  if (call.is_notification()) return;
  const Value& p = call.params;
  if (call.method == "subtract") {
    int32_t result = p.is_array() ? p[0].as_int() - p[1].as_int()
                                  : p["minuend"].as_int() - p["subtrahend"].as_int();
    ASSERT_TRUE(batch.result(call.id, result));
  } else if (call.method == "sum") {
    int32_t sum = 0;
    for (const Value& v : p.as_array()) sum += v.as_int();
    ASSERT_TRUE(batch.result(call.id, sum));
  } else if (call.method == "get_data") {
    ASSERT_TRUE(batch.result(call.id, Value::array({"hello", 5})));
  } else {
    ASSERT_TRUE(batch.error(call.id, fault_code::kMethodNotFound,
                            standard_message(fault_code::kMethodNotFound)));
  }
}

// The whole answer to a request document, as a server would send it ("" for no body).
std::string respond(std::string_view request) {
  Reader reader;
  Request req;
  Buffer out;
  Status s = reader.read_request(request, req);
  if (!s) {
    EXPECT_TRUE(
        write_error(out, kNullId, s.error().fault_code, standard_message(s.error().fault_code)));
    return std::string(out.view());
  }
  if (!req.batch) {
    // One request: its answer alone, not in an array.
    Buffer inner;
    {
      BatchWriter batch(inner);
      answer(req.calls[0], batch);
      if (!batch.finish()) return "";
    }
    std::string_view v = inner.view();
    return std::string(v.substr(1, v.size() - 2));
  }
  BatchWriter batch(out);
  for (const Call& call : req.calls) answer(call, batch);
  batch.finish();
  return std::string(out.view());
}

void expect_exchange(std::string_view request, std::string_view response) {
  EXPECT_EQ(respond(request), compact(response)) << request;
}

TEST(JsonRpcSpecExamples, PositionalParameters) {
  expect_exchange(R"({"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1})",
                  R"({"jsonrpc": "2.0", "result": 19, "id": 1})");
  expect_exchange(R"({"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2})",
                  R"({"jsonrpc": "2.0", "result": -19, "id": 2})");
}

TEST(JsonRpcSpecExamples, NamedParameters) {
  expect_exchange(
      R"({"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3})",
      R"({"jsonrpc": "2.0", "result": 19, "id": 3})");
  expect_exchange(
      R"({"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4})",
      R"({"jsonrpc": "2.0", "result": 19, "id": 4})");
}

TEST(JsonRpcSpecExamples, Notifications) {
  expect_exchange(R"({"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]})", "");
  expect_exchange(R"({"jsonrpc": "2.0", "method": "foobar"})", "");
}

TEST(JsonRpcSpecExamples, NonExistentMethod) {
  expect_exchange(
      R"({"jsonrpc": "2.0", "method": "foobar", "id": "1"})",
      R"({"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"})");
}

TEST(JsonRpcSpecExamples, InvalidJson) {
  expect_exchange(
      R"({"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz])",
      R"({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null})");
}

TEST(JsonRpcSpecExamples, InvalidRequestObject) {
  expect_exchange(
      R"({"jsonrpc": "2.0", "method": 1, "params": "bar"})",
      R"({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null})");
}

TEST(JsonRpcSpecExamples, BatchInvalidJson) {
  expect_exchange(
      R"([
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
])",
      R"({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null})");
}

TEST(JsonRpcSpecExamples, EmptyArray) {
  expect_exchange(
      R"([])",
      R"({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null})");
}

TEST(JsonRpcSpecExamples, InvalidBatchOfOne) {
  expect_exchange(R"([1])",
                  R"([
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
])");
}

TEST(JsonRpcSpecExamples, InvalidBatchOfThree) {
  expect_exchange(R"([1,2,3])",
                  R"([
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
])");
}

TEST(JsonRpcSpecExamples, Batch) {
  expect_exchange(
      R"([
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ])",
      R"([
        {"jsonrpc": "2.0", "result": 7, "id": "1"},
        {"jsonrpc": "2.0", "result": 19, "id": "2"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
        {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
    ])");
}

TEST(JsonRpcSpecExamples, AllNotificationBatch) {
  expect_exchange(R"([
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ])",
                  "");
}

}  // namespace
}  // namespace callwire::json
