// Parameter checking against MethodInfo::signatures: which values each type name takes, the
// conversions, and the messages.
#include "dispatch/signature.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace callwire::detail {
namespace {

std::vector<Signature> parse(const std::vector<std::vector<std::string>>& names) {
  auto r = parse_signatures("m", names);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : std::vector<Signature>{};
}

// Checks `params` (an array) against `names`: "" when they match, else the message.
std::string check(const std::vector<std::vector<std::string>>& names, Value& params,
                  std::string_view method = "m") {
  std::string message;
  bool ok = check_params(method, parse(names), params.as_array(), message);
  EXPECT_EQ(ok, message.empty()) << message;
  return message;
}

TEST(Signature, TypeNames) {
  Slot s;
  EXPECT_TRUE(parse_slot("i4", s));
  EXPECT_EQ(s, Slot::Int);
  EXPECT_TRUE(parse_slot("undef", s));
  EXPECT_EQ(s, Slot::Any);
  EXPECT_TRUE(parse_slot("dateTime.iso8601", s));
  EXPECT_EQ(s, Slot::DateTime);
  EXPECT_STREQ(slot_name(Slot::DateTime), "dateTime.iso8601");
  EXPECT_FALSE(parse_slot("dateTime", s));
  EXPECT_FALSE(parse_slot("float", s));
  EXPECT_FALSE(parse_slot("", s));
  // The return type is not a parameter.
  auto sigs = parse({{"string", "int", "i8"}, {"nil"}});
  ASSERT_EQ(sigs.size(), 2u);
  EXPECT_EQ(sigs[0], (Signature{Slot::Int, Slot::I8}));
  EXPECT_TRUE(sigs[1].empty());
}

TEST(Signature, ExactTypesMatch) {
  Value p = Value::array({1, Value::i8(2), true, 1.5, "s", DateTime{}, Value::bytes("x", 1),
                          Value::array(), Value::structure(), Value()});
  EXPECT_EQ(check({{"nil", "int", "i8", "boolean", "double", "string", "dateTime.iso8601", "base64",
                    "array", "struct", "nil"}},
                  p),
            "");
}

TEST(Signature, NamesTheParameterAndWhatWasExpected) {
  Value p = Value::array({1, "two"});
  EXPECT_EQ(check({{"int", "int", "int"}}, p, "sample.add"),
            "sample.add: parameter 2 must be int, got string");
  Value q = Value::array({"one", 2});
  EXPECT_EQ(check({{"int", "int", "int"}}, q, "sample.add"),
            "sample.add: parameter 1 must be int, got string");
  Value b = Value::array({1});
  EXPECT_EQ(check({{"int", "boolean"}}, b), "m: parameter 1 must be boolean, got int");
  Value n = Value::array({Value()});
  EXPECT_EQ(check({{"int", "string"}}, n), "m: parameter 1 must be string, got nil");
}

TEST(Signature, CountsParameters) {
  Value three = Value::array({1, 2, 3});
  EXPECT_EQ(check({{"int", "int", "int"}}, three, "sample.add"),
            "sample.add takes 2 parameters, got 3");
  Value none = Value::array();
  EXPECT_EQ(check({{"int", "int"}}, none), "m takes 1 parameter, got 0");
  Value one = Value::array({1});
  EXPECT_EQ(check({{"int"}}, one), "m takes no parameters, got 1");
  EXPECT_EQ(check({{"int", "int"}, {"int", "int", "int"}, {"int"}}, three),
            "m takes 0, 1 or 2 parameters, got 3");
  EXPECT_EQ(check({{"int", "int", "int"}, {"int", "int", "int"}, {"int", "int"}}, three),
            "m takes 1 or 2 parameters, got 3");
  EXPECT_EQ(check({{"int"}}, none), "");
}

TEST(Signature, SeveralSignaturesTheFirstMatchWins) {
  auto sigs = {std::vector<std::string>{"int", "int", "int"},
               std::vector<std::string>{"double", "double", "double"},
               std::vector<std::string>{"string", "string"}};
  Value ints = Value::array({1, 2});
  EXPECT_EQ(check(sigs, ints), "");
  EXPECT_TRUE(ints[0].is_int());  // the int signature matched first: no conversion
  Value mixed = Value::array({1, 2.5});
  EXPECT_EQ(check(sigs, mixed), "");
  EXPECT_TRUE(mixed[0].is_double());  // the double signature matched, and converted
  EXPECT_EQ(mixed[0].as_double(), 1.0);
  Value s = Value::array({"x"});
  EXPECT_EQ(check(sigs, s), "");
  // None matches: the candidates that got furthest say what they wanted there.
  Value bad = Value::array({1, "x"});
  EXPECT_EQ(check(sigs, bad), "m: parameter 2 must be int or double, got string");
  Value worse = Value::array({true, "x"});
  EXPECT_EQ(check(sigs, worse), "m: parameter 1 must be int or double, got boolean");
  Value strings = Value::array({"a", "b"});
  EXPECT_EQ(check({{"int", "int", "string"}, {"int", "string", "int"}}, strings),
            "m: parameter 2 must be int, got string");
}

TEST(Signature, IntTakesAnI8InRangeAsAnInt) {
  Value p = Value::array({Value::i8(2147483647), Value::i8(-2147483648LL)});
  EXPECT_EQ(check({{"int", "int", "i4"}}, p), "");
  ASSERT_TRUE(p[0].is_int());
  EXPECT_EQ(p[0].as_int(), 2147483647);
  ASSERT_TRUE(p[1].is_int());
  EXPECT_EQ(p[1].as_int(), INT32_MIN);
  Value big = Value::array({Value::i8(2147483648LL)});
  EXPECT_EQ(check({{"int", "int"}}, big),
            "m: parameter 1 must be int, got i8 out of the int range");
  EXPECT_TRUE(big[0].is_i8());  // left alone
  Value small = Value::array({Value::i8(-2147483649LL)});
  EXPECT_NE(check({{"int", "int"}}, small), "");
}

TEST(Signature, I8TakesBothIntegerTypesUnchanged) {
  Value p = Value::array({7, Value::i8(1LL << 40)});
  EXPECT_EQ(check({{"i8", "i8", "i8"}}, p), "");
  EXPECT_TRUE(p[0].is_int());
  EXPECT_TRUE(p[1].is_i8());
  Value d = Value::array({1.0});
  EXPECT_EQ(check({{"i8", "i8"}}, d), "m: parameter 1 must be i8, got double");
}

TEST(Signature, DoubleTakesExactIntegers) {
  const int64_t limit = int64_t{1} << 53;
  Value p = Value::array({3, Value::i8(limit), Value::i8(-limit)});
  EXPECT_EQ(check({{"double", "double", "double", "double"}}, p), "");
  ASSERT_TRUE(p[0].is_double());
  EXPECT_EQ(p[0].as_double(), 3.0);
  EXPECT_EQ(p[1].as_double(), 9007199254740992.0);
  EXPECT_EQ(p[2].as_double(), -9007199254740992.0);
  Value big = Value::array({Value::i8(limit + 1)});
  EXPECT_EQ(check({{"double", "double"}}, big),
            "m: parameter 1 must be double, got i8 beyond 2^53 (not exact as a double)");
  EXPECT_TRUE(big[0].is_i8());
  Value s = Value::array({"1.5"});
  EXPECT_EQ(check({{"double", "double"}}, s), "m: parameter 1 must be double, got string");
}

TEST(Signature, ConversionsOnlyWhenTheWholeSignatureMatches) {
  Value p = Value::array({Value::i8(5), "x"});
  EXPECT_NE(check({{"int", "int", "int"}}, p), "");
  EXPECT_TRUE(p[0].is_i8());  // the first parameter fit, but the signature failed: untouched
}

TEST(Signature, AnyTakesAnything) {
  for (Value v : {Value(), Value(1), Value("s"), Value::array({1}), Value::structure({{"a", 1}})}) {
    Value p = Value::array({v});
    EXPECT_EQ(check({{"any", "undef"}}, p), "");
    EXPECT_EQ(check({{"undef", "any"}}, p), "");
    EXPECT_EQ(p[0], v);
  }
}

TEST(Signature, OtherTypesAreStrict) {
  Value b = Value::array({0});
  EXPECT_NE(check({{"nil", "boolean"}}, b), "");  // no 0/1 for a boolean
  Value s = Value::array({1});
  EXPECT_NE(check({{"nil", "string"}}, s), "");  // no number for a string
  Value dt = Value::array({"20240101T00:00:00"});
  EXPECT_EQ(check({{"nil", "dateTime.iso8601"}}, dt),
            "m: parameter 1 must be dateTime.iso8601, got string");
  Value bytes = Value::array({"aGk="});
  EXPECT_EQ(check({{"nil", "base64"}}, bytes), "m: parameter 1 must be base64, got string");
  Value st = Value::array({Value::array()});
  EXPECT_EQ(check({{"nil", "struct"}}, st), "m: parameter 1 must be struct, got array");
}

}  // namespace
}  // namespace callwire::detail
