// The JSON-RPC message layer: request documents in, decoded calls out; the response writers.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "callwire/json.hpp"

namespace callwire::json {
namespace {

Request read(std::string_view text, JsonLimits limits = {}) {
  Reader reader(limits);
  Request req;
  Status s = reader.read_request(text, req);
  EXPECT_TRUE(s) << text << ": " << s.error().message;
  return req;
}

Error refused(std::string_view text, JsonLimits limits = {}) {
  Reader reader(limits);
  Request req;
  Status s = reader.read_request(text, req);
  EXPECT_FALSE(s) << text;
  EXPECT_TRUE(req.calls.empty());
  return s.error();
}

Call one(std::string_view text) {
  Request req = read(text);
  EXPECT_FALSE(req.batch);
  EXPECT_EQ(req.calls.size(), 1u);
  return req.calls.empty() ? Call() : req.calls[0];
}

TEST(JsonRequest, Positional) {
  Call c = one(R"({"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1})");
  ASSERT_TRUE(c.ok()) << c.error.message;
  EXPECT_EQ(c.method, "subtract");
  EXPECT_EQ(c.params, Value::array({42, 23}));
  EXPECT_EQ(c.id, "1");
  EXPECT_FALSE(c.is_notification());
}

TEST(JsonRequest, NamedAndAbsentParams) {
  Call c = one(R"({"id": "x", "params": {"b": 1, "a": [2]}, "method": "m", "jsonrpc": "2.0"})");
  ASSERT_TRUE(c.ok()) << c.error.message;
  ASSERT_TRUE(c.params.is_struct());
  EXPECT_EQ(c.params.members()[0].name(), "b");
  EXPECT_EQ(c.params["a"], Value::array({2}));
  c = one(R"({"jsonrpc": "2.0", "method": "m"})");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c.is_notification());
  EXPECT_EQ(c.params, Value::array());
}

TEST(JsonRequest, IdsAreKeptAsWritten) {
  for (const char* id : {"1", "-7", "\"abc\"", "null", "1.5e3", "0.0", "\"\\u0041\\n\"", "\"\"",
                         "123456789012345678901234567890", "-1E-2"}) {
    std::string doc = std::string(R"({"jsonrpc":"2.0","method":"m","id":)") + id + " }";
    Call c = one(doc);
    ASSERT_TRUE(c.ok()) << doc << ": " << c.error.message;
    EXPECT_EQ(c.id, id);
    Buffer out;
    ASSERT_TRUE(write_result(out, c.id, 1));
    EXPECT_EQ(out.view(), std::string(R"({"jsonrpc":"2.0","result":1,"id":)") + id + "}");
  }
}

TEST(JsonRequest, InvalidRequests) {
  struct Case {
    const char* doc;
    const char* id;  // the id the answer carries
  };
  for (Case c : {
           Case{R"({"jsonrpc": "1.0", "method": "m", "id": 1})", "1"},
           Case{R"({"jsonrpc": 2.0, "method": "m", "id": 1})", "1"},
           Case{R"({"method": "m", "id": 1})", "1"},
           Case{R"({"jsonrpc": "2.0", "id": 1})", "1"},
           Case{R"({"jsonrpc": "2.0", "method": 1, "id": "a"})", "\"a\""},
           Case{R"({"jsonrpc": "2.0", "method": null})", "null"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "params": "bar", "id": 2})", "2"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "params": 3})", "null"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "id": true})", "null"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "id": [1]})", "null"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "id": {"a": 1}})", "null"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "method": "n", "id": 3})", "3"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "id": 3, "id": 4})", "null"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "params": {"a": 1, "a": 2}, "id": 5})", "5"},
           Case{R"({"jsonrpc": "2.0", "method": "m", "params": [{"a": 1, "a": 2}]})", "null"},
       }) {
    Call call = one(c.doc);
    EXPECT_FALSE(call.ok()) << c.doc;
    EXPECT_EQ(call.error.fault_code, fault_code::kInvalidXmlRpc) << c.doc;
    EXPECT_EQ(call.id, c.id) << c.doc << ": " << call.error.message;
    EXPECT_FALSE(call.is_notification());
  }
}

TEST(JsonRequest, UnknownMembersAreIgnored) {
  Call c = one(R"({"jsonrpc": "2.0", "x": [1, {"y": null}], "method": "m", "id": 1, "x": 2})");
  EXPECT_TRUE(c.ok()) << c.error.message;
  // What no Value holds in them spoils nothing: they are not read into Values.
  for (const char* x : {"1e999", "123456789012345678901234567890", R"({"a": 1, "a": 2})"}) {
    std::string doc = std::string(R"({"jsonrpc": "2.0", "method": "m", "id": 1, "x": )") + x + "}";
    c = one(doc);
    EXPECT_TRUE(c.ok()) << doc << ": " << c.error.message;
  }
  // ... but still have to be JSON.
  Error e = refused(R"({"jsonrpc": "2.0", "x": [tru], "method": "m", "id": 1})");
  EXPECT_EQ(e.fault_code, fault_code::kParseError);
}

TEST(JsonRequest, HugeIntegerIsInvalidParamsWithItsId) {
  Request req = read(
      R"([{"jsonrpc": "2.0", "method": "m", "params": [1, 123456789012345678901234567890], "id": "big"},
                         {"jsonrpc": "2.0", "method": "m", "params": {"x": -99999999999999999999}},
                         {"jsonrpc": "2.0", "method": "m", "params": [1e999], "id": 3},
                         {"jsonrpc": "2.0", "method": "m", "params": [9223372036854775807], "id": 4}])");
  ASSERT_EQ(req.calls.size(), 4u);
  EXPECT_EQ(req.calls[0].error.code, Errc::Unrepresentable);
  EXPECT_EQ(req.calls[0].error.fault_code, fault_code::kInvalidParams);
  EXPECT_EQ(req.calls[0].id, "\"big\"");
  EXPECT_EQ(req.calls[1].error.fault_code, fault_code::kInvalidParams);
  EXPECT_TRUE(req.calls[1].is_notification());  // not answered, even so
  EXPECT_EQ(req.calls[2].error.fault_code, fault_code::kInvalidParams);
  EXPECT_EQ(req.calls[2].id, "3");
  ASSERT_TRUE(req.calls[3].ok());
  EXPECT_EQ(req.calls[3].params, Value::array({Value::i8(INT64_MAX)}));
}

TEST(JsonRequest, WholeDocumentErrors) {
  for (const char* text : {"", "   ", "{", "[", "{\"jsonrpc\": \"2.0\", \"method\": \"m\"} x",
                           "[{}, {]", "{\"a\": 01}", "\xEF\xBB\xBF{}", "[1] [2]"}) {
    Error e = refused(text);
    EXPECT_EQ(e.code, Errc::NotWellFormed) << text;
    EXPECT_EQ(e.fault_code, fault_code::kParseError) << text;
  }
  for (const char* text : {"[]", " [ ] ", "1", "\"x\"", "null", "true"}) {
    Error e = refused(text);
    EXPECT_EQ(e.code, Errc::InvalidRequest) << text;
    EXPECT_EQ(e.fault_code, fault_code::kInvalidXmlRpc) << text;
  }
}

TEST(JsonRequest, DeepParams) {
  std::string deep = std::string(64, '[') + std::string(64, ']');
  Call c = one(R"({"jsonrpc":"2.0","method":"m","id":1,"params":[)" + deep + "]}");
  EXPECT_TRUE(c.ok());
  deep = std::string(65, '[') + std::string(65, ']');
  Error e = refused(R"({"jsonrpc":"2.0","method":"m","id":1,"params":[)" + deep + "]}");
  EXPECT_EQ(e.code, Errc::LimitExceeded);
  EXPECT_EQ(e.fault_code, fault_code::kInvalidXmlRpc);
  e = refused(std::string(500000, '[') + std::string(500000, ']'));
  EXPECT_EQ(e.code, Errc::LimitExceeded);
}

std::string batch_of(size_t n) {
  std::string doc = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) doc += ',';
    doc += R"({"jsonrpc":"2.0","method":"sum","params":[1,2],"id":)" + std::to_string(i) + "}";
  }
  return doc + "]";
}

TEST(JsonRequest, BatchLimit) {
  JsonLimits limits;
  EXPECT_EQ(read(batch_of(limits.max_batch_size), limits).calls.size(), limits.max_batch_size);
  std::string huge = batch_of(100000);
  Error e = refused(huge);
  EXPECT_EQ(e.code, Errc::LimitExceeded);
  EXPECT_EQ(e.fault_code, fault_code::kInvalidXmlRpc);
  limits.max_batch_size = 100000;
  Request req = read(huge, limits);
  ASSERT_EQ(req.calls.size(), 100000u);
  EXPECT_TRUE(req.batch);
  EXPECT_EQ(req.calls[99999].id, "99999");
  EXPECT_EQ(req.calls[99999].params, Value::array({1, 2}));
  limits.max_elements = 100000;  // the entries count too
  e = refused(huge, limits);
  EXPECT_EQ(e.code, Errc::LimitExceeded);
}

TEST(JsonRequest, ReaderIsReusableAndPaddedInputNeedsNoCopy) {
  Reader reader;
  Request req;
  Buffer in;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(reader.read_request(batch_of(3), req));
    EXPECT_EQ(req.calls.size(), 3u);
    EXPECT_FALSE(reader.read_request("[1,", req));
    EXPECT_TRUE(req.calls.empty());
    in.clear();
    in.append(R"({"jsonrpc":"2.0","method":"m","params":{"a":"b"},"id":"q"})");
    in.prepare(kPadding);
    ASSERT_TRUE(reader.read_request_padded(in.view(), req));
    ASSERT_EQ(req.calls.size(), 1u);
    EXPECT_FALSE(req.batch);
    EXPECT_EQ(req.calls[0].id, "\"q\"");
    EXPECT_EQ(req.calls[0].params, Value::structure({{"a", "b"}}));
  }
  JsonLimits small;
  small.max_document_size = 8;
  Error e = refused("[1,2,3,4,5]", small);
  EXPECT_EQ(e.code, Errc::LimitExceeded);
}

TEST(JsonWriter, Envelopes) {
  Buffer out;
  ASSERT_TRUE(write_result(out, "7", Value::array({1, "a"})));
  EXPECT_EQ(out.view(), R"({"jsonrpc":"2.0","result":[1,"a"],"id":7})");
  out.clear();
  ASSERT_TRUE(write_result(out, "", nullptr));
  EXPECT_EQ(out.view(), R"({"jsonrpc":"2.0","result":null,"id":null})");
  out.clear();
  Value data = Value::structure({{"why", "x\"y"}});
  ASSERT_TRUE(write_error(out, "\"q\"", -32000, "Server error", &data));
  EXPECT_EQ(
      out.view(),
      R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Server error","data":{"why":"x\"y"}},"id":"q"})");
  out.clear();
  ASSERT_TRUE(write_call(out, "1", "sum", Value::array({1, 2})));
  EXPECT_EQ(out.view(), R"({"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1})");
  out.clear();
  ASSERT_TRUE(write_call(out, "", "note", Value::structure({{"a", 1}})));
  EXPECT_EQ(out.view(), R"({"jsonrpc":"2.0","method":"note","params":{"a":1}})");
  out.clear();
  EXPECT_EQ(write_call(out, "1", "m", 5).error().code, Errc::InvalidArgument);
  Status s = write_result(out, "1", Value::array({std::numeric_limits<double>::quiet_NaN()}));
  EXPECT_EQ(s.error().code, Errc::Unrepresentable);
  EXPECT_TRUE(out.empty());
  EXPECT_STREQ(standard_message(-32700), "Parse error");
  EXPECT_STREQ(standard_message(-32050), "Server error");
  EXPECT_STREQ(standard_message(7), "Error");
}

TEST(JsonWriter, BatchSkipsFailedEntriesAndWritesNothingWhenEmpty) {
  Buffer out;
  {
    BatchWriter batch(out);
    EXPECT_FALSE(batch.finish());
    EXPECT_TRUE(out.empty());
  }
  BatchWriter batch(out);
  ASSERT_TRUE(batch.result("1", 1));
  EXPECT_FALSE(batch.result("2", std::numeric_limits<double>::infinity()));
  ASSERT_TRUE(batch.error("3", -32601, "Method not found"));
  EXPECT_EQ(batch.count(), 2u);
  EXPECT_TRUE(batch.finish());
  EXPECT_EQ(out.view(),
            R"([{"jsonrpc":"2.0","result":1,"id":1},)"
            R"({"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}])");
}

}  // namespace
}  // namespace callwire::json
