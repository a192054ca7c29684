// A response's result read straight into a typed call's C++ type (Reader::read_response with a
// sink): the same values and errors as the Value path, bytes and times from their strings,
// the whole document checked whatever the sink reads, and the limits kept.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/json.hpp"
#include "callwire/value_reader.hpp"
#include "counting_reader.hpp"
#include "value/value_build.hpp"

namespace callwire::json {
namespace {

// Reads the result into T with read_value, as Client::call<T> does.
template <class T>
struct Into final : ValueSink {
  T value{};
  int calls = 0;
  Status read(ValueReader& r) override {
    ++calls;
    return read_value(r, value);
  }
};

// Reads nothing: the reader is left standing before the result.
struct Nothing final : ValueSink {
  Status read(ValueReader&) override { return {}; }
};

// Goes into the first array or struct, reads its first element, and stops.
struct FirstOnly final : ValueSink {
  Value first;
  Status read(ValueReader& r) override {
    Result<Type> t = r.peek();
    if (!t) return t.error();
    std::string_view name;
    if (*t == Type::Array) {
      if (Status s = r.enter_array(); !s) return s;
      Result<bool> more = r.next_element();
      if (!more) return more.error();
    } else {
      if (Status s = r.enter_struct(); !s) return s;
      Result<bool> more = r.next_member(name);
      if (!more) return more.error();
    }
    return r.read(first);
  }
};

struct Read {
  Status document;
  Status sink;
  Response response;
};

Read read_into(ValueSink& sink, std::string_view text, JsonLimits limits = {}) {
  Reader reader(limits);
  Read out;
  out.document = reader.read_response(text, out.response, sink, out.sink);
  return out;
}

std::string answer(std::string_view result) {
  return R"({"jsonrpc":"2.0","result":)" + std::string(result) + R"(,"id":7})";
}

struct Student {
  int id = 0;
  std::string name;
  double score = 0;
  std::vector<std::string> tags;
};

}  // namespace
}  // namespace callwire::json

template <>
struct callwire::Convert<callwire::json::Student> {
  static constexpr std::string_view type_name = "struct";
  static Result<json::Student> from_value(const Value&) {
    return Error(Errc::InvalidArgument, "not used: read() is");
  }
  static Status read(ValueReader& r, json::Student& s) {
    return read_struct(r, field("id", s.id), field("name", s.name), field("score", s.score),
                       field("tags", s.tags));
  }
};

namespace callwire::json {
namespace {

TEST(JsonResultReader, TypedValuesAsTheValuePathReadsThem) {
  Into<std::vector<Student>> students;
  Read r = read_into(students, answer(R"([{"tags":["a","b\u00e9"],"id":1,"name":"Ann","score":2.5},
      {"id":2,"name":"B\"ob","score":-1e3,"tags":[],"ignored":{"x":[1,{"y":null}]}}])"));
  ASSERT_TRUE(r.document) << r.document.error().message;
  ASSERT_TRUE(r.sink) << r.sink.error().message;
  EXPECT_TRUE(r.response.ok());
  EXPECT_EQ(r.response.id, "7");
  EXPECT_TRUE(r.response.result.is_nil());  // it went to the sink
  ASSERT_EQ(students.value.size(), 2u);
  EXPECT_EQ(students.value[0].id, 1);
  EXPECT_EQ(students.value[0].tags, (std::vector<std::string>{"a", "b\u00e9"}));
  EXPECT_EQ(students.value[1].name, "B\"ob");
  EXPECT_EQ(students.value[1].score, -1000.0);

  // Any Value: the same as the Value path's, for every kind of value.
  for (std::string_view text :
       {R"(null)", R"(true)", R"(-12)", R"(4294967296)", R"(0.1)", R"("x\ny")",
        R"([1,[2,[3,{}]],"z"])", R"({"a":{"b":[true,false]},"c":""})"}) {
    SCOPED_TRACE(text);
    Into<Value> v;
    Read got = read_into(v, answer(text));
    ASSERT_TRUE(got.document && got.sink);
    Reader reader;
    Responses tree;
    ASSERT_TRUE(reader.read_response(answer(text), tree));
    EXPECT_EQ(v.value, tree.responses[0].result);
  }

  Into<std::map<std::string, std::optional<int>>> map;
  ASSERT_TRUE(read_into(map, answer(R"({"a":1,"b":null})")).sink);
  EXPECT_EQ(map.value.at("a"), 1);
  EXPECT_FALSE(map.value.at("b"));
}

TEST(JsonResultReader, StringsStandForBytesAndTimes) {
  Into<std::vector<uint8_t>> bytes;
  ASSERT_TRUE(read_into(bytes, answer(R"("AAEC/w==")")).sink);
  EXPECT_EQ(bytes.value, (std::vector<uint8_t>{0, 1, 2, 255}));

  Into<std::vector<uint8_t>> not_base64;
  Read bad = read_into(not_base64, answer(R"("AA*=")"));
  ASSERT_TRUE(bad.document);
  ASSERT_FALSE(bad.sink);
  EXPECT_EQ(bad.sink.error().code, Errc::TypeMismatch);
  EXPECT_NE(bad.sink.error().message.find("not base64"), std::string::npos);

  Into<DateTime> time;
  ASSERT_TRUE(read_into(time, answer(R"("2026-11-25T04:05:06Z")")).sink);
  EXPECT_EQ(time.value.year, 2026);
  EXPECT_EQ(time.value.second, 6);
  Into<std::chrono::sys_seconds> point;
  ASSERT_TRUE(read_into(point, answer(R"("1970-01-02T00:00:00Z")")).sink);
  EXPECT_EQ(point.value.time_since_epoch().count(), 86400);
  Into<DateTime> not_a_time;
  EXPECT_EQ(read_into(not_a_time, answer(R"("yesterday")")).sink.error().code, Errc::TypeMismatch);

  // A string is still a string, and bytes still want a string.
  Into<std::string> text;
  ASSERT_TRUE(read_into(text, answer(R"("AAEC/w==")")).sink);
  EXPECT_EQ(text.value, "AAEC/w==");
  Into<std::vector<uint8_t>> from_int;
  EXPECT_EQ(read_into(from_int, answer("5")).sink.error().message, "must be base64, got int");
}

TEST(JsonResultReader, WhatTheSinkLeavesIsStillChecked) {
  for (std::string_view text :
       {R"({"a":[1,2],"b":{"c":"d"}})", R"([[1,2],{"c":"d"},3])", R"("plain")", R"({})", R"([])"}) {
    SCOPED_TRACE(text);
    Nothing nothing;
    Read r = read_into(nothing, answer(text));
    EXPECT_TRUE(r.document && r.sink);
    FirstOnly first;
    if (text[0] == '{' || text[0] == '[') {
      Read f = read_into(first, answer(text));
      EXPECT_TRUE(f.document) << f.document.error().message;
    }
  }
  // Invalid JSON in a part no sink reads fails the document, as in the Value path.
  for (std::string_view bad :
       {R"([1,"":2])", R"({"a":[1,2],"b":{"c" "d"}})", R"([1,[2,tru]])", R"({"a":1,"b":[01]})"}) {
    SCOPED_TRACE(bad);
    Nothing nothing;
    EXPECT_EQ(read_into(nothing, answer(bad)).document.error().code, Errc::NotWellFormed);
    FirstOnly first;
    EXPECT_EQ(read_into(first, answer(bad)).document.error().code, Errc::NotWellFormed);
  }
  // After the result too.
  Into<int> n;
  EXPECT_FALSE(read_into(n, R"({"jsonrpc":"2.0","result":1,"id":7,"x":[})").document);
}

// What a sink leaves is walked, not built: a typed read of a few members of a large answer
// pays for checking the rest, not for a tree of it. The checks are the Value path's, with its
// messages: the limits count the unread parts too.
int value_allocations = 0;
bool count_value_allocation() {
  ++value_allocations;
  return true;
}

TEST(JsonResultReader, WhatTheSinkLeavesIsWalkedNotBuilt) {
  const std::string unread =
      R"({"a":1,"b":[["a string longer than a Value holds",{"k":"and another one, as long"}],)"
      R"({"x":[1,2.5,true,null,"\u00e9\n"],"y":{}}],"c":123456789012345678901234567890})";
  value_allocations = 0;
  detail::set_value_alloc_hook(&count_value_allocation);
  FirstOnly first;
  Read r = read_into(first, answer(unread));
  detail::set_value_alloc_hook(nullptr);
  ASSERT_TRUE(r.document) << r.document.error().message;
  EXPECT_TRUE(r.sink && r.response.ok());
  EXPECT_EQ(first.first, Value(1));
  EXPECT_EQ(value_allocations, 0);

  // Each limit, met only in the part left unread, refuses the document as the Value path does.
  JsonLimits depth;
  depth.max_depth = 2;
  JsonLimits string_size;
  string_size.max_string_size = 3;
  JsonLimits elements;
  elements.max_elements = 4;
  const std::pair<std::string_view, JsonLimits> cases[] = {
      {R"({"a":1,"b":[[[1]]]})", depth},
      {R"({"a":1,"b":["abcd"]})", string_size},
      {R"({"a":1,"b":{"abcd":1}})", string_size},
      {R"({"a":1,"b":[1,2,3]})", elements},
  };
  for (const auto& [text, limits] : cases) {
    SCOPED_TRACE(text);
    Into<Value> whole;
    Status built = read_into(whole, answer(text), limits).document;
    ASSERT_EQ(built.error().code, Errc::LimitExceeded);
    FirstOnly part;
    Status walked = read_into(part, answer(text), limits).document;
    EXPECT_EQ(walked.error().code, Errc::LimitExceeded);
    EXPECT_EQ(walked.error().message, built.error().message);
  }
  // The depth limit met by the typed read itself says the same.
  Into<std::vector<std::vector<std::vector<int>>>> nested;
  Into<Value> whole;
  const std::string deep = answer("[[[1]]]");
  Status typed = read_into(nested, deep, depth).document;
  ASSERT_EQ(typed.error().code, Errc::LimitExceeded);
  EXPECT_EQ(typed.error().message, read_into(whole, deep, depth).document.error().message);
}

TEST(JsonResultReader, NumbersNoValueHoldsAndRepeatedNamesFailTheResponse) {
  Into<std::vector<int64_t>> big;
  Read r = read_into(big, answer("[1,18446744073709551616]"));
  ASSERT_TRUE(r.document);
  EXPECT_FALSE(r.sink);
  EXPECT_EQ(r.response.error.code, Errc::Unrepresentable);

  Into<Value> repeated;
  Read twice = read_into(repeated, answer(R"({"a":1,"b":2,"a":3})"));
  ASSERT_TRUE(twice.document);
  EXPECT_FALSE(twice.sink);
  EXPECT_EQ(twice.response.error.code, Errc::InvalidRequest);
  // Read member by member, too, and among many members (the sorted check).
  Into<std::map<std::string, int>> members;
  std::string many = "{";
  for (int i = 0; i < 40; ++i) many += "\"m" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  many += "\"m17\":0}";
  Read sorted = read_into(members, answer(many));
  ASSERT_TRUE(sorted.document);
  EXPECT_EQ(sorted.response.error.code, Errc::InvalidRequest);
  many.replace(many.rfind("m17"), 3, "m99");
  Read distinct = read_into(members, answer(many));
  EXPECT_TRUE(distinct.document && distinct.sink && distinct.response.ok());
  EXPECT_EQ(members.value.size(), 41u);
  // Names alike in size and first and last byte are compared, not taken for one name.
  Read alike = read_into(members, answer(R"({"axb":1,"ayb":2,"b":3})"));
  EXPECT_TRUE(alike.document && alike.sink && alike.response.ok());
  EXPECT_EQ(members.value.size(), 3u);
  Read alike_twice = read_into(members, answer(R"({"axb":1,"ayb":2,"b":3,"ayb":4})"));
  ASSERT_TRUE(alike_twice.document);
  EXPECT_EQ(alike_twice.response.error.code, Errc::InvalidRequest);
}

TEST(JsonResultReader, ErrorsAndMalformedResponses) {
  Into<int> n;
  Read fault = read_into(n, R"({"jsonrpc":"2.0","error":{"code":-32601,"message":"no"},"id":7})");
  ASSERT_TRUE(fault.document);
  EXPECT_EQ(n.calls, 0);
  EXPECT_EQ(fault.response.error.code, Errc::Fault);
  EXPECT_EQ(fault.response.error.fault_code, -32601);

  Read batch = read_into(n, "[" + answer("1") + "]");
  EXPECT_EQ(batch.document.error().code, Errc::InvalidRequest);
  EXPECT_NE(batch.document.error().message.find("batch"), std::string::npos);
  EXPECT_EQ(read_into(n, "5").document.error().code, Errc::InvalidRequest);
  Read both =
      read_into(n, R"({"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":7})");
  EXPECT_EQ(both.document.error().code, Errc::InvalidRequest);
  EXPECT_EQ(read_into(n, R"({"jsonrpc":"2.0","result":1})").document.error().code,
            Errc::InvalidRequest);
}

TEST(JsonResultReader, LimitsHold) {
  JsonLimits limits;
  limits.max_depth = 3;
  Into<Value> v;
  EXPECT_TRUE(read_into(v, answer("[[[1]]]"), limits).document);
  EXPECT_EQ(read_into(v, answer("[[[[1]]]]"), limits).document.error().code, Errc::LimitExceeded);
  Into<std::vector<std::vector<std::vector<std::vector<int>>>>> typed;
  EXPECT_EQ(read_into(typed, answer("[[[[1]]]]"), limits).document.error().code,
            Errc::LimitExceeded);
  Nothing nothing;  // unread, the walk still counts the depth
  EXPECT_EQ(read_into(nothing, answer("[[[[1]]]]"), limits).document.error().code,
            Errc::LimitExceeded);

  limits = JsonLimits();
  limits.max_elements = 7;  // the response's three members count too, as in the Value path
  Reader tree_reader(limits);
  Responses tree;
  EXPECT_TRUE(tree_reader.read_response(answer("[1,2,3,4]"), tree));
  EXPECT_FALSE(tree_reader.read_response(answer("[1,2,3,4,5]"), tree));
  Into<std::vector<int>> ints;
  EXPECT_TRUE(read_into(ints, answer("[1,2,3,4]"), limits).document);
  EXPECT_EQ(read_into(ints, answer("[1,2,3,4,5]"), limits).document.error().code,
            Errc::LimitExceeded);
  limits = JsonLimits();
  limits.max_string_size = 3;
  Into<std::string> text;
  EXPECT_EQ(read_into(text, answer(R"("abcd")"), limits).document.error().code,
            Errc::LimitExceeded);
}

// An array of strings is read in one call to the reader (read_string_elements); what it gives
// or refuses with is the Value path's, at and over the limits.
TEST(JsonResultReader, ArraysOfStringsReadInOneCallSayWhatTheTreeSays) {
  JsonLimits limits;
  limits.max_string_size = 10;
  for (std::string_view result :
       {R"([])", R"(["a","bc"])", R"(["a\"b","\u00e9",""])", R"(["a",1])", R"(["a",null,"b"])",
        R"(["ab","12345678901"])", R"(["1234567890"])", R"(["a","b",])", R"(["a" "b"])",
        R"([1,"a"])", R"(["a",["b"]])"}) {
    const std::string doc = answer(result);
    Reader tree_reader(limits);
    Responses tree;
    const bool tree_read = bool(tree_reader.read_response(doc, tree));
    test_support::CountedInto<std::vector<std::string>> sink;
    Read got = read_into(sink, doc, limits);
    if (!tree_read) {
      ASSERT_FALSE(got.document) << result;
      continue;
    }
    ASSERT_TRUE(got.document) << result << ": " << got.document.error().message;
    Result<std::vector<std::string>> want =
        Convert<std::vector<std::string>>::from_value(tree.responses[0].result);
    if (!want) {
      ASSERT_FALSE(got.sink) << result;
      EXPECT_EQ(got.sink.error().message, want.error().message) << result;
      continue;
    }
    ASSERT_TRUE(got.sink) << result << ": " << got.sink.error().message;
    EXPECT_EQ(sink.value, *want) << result;
  }

  // The usual array: one call, no element read on its own.
  std::string items = "[";
  for (int i = 0; i < 150; ++i) items += (i ? ",\"s" : "\"s") + std::to_string(i) + "\"";
  items += "]";
  test_support::CountedInto<std::vector<std::string>> sink;
  Read got = read_into(sink, answer(items));
  ASSERT_TRUE(got.document && got.sink);
  EXPECT_TRUE(test_support::strings_read_in_one_call(sink, 150));

  // max_elements counts the elements read in one call as it counts the others.
  JsonLimits few;
  few.max_elements = 152;  // the response's three members, then the elements
  EXPECT_EQ(read_into(sink, answer(items), few).document.error().code, Errc::LimitExceeded);
  few.max_elements = 153;
  EXPECT_TRUE(read_into(sink, answer(items), few).document);

  // Called in rounds: it stops before what is not a string, and reads on after it.
  struct Rounds final : ValueSink {
    std::vector<std::string> texts;
    Value other;
    std::vector<bool> ended;
    Status read(ValueReader& r) override {
      if (Status s = r.enter_array(); !s) return s;
      for (;;) {
        Result<bool> end = r.read_string_elements(texts);
        if (!end) return end.error();
        ended.push_back(*end);
        if (*end) return {};
        if (Status s = r.read(other); !s) return s;
      }
    }
  } rounds;
  got = read_into(rounds, answer(R"(["a","b",7,"c"])"));
  ASSERT_TRUE(got.document && got.sink);
  EXPECT_EQ(rounds.texts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(rounds.other, Value(7));
  EXPECT_EQ(rounds.ended, (std::vector<bool>{false, true}));
}

TEST(JsonResultReader, MisuseIsInvalidArgument) {
  struct Misuse final : ValueSink {
    std::vector<Errc> codes;
    Status read(ValueReader& r) override {
      std::string s;
      std::string_view name;
      codes.push_back(r.read_string(s).error().code);  // an array
      codes.push_back(r.next_element().error().code);  // not inside one yet
      std::vector<std::string> texts;
      codes.push_back(r.read_string_elements(texts).error().code);  // nor here
      if (Status st = r.enter_array(); !st) return st;
      codes.push_back(r.next_member(name).error().code);  // an array, not a struct
      codes.push_back(r.peek().error().code);             // nothing before the reader yet
      return {};
    }
  } misuse;
  Read r = read_into(misuse, answer("[1,2]"));
  EXPECT_TRUE(r.document);
  EXPECT_EQ(misuse.codes, std::vector<Errc>(5, Errc::InvalidArgument));
}

}  // namespace
}  // namespace callwire::json
