// JSON-RPC 2.0 through the per-thread Dispatcher: the specification's own examples (section 7)
// run against real methods, then what the adapter adds to the codec (rpc.* names, named params,
// results JSON cannot carry, counters shared with XML-RPC, the protocol a Content-Type names).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "callwire/json.hpp"
#include "protocol/dispatcher.hpp"

namespace callwire::detail {
namespace {

struct Fixture {
  Registry registry;
  int updates = 0;

  Fixture() {
    auto ok = [](Status s) { ASSERT_TRUE(s) << s.error().message; };
    // Positional [minuend, subtrahend], or named {minuend, subtrahend} as one struct.
    ok(registry.add("subtract", [](Params p, CallContext&) {
      if (p.size() == 1 && p[0].is_struct())
        return Value(p[0]["minuend"].as_int() - p[0]["subtrahend"].as_int());
      return Value(p[0].as_int() - p[1].as_int());
    }));
    ok(registry.bind("named.subtract", {"minuend", "subtrahend"},
                     [](int minuend, int subtrahend) { return minuend - subtrahend; }));
    ok(registry.bind("blob.size", [](std::vector<uint8_t> b) { return int(b.size()); }));
    ok(registry.add("sum", [](Params p, CallContext&) {
      int total = 0;
      for (const Value& v : p) total += int(v.as_int());
      return Value(total);
    }));
    ok(registry.add("update", [this](Params, CallContext&) { return Value(++updates); }));
    ok(registry.add("notify_hello", [this](Params, CallContext&) { return Value(++updates); }));
    ok(registry.add("notify_sum", [this](Params, CallContext&) { return Value(++updates); }));
    ok(registry.add("get_data", [](Params, CallContext&) { return Value::array({"hello", 5}); }));
    ok(registry.add("nan", [](Params, CallContext&) {
      return Value(std::numeric_limits<double>::quiet_NaN());
    }));
    ok(registry.add(
        "fault", [](Params, CallContext&) -> Value { throw FaultError(-32000, "bad \xFF byte"); }));
    // Faults with data: thrown, returned as an Error, and data JSON cannot carry.
    ok(registry.add("busy", [](Params, CallContext&) -> Value {
      throw FaultError(-32001, "busy", Value::structure({{"retry_after", 5}}));
    }));
    ok(registry.bind("busy.typed", []() -> Result<int> {
      Error e(Errc::Fault, -32002, "still busy");
      e.data = std::make_shared<const Value>(Value::array({1, "two"}));
      return e;
    }));
    ok(registry.add("busy.nan", [](Params, CallContext&) -> Value {
      throw FaultError(-32003, "odd", Value(std::numeric_limits<double>::quiet_NaN()));
    }));
    ok(registry.add(
        "sample.add", [](Params p, CallContext&) { return Value(p[0].as_int() + p[1].as_int()); },
        MethodInfo{{{"int", "int", "int"}}, "Adds two integers."}));
    registry.freeze();
  }
};

struct Answer {
  DispatchOutcome outcome;
  std::string text;  // the answer document as sent
  Value value;       // read back as JSON (nil when there is no answer)
};

Answer post(Dispatcher& d, std::string_view body, bool read_back = true) {
  Buffer out;
  CallContext ctx;
  Answer a;
  a.outcome = d.handle(Protocol::JsonRpc, body, ctx, out);
  a.text = std::string(out.view());
  if (read_back && !a.text.empty()) {
    json::Reader reader;
    Result<Value> v = reader.read_value(a.text);
    EXPECT_TRUE(v) << a.text;
    if (v) a.value = std::move(*v);
  }
  EXPECT_EQ(a.outcome.no_answer, a.text.empty()) << a.text;
  return a;
}

// Checks one response object: its id (as JSON text) and result or error code.
void expect_result(const Value& response, std::string_view id, const Value& result) {
  ASSERT_TRUE(response.is_struct());
  EXPECT_EQ(response["jsonrpc"].as_string(), "2.0");
  ASSERT_NE(response.find("result"), nullptr);
  EXPECT_EQ(response["result"], result);
  EXPECT_EQ(response.find("error"), nullptr);
  Buffer written;
  ASSERT_TRUE(json::write_value(written, response["id"]));
  EXPECT_EQ(written.view(), id);
}

void expect_error(const Value& response, std::string_view id, int32_t code) {
  ASSERT_TRUE(response.is_struct());
  EXPECT_EQ(response["jsonrpc"].as_string(), "2.0");
  ASSERT_NE(response.find("error"), nullptr);
  EXPECT_EQ(response["error"]["code"].as_int(), code);
  EXPECT_TRUE(response["error"]["message"].is_string());
  EXPECT_EQ(response.find("result"), nullptr);
  Buffer written;
  ASSERT_TRUE(json::write_value(written, response["id"]));
  EXPECT_EQ(written.view(), id);
}

TEST(JsonRpc, SpecPositionalParameters) {
  Fixture f;
  Dispatcher d(f.registry, {});
  expect_result(
      post(d, R"({"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1})").value,
      "1", Value(19));
  expect_result(
      post(d, R"({"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2})").value,
      "2", Value(-19));
}

TEST(JsonRpc, SpecNamedParametersReachTheMethodAsOneStruct) {
  Fixture f;
  Dispatcher d(f.registry, {});
  expect_result(post(d, R"({"jsonrpc": "2.0", "method": "subtract",
                            "params": {"subtrahend": 23, "minuend": 42}, "id": 3})")
                    .value,
                "3", Value(19));
  expect_result(post(d, R"({"jsonrpc": "2.0", "method": "subtract",
                            "params": {"minuend": 42, "subtrahend": 23}, "id": 4})")
                    .value,
                "4", Value(19));
}

TEST(JsonRpc, NamedParametersByTheMethodsNames) {
  Fixture f;
  Dispatcher d(f.registry, {});
  expect_result(post(d, R"({"jsonrpc": "2.0", "method": "named.subtract",
                            "params": {"subtrahend": 23, "minuend": 42}, "id": 3})")
                    .value,
                "3", Value(19));
  expect_result(
      post(d, R"({"jsonrpc":"2.0","method":"named.subtract","params":[42,23],"id":4})").value, "4",
      Value(19));
  expect_error(post(d, R"({"jsonrpc":"2.0","method":"named.subtract",
                          "params":{"minuend":1,"sub":2},"id":5})")
                   .value,
               "5", -32602);
  // base64 text where the method takes bytes.
  expect_result(
      post(d, R"({"jsonrpc":"2.0","method":"blob.size","params":["aGVsbG8="],"id":6})").value, "6",
      Value(5));
  // By name to a method bound without names: -32602 that says why (the object was taken as
  // its one parameter) and what would fit.
  Value wrong = post(d, R"({"jsonrpc":"2.0","method":"sample.add",
                            "params":{"a":1,"b":2},"id":7})")
                    .value;
  expect_error(wrong, "7", -32602);
  EXPECT_NE(wrong["error"]["message"].as_string().find("takes them by position"), std::string::npos)
      << wrong["error"]["message"].as_string();
}

TEST(JsonRpc, SpecNotificationsRunButAreNotAnswered) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Answer a = post(d, R"({"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]})");
  EXPECT_TRUE(a.outcome.no_answer);
  EXPECT_EQ(f.updates, 1);
  a = post(d, R"({"jsonrpc": "2.0", "method": "foobar"})");  // even an unknown one
  EXPECT_TRUE(a.outcome.no_answer);
}

TEST(JsonRpc, SpecErrors) {
  Fixture f;
  Dispatcher d(f.registry, {});
  expect_error(post(d, R"({"jsonrpc": "2.0", "method": "foobar", "id": "1"})").value, R"("1")",
               -32601);
  Answer bad_json = post(d, R"({"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz])");
  expect_error(bad_json.value, "null", -32700);
  EXPECT_TRUE(bad_json.outcome.is_fault);
  EXPECT_EQ(bad_json.outcome.fault_code, -32700);
  expect_error(post(d, R"({"jsonrpc": "2.0", "method": 1, "params": "bar"})").value, "null",
               -32600);
  expect_error(post(d, R"([
    {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
    {"jsonrpc": "2.0", "method"
  ])")
                   .value,
               "null", -32700);
  expect_error(post(d, "[]").value, "null", -32600);  // one object, not an array

  Answer one = post(d, "[1]");
  ASSERT_TRUE(one.value.is_array());
  ASSERT_EQ(one.value.size(), 1u);
  expect_error(one.value[0], "null", -32600);

  Answer three = post(d, "[1,2,3]");
  ASSERT_EQ(three.value.size(), 3u);
  for (const Value& r : three.value.as_array()) expect_error(r, "null", -32600);
}

TEST(JsonRpc, SpecMixedBatch) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Answer a = post(d, R"([
    {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
    {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
    {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
    {"foo": "boo"},
    {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
    {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
  ])");
  ASSERT_TRUE(a.value.is_array()) << a.text;
  ASSERT_EQ(a.value.size(), 5u) << a.text;  // nothing for the notification
  expect_result(a.value[0], R"("1")", Value(7));
  expect_result(a.value[1], R"("2")", Value(19));
  expect_error(a.value[2], "null", -32600);
  expect_error(a.value[3], R"("5")", -32601);
  expect_result(a.value[4], R"("9")", Value::array({"hello", 5}));
  EXPECT_EQ(f.updates, 1);
  EXPECT_EQ(a.outcome.method, "sum");
  EXPECT_FALSE(a.outcome.is_fault);
}

TEST(JsonRpc, SpecBatchOfNotificationsHasNoAnswer) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Answer a = post(d, R"([
    {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
    {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
  ])");
  EXPECT_TRUE(a.outcome.no_answer);
  EXPECT_EQ(a.text, "");
  EXPECT_EQ(f.updates, 2);
}

TEST(JsonRpc, IdsAreEchoedAsWritten) {
  Fixture f;
  Dispatcher d(f.registry, {});
  for (std::string id :
       {"1", R"("abc")", "null", "1.5e3", "123456789012345678901234567890", R"("\u00e9")"}) {
    // (A 30-digit id is no Value: the answer is checked as text only.)
    Answer a = post(d, R"({"jsonrpc":"2.0","method":"sum","params":[1],"id":)" + id + "}", false);
    EXPECT_EQ(a.text, R"({"jsonrpc":"2.0","result":1,"id":)" + id + "}");
  }
}

TEST(JsonRpc, ReservedRpcNamesAreNotFound) {
  Fixture f;
  Dispatcher d(f.registry, {});
  expect_error(post(d, R"({"jsonrpc":"2.0","method":"rpc.discover","id":1})").value, "1", -32601);
}

TEST(JsonRpc, TheCoreChecksSignaturesAsForXmlRpc) {
  Fixture f;
  Dispatcher d(f.registry, {});
  expect_error(post(d, R"({"jsonrpc":"2.0","method":"sample.add","params":["2",3],"id":1})").value,
               "1", -32602);
  Value listed = post(d, R"({"jsonrpc":"2.0","method":"system.listMethods","id":2})").value;
  EXPECT_EQ(listed["result"][0].as_string(), "subtract");
}

TEST(JsonRpc, ResultsJsonCannotCarryBecomeInternalErrors) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Answer a = post(d, R"({"jsonrpc":"2.0","method":"nan","id":1})");
  expect_error(a.value, "1", -32603);
  EXPECT_NE(a.text.find("cannot be sent"), std::string::npos);
  // A handler's fault string that is not UTF-8 is sent with U+FFFD in its place.
  Answer fault = post(d, R"({"jsonrpc":"2.0","method":"fault","id":2})");
  expect_error(fault.value, "2", -32000);
  EXPECT_EQ(fault.value["error"]["message"].as_string(), "bad \xEF\xBF\xBD byte");

  std::vector<MethodStats> stats;
  d.add_stats_to(stats);
  for (const MethodStats& s : stats)
    if (s.name == "nan") {
      EXPECT_EQ(s.faults, 1u);
    }
}

// A handler's fault carries JSON-RPC's "data" (thrown or returned); XML-RPC's fault has no room
// for it and leaves it out; data JSON cannot carry is left out rather than lose the fault.
TEST(JsonRpc, FaultsCarryTheirData) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Answer a = post(d, R"({"jsonrpc":"2.0","method":"busy","id":1})");
  expect_error(a.value, "1", -32001);
  EXPECT_EQ(a.value["error"]["data"], Value::structure({{"retry_after", 5}})) << a.text;
  Answer typed = post(d, R"({"jsonrpc":"2.0","method":"busy.typed","id":2})");
  expect_error(typed.value, "2", -32002);
  EXPECT_EQ(typed.value["error"]["message"].as_string(), "still busy");
  EXPECT_EQ(typed.value["error"]["data"], Value::array({1, "two"})) << typed.text;
  Answer in_batch = post(d, R"([{"jsonrpc":"2.0","method":"busy","id":3}])");
  EXPECT_EQ(in_batch.value[0]["error"]["data"]["retry_after"], Value(5)) << in_batch.text;
  Answer nan = post(d, R"({"jsonrpc":"2.0","method":"busy.nan","id":4})");
  expect_error(nan.value, "4", -32003);
  EXPECT_EQ(nan.value["error"].find("data"), nullptr) << nan.text;

  Buffer out;
  CallContext ctx;
  d.handle(Protocol::XmlRpc, "<methodCall><methodName>busy</methodName></methodCall>", ctx, out);
  EXPECT_NE(out.view().find("<int>-32001</int>"), std::string_view::npos) << out.view();
  EXPECT_EQ(out.view().find("retry_after"), std::string_view::npos) << out.view();
}

TEST(JsonRpc, OneCoreCountsBothProtocols) {
  Fixture f;
  Dispatcher d(f.registry, {});
  post(d, R"({"jsonrpc":"2.0","method":"sum","params":[1],"id":1})");
  Buffer out;
  CallContext ctx;
  d.handle(Protocol::XmlRpc,
           "<methodCall><methodName>sum</methodName><params><param><value><int>1</int>"
           "</value></param></params></methodCall>",
           ctx, out);
  EXPECT_NE(out.view().find("<int>1</int>"), std::string_view::npos);
  std::vector<MethodStats> stats;
  d.add_stats_to(stats);
  for (const MethodStats& s : stats)
    if (s.name == "sum") {
      EXPECT_EQ(s.calls, 2u);
    }
}

TEST(JsonRpc, LimitsComeFromTheOptions) {
  Fixture f;
  DispatchOptions o;
  o.json_rpc.limits.max_batch_size = 2;
  Dispatcher d(f.registry, o);
  expect_error(post(d, R"([{"jsonrpc":"2.0","method":"sum","id":1},
                           {"jsonrpc":"2.0","method":"sum","id":2},
                           {"jsonrpc":"2.0","method":"sum","id":3}])")
                   .value,
               "null", -32600);
}

// A body read in place (readable_after >= json::kPadding) ends where its length says, whatever
// follows it in memory: here bytes that would complete or change the document if read on.
// Without the room it is copied; the answers are the same.
TEST(JsonRpc, ABodyReadInPlaceEndsAtItsLength) {
  Fixture f;
  Dispatcher d(f.registry, {});
  auto answer = [&](std::string_view document, std::string_view after, bool in_place) {
    Buffer memory;
    memory.append(document);
    memory.append(after);
    memory.append(std::string(json::kPadding, '}'));
    std::string_view body = memory.view().substr(0, document.size());
    size_t readable_after = in_place ? memory.room_after(body) : 0;
    if (in_place) {
      EXPECT_GE(readable_after, json::kPadding);
    }
    Buffer out;
    CallContext ctx;
    d.handle(Protocol::JsonRpc, body, ctx, out, readable_after);
    json::Reader reader;
    Result<Value> v = reader.read_value(out.view());
    EXPECT_TRUE(v) << out.view();
    return v ? *v : Value();
  };
  for (bool in_place : {true, false}) {
    SCOPED_TRACE(in_place ? "in place" : "copied");
    expect_result(answer(R"({"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1})",
                         R"(]}{"x)", in_place),
                  "1", Value(19));
    // Cut short: what follows would finish it, but it is not part of the body.
    expect_error(
        answer(R"({"jsonrpc":"2.0","method":"subtract","params":[42,23)", R"(],"id":1})", in_place),
        "null", -32700);
    // Bytes after a whole document are not trailing content (that would be -32700).
    Value batch =
        answer(R"([{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":12}])", "34", in_place);
    ASSERT_TRUE(batch.is_array());
    ASSERT_EQ(batch.size(), 1u);
    expect_result(batch[0], "12", Value(3));
    // An id at the body's end is not continued by the digits and the brace after it.
    expect_error(answer(R"({"jsonrpc":"2.0","method":"sum","params":[1],"id":12)", "34}", in_place),
                 "null", -32700);
  }
}

TEST(JsonRpc, TheContentTypeNamesTheProtocol) {
  EXPECT_EQ(protocol_for_content_type("application/json"), Protocol::JsonRpc);
  EXPECT_EQ(protocol_for_content_type("Application/JSON; charset=utf-8"), Protocol::JsonRpc);
  EXPECT_EQ(protocol_for_content_type(" application/json-rpc "), Protocol::JsonRpc);
  EXPECT_EQ(protocol_for_content_type("application/jsonrequest"), Protocol::JsonRpc);
  EXPECT_EQ(protocol_for_content_type("text/xml"), Protocol::XmlRpc);
  EXPECT_EQ(protocol_for_content_type(""), Protocol::XmlRpc);
  EXPECT_EQ(protocol_for_content_type("application/jsonx"), Protocol::XmlRpc);
  EXPECT_EQ(protocol_for_content_type("application/x-www-form-urlencoded"), Protocol::XmlRpc);
  EXPECT_EQ(answer_content_type(Protocol::JsonRpc), "application/json");
  EXPECT_EQ(answer_content_type(Protocol::XmlRpc), "text/xml");
}

TEST(JsonRpc, ABodyWithNoContentTypeIsReadForWhatItIs) {
  // Bare JSON with no Content-Type is JSON-RPC, as a JSON-RPC client expects; XML and
  // anything else stays XML-RPC, and a Content-Type, when there is one, decides.
  EXPECT_EQ(protocol_for_request("", R"({"jsonrpc":"2.0","method":"m","id":1})"),
            Protocol::JsonRpc);
  EXPECT_EQ(protocol_for_request("", " \r\n\t[{\"jsonrpc\":\"2.0\"}]"), Protocol::JsonRpc);
  EXPECT_EQ(protocol_for_request("", "<?xml version='1.0'?><methodCall/>"), Protocol::XmlRpc);
  EXPECT_EQ(protocol_for_request("", ""), Protocol::XmlRpc);
  EXPECT_EQ(protocol_for_request("", "   "), Protocol::XmlRpc);
  EXPECT_EQ(protocol_for_request("text/xml", "{}"), Protocol::XmlRpc);
  EXPECT_EQ(protocol_for_request("application/json", "<x/>"), Protocol::JsonRpc);
}

}  // namespace
}  // namespace callwire::detail
