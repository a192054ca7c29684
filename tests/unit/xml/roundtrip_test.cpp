// Property: reading what the writer wrote gives back the same value, for every value, in both
// dialects. Values are generated from a fixed seed so a failure reproduces.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "callwire/xml.hpp"

namespace callwire::xml {
namespace {

class ValueGenerator {
 public:
  explicit ValueGenerator(uint64_t seed) : rng_(seed) {}

  Value value(int depth) {
    int kinds = depth > 0 ? 10 : 8;
    switch (pick(kinds)) {
      case 0:
        return Value();
      case 1:
        return Value(pick(2) == 1);
      case 2:
        return Value(int32_t(rng_()));
      case 3:
        return Value::i8(int64_t(rng_()));
      case 4:
        return Value(finite_double());
      case 5:
        return Value(text());
      case 6:
        return Value(datetime());
      case 7: {
        std::string b(pick(80), '\0');
        for (char& c : b) c = char(rng_());
        return Value::bytes(b.data(), b.size());
      }
      case 8: {
        Value a = Value::array();
        for (int i = pick(6); i > 0; --i) a.push_back(value(depth - 1));
        return a;
      }
      default: {
        Value s = Value::structure();
        for (int i = pick(12); i > 0; --i) s.set(text(), value(depth - 1));
        return s;
      }
    }
  }

  // Any text XML can carry: markup characters, CR and LF, tabs, multi-byte UTF-8, long runs.
  std::string text() {
    static const char* pieces[] = {"a",
                                   "Z",
                                   " ",
                                   "  ",
                                   "\t",
                                   "\n",
                                   "\r",
                                   "\r\n",
                                   "<",
                                   ">",
                                   "&",
                                   "]]>",
                                   "'",
                                   "\"",
                                   "&amp;",
                                   "\xC3\xA9",
                                   "\xE2\x82\xAC",
                                   "\xF0\x9F\x98\x80",
                                   "\xEF\xBF\xBD",
                                   "\xC2\x85",
                                   "0123456789"};
    std::string s;
    int n = pick(4) == 0 ? pick(200) : pick(8);
    for (int i = 0; i < n; ++i) s += pieces[pick(sizeof pieces / sizeof *pieces)];
    return s;
  }

  double finite_double() {
    for (;;) {
      uint64_t bits = rng_();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      if (pick(3) == 0) d = double(int32_t(rng_())) / 1000;  // everyday numbers too
      if (std::isfinite(d)) return d;
    }
  }

  DateTime datetime() {
    DateTime dt;
    dt.year = uint16_t(pick(10000));
    dt.month = uint8_t(1 + pick(12));
    dt.day = uint8_t(1 + pick(28));
    dt.hour = uint8_t(pick(24));
    dt.minute = uint8_t(pick(60));
    dt.second = uint8_t(pick(61));
    dt.fraction_digits = uint8_t(pick(10));
    static const uint32_t pow10[] = {1,      10,      100,      1000,      10000,
                                     100000, 1000000, 10000000, 100000000, 1000000000};
    dt.nanosecond = uint32_t(rng_() % pow10[dt.fraction_digits]) * pow10[9 - dt.fraction_digits];
    dt.zone = static_cast<DateTime::Zone>(pick(3));
    if (dt.zone == DateTime::Zone::Offset) dt.offset_minutes = int16_t(pick(2879) - 1439);
    return dt;
  }

  int pick(size_t n) { return int(rng_() % n); }

 private:
  std::mt19937_64 rng_;
};

TEST(RoundTrip, ResponsesInBothDialects) {
  ValueGenerator gen(20261121);
  Reader reader;
  Buffer out;
  for (int i = 0; i < 3000; ++i) {
    Value v = gen.value(4);
    for (Dialect d : {Dialect::I8, Dialect::Apache}) {
      out.clear();
      Status s = write_response(out, v, {d});
      ASSERT_TRUE(s) << s.error().message;
      auto back = reader.read_response(out.view());
      ASSERT_TRUE(back) << back.error().message << "\n" << out.view();
      ASSERT_FALSE(back->is_fault);
      ASSERT_TRUE(back->result == v) << "round " << i << "\n" << out.view();
    }
  }
}

TEST(RoundTrip, Calls) {
  ValueGenerator gen(7);
  Reader reader;
  Buffer out;
  for (int i = 0; i < 1000; ++i) {
    Value params = Value::array();
    for (int n = gen.pick(5); n > 0; --n) params.push_back(gen.value(3));
    std::string name = "m" + gen.text();
    out.clear();
    ASSERT_TRUE(write_call(out, name, params.as_array()));
    auto back = reader.read_call(out.view());
    ASSERT_TRUE(back) << back.error().message << "\n" << out.view();
    EXPECT_EQ(back->method_name, name);
    ASSERT_TRUE(back->params == params) << out.view();
  }
}

TEST(RoundTrip, Faults) {
  ValueGenerator gen(11);
  Reader reader;
  Buffer out;
  for (int i = 0; i < 500; ++i) {
    Fault f{int32_t(gen.pick(1 << 30)) - (1 << 29), gen.text()};
    out.clear();
    ASSERT_TRUE(write_fault(out, f));
    auto back = reader.read_response(out.view());
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_TRUE(back->is_fault);
    EXPECT_EQ(back->fault, f);
  }
}

TEST(RoundTrip, CrLfSurvivesByteForByte) {
  Reader reader;
  Buffer out;
  const std::string s = "line1\r\nline2\rline3\n\r\n";
  ASSERT_TRUE(write_response(out, s));
  auto back = reader.read_response(out.view());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->result.as_string(), s);
}

}  // namespace
}  // namespace callwire::xml
