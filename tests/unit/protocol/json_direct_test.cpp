// Typed results written straight into JSON-RPC answers (json::ResultWriter offered by the
// adapter): every answer must be byte for byte what the Value path writes, alone and inside a
// batch beside Value results, faults and notifications; a result that breaks off, throws or
// holds what JSON cannot carry is taken back and answered with -32603.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/json.hpp"
#include "protocol/dispatcher.hpp"

namespace jsontest {
// A row with the fast path beside to_value; `mode` makes write misbehave halfway.
struct Row {
  enum Mode { Good, ThrowMidway, ForgetTheEnd, TwoValues, NotANumber, NotUtf8 };
  int id = 0;
  std::string name;
  double score = 0;
  std::vector<uint8_t> blob;
  Mode mode = Good;
};
}  // namespace jsontest

template <>
struct callwire::Convert<jsontest::Row> {
  using Row = jsontest::Row;
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const Row& r) {
    return Value::structure({{"id", r.id},
                             {"name", r.name},
                             {"score", r.score},
                             {"blob", Convert<std::vector<uint8_t>>::to_value(r.blob)}});
  }
  static void write(ValueWriter& w, const Row& r) {
    w.begin_struct();
    w.member("id");
    w.int32(r.id);
    if (r.mode == Row::ThrowMidway)
      throw Exception(Error(Errc::Unrepresentable, "thrown halfway through"));
    if (r.mode == Row::TwoValues) w.int32(r.id);
    w.member("name");
    w.string(r.mode == Row::NotUtf8 ? std::string("\xff") : r.name);
    w.member("score");
    w.real(r.mode == Row::NotANumber ? std::nan("") : r.score);
    w.member("blob");
    w.bytes(r.blob);
    if (r.mode != Row::ForgetTheEnd) w.end_struct();
  }
};

namespace callwire::detail {
namespace {

using jsontest::Row;

constexpr std::string_view kBefore = "HTTP/1.1 200 OK\r\n\r\n";  // what `out` held already

std::vector<Row> rows(int n, Row::Mode last = Row::Good) {
  std::vector<Row> out;
  for (int i = 0; i < n; ++i)
    out.push_back(
        {i, "row \"" + std::to_string(i) + "\"\n", i / 3.0, std::vector<uint8_t>(size_t(i), 0xfb)});
  if (!out.empty()) out.back().mode = last;
  return out;
}

DateTime sample_datetime() {
  DateTime dt;
  dt.year = 2026;
  dt.month = 11;
  dt.day = 24;
  dt.hour = 23;
  dt.fraction_digits = 6;
  dt.nanosecond = 250000000;
  dt.zone = DateTime::Zone::Offset;
  dt.offset_minutes = -90;
  return dt;
}

struct Fixture {
  Registry registry;
  int notified = 0;
  // The methods compared: each as "d.<name>" (bound: its result is written directly) and as
  // "v.<name>" (the same result returned as a Value, the path every JSON-RPC result took before).
  std::vector<std::string> names;

  template <class F>
  void both(const std::string& name, F f) {
    using R = std::decay_t<decltype(f())>;
    ASSERT_TRUE(registry.bind("d." + name, f));
    ASSERT_TRUE(
        registry.add("v." + name, [f](Params, CallContext&) { return Convert<R>::to_value(f()); }));
    names.push_back(name);
  }

  Fixture() {
    both("rows", [] { return rows(4); });
    both("nested", [] {
      return std::map<std::string, std::vector<std::vector<int>>>{
          {"a", {{1, 2}, {}, {3}}}, {"b", {}}, {"needs \"escaping\"\t", {{-1}}}};
    });
    both("tuple", [] {
      return std::tuple<std::vector<std::string>, std::map<std::string, bool>, std::optional<int>>{
          {"x", "", "\xc3\xa9\xf0\x9f\x98\x80 \x01"}, {}, std::nullopt};
    });
    both("bytes", [] {
      std::vector<uint8_t> b(1000);
      for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(i * 7);
      return b;
    });
    both("no.bytes", [] { return std::vector<uint8_t>{}; });
    both("datetime", [] { return sample_datetime(); });
    both("doubles",
         [] { return std::vector<double>{0.1, 1.0, -0.0, 1e300, 5e-324, 2.0 / 3, 123456789.0}; });
    both("ints", [] {
      return std::tuple<int64_t, int64_t, uint32_t, int, bool, std::nullptr_t>{
          std::numeric_limits<int64_t>::min(),
          std::numeric_limits<int64_t>::max(),
          4000000000u,
          -7,
          false,
          nullptr};
    });
    both("empty.array", [] { return std::vector<int>{}; });
    both("empty.struct", [] { return std::map<std::string, int>{}; });
    both("string", [] { return std::string(300, 'x') + "\"\\/\x7f"; });
    EXPECT_TRUE(registry.bind("d.bad", [](int mode) { return rows(3, Row::Mode(mode)); }));
    EXPECT_TRUE(registry.bind("d.notified", [this] {
      ++notified;
      return rows(2);
    }));
    registry.freeze();
  }
};

// The answer to `body`, appended after kBefore, which must be left as it was.
std::string post(Dispatcher& d, const std::string& body) {
  Buffer out;
  out.append(kBefore);
  CallContext ctx;
  DispatchOutcome outcome = d.handle(Protocol::JsonRpc, body, ctx, out);
  EXPECT_EQ(out.view().substr(0, kBefore.size()), kBefore);
  std::string answer(out.view().substr(kBefore.size()));
  EXPECT_EQ(outcome.no_answer, answer.empty()) << answer;
  return answer;
}

std::string request(const std::string& method, const std::string& id,
                    const std::string& params = "") {
  std::string r = R"({"jsonrpc":"2.0","method":")" + method + '"';
  if (!params.empty()) r += R"(,"params":)" + params;
  if (!id.empty()) r += R"(,"id":)" + id;
  return r + "}";
}

Value read(const std::string& text) {
  json::Reader reader;
  Result<Value> v = reader.read_value(text);
  EXPECT_TRUE(v) << text;
  return v ? *v : Value();
}

TEST(JsonDirect, EveryResultIsWhatTheValuePathWrites) {
  Fixture f;
  Dispatcher d(f.registry, {});
  for (const std::string& name : f.names) {
    for (const std::string id : {"1", R"("abc")", "null", "123456789012345678901234567890"}) {
      std::string direct = post(d, request("d." + name, id));
      EXPECT_EQ(direct, post(d, request("v." + name, id))) << name;
      EXPECT_TRUE(direct.ends_with(R"(,"id":)" + id + "}")) << direct;
      EXPECT_EQ(direct.find("error"), std::string::npos) << direct;
    }
  }
  // What the Value path writes for the odd ones, spelled out.
  std::string when = post(d, request("d.datetime", "1"));
  EXPECT_EQ(when, R"({"jsonrpc":"2.0","result":"2026-11-24T23:00:00.250000-01:30","id":1})");
  std::string doubles = post(d, request("d.doubles", "1"));
  EXPECT_NE(doubles.find(R"([0.1,1.0,-0.0,1e+300,5e-324,0.6666666666666666,123456789.0])"),
            std::string::npos)
      << doubles;
  EXPECT_EQ(post(d, request("d.empty.struct", "2")), R"({"jsonrpc":"2.0","result":{},"id":2})");
}

// A batch's answer is its entries' single answers, in order, in one array: direct results,
// Value results, faults, unsendable results and refusals alike, none for notifications.
TEST(JsonDirect, BatchEntriesSitBesideTheOthers) {
  Fixture f;
  Dispatcher d(f.registry, {});
  const std::vector<std::string> entries = {
      request("d.rows", "1"),
      request("v.rows", "2"),
      request("d.notified", ""),  // a notification: runs, answers nothing
      request("d.bad", "3", "[1]"),
      request("d.nested", R"("4")"),
      request("d.bad", "5", "[4]"),
      request("no.such", "6"),
      request("d.bad", "7", "[\"not an int\"]"),
      R"({"jsonrpc":"1.0","method":"d.rows","id":8})",
      request("d.tuple", "9"),
      request("v.doubles", "10"),
      request("d.doubles", "11"),
  };
  std::string body = "[";
  std::string expected = "[";
  for (const std::string& e : entries) {
    body += (body.size() > 1 ? "," : "") + e;
    std::string alone = post(d, e);
    if (!alone.empty()) expected += (expected.size() > 1 ? "," : "") + alone;
  }
  body += "]";
  expected += "]";
  EXPECT_EQ(f.notified, 1);
  std::string answer = post(d, body);
  EXPECT_EQ(answer, expected);
  EXPECT_EQ(f.notified, 2);
  Value v = read(answer);
  ASSERT_EQ(v.size(), 11u) << answer;
  EXPECT_EQ(v[0]["result"], v[1]["result"]);
  EXPECT_EQ(v[2]["error"]["code"].as_int(), -32603);
  EXPECT_EQ(v[4]["error"]["code"].as_int(), -32603);

  // Only notifications: no answer at all, though every one was written for nothing.
  EXPECT_EQ(post(d, "[" + request("d.notified", "") + "," + request("d.rows", "") + "]"), "");
  EXPECT_EQ(post(d, request("d.notified", "")), "");
  EXPECT_EQ(f.notified, 4);
}

// A handler that wrote part of its result and then threw, broke off or wrote what JSON cannot
// carry: what it wrote is taken back and the call answers -32603 saying why, counted as a fault.
TEST(JsonDirect, AResultThatFailsHalfwayIsTakenBack) {
  Fixture f;
  Dispatcher d(f.registry, {});
  const std::pair<Row::Mode, std::string> cases[] = {
      {Row::ThrowMidway, "thrown halfway through"},
      {Row::ForgetTheEnd,
       "the result of d.bad cannot be sent: ValueWriter: end_array() without begin_array()"},
      {Row::TwoValues,
       "the result of d.bad cannot be sent: ValueWriter: a value in a struct without member() "
       "first"},
      {Row::NotANumber,
       "the result of d.bad cannot be sent: a NaN or infinite double has no JSON form"},
      {Row::NotUtf8, "the result of d.bad cannot be sent: string is not valid UTF-8"},
  };
  for (const auto& [mode, message] : cases) {
    std::string answer = post(d, request("d.bad", "1", "[" + std::to_string(int(mode)) + "]"));
    Value v = read(answer);
    ASSERT_TRUE(v.is_struct()) << answer;
    EXPECT_EQ(v.find("result"), nullptr) << answer;
    EXPECT_EQ(v["error"]["code"].as_int(), fault_code::kInternalError) << answer;
    EXPECT_EQ(v["error"]["message"].as_string(), message);
    EXPECT_EQ(v["id"].as_int(), 1);
  }
  EXPECT_EQ(read(post(d, request("d.bad", "2", "[0]")))["result"].size(), 3u);
  std::vector<MethodStats> stats;
  d.add_stats_to(stats);
  for (const MethodStats& s : stats)
    if (s.name == "d.bad") {
      EXPECT_EQ(s.calls, 6u);
      EXPECT_EQ(s.faults, 5u);
    }
}

}  // namespace
}  // namespace callwire::detail
