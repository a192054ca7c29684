// The demo methods of `callwire serve` (tools/demo_methods.hpp), called directly: the classic
// validator1 values, integer overflow, every wrong shape, and a sweep of odd inputs that must
// end in a result or fault -32602, never anything else.
#include "demo_methods.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace callwire::demo {
namespace {

using namespace std::string_literals;

const std::vector<DemoMethod>& methods() {
  static const std::vector<DemoMethod> all = demo_methods();
  return all;
}

const DemoMethod& method(std::string_view name) {
  for (const DemoMethod& m : methods()) {
    if (m.name == name) return m;
  }
  ADD_FAILURE() << "no method " << name;
  static const DemoMethod none;
  return none;
}

Value call(std::string_view name, std::vector<Value> params) {
  CallContext context;
  return method(name).handler(Params(params), context);
}

// Expects fault -32602 whose string contains `part`.
void expect_fault(std::string_view name, std::vector<Value> params, std::string_view part) {
  try {
    call(name, std::move(params));
    ADD_FAILURE() << name << " answered instead of faulting";
  } catch (const FaultError& e) {
    EXPECT_EQ(e.fault().code, fault_code::kInvalidParams) << e.what();
    EXPECT_NE(e.fault().string.find(part), std::string::npos)
        << e.fault().string << "\n  expected to contain: " << part;
  }
}

Value stooges(int32_t moe, int32_t larry, int32_t curly) {
  return Value::structure({{"moe", moe}, {"larry", larry}, {"curly", curly}});
}

Value bytes_of(std::string_view s) { return Value::bytes(s.data(), s.size()); }

constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int64_t kI8Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI8Min = std::numeric_limits<int64_t>::min();

// ---------------------------------------------------------------------------------------------
// The list

TEST(DemoMethods, ListsEveryMethodOnceWithItsInfo) {
  std::vector<std::string> names;
  for (const DemoMethod& m : methods()) names.push_back(m.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "sample.add", "validator1.arrayOfStructsTest", "validator1.countTheEntities",
                "validator1.easyStructTest", "validator1.echoStructTest",
                "validator1.manyTypesTest", "validator1.moderateSizeArrayCheck",
                "validator1.nestedStructTest", "validator1.simpleStructReturnTest", "echo"}));
  const std::set<std::string> types = {"int",   "i8",     "boolean",          "double", "string",
                                       "array", "struct", "dateTime.iso8601", "base64", "nil"};
  for (const DemoMethod& m : methods()) {
    EXPECT_TRUE(static_cast<bool>(m.handler)) << m.name;
    EXPECT_FALSE(m.info.help.empty()) << m.name;
    for (const auto& signature : m.info.signatures) {
      EXPECT_FALSE(signature.empty()) << m.name;
      for (const std::string& type : signature) {
        EXPECT_TRUE(types.count(type)) << m.name << ": " << type;
      }
    }
  }
  using Sigs = std::vector<std::vector<std::string>>;
  EXPECT_EQ(method("sample.add").info.signatures,
            (Sigs{{"int", "int", "int"}, {"i8", "i8", "i8"}}));
  EXPECT_EQ(method("validator1.arrayOfStructsTest").info.signatures, (Sigs{{"int", "array"}}));
  EXPECT_EQ(method("validator1.countTheEntities").info.signatures, (Sigs{{"struct", "string"}}));
  EXPECT_EQ(method("validator1.easyStructTest").info.signatures, (Sigs{{"int", "struct"}}));
  EXPECT_EQ(method("validator1.echoStructTest").info.signatures, (Sigs{{"struct", "struct"}}));
  EXPECT_EQ(method("validator1.manyTypesTest").info.signatures,
            (Sigs{{"array", "int", "boolean", "string", "double", "dateTime.iso8601", "base64"}}));
  EXPECT_EQ(method("validator1.moderateSizeArrayCheck").info.signatures,
            (Sigs{{"string", "array"}}));
  EXPECT_EQ(method("validator1.nestedStructTest").info.signatures, (Sigs{{"int", "struct"}}));
  EXPECT_EQ(method("validator1.simpleStructReturnTest").info.signatures, (Sigs{{"struct", "int"}}));
  EXPECT_TRUE(method("echo").info.signatures.empty());  // unknown: "undef"
}

// ---------------------------------------------------------------------------------------------
// sample.add

TEST(DemoMethods, SampleAdd) {
  EXPECT_EQ(call("sample.add", {3, 5}), Value(8));
  EXPECT_TRUE(call("sample.add", {3, 5}).is_int());
  EXPECT_EQ(call("sample.add", {-3, 5}), Value(2));
  EXPECT_EQ(call("sample.add", {kIntMax, 0}), Value(kIntMax));
  EXPECT_EQ(call("sample.add", {kIntMin, 0}), Value(kIntMin));
  // Beyond 32 bits: an i8 with the right sum rather than a wrapped int.
  EXPECT_EQ(call("sample.add", {kIntMax, 1}), Value::i8(int64_t{kIntMax} + 1));
  EXPECT_EQ(call("sample.add", {kIntMin, -1}), Value::i8(int64_t{kIntMin} - 1));
  EXPECT_EQ(call("sample.add", {kIntMax, kIntMax}), Value::i8(int64_t{kIntMax} * 2));
  // i8 parameters: the result is still an int when it fits.
  EXPECT_EQ(call("sample.add", {Value::i8(5), Value::i8(6)}), Value(11));
  EXPECT_EQ(call("sample.add", {Value::i8(kI8Max), Value::i8(-1)}), Value::i8(kI8Max - 1));
  EXPECT_EQ(call("sample.add", {Value::i8(kI8Max), Value::i8(kI8Min)}), Value(-1));
}

TEST(DemoMethods, SampleAddBadInputs) {
  expect_fault("sample.add", {Value::i8(kI8Max), 1}, "sample.add: the sum does not fit in 64 bits");
  expect_fault("sample.add", {Value::i8(kI8Min), -1}, "the sum does not fit in 64 bits");
  expect_fault("sample.add", {3, "5"}, "sample.add: params[1] must be int or i8, got string");
  expect_fault("sample.add", {3.0, 5}, "params[0] must be int or i8, got double");
  expect_fault("sample.add", {Value(), 5}, "params[0] must be int or i8, got nil");
  expect_fault("sample.add", {}, "sample.add: expected 2 parameters, got 0");
  expect_fault("sample.add", {1}, "expected 2 parameters, got 1");
  expect_fault("sample.add", {1, 2, 3}, "expected 2 parameters, got 3");
}

// ---------------------------------------------------------------------------------------------
// validator1.arrayOfStructsTest

TEST(DemoMethods, ArrayOfStructsSumsEveryCurly) {
  // As the validator sends it: structs of moe, larry and curly.
  Value items = Value::array({stooges(1, 2, 3), stooges(4, 5, -6), stooges(7, 8, 9),
                              stooges(0, 0, 100), stooges(-50, 50, 20)});
  EXPECT_EQ(call("validator1.arrayOfStructsTest", {items}), Value(3 - 6 + 9 + 100 + 20));
  EXPECT_EQ(call("validator1.arrayOfStructsTest", {Value::array()}), Value(0));
  // Only curly is needed; other members are ignored.
  EXPECT_EQ(call("validator1.arrayOfStructsTest",
                 {Value::array({Value::structure({{"curly", 5}, {"shemp", "x"}})})}),
            Value(5));
  // A sum beyond 32 bits becomes an i8; i8 members are taken.
  EXPECT_EQ(call("validator1.arrayOfStructsTest",
                 {Value::array({stooges(0, 0, kIntMax), stooges(0, 0, kIntMax)})}),
            Value::i8(int64_t{kIntMax} * 2));
  EXPECT_EQ(call("validator1.arrayOfStructsTest",
                 {Value::array({Value::structure({{"curly", Value::i8(7)}})})}),
            Value(7));
}

TEST(DemoMethods, ArrayOfStructsBadInputs) {
  const char* name = "validator1.arrayOfStructsTest";
  expect_fault(name, {stooges(1, 2, 3)}, name + ": params[0] must be array, got struct"s);
  expect_fault(name, {Value::array({stooges(1, 2, 3), Value::structure({{"moe", 1}})})},
               "params[0][1] has no member \"curly\"");
  expect_fault(name, {Value::array({5})}, "params[0][0] must be struct, got int");
  expect_fault(name, {Value::array({Value::structure({{"curly", "3"}})})},
               "params[0][0][\"curly\"] must be int or i8, got string");
  expect_fault(name,
               {Value::array({Value::structure({{"curly", Value::i8(kI8Max)}}),
                              Value::structure({{"curly", 1}})})},
               "the sum does not fit in 64 bits");
  expect_fault(name, {}, "expected 1 parameter, got 0");
  expect_fault(name, {Value::array(), Value::array()}, "expected 1 parameter, got 2");
}

// ---------------------------------------------------------------------------------------------
// validator1.countTheEntities

Value entity_counts(int32_t lt, int32_t gt, int32_t amp, int32_t apos, int32_t quot) {
  return Value::structure({{"ctLeftAngleBrackets", lt},
                           {"ctRightAngleBrackets", gt},
                           {"ctAmpersands", amp},
                           {"ctApostrophes", apos},
                           {"ctQuotes", quot}});
}

TEST(DemoMethods, CountTheEntities) {
  const char* name = "validator1.countTheEntities";
  // One of each special character, among ordinary text.
  EXPECT_EQ(call(name, {"a<b>c&d'e\"f"}), entity_counts(1, 1, 1, 1, 1));
  // The kind of string the validator sends: each character a different number of times.
  EXPECT_EQ(call(name, {"<<<>>&&&&''''' \"\"\"\"\"\" plain text, no more"}),
            entity_counts(3, 2, 4, 5, 6));
  EXPECT_EQ(call(name, {"<"}), entity_counts(1, 0, 0, 0, 0));
  EXPECT_EQ(call(name, {">"}), entity_counts(0, 1, 0, 0, 0));
  EXPECT_EQ(call(name, {"&"}), entity_counts(0, 0, 1, 0, 0));
  EXPECT_EQ(call(name, {"'"}), entity_counts(0, 0, 0, 1, 0));
  EXPECT_EQ(call(name, {"\""}), entity_counts(0, 0, 0, 0, 1));
  EXPECT_EQ(call(name, {""}), entity_counts(0, 0, 0, 0, 0));
  // Characters, not entities: "&lt;" is an ampersand and three letters and a semicolon.
  EXPECT_EQ(call(name, {"&lt;&gt;&amp;"}), entity_counts(0, 0, 3, 0, 0));
  // Multi-byte UTF-8 and NUL bytes are counted as nothing.
  EXPECT_EQ(call(name, {Value("\xe2\x80\x9cq\xe2\x80\x9d\0<"s)}), entity_counts(1, 0, 0, 0, 0));

  Value counts = call(name, {"<>"});
  ASSERT_EQ(counts.size(), 5u);
  EXPECT_EQ(counts.members()[0].name(), "ctLeftAngleBrackets");
  EXPECT_EQ(counts.members()[4].name(), "ctQuotes");
  EXPECT_TRUE(counts["ctLeftAngleBrackets"].is_int());
}

TEST(DemoMethods, CountTheEntitiesBadInputs) {
  const char* name = "validator1.countTheEntities";
  expect_fault(name, {5}, name + ": params[0] must be string, got int"s);
  expect_fault(name, {bytes_of("<>")}, "params[0] must be string, got base64");
  expect_fault(name, {}, "expected 1 parameter, got 0");
  expect_fault(name, {"a", "b"}, "expected 1 parameter, got 2");
}

// ---------------------------------------------------------------------------------------------
// validator1.easyStructTest and echoStructTest

TEST(DemoMethods, EasyStructTest) {
  const char* name = "validator1.easyStructTest";
  EXPECT_EQ(call(name, {stooges(3, 5, 7)}), Value(15));
  EXPECT_EQ(call(name, {stooges(-3, 5, -7)}), Value(-5));
  // Member order does not matter; extra members are ignored.
  EXPECT_EQ(
      call(name, {Value::structure({{"curly", 1}, {"extra", "x"}, {"moe", 2}, {"larry", 3}})}),
      Value(6));
  EXPECT_EQ(call(name, {stooges(kIntMax, kIntMax, kIntMax)}), Value::i8(int64_t{kIntMax} * 3));
  EXPECT_EQ(call(name, {Value::structure({{"moe", Value::i8(1)}, {"larry", 2}, {"curly", 3}})}),
            Value(6));
}

TEST(DemoMethods, EasyStructTestBadInputs) {
  const char* name = "validator1.easyStructTest";
  expect_fault(name, {Value::structure({{"moe", 1}, {"curly", 3}})},
               name + ": params[0] has no member \"larry\""s);
  expect_fault(name, {Value::structure()}, "params[0] has no member \"moe\"");
  expect_fault(name, {Value::structure({{"moe", 1}, {"larry", 2.5}, {"curly", 3}})},
               "params[0][\"larry\"] must be int or i8, got double");
  expect_fault(name, {Value::array({1, 2, 3})}, "params[0] must be struct, got array");
  expect_fault(name, {Value::structure({{"moe", Value::i8(kI8Max)}, {"larry", 1}, {"curly", 0}})},
               "the sum does not fit in 64 bits");
  expect_fault(name, {}, "expected 1 parameter, got 0");
}

TEST(DemoMethods, EchoStructTest) {
  const char* name = "validator1.echoStructTest";
  Value deep =
      Value::structure({{"substruct0", stooges(1, 2, 3)},
                        {"list", Value::array({1, "two", 3.0, Value(), bytes_of("\x00\x01"s)})},
                        {"when", Value(*DateTime::parse("19980717T14:08:55"))},
                        {"empty", Value::structure()}});
  EXPECT_EQ(call(name, {deep}), deep);
  EXPECT_EQ(call(name, {Value::structure()}), Value::structure());
  expect_fault(name, {Value::array()}, name + ": params[0] must be struct, got array"s);
  expect_fault(name, {"struct"}, "params[0] must be struct, got string");
  expect_fault(name, {}, "expected 1 parameter, got 0");
  expect_fault(name, {deep, deep}, "expected 1 parameter, got 2");
}

// ---------------------------------------------------------------------------------------------
// validator1.manyTypesTest

TEST(DemoMethods, ManyTypesTest) {
  const char* name = "validator1.manyTypesTest";
  Value when(*DateTime::parse("19040101T05:24:54"));
  std::vector<Value> params = {-1,      true, "Hello, World!",
                               -12.214, when, bytes_of("you can read this")};
  Value expected =
      Value::array({-1, true, "Hello, World!", -12.214, when, bytes_of("you can read this")});
  EXPECT_EQ(call(name, params), expected);
  // An i8 where the int is due is taken (and returned as it came).
  EXPECT_EQ(call(name, {Value::i8(1), false, "", 0.0, when, bytes_of("")}),
            Value::array({Value::i8(1), false, "", 0.0, when, bytes_of("")}));
}

TEST(DemoMethods, ManyTypesTestBadInputs) {
  const char* name = "validator1.manyTypesTest";
  Value when(*DateTime::parse("19040101T05:24:54"));
  expect_fault(name, {"1", true, "s", 1.5, when, bytes_of("x")},
               name + ": params[0] must be int or i8, got string"s);
  expect_fault(name, {1, 1, "s", 1.5, when, bytes_of("x")}, "params[1] must be boolean, got int");
  expect_fault(name, {1, true, bytes_of("s"), 1.5, when, bytes_of("x")},
               "params[2] must be string, got base64");
  expect_fault(name, {1, true, "s", 1, when, bytes_of("x")}, "params[3] must be double, got int");
  expect_fault(name, {1, true, "s", 1.5, "19040101T05:24:54", bytes_of("x")},
               "params[4] must be dateTime.iso8601, got string");
  expect_fault(name, {1, true, "s", 1.5, when, "eW91"}, "params[5] must be base64, got string");
  expect_fault(name, {1, true, "s", 1.5, when}, "expected 6 parameters, got 5");
  expect_fault(name, {1, true, "s", 1.5, when, bytes_of("x"), 7}, "expected 6 parameters, got 7");
}

// ---------------------------------------------------------------------------------------------
// validator1.moderateSizeArrayCheck

Value strings(size_t n, std::string_view prefix = "item") {
  Value out = Value::array();
  for (size_t i = 0; i < n; ++i) out.push_back(std::string(prefix) + std::to_string(i));
  return out;
}

TEST(DemoMethods, ModerateSizeArrayCheck) {
  const char* name = "validator1.moderateSizeArrayCheck";
  EXPECT_EQ(call(name, {strings(150)}), Value("item0item149"));
  EXPECT_EQ(call(name, {strings(100, "x")}), Value("x0x99"));
  EXPECT_EQ(call(name, {strings(200, "y")}), Value("y0y199"));
  Value with_empty = strings(120);
  with_empty[0] = "";
  with_empty[119] = "";
  EXPECT_EQ(call(name, {with_empty}), Value(""));
}

TEST(DemoMethods, ModerateSizeArrayCheckBadInputs) {
  const char* name = "validator1.moderateSizeArrayCheck";
  expect_fault(name, {strings(99)}, name + ": params[0] must hold 100 to 200 strings, got 99"s);
  expect_fault(name, {strings(201)}, "params[0] must hold 100 to 200 strings, got 201");
  expect_fault(name, {Value::array()}, "params[0] must hold 100 to 200 strings, got 0");
  Value mixed = strings(150);
  mixed[57] = 57;
  expect_fault(name, {mixed}, "params[0][57] must be string, got int");
  Value last_bad = strings(150);
  last_bad[149] = Value();
  expect_fault(name, {last_bad}, "params[0][149] must be string, got nil");
  expect_fault(name, {"item0"}, "params[0] must be array, got string");
  expect_fault(name, {}, "expected 1 parameter, got 0");
}

// ---------------------------------------------------------------------------------------------
// validator1.nestedStructTest

// A calendar as the validator builds it: years, months "01".."12", days "01".."28", each day a
// struct of moe, larry and curly; 2000-04-01 holds the given three.
Value calendar(int32_t moe, int32_t larry, int32_t curly) {
  auto two_digits = [](int n) { return (n < 10 ? "0" : "") + std::to_string(n); };
  Value years = Value::structure();
  for (int year : {1999, 2000, 2001}) {
    Value months = Value::structure();
    for (int month = 1; month <= 12; ++month) {
      Value days = Value::structure();
      for (int day = 1; day <= 28; ++day) {
        bool target = year == 2000 && month == 4 && day == 1;
        days.set(two_digits(day),
                 target ? stooges(moe, larry, curly) : stooges(year, month * 100, day * 1000));
      }
      months.set(two_digits(month), std::move(days));
    }
    years.set(std::to_string(year), std::move(months));
  }
  return years;
}

TEST(DemoMethods, NestedStructTest) {
  const char* name = "validator1.nestedStructTest";
  EXPECT_EQ(call(name, {calendar(17, 42, 101)}), Value(160));
  EXPECT_EQ(call(name, {calendar(-1, -2, -3)}), Value(-6));
  // Only the path to 2000-04-01 is needed.
  Value minimal = Value::structure(
      {{"2000", Value::structure({{"04", Value::structure({{"01", stooges(1, 2, 3)}})}})}});
  EXPECT_EQ(call(name, {minimal}), Value(6));
}

TEST(DemoMethods, NestedStructTestBadInputs) {
  const char* name = "validator1.nestedStructTest";
  Value no_april = calendar(1, 2, 3);
  ASSERT_TRUE(no_april.find("2000")->erase("04"));
  expect_fault(name, {no_april}, name + ": params[0][\"2000\"] has no member \"04\""s);
  expect_fault(name, {Value::structure({{"1999", Value::structure()}})},
               "params[0] has no member \"2000\"");
  expect_fault(name, {Value::structure({{"2000", "April"}})},
               "params[0][\"2000\"] must be struct, got string");
  expect_fault(
      name,
      {Value::structure({{"2000", Value::structure({{"04", Value::structure({{"01", 5}})}})}})},
      "params[0][\"2000\"][\"04\"][\"01\"] must be struct, got int");
  Value no_curly = calendar(1, 2, 3);
  ASSERT_TRUE((*no_curly.find("2000")->find("04")->find("01")).erase("curly"));
  expect_fault(name, {no_curly}, "params[0][\"2000\"][\"04\"][\"01\"] has no member \"curly\"");
  expect_fault(name, {Value::array()}, "params[0] must be struct, got array");
  expect_fault(name, {}, "expected 1 parameter, got 0");
}

// ---------------------------------------------------------------------------------------------
// validator1.simpleStructReturnTest

Value times(int64_t n10, int64_t n100, int64_t n1000) {
  auto integer = [](int64_t n) {
    return n >= kIntMin && n <= kIntMax ? Value(static_cast<int32_t>(n)) : Value::i8(n);
  };
  return Value::structure(
      {{"times10", integer(n10)}, {"times100", integer(n100)}, {"times1000", integer(n1000)}});
}

TEST(DemoMethods, SimpleStructReturnTest) {
  const char* name = "validator1.simpleStructReturnTest";
  EXPECT_EQ(call(name, {7}), times(70, 700, 7000));
  EXPECT_EQ(call(name, {0}), times(0, 0, 0));
  EXPECT_EQ(call(name, {-13}), times(-130, -1300, -13000));
  Value result = call(name, {2});
  ASSERT_EQ(result.size(), 3u);
  EXPECT_EQ(result.members()[0].name(), "times10");
  EXPECT_EQ(result.members()[1].name(), "times100");
  EXPECT_EQ(result.members()[2].name(), "times1000");
  EXPECT_TRUE(result["times1000"].is_int());
  // times1000 beyond 32 bits: an i8, the others still ints.
  int32_t n = kIntMax / 1000 + 1;
  Value big = call(name, {n});
  EXPECT_TRUE(big["times10"].is_int());
  EXPECT_TRUE(big["times1000"].is_i8());
  EXPECT_EQ(big, times(int64_t{n} * 10, int64_t{n} * 100, int64_t{n} * 1000));
  EXPECT_EQ(call(name, {kIntMin}),
            times(int64_t{kIntMin} * 10, int64_t{kIntMin} * 100, int64_t{kIntMin} * 1000));
  EXPECT_EQ(call(name, {Value::i8(kI8Max / 1000)}),
            times(kI8Max / 1000 * 10, kI8Max / 1000 * 100, kI8Max / 1000 * 1000));
}

TEST(DemoMethods, SimpleStructReturnTestBadInputs) {
  const char* name = "validator1.simpleStructReturnTest";
  expect_fault(name, {Value::i8(kI8Max / 1000 + 1)},
               name + ": params[0] * 1000 does not fit in 64 bits"s);
  expect_fault(name, {Value::i8(kI8Min)}, "does not fit in 64 bits");
  expect_fault(name, {"7"}, "params[0] must be int or i8, got string");
  expect_fault(name, {7.0}, "params[0] must be int or i8, got double");
  expect_fault(name, {}, "expected 1 parameter, got 0");
  expect_fault(name, {1, 2}, "expected 1 parameter, got 2");
}

// ---------------------------------------------------------------------------------------------
// echo

TEST(DemoMethods, EchoReturnsItsParameters) {
  EXPECT_EQ(call("echo", {}), Value::array());
  EXPECT_EQ(call("echo", {1, "two", Value()}), Value::array({1, "two", Value()}));
  Value nested = Value::array({Value::structure({{"a", Value::array({1.5})}}), bytes_of("\xff")});
  EXPECT_EQ(call("echo", {nested}), Value::array({nested}));
}

// ---------------------------------------------------------------------------------------------
// Nothing crashes

TEST(DemoMethods, OddInputsGiveAResultOrInvalidParams) {
  // Every method against a sweep of shapes: each call answers, or throws FaultError -32602.
  // Anything else (another exception, a sanitizer report) fails the test.
  Value when(*DateTime::parse("20000401T00:00:00"));
  std::vector<Value> odd = {Value(),
                            true,
                            0,
                            -1,
                            Value::i8(kI8Min),
                            Value::i8(kI8Max),
                            0.5,
                            "",
                            "2000",
                            when,
                            bytes_of(""),
                            Value::array(),
                            Value::array({Value()}),
                            Value::array({Value::structure()}),
                            Value::structure(),
                            Value::structure({{"2000", Value()}}),
                            Value::structure({{"curly", Value::array()}}),
                            stooges(1, 2, 3),
                            calendar(1, 2, 3),
                            strings(150)};
  std::vector<std::vector<Value>> param_lists = {{}};
  for (const Value& a : odd) {
    param_lists.push_back({a});
    for (const Value& b : odd) param_lists.push_back({a, b});
  }
  param_lists.push_back(std::vector<Value>(6, Value()));
  param_lists.push_back(std::vector<Value>(7, 1));
  size_t answered = 0, faulted = 0;
  for (const DemoMethod& m : methods()) {
    for (const std::vector<Value>& params : param_lists) {
      try {
        call(m.name, params);
        ++answered;
      } catch (const FaultError& e) {
        EXPECT_EQ(e.fault().code, fault_code::kInvalidParams) << m.name << ": " << e.what();
        EXPECT_EQ(std::string_view(e.what()).substr(0, m.name.size()), m.name);
        ++faulted;
      }
    }
  }
  EXPECT_GT(answered, 0u);
  EXPECT_GT(faulted, 0u);
}

}  // namespace
}  // namespace callwire::demo
