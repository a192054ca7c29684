// The JSON-RPC response reader: results, errors, batches in any order, and malformed answers.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "callwire/json.hpp"

namespace callwire::json {
namespace {

Responses read(std::string_view text, JsonLimits limits = {}) {
  Reader reader(limits);
  Responses out;
  Status s = reader.read_response(text, out);
  EXPECT_TRUE(s) << text << ": " << s.error().message;
  return out;
}

Response one(std::string_view text) {
  Responses out = read(text);
  EXPECT_FALSE(out.batch);
  EXPECT_EQ(out.responses.size(), 1u);
  return out.responses.empty() ? Response() : out.responses[0];
}

Error refused(std::string_view text, JsonLimits limits = {}) {
  Reader reader(limits);
  Responses out;
  out.responses.emplace_back();
  Status s = reader.read_response(text, out);
  EXPECT_FALSE(s) << text;
  EXPECT_TRUE(out.responses.empty()) << text;
  return s.error();
}

// The usual numbers (a few digits, a few decimals) are read in one exact operation; the rest
// by the general reader. Either way a number's double is the correctly rounded one, bit for
// bit what strtod reads, on texts of JSON's grammar of every shape near both paths' edges.
// (simdjson 3.0.1's On Demand get_double, read before, took only the low 64 bits of more
// than 19 digits: 0.65260029164365297418 read as 0.0992.)
TEST(JsonResponse, DoublesReadAsStrtodReadsThem) {
  std::mt19937_64 rng(11);
  std::vector<std::string> texts = {"9007199254740992.0",
                                    "9007199254740993.0",
                                    "1e22",
                                    "1e23",
                                    "-0.0",
                                    "0.1",
                                    "123456789012345.6",
                                    "4.35",
                                    "-2.5e-3",
                                    "1.7976931348623157e308",
                                    "5e-324",
                                    "0.000001e-17",
                                    "0.65260029164365297418",
                                    "3.14159265358979323846264338"};
  for (int i = 0; i < 20000; ++i) {
    std::string t = rng() % 2 ? "-" : "";
    const size_t digits = 1 + rng() % 20;
    t += rng() % 5 == 0 ? '0' : char('1' + rng() % 9);
    if (t.back() != '0')
      for (size_t d = 1; d < digits; ++d) t += char('0' + rng() % 10);
    const bool fraction = rng() % 4 != 0;
    if (fraction) {
      t += '.';
      for (size_t d = 0, n = 1 + rng() % 20; d < n; ++d) t += char('0' + rng() % 10);
    }
    if (!fraction || rng() % 3 == 0)
      t += "eE"[rng() % 2] + std::string(rng() % 2 ? "-" : "+") + std::to_string(rng() % 40);
    texts.push_back(t);
  }
  std::string result = "[";
  for (const std::string& t : texts) result += (result.size() > 1 ? "," : "") + t;
  result += "]";
  Reader reader;
  Responses out;
  ASSERT_TRUE(reader.read_response(R"({"jsonrpc":"2.0","id":1,"result":)" + result + "}", out));
  const Value& numbers = out.responses.at(0).result;
  ASSERT_EQ(numbers.size(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    std::optional<double> got = numbers[i].try_as_double();
    ASSERT_TRUE(got) << texts[i];
    const double want = std::strtod(texts[i].c_str(), nullptr);
    ASSERT_EQ(std::bit_cast<uint64_t>(*got), std::bit_cast<uint64_t>(want)) << texts[i];
  }
}

TEST(JsonResponse, Result) {
  Response r = one(R"({"jsonrpc": "2.0", "result": {"a": [1, 2.5, "x", null]}, "id": 1})");
  ASSERT_TRUE(r.ok()) << r.error.message;
  EXPECT_EQ(r.id, "1");
  EXPECT_EQ(r.result, Value::structure({{"a", Value::array({1, 2.5, "x", Value()})}}));
  EXPECT_FALSE(r.data);
  // A null result is a result.
  r = one(R"({"id": "a", "result": null, "jsonrpc": "2.0"})");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.result.is_nil());
  EXPECT_EQ(r.id, "\"a\"");
}

TEST(JsonResponse, Error) {
  Response r =
      one(R"({"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"})");
  ASSERT_TRUE(r.is_fault());
  EXPECT_EQ(r.error.fault_code, -32601);
  EXPECT_EQ(r.error.message, "Method not found");
  EXPECT_FALSE(r.data);
  r = one(R"({"jsonrpc":"2.0","error":{"data":{"why":[1]},"message":"no","code":42,"x":1},)"
          R"("id":null})");
  ASSERT_TRUE(r.is_fault());
  EXPECT_EQ(r.error.fault_code, 42);
  EXPECT_EQ(r.id, "null");
  ASSERT_TRUE(r.data);
  EXPECT_EQ(*r.data, Value::structure({{"why", Value::array({1})}}));
  r = one(R"({"jsonrpc":"2.0","error":{"code":1,"message":"m","data":null},"id":1})");
  ASSERT_TRUE(r.data);
  EXPECT_TRUE(r.data->is_nil());
  r = one(R"({"jsonrpc":"2.0","error":{"code":-2147483648,"message":""},"id":1})");
  EXPECT_EQ(r.error.fault_code, INT32_MIN);
}

TEST(JsonResponse, IdsOfEveryKindAreKeptAsWritten) {
  for (const char* id : {"1", "-7", "0", "\"abc\"", "null", "1.5e3", "\"\\u0041\\n\"", "\"\"",
                         "123456789012345678901234567890", "-1E-2"}) {
    std::string doc = std::string(R"({"jsonrpc":"2.0","result":true,"id":)") + id + " }";
    Response r = one(doc);
    ASSERT_TRUE(r.ok()) << doc;
    EXPECT_EQ(r.id, id);
  }
  for (const char* id : {"true", "[1]", "{}"})
    EXPECT_EQ(refused(std::string(R"({"jsonrpc":"2.0","result":1,"id":)") + id + "}").code,
              Errc::InvalidRequest)
        << id;
}

TEST(JsonResponse, BatchInAnyOrder) {
  Responses out = read(R"([{"jsonrpc":"2.0","result":7,"id":3},
    {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null},
    {"jsonrpc":"2.0","result":"x","id":1}])");
  EXPECT_TRUE(out.batch);
  ASSERT_EQ(out.responses.size(), 3u);
  EXPECT_EQ(out.responses[0].id, "3");
  EXPECT_EQ(out.responses[0].result, Value(7));
  EXPECT_TRUE(out.responses[1].is_fault());
  EXPECT_EQ(out.responses[1].error.fault_code, -32600);
  EXPECT_EQ(out.responses[2].id, "1");
  EXPECT_EQ(out.responses[2].result, Value("x"));
  // The storage is reused by the next document.
  Reader reader;
  ASSERT_TRUE(reader.read_response(R"({"jsonrpc":"2.0","result":1,"id":9})", out));
  EXPECT_FALSE(out.batch);
  ASSERT_EQ(out.responses.size(), 1u);
  EXPECT_EQ(out.responses[0].id, "9");
  EXPECT_FALSE(out.responses[0].data);
}

TEST(JsonResponse, MalformedResponsesAreRefusedWhole) {
  for (const char* doc : {
           R"({"jsonrpc":"2.0","id":1})",                                              // neither
           R"({"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"m"},"id":1})",  // both
           R"({"jsonrpc":"1.0","result":1,"id":1})",  // wrong version
           R"({"jsonrpc":2.0,"result":1,"id":1})",
           R"({"result":1,"error":null,"id":1})",            // JSON-RPC 1.0
           R"({"jsonrpc":"2.0","result":1})",                // no id
           R"({"jsonrpc":"2.0","result":1,"id":1,"id":2})",  // repeated
           R"({"jsonrpc":"2.0","error":"bad","id":1})",
           R"({"jsonrpc":"2.0","error":{"message":"m"},"id":1})",
           R"({"jsonrpc":"2.0","error":{"code":1},"id":1})",
           R"({"jsonrpc":"2.0","error":{"code":"1","message":"m"},"id":1})",
           R"({"jsonrpc":"2.0","error":{"code":1.5,"message":"m"},"id":1})",
           R"({"jsonrpc":"2.0","error":{"code":2147483648,"message":"m"},"id":1})",
           R"({"jsonrpc":"2.0","error":{"code":1,"message":7},"id":1})",
           R"([{"jsonrpc":"2.0","result":1,"id":1}, 5])",
           R"([])",
           R"(42)",
           R"("result")",
       }) {
    Error e = refused(doc);
    EXPECT_EQ(e.code, Errc::InvalidRequest) << doc << ": " << e.message;
  }
  EXPECT_NE(refused(R"([{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","id":2}])")
                .message.find("response 2 of the batch"),
            std::string::npos);
  for (const char* doc : {"", "{", R"({"jsonrpc":"2.0","result":1,"id":1} x)",
                          R"({"jsonrpc":"2.0","result":tru,"id":1})",
                          R"({"jsonrpc":"2.0","result":1,"id":1,"other":[1,]})"})
    EXPECT_EQ(refused(doc).code, Errc::NotWellFormed) << doc;
}

TEST(JsonResponse, NumbersNoValueHoldsSpoilOnlyTheirResponse) {
  Responses out = read(R"([{"jsonrpc":"2.0","result":123456789012345678901234567890,"id":1},)"
                       R"({"jsonrpc":"2.0","result":{"a":1,"a":2},"id":2},)"
                       R"({"jsonrpc":"2.0","result":2,"id":3}])");
  ASSERT_EQ(out.responses.size(), 3u);
  EXPECT_EQ(out.responses[0].error.code, Errc::Unrepresentable);
  EXPECT_EQ(out.responses[0].id, "1");
  EXPECT_EQ(out.responses[1].error.code, Errc::InvalidRequest);
  EXPECT_TRUE(out.responses[2].ok());
  EXPECT_EQ(out.responses[2].result, Value(2));
}

TEST(JsonResponse, WhatIsIgnoredSpoilsNothing) {
  // Members other than the protocol's, in the response or its error, are only checked as JSON.
  for (const char* x : {"1e999", "123456789012345678901234567890", R"({"a": 1, "a": 2})"}) {
    std::string doc = std::string(R"({"jsonrpc":"2.0","result":1,"id":1,"x":)") + x + "}";
    Response r = one(doc);
    EXPECT_TRUE(r.ok()) << doc << ": " << r.error.message;
    EXPECT_EQ(r.result, Value(1)) << doc;
    doc = std::string(R"({"jsonrpc":"2.0","error":{"code":7,"message":"m","x":)") + x +
          R"(},"id":1})";
    r = one(doc);
    EXPECT_TRUE(r.is_fault()) << doc << ": " << r.error.message;
    EXPECT_EQ(r.error.fault_code, 7) << doc;
  }
}

TEST(JsonResponse, Limits) {
  JsonLimits limits;
  limits.max_batch_size = 2;
  EXPECT_EQ(refused(R"([{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":1,"id":2},)"
                    R"({"jsonrpc":"2.0","result":1,"id":3}])",
                    limits)
                .code,
            Errc::LimitExceeded);
  limits = {};
  limits.max_depth = 2;
  read(R"({"jsonrpc":"2.0","result":[[1]],"id":1})", limits);
  EXPECT_EQ(refused(R"({"jsonrpc":"2.0","result":[[[1]]],"id":1})", limits).code,
            Errc::LimitExceeded);
  EXPECT_EQ(
      refused(R"({"jsonrpc":"2.0","error":{"code":1,"message":"m","data":[[[1]]]},"id":1})", limits)
          .code,
      Errc::LimitExceeded);
  limits = {};
  limits.max_string_size = 3;
  EXPECT_EQ(refused(R"({"jsonrpc":"2.0","result":"abcd","id":1})", limits).code,
            Errc::LimitExceeded);
  limits = {};
  limits.max_document_size = 10;
  EXPECT_EQ(refused(R"({"jsonrpc":"2.0","result":1,"id":1})", limits).code, Errc::LimitExceeded);
}

// One Reader and one Responses across documents of different shapes (values are built in
// place on a stack the Reader keeps), copied or read in place from a Buffer with room after
// them, whose contents do not matter.
TEST(JsonResponse, ReaderIsReusableAndPaddedInputNeedsNoCopy) {
  const std::string documents[] = {
      R"([{"jsonrpc":"2.0","result":[1,{"a":[2,"bb"],"c":{}}],"id":1},)"
      R"({"jsonrpc":"2.0","error":{"code":-1,"message":"m","data":[3]},"id":"x"}])",
      R"({"jsonrpc":"2.0","result":"a string longer than fourteen bytes","id":2})",
      R"({"jsonrpc":"2.0","result":{"z":[[[]]],"y":1.5},"id":3})",
      R"([1,)",
      R"({"jsonrpc":"2.0","result":[{"a":1,"a":2}],"id":4})",
      R"({"jsonrpc":"2.0","result":12345678901,"id":5})",
  };
  auto check = [](size_t i, Status s, const Responses& out) {
    if (i == 3) {
      EXPECT_FALSE(s);
      EXPECT_TRUE(out.responses.empty());
      return;
    }
    ASSERT_TRUE(s) << i << ": " << s.error().message;
    EXPECT_EQ(out.batch, i == 0);
    ASSERT_EQ(out.responses.size(), i == 0 ? 2u : 1u);
    const Response& r = out.responses[0];
    switch (i) {
      case 0:
        EXPECT_EQ(r.result, Value::array({1, Value::structure({{"a", Value::array({2, "bb"})},
                                                               {"c", Value::structure({})}})}));
        EXPECT_EQ(out.responses[1].id, "\"x\"");
        EXPECT_TRUE(out.responses[1].is_fault());
        EXPECT_EQ(out.responses[1].data, Value::array({3}));
        break;
      case 1:
        EXPECT_EQ(r.result, Value("a string longer than fourteen bytes"));
        break;
      case 2:
        EXPECT_EQ(r.result, Value::structure({{"z", Value::array({Value::array({Value::array()})})},
                                              {"y", 1.5}}));
        break;
      case 4:
        EXPECT_EQ(r.error.code, Errc::InvalidRequest);
        EXPECT_EQ(r.id, "4");
        break;
      case 5:
        EXPECT_EQ(r.result, Value::i8(12345678901));
        break;
    }
  };
  Reader reader;
  Responses out;
  Buffer in;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < std::size(documents); ++i) {
      check(i, reader.read_response(documents[i], out), out);
      in.clear();
      in.append(documents[i]);
      char* room = in.prepare(kPadding);
      std::memset(room, round ? '"' : '\\', kPadding);  // a quote or escape right after the text
      check(i, reader.read_response_padded(in.view(), out), out);
    }
  }
  JsonLimits small;
  small.max_document_size = 8;
  Reader limited(small);
  in.clear();
  in.append(documents[1]);
  in.prepare(kPadding);
  Status s = limited.read_response_padded(in.view(), out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::LimitExceeded);
  EXPECT_TRUE(out.responses.empty());
}

TEST(JsonResponse, WhatTheWritersWriteReadsBack) {
  Buffer doc;
  BatchWriter batch(doc);
  Value data = Value::array({1, "two"});
  ASSERT_TRUE(batch.result("\"r\"", Value::structure({{"k", 1.5}})));
  ASSERT_TRUE(batch.error("7", -32000, "boom", &data));
  ASSERT_TRUE(batch.finish());
  Responses out = read(doc.view());
  ASSERT_EQ(out.responses.size(), 2u);
  EXPECT_EQ(out.responses[0].result, Value::structure({{"k", 1.5}}));
  EXPECT_EQ(out.responses[1].error.message, "boom");
  EXPECT_EQ(*out.responses[1].data, data);
}

TEST(JsonWriter, CallWithASpanOfParams) {
  Buffer out;
  Value params[] = {Value(2), Value("x")};
  ASSERT_TRUE(write_call(out, "5", "sample.add", std::span<const Value>(params)));
  EXPECT_EQ(out.view(), R"({"jsonrpc":"2.0","method":"sample.add","params":[2,"x"],"id":5})");
  out.clear();
  ASSERT_TRUE(write_call(out, "", "n", std::span<const Value>()));
  EXPECT_EQ(out.view(), R"({"jsonrpc":"2.0","method":"n","params":[]})");
  Value bad[] = {Value(std::nan(""))};
  out.clear();
  out.append("keep");
  EXPECT_EQ(write_call(out, "1", "m", std::span<const Value>(bad)).error().code,
            Errc::Unrepresentable);
  EXPECT_EQ(out.view(), "keep");
}

}  // namespace
}  // namespace callwire::json
