// ResultWriter (src/json/result_writer.hpp), and every built-in Convert<T>::write through it:
// the fast path must write byte for byte what to_value and write_result write (alone and as a
// batch entry), and refuse what cannot be one value without leaving anything behind.
#include "json/result_writer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/json.hpp"

namespace callwire::json {
namespace {

constexpr std::string_view kBefore = "HTTP/1.1 200 OK\r\n\r\n";  // what `out` held already
constexpr std::string_view kId = "\"id-7\"";

std::string via_value(const Value& v) {
  Buffer b;
  Status s = write_result(b, kId, v);
  EXPECT_TRUE(s) << s.error().message;
  return std::string(b.view());
}

// The response the pieces make, or the error; `out` must be as it was after an error.
Result<std::string> via_writer(const std::function<void(ValueWriter&)>& pieces) {
  Buffer b;
  b.append(kBefore);
  ResultWriter w(b, kId);
  pieces(w);
  Status s = w.finish();
  if (!s) {
    EXPECT_EQ(b.view(), kBefore) << "a failed result left bytes behind";
    return s.error();
  }
  return std::string(b.view().substr(kBefore.size()));
}

template <class T>
void expect_same(const T& t) {
  Result<std::string> fast = via_writer([&](ValueWriter& w) { write_value(w, t); });
  ASSERT_TRUE(fast) << fast.error().message;
  EXPECT_EQ(*fast, via_value(Convert<T>::to_value(t)));
}

DateTime sample_datetime() {
  DateTime dt;
  dt.year = 2026;
  dt.month = 11;
  dt.day = 23;
  dt.hour = 7;
  dt.fraction_digits = 3;
  dt.nanosecond = 123000000;
  dt.zone = DateTime::Zone::Utc;
  return dt;
}

TEST(JsonResultWriter, EveryBuiltInWritesWhatToValueWrites) {
  expect_same(true);
  expect_same(false);
  expect_same(int8_t{-5});
  expect_same(uint16_t{65535});
  expect_same(int32_t{-2147483647 - 1});
  expect_same(uint32_t{4000000000u});  // wider than int: i8
  expect_same(std::numeric_limits<int64_t>::min());
  expect_same(std::numeric_limits<int64_t>::max());
  expect_same(uint64_t{12});
  expect_same(0.1);  // the shortest text that reads back the same
  expect_same(1.0);  // stays a double: `1.0`
  expect_same(-0.0);
  expect_same(1e300);
  expect_same(5e-324);
  expect_same(1.5f);
  expect_same(std::string("a \"quoted\" \\ line\r\n\t\x01 \xc3\xa9 \xf0\x9f\x98\x80"));
  expect_same(std::string(100, 'x') + "\x1f");  // past the short-string path
  expect_same(std::string_view("view"));
  expect_same(static_cast<const char*>("c string"));
  expect_same(std::string());
  expect_same(nullptr);
  expect_same(Value::structure({{"a", Value::array({1, "two", Value::bytes("x", 1)})}}));
  expect_same(Value::structure({}));
  expect_same(Value::array({}));
  expect_same(std::vector<uint8_t>{0, 1, 2, 250, 255});
  expect_same(std::vector<uint8_t>{});
  std::vector<uint8_t> raw(1000, 7);
  expect_same(std::span<const uint8_t>(raw));
  expect_same(sample_datetime());
  expect_same(std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000123)));
  expect_same(std::optional<int>());
  expect_same(std::optional<std::string>("set"));
  expect_same(std::vector<int>{});
  expect_same(std::vector<std::vector<std::string>>{{"a", "b"}, {}, {"a string longer than 14"}});
  expect_same(std::vector<std::vector<int>>{{}, {}, {1}});
  expect_same(std::map<std::string, int>{{"x", 1}, {"y", 2}, {"needs \"escaping\"\n", 3}});
  expect_same(std::map<std::string, double>{});
  expect_same(std::map<std::string, std::vector<std::map<std::string, int>>>{
      {"outer", {{{"a", 1}, {"b", 2}}, {}, {{"c", 3}}}}, {"empty", {}}});
  expect_same(std::unordered_map<std::string, bool>{{"only", true}});
  expect_same(std::tuple<int, std::string, std::optional<double>>{1, "two", std::nullopt});
}

// A Value given whole, inside pieces, and pieces written by hand.
TEST(JsonResultWriter, PiecesAndWholeValuesMix) {
  Result<std::string> r = via_writer([](ValueWriter& w) {
    w.begin_struct();
    w.member("whole");
    w.value(Value::array({1, Value::structure({{"k", 2.5}})}));
    w.member("when");
    w.datetime(sample_datetime());
    w.member("n");
    w.int64(int64_t{1} << 40);
    w.member("none");
    w.nil();
    w.end_struct();
  });
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(
      *r, via_value(Value::structure({{"whole", Value::array({1, Value::structure({{"k", 2.5}})})},
                                      {"when", Value(sample_datetime())},
                                      {"n", Value::i8(int64_t{1} << 40)},
                                      {"none", Value()}})));
  EXPECT_NE(r->find("\"2026-11-23T07:00:00.123Z\""), std::string::npos) << *r;
}

TEST(JsonResultWriter, BatchEntriesFitBetweenTheOthers) {
  const Value value = Value::structure({{"a", Value::array({1, "b"})}});
  Buffer expected;
  {
    BatchWriter batch(expected);
    ASSERT_TRUE(batch.result("1", value));
    ASSERT_TRUE(batch.error("2", -32601, "Method not found"));
    ASSERT_TRUE(batch.result("3", value));
    EXPECT_TRUE(batch.finish());
  }
  auto write = [&](ResultWriter& w) { write_value(w, value); };
  for (bool direct_first : {true, false}) {
    Buffer out;
    BatchWriter batch(out);
    if (direct_first) {
      ResultWriter w(out, "1", &batch);
      write(w);
      ASSERT_TRUE(w.finish());
    } else {
      ASSERT_TRUE(batch.result("1", value));
    }
    {  // a failed entry leaves nothing, not even its separator
      ResultWriter w(out, "9", &batch);
      w.real(std::nan(""));
      EXPECT_FALSE(w.finish());
    }
    ASSERT_TRUE(batch.error("2", -32601, "Method not found"));
    {  // one taken back (its handler threw) leaves nothing either
      ResultWriter w(out, "8", &batch);
      w.begin_array();
      w.discard();
    }
    ResultWriter w(out, "3", &batch);
    write(w);
    ASSERT_TRUE(w.finish());
    EXPECT_EQ(batch.count(), 3u);
    EXPECT_TRUE(batch.finish());
    EXPECT_EQ(out.view(), expected.view());
  }
  // A batch whose only entry failed has no body.
  Buffer out;
  BatchWriter batch(out);
  ResultWriter w(out, "1", &batch);
  w.string("\xff");
  EXPECT_FALSE(w.finish());
  EXPECT_FALSE(batch.finish());
  EXPECT_TRUE(out.empty());
}

TEST(JsonResultWriter, PiecesThatAreNotOneValueAreRefused) {
  struct Case {
    const char* what;
    std::function<void(ValueWriter&)> pieces;
  };
  const Case cases[] = {
      {"no result was written", [](ValueWriter&) {}},
      {"end_array() without begin_array()", [](ValueWriter& w) { w.end_array(); }},
      {"end_array() without begin_array()",
       [](ValueWriter& w) {
         w.begin_struct();
         w.end_array();
       }},
      {"end_struct() without begin_struct()",
       [](ValueWriter& w) {
         w.begin_array();
         w.end_struct();
       }},
      {"a value in a struct without member() first",
       [](ValueWriter& w) {
         w.begin_struct();
         w.int32(1);
       }},
      {"a value in a struct without member() first",
       [](ValueWriter& w) {
         w.begin_struct();
         w.member("x");
         w.int32(1);
         w.string("y");
       }},
      {"member() outside a struct", [](ValueWriter& w) { w.member("x"); }},
      {"member() outside a struct",
       [](ValueWriter& w) {
         w.begin_array();
         w.member("x");
       }},
      {"member() before the previous member's value",
       [](ValueWriter& w) {
         w.begin_struct();
         w.member("x");
         w.member("y");
       }},
      {"end_struct() with the last member's value missing",
       [](ValueWriter& w) {
         w.begin_struct();
         w.member("x");
         w.end_struct();
       }},
      {"a second value after the result",
       [](ValueWriter& w) {
         w.int32(1);
         w.int32(2);
       }},
      {"a second value after the result",
       [](ValueWriter& w) {
         w.begin_array();
         w.end_array();
         w.begin_struct();
       }},
      {"the result was left unfinished",
       [](ValueWriter& w) {
         w.begin_array();
         w.begin_struct();
         w.member("x");
         w.int32(1);
         w.end_struct();
       }},
  };
  for (const Case& c : cases) {
    Result<std::string> r = via_writer(c.pieces);
    ASSERT_FALSE(r) << c.what << ": accepted as " << *r;
    EXPECT_EQ(r.error().code, Errc::InvalidArgument);
    EXPECT_EQ(r.error().message, std::string("ValueWriter: ") + c.what);
  }
}

// The same refusals, with the same messages, as write_result gives for the Value.
TEST(JsonResultWriter, ValuesJsonCannotCarryAreRefusedWherever) {
  DateTime bad_datetime;
  bad_datetime.month = 13;
  struct Case {
    Value value;  // what the Value path refuses
    std::function<void(ValueWriter&)> pieces;
  };
  const Case cases[] = {
      {Value(std::nan("")), [](ValueWriter& w) { w.real(std::nan("")); }},
      {Value::array({1, std::numeric_limits<double>::infinity()}),
       [](ValueWriter& w) {
         w.begin_array();
         w.int32(1);
         w.real(std::numeric_limits<double>::infinity());
         w.end_array();
       }},
      {Value::structure({{"s", "not UTF-8: \xff"}}),
       [](ValueWriter& w) {
         w.begin_struct();
         w.member("s");
         w.string("not UTF-8: \xff");
         w.end_struct();
       }},
      {Value::structure({{"\xc3", 1}}),
       [](ValueWriter& w) {
         w.begin_struct();
         w.member("\xc3");
         w.int32(1);
         w.end_struct();
       }},
      {Value(bad_datetime), [&](ValueWriter& w) { w.datetime(bad_datetime); }},
      {Value::array({1, std::nan("")}),
       [](ValueWriter& w) {
         w.value(Value::array({1, std::nan("")}));
       }},
  };
  for (const Case& c : cases) {
    Buffer b;
    Status expected = write_result(b, kId, c.value);
    ASSERT_FALSE(expected);
    Result<std::string> r = via_writer(c.pieces);
    ASSERT_FALSE(r) << *r;
    EXPECT_EQ(r.error().code, Errc::Unrepresentable) << r.error().message;
    EXPECT_EQ(r.error().message, expected.error().message);
  }
  // Convert's own refusals throw, as to_value does.
  Buffer b;
  ResultWriter w(b, kId);
  EXPECT_THROW(write_value(w, std::numeric_limits<uint64_t>::max()), Exception);
  w.discard();
  EXPECT_TRUE(b.empty());
}

}  // namespace
}  // namespace callwire::json
