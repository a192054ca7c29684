// Command-line parameters in xmlrpc-c's syntax (tools/call_params.hpp): every type, the
// escapes, empty containers, nesting, the deliberate differences from xmlrpc-c, and every
// error message.
#include "call_params.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace callwire::call_params {
namespace {

using namespace std::string_literals;

Value parse_ok(std::string_view text) {
  auto r = parse_param(text);
  EXPECT_TRUE(r.ok()) << text << " -> " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Value("<parse failed>");
}

std::string parse_error(std::string_view text) {
  auto r = parse_param(text);
  EXPECT_FALSE(r.ok()) << text << " was accepted";
  if (r.ok()) return "<accepted>";
  EXPECT_EQ(r.error().code, Errc::InvalidArgument) << text;
  return r.error().message;
}

// Expects `text` refused with a message that contains `part`.
void expect_error(std::string_view text, std::string_view part) {
  std::string message = parse_error(text);
  EXPECT_NE(message.find(part), std::string::npos)
      << text << " -> " << message << "\n  expected to contain: " << part;
}

Value bytes_of(std::string_view s) { return Value::bytes(s.data(), s.size()); }

// ---------------------------------------------------------------------------------------------
// Integers

TEST(CallParams, IntIsThirtyTwoBits) {
  EXPECT_EQ(parse_ok("i/5"), Value(5));
  EXPECT_TRUE(parse_ok("i/5").is_int());
  EXPECT_EQ(parse_ok("i/-5"), Value(-5));
  EXPECT_EQ(parse_ok("i/+5"), Value(5));  // strtol takes '+', so does xmlrpc-c
  EXPECT_EQ(parse_ok("i/007"), Value(7));
  EXPECT_EQ(parse_ok("i/0"), Value(0));
  EXPECT_EQ(parse_ok("i/-0"), Value(0));
  EXPECT_EQ(parse_ok("i/2147483647"), Value(INT32_MAX));
  EXPECT_EQ(parse_ok("i/-2147483648"), Value(INT32_MIN));
}

TEST(CallParams, IntErrors) {
  EXPECT_EQ(parse_error("i/12x"), "i/12x: not an integer");
  EXPECT_EQ(parse_error("i/"), "i/: no number after 'i/'");
  EXPECT_EQ(parse_error("i/2147483648"),
            "i/2147483648: out of the 32-bit range of i/ (I/ takes 64 bits)");
  expect_error("i/-2147483649", "out of the 32-bit range");
  expect_error("i/99999999999999999999999", "out of the 32-bit range");
  // Out of range and not a number: the worse problem is reported.
  EXPECT_EQ(parse_error("i/99999999999x"), "i/99999999999x: not an integer");
  for (const char* bad : {"i/ 5", "i/5 ", "i/-", "i/+", "i/+-5", "i/-+5", "i/--5", "i/0x10",
                          "i/1.0", "i/1e3", "i/five", "i/5,"}) {
    EXPECT_EQ(parse_error(bad), std::string(bad) + ": not an integer");
  }
}

TEST(CallParams, I8IsSixtyFourBitsAlways) {
  EXPECT_EQ(parse_ok("I/5"), Value::i8(5));
  EXPECT_TRUE(parse_ok("I/5").is_i8());
  EXPECT_EQ(parse_ok("I/9223372036854775807"), Value::i8(INT64_MAX));
  EXPECT_EQ(parse_ok("I/-9223372036854775808"), Value::i8(INT64_MIN));
  EXPECT_EQ(parse_ok("I/+4294967296"), Value::i8(4294967296));
  EXPECT_EQ(parse_error("I/9223372036854775808"),
            "I/9223372036854775808: out of the 64-bit range of I/");
  EXPECT_EQ(parse_error("I/"), "I/: no number after 'I/'");
  EXPECT_EQ(parse_error("I/1x"), "I/1x: not an integer");
}

// ---------------------------------------------------------------------------------------------
// Strings, bare words and unknown prefixes

TEST(CallParams, StringsAndBareWords) {
  EXPECT_EQ(parse_ok("s/hello"), Value("hello"));
  EXPECT_EQ(parse_ok("s/"), Value(""));
  EXPECT_EQ(parse_ok("s/i/5"), Value("i/5"));
  EXPECT_EQ(parse_ok("s/s/"), Value("s/"));
  EXPECT_EQ(parse_ok("hello"), Value("hello"));
  EXPECT_EQ(parse_ok("This is a string in shortcut syntax"),
            Value("This is a string in shortcut syntax"));
  EXPECT_EQ(parse_ok(""), Value(""));
  EXPECT_EQ(parse_ok("/"), Value("/"));
  EXPECT_EQ(parse_ok("i"), Value("i"));
  EXPECT_EQ(parse_ok("héllo wörld"), Value("héllo wörld"));
  // Prefixes are case-sensitive and only the listed letters are types.
  EXPECT_EQ(parse_ok("S/x"), Value("S/x"));
  EXPECT_EQ(parse_ok("x/1"), Value("x/1"));
  EXPECT_EQ(parse_ok("B/t"), Value("B/t"));
  EXPECT_EQ(parse_ok("ab/1"), Value("ab/1"));
  EXPECT_EQ(parse_ok("Array/(i/1)"), Value("Array/(i/1)"));
}

TEST(CallParams, TopLevelScalarsAreVerbatim) {
  // As Debian's xmlrpc 1.33: delimiters and backslashes mean nothing outside a container.
  EXPECT_EQ(parse_ok("s/a,b"), Value("a,b"));
  EXPECT_EQ(parse_ok("s/a\\,b"), Value("a\\,b"));
  EXPECT_EQ(parse_ok("s/C:\\dir\\file"), Value("C:\\dir\\file"));
  EXPECT_EQ(parse_ok("s/(x){y}:z"), Value("(x){y}:z"));
  EXPECT_EQ(parse_ok("a\\b"), Value("a\\b"));
  EXPECT_EQ(parse_ok("Hello, world"), Value("Hello, world"));
  EXPECT_EQ(parse_ok("s/ spaced "), Value(" spaced "));
  EXPECT_EQ(parse_ok(" i/5"), Value(" i/5"));  // not a typed value: a bare word
  EXPECT_EQ(parse_ok("\\"), Value("\\"));
}

// ---------------------------------------------------------------------------------------------
// Bytes

TEST(CallParams, HexBytes) {
  EXPECT_EQ(parse_ok("h/"), bytes_of(""));
  EXPECT_EQ(parse_ok("h/00ff7F"), bytes_of("\x00\xff\x7f"s));
  EXPECT_EQ(parse_ok("h/48656c6C6f"), bytes_of("Hello"));
  EXPECT_TRUE(parse_ok("h/00").is_bytes());
  EXPECT_EQ(parse_error("h/abc"), "h/abc: an odd number of hex digits (3)");
  EXPECT_EQ(parse_error("h/0"), "h/0: an odd number of hex digits (1)");
  EXPECT_EQ(parse_error("h/zz"), "h/zz: 'z' is not a hex digit");
  EXPECT_EQ(parse_error("h/0x00"), "h/0x00: 'x' is not a hex digit");
  EXPECT_EQ(parse_error("h/ 1"), "h/ 1: ' ' is not a hex digit");
  EXPECT_EQ(parse_error("h/0g"), "h/0g: 'g' is not a hex digit");
}

// ---------------------------------------------------------------------------------------------
// Booleans

TEST(CallParams, Booleans) {
  for (const char* yes : {"b/t", "b/true", "b/T", "b/TRUE", "b/True", "b/1"}) {
    EXPECT_EQ(parse_ok(yes), Value(true)) << yes;
  }
  for (const char* no : {"b/f", "b/false", "b/F", "b/FALSE", "b/False", "b/0"}) {
    EXPECT_EQ(parse_ok(no), Value(false)) << no;
  }
  EXPECT_TRUE(parse_ok("b/t").is_bool());
  for (const char* bad : {"b/", "b/yes", "b/no", "b/2", "b/tru", "b/ t", "b/t ", "b/01"}) {
    EXPECT_EQ(parse_error(bad), std::string(bad) + ": not a boolean (t, true, 1, f, false or 0)");
  }
}

// ---------------------------------------------------------------------------------------------
// Doubles

TEST(CallParams, Doubles) {
  EXPECT_EQ(parse_ok("d/1.5"), Value(1.5));
  EXPECT_TRUE(parse_ok("d/1.5").is_double());
  EXPECT_EQ(parse_ok("d/-1.5"), Value(-1.5));
  EXPECT_EQ(parse_ok("d/+2"), Value(2.0));
  EXPECT_EQ(parse_ok("d/3"), Value(3.0));
  EXPECT_TRUE(parse_ok("d/3").is_double());
  EXPECT_EQ(parse_ok("d/.5"), Value(0.5));
  EXPECT_EQ(parse_ok("d/5."), Value(5.0));
  EXPECT_EQ(parse_ok("d/1e3"), Value(1000.0));
  EXPECT_EQ(parse_ok("d/1E-3"), Value(0.001));
  EXPECT_EQ(parse_ok("d/2.5e+2"), Value(250.0));
  EXPECT_EQ(parse_ok("d/1.7976931348623157e308"), Value(1.7976931348623157e308));
  EXPECT_EQ(parse_ok("d/0.1"), Value(0.1));  // correctly rounded, as strtod
  Value negative_zero = parse_ok("d/-0");
  ASSERT_TRUE(negative_zero.is_double());
  EXPECT_TRUE(std::signbit(negative_zero.as_double()));
}

TEST(CallParams, DoubleErrors) {
  EXPECT_EQ(parse_error("d/"), "d/: no number after 'd/'");
  for (const char* bad : {"d/abc", "d/1.5x", "d/ 1", "d/1 ", "d/0x10", "d/1e", "d/1e+", "d/e5",
                          "d/.", "d/-", "d/+", "d/1,5", "d/1.2.3", "d/--1", "d/+-1"}) {
    EXPECT_EQ(parse_error(bad), std::string(bad) + ": not a decimal number");
  }
  for (const char* special : {"d/inf", "d/-inf", "d/+Infinity", "d/nan", "d/NaN", "d/INF"}) {
    EXPECT_EQ(parse_error(special), std::string(special) + ": XML-RPC has no infinity or NaN");
  }
  EXPECT_EQ(parse_error("d/1e999"), "d/1e999: out of the range of a double");
  EXPECT_EQ(parse_error("d/-1e999"), "d/-1e999: out of the range of a double");
}

// ---------------------------------------------------------------------------------------------
// Nil and dateTime

TEST(CallParams, Nil) {
  EXPECT_EQ(parse_ok("n/"), Value());
  EXPECT_TRUE(parse_ok("n/").is_nil());
  EXPECT_EQ(parse_error("n/x"), "n/x: nothing may follow 'n/'");
  EXPECT_EQ(parse_error("n/ "), "n/ : nothing may follow 'n/'");
}

TEST(CallParams, DateTimes) {
  Value v = parse_ok("t/19980717T14:08:55");
  ASSERT_TRUE(v.is_datetime());
  DateTime dt = v.as_datetime();
  EXPECT_EQ(dt.year, 1998);
  EXPECT_EQ(dt.month, 7);
  EXPECT_EQ(dt.day, 17);
  EXPECT_EQ(dt.hour, 14);
  EXPECT_EQ(dt.minute, 8);
  EXPECT_EQ(dt.second, 55);
  EXPECT_EQ(dt.zone, DateTime::Zone::None);
  EXPECT_EQ(parse_ok("t/1998-07-17T14:08:55Z"), Value(*DateTime::parse("19980717T14:08:55Z")));
  EXPECT_EQ(parse_ok("t/20180222T130252"), Value(*DateTime::parse("20180222T13:02:52")));
  EXPECT_EQ(parse_ok("t/2014-11-10T23:38:51+0000").as_datetime().zone, DateTime::Zone::Offset);
  EXPECT_EQ(parse_ok("t/19980717T14:08:55.123456").as_datetime().nanosecond, 123456000u);

  std::string message = parse_error("t/2024-13-01T00:00:00");
  EXPECT_EQ(message.rfind("t/2024-13-01T00:00:00: invalid dateTime", 0), 0u) << message;
  expect_error("t/", "invalid dateTime");
  expect_error("t/yesterday", "expected a 4-digit year");
}

// ---------------------------------------------------------------------------------------------
// Arrays

TEST(CallParams, Arrays) {
  EXPECT_EQ(parse_ok("array/(i/1,i/2,s/x)"), Value::array({1, 2, "x"}));
  EXPECT_EQ(parse_ok("array/(i/1)"), Value::array({1}));
  EXPECT_EQ(parse_ok("array/(s/)"), Value::array({""}));
  EXPECT_EQ(parse_ok("array/(s/,s/)"), Value::array({"", ""}));
  EXPECT_EQ(parse_ok("array/(a,b)"), Value::array({"a", "b"}));
  EXPECT_EQ(parse_ok("array/(n/,b/t,d/2.5,I/7,h/ff)"),
            Value::array({Value(), true, 2.5, Value::i8(7), bytes_of("\xff")}));
  EXPECT_EQ(parse_ok("array/(two words,x/y)"), Value::array({"two words", "x/y"}));
  // The example of xmlrpc-c's manual, without the space that makes its d/2.0 a string there.
  EXPECT_EQ(parse_ok("array/(i/3,array/(d/3.5,d/2.0),i/5,s/hello)"),
            Value::array({3, Value::array({3.5, 2.0}), 5, "hello"}));
  // A double with a comma is two elements, as in xmlrpc-c.
  EXPECT_EQ(parse_ok("array/(d/1,5)"), Value::array({1.0, "5"}));
}

TEST(CallParams, EmptyContainers) {
  // xmlrpc-c cannot write these (an element may not be empty there); we can.
  EXPECT_EQ(parse_ok("array/()"), Value::array());
  EXPECT_TRUE(parse_ok("array/()").is_array());
  EXPECT_EQ(parse_ok("struct/{}"), Value::structure());
  EXPECT_TRUE(parse_ok("struct/{}").is_struct());
  EXPECT_EQ(parse_ok("array/(array/(),struct/{})"),
            Value::array({Value::array(), Value::structure()}));
  EXPECT_EQ(parse_ok("struct/{a:array/(),b:struct/{}}"),
            Value::structure({{"a", Value::array()}, {"b", Value::structure()}}));
}

TEST(CallParams, Escapes) {
  EXPECT_EQ(parse_ok("array/(s/a\\,b,s/c\\)d,s/e\\\\f,s/g\\:h,s/i\\(j\\{k\\})"),
            Value::array({"a,b", "c)d", "e\\f", "g:h", "i(j{k}"}));
  EXPECT_EQ(parse_ok("array/(a\\,b)"), Value::array({"a,b"}));  // bare words too
  // Any character may be escaped; it stands for itself.
  EXPECT_EQ(parse_ok("array/(s/\\q)"), Value::array({"q"}));
  // Escaped white space at an edge is kept.
  EXPECT_EQ(parse_ok("array/(s/\\ x,s/x\\ ,\\ )"), Value::array({" x", "x ", " "}));
  // White space inside a value is data.
  EXPECT_EQ(parse_ok("array/(s/a b)"), Value::array({"a b"}));
  // The prefix is read after unescaping, as in xmlrpc-c.
  EXPECT_EQ(parse_ok("array/(\\i/5)"), Value::array({5}));
  EXPECT_EQ(parse_ok("struct/{\\ k\\ :s/v}"), Value::structure({{" k ", "v"}}));
}

TEST(CallParams, EscapeRoundTripsAnyText) {
  // Any text, escaped character by character, comes back whole as an element and as a key.
  std::mt19937 rng(20240611);
  const std::string alphabet = ",:(){}\\ \tab/is\xc3\xa9";
  for (int round = 0; round < 500; ++round) {
    std::string text;
    size_t n = rng() % 12;
    for (size_t i = 0; i < n; ++i) text += alphabet[rng() % alphabet.size()];
    std::string escaped;
    for (char c : text) escaped += "\\"s + c;
    EXPECT_EQ(parse_ok("array/(s/" + escaped + ")"), Value::array({text})) << text;
    EXPECT_EQ(parse_ok("struct/{" + escaped + ":s/" + escaped + "}"),
              Value::structure({{text, text}}))
        << text;
  }
}

TEST(CallParams, DateTimeInsideContainers) {
  // ':' delimits inside a container: escape it, or use the form without colons.
  Value expected = Value(*DateTime::parse("19980717T14:08:55"));
  EXPECT_EQ(parse_ok("array/(t/19980717T14\\:08\\:55)"), Value::array({expected}));
  EXPECT_EQ(parse_ok("array/(t/19980717T140855)"), Value::array({expected}));
  EXPECT_EQ(parse_ok("struct/{when:t/19980717T140855}"), Value::structure({{"when", expected}}));
  // Unescaped, the value is cut at the ':'; the message says so.
  expect_error("array/(t/19980717T14:08:55)", "'t/19980717T14': invalid dateTime '19980717T14'");
  expect_error("array/(t/19980717T14:08:55)",
               "(the ':' at column 21 ends the value; escape it as '\\:' if it belongs to it)");
}

TEST(CallParams, ArrayErrors) {
  EXPECT_EQ(parse_error("array/(i/1"), "array/(i/1: missing ')'");
  EXPECT_EQ(parse_error("array/("), "array/(: missing ')'");
  EXPECT_EQ(parse_error("array/(i/1,"), "array/(i/1,: missing ')'");
  EXPECT_EQ(parse_error("array/(array/(i/1)"), "array/(array/(i/1): missing ')'");
  EXPECT_EQ(parse_error("array/"),
            "array/: expected '(' right after 'array/' (write s/array/ for a string)");
  EXPECT_EQ(parse_error("array/x"),
            "array/x: expected '(' right after 'array/' (write s/array/x for a string)");
  EXPECT_EQ(parse_error("array/{}"),
            "array/{}: expected '(' right after 'array/' (write s/array/{} for a string)");
  EXPECT_EQ(parse_error("array/(i/x)"), "array/(i/x): 'i/x': not an integer");
  EXPECT_EQ(parse_error("array/(i/1,i/12x)"), "array/(i/1,i/12x): 'i/12x': not an integer");
  EXPECT_EQ(parse_error("array/(,)"),
            "array/(,): an empty value at column 8 (write s/ for an empty string)");
  EXPECT_EQ(parse_error("array/(i/1,)"),
            "array/(i/1,): an empty value at column 12 (write s/ for an empty string)");
  EXPECT_EQ(parse_error("array/(i/1,,i/2)"),
            "array/(i/1,,i/2): an empty value at column 12 (write s/ for an empty string)");
  EXPECT_EQ(parse_error("array/(i/1))"),
            "array/(i/1)): unexpected text after the closing ')': ')'");
  EXPECT_EQ(parse_error("array/(i/1)x"),
            "array/(i/1)x: unexpected text after the closing ')': 'x'");
  EXPECT_EQ(parse_error("array/(i/1}"),
            "array/(i/1}: unexpected '}' at column 11 where , or ) should be; escape it as '\\}' "
            "if it belongs to a value");
  EXPECT_EQ(parse_error("array/(s/a(b))"),
            "array/(s/a(b)): unexpected '(' at column 11 where , or ) should be; escape it as "
            "'\\(' if it belongs to a value");
  EXPECT_EQ(parse_error("array/(array/(i/1)x)"),
            "array/(array/(i/1)x): unexpected text at column 19 after ')': 'x)'");
  EXPECT_EQ(parse_error("array/(s/a\\"),
            "array/(s/a\\: 's/a\\': nothing after the escape character '\\'");
  EXPECT_EQ(parse_error("array/(s/a\\)"), "array/(s/a\\): missing ')'");
  EXPECT_EQ(parse_error("array/(array/x)"),
            "array/(array/x): 'array/x': expected '(' right after 'array/' (write s/array/x for "
            "a string)");
  EXPECT_EQ(parse_error("array/(array/,i/1)"),
            "array/(array/,i/1): 'array/': expected '(' right after 'array/'");
  EXPECT_EQ(parse_error("array/(struct/)"),
            "array/(struct/): 'struct/': expected '{' right after 'struct/'");
}

TEST(CallParams, WhiteSpaceNextToDelimitersIsRefused) {
  // xmlrpc-c keeps it: there `array/(i/1, i/2)` holds the string " i/2". We refuse it.
  EXPECT_EQ(parse_error("array/(i/1, i/2)"),
            "array/(i/1, i/2): ' i/2': white space at the start; remove it, or escape it as "
            "'\\ ' to keep it");
  EXPECT_EQ(parse_error("array/(i/1 ,i/2)"),
            "array/(i/1 ,i/2): 'i/1 ': white space at the end; remove it, or escape it as '\\ ' "
            "to keep it");
  expect_error("array/(d/3.5, d/2.0)", "' d/2.0': white space at the start");
  expect_error("array/(a, b)", "' b': white space at the start");
  expect_error("array/( )", "' ': white space at the start");
  expect_error("array/(\ti/1)", "white space at the start");
  expect_error("array/(i/1\n)", "white space at the end");
  expect_error("struct/{ a:i/1}", "' a': white space at the start");
  expect_error("struct/{a :i/1}", "'a ': white space at the end");
  expect_error("struct/{a: i/1}", "' i/1': white space at the start");
  expect_error("struct/{a:i/1 }", "'i/1 ': white space at the end");
  // An escaped backslash before the space does not escape the space.
  expect_error("array/(s/a\\\\ )", "white space at the end");
}

// ---------------------------------------------------------------------------------------------
// Structs

TEST(CallParams, Structs) {
  Value v = parse_ok("struct/{a:i/1,b:s/x}");
  EXPECT_EQ(v, Value::structure({{"a", 1}, {"b", "x"}}));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v.members()[0].name(), "a");  // written order kept
  EXPECT_EQ(v.members()[1].name(), "b");
  EXPECT_EQ(parse_ok("struct/{moe:i/1,larry:i/2,curly:i/-3}"),
            Value::structure({{"moe", 1}, {"larry", 2}, {"curly", -3}}));
  EXPECT_EQ(parse_ok("struct/{k:v}"), Value::structure({{"k", "v"}}));  // bare word value
  EXPECT_EQ(parse_ok("struct/{:i/1}"), Value::structure({{"", 1}}));    // empty key, as xmlrpc-c
  EXPECT_EQ(parse_ok("struct/{i/5:i/1}"), Value::structure({{"i/5", 1}}));  // keys are text
  EXPECT_EQ(parse_ok("struct/{a\\:b:i/1}"), Value::structure({{"a:b", 1}}));
  EXPECT_EQ(parse_ok("struct/{two words:s/x}"), Value::structure({{"two words", "x"}}));
  // A repeated key: first position, last value.
  Value dup = parse_ok("struct/{a:i/1,b:i/2,a:i/3}");
  ASSERT_EQ(dup.size(), 2u);
  EXPECT_EQ(dup.members()[0].name(), "a");
  EXPECT_EQ(dup["a"], Value(3));
  EXPECT_EQ(dup["b"], Value(2));
}

TEST(CallParams, Nesting) {
  EXPECT_EQ(parse_ok("struct/{list:array/(i/1,struct/{x:n/}),s:struct/{t:b/f}}"),
            Value::structure({{"list", Value::array({1, Value::structure({{"x", Value()}})})},
                              {"s", Value::structure({{"t", false}})}}));
  EXPECT_EQ(parse_ok("array/(array/(array/(i/1)))"),
            Value::array({Value::array({Value::array({1})})}));
  // The validator1 calendar, as one argument.
  EXPECT_EQ(
      parse_ok("struct/{2000:struct/{04:struct/{01:struct/{moe:i/1,larry:i/2,curly:i/3}}}}"),
      Value::structure(
          {{"2000", Value::structure(
                        {{"04", Value::structure(
                                    {{"01", Value::structure(
                                                {{"moe", 1}, {"larry", 2}, {"curly", 3}})}})}})}}));
}

TEST(CallParams, NestingIsBounded) {
  auto nested = [](size_t depth) {
    std::string text;
    for (size_t i = 0; i < depth; ++i) text += "array/(";
    text += "i/1";
    text += std::string(depth, ')');
    return text;
  };
  Value deepest = parse_ok(nested(kMaxNesting));
  const Value* at = &deepest;
  for (size_t i = 0; i < kMaxNesting; ++i) {
    ASSERT_TRUE(at->is_array());
    ASSERT_EQ(at->size(), 1u);
    at = &(*at)[0];
  }
  EXPECT_EQ(*at, Value(1));
  expect_error(nested(kMaxNesting + 1), ": arrays and structs nested deeper than 64 levels");
  // Far deeper than a command line can be: refused, without exhausting the stack.
  expect_error(nested(100000), "nested deeper than 64 levels");
  std::string structs;
  for (size_t i = 0; i < 1000; ++i) structs += "struct/{k:";
  expect_error(structs, "nested deeper than 64 levels");
}

TEST(CallParams, StructErrors) {
  EXPECT_EQ(parse_error("struct/{a:i/1"), "struct/{a:i/1: missing '}'");
  EXPECT_EQ(parse_error("struct/{"), "struct/{: missing '}'");
  EXPECT_EQ(parse_error("struct/{a"), "struct/{a: missing ':' after the key 'a'");
  EXPECT_EQ(parse_error("struct/{a:"), "struct/{a:: missing '}'");
  EXPECT_EQ(parse_error("struct/{a}"),
            "struct/{a}: expected ':' after the key 'a' at column 10, found '}'");
  EXPECT_EQ(parse_error("struct/{a,b:i/1}"),
            "struct/{a,b:i/1}: expected ':' after the key 'a' at column 10, found ','");
  EXPECT_EQ(parse_error("struct/{a:}"),
            "struct/{a:}: an empty value at column 11 (write s/ for an empty string)");
  EXPECT_EQ(parse_error("struct/{a:i/1,}"), "struct/{a:i/1,}: an empty member at column 15");
  EXPECT_EQ(parse_error("struct/{,}"), "struct/{,}: an empty member at column 9");
  EXPECT_EQ(parse_error("struct/{(:i/1}"),
            "struct/{(:i/1}: unexpected '(' at column 9 where a key should be; escape it as "
            "'\\(' if it belongs to a value");
  EXPECT_EQ(parse_error("struct/{a:i/1)"),
            "struct/{a:i/1): unexpected ')' at column 14 where , or } should be; escape it as "
            "'\\)' if it belongs to a value");
  EXPECT_EQ(parse_error("struct/{a:b:c}"),
            "struct/{a:b:c}: unexpected ':' at column 12 where , or } should be; escape it as "
            "'\\:' if it belongs to a value");
  EXPECT_EQ(parse_error("struct/{a:i/x}"), "struct/{a:i/x}: 'i/x': not an integer");
  EXPECT_EQ(parse_error("struct/"),
            "struct/: expected '{' right after 'struct/' (write s/struct/ for a string)");
  EXPECT_EQ(parse_error("struct/(a:i/1)"),
            "struct/(a:i/1): expected '{' right after 'struct/' (write s/struct/(a:i/1) for a "
            "string)");
  EXPECT_EQ(parse_error("struct/{}}"), "struct/{}}: unexpected text after the closing '}': '}'");
  EXPECT_EQ(parse_error("struct/{a\\"),
            "struct/{a\\: 'a\\': nothing after the escape character '\\'");
  EXPECT_EQ(parse_error("struct/{a:struct/x}"),
            "struct/{a:struct/x}: 'struct/x': expected '{' right after 'struct/' (write "
            "s/struct/x for a string)");
}

// ---------------------------------------------------------------------------------------------
// Messages and the list form

TEST(CallParams, LongParametersAreShortenedInMessages) {
  std::string long_text = "array/(i/x," + std::string(200, 'a') + ")";
  std::string message = parse_error(long_text);
  EXPECT_EQ(message, long_text.substr(0, 77) + "...: 'i/x': not an integer");

  // The cut never splits a UTF-8 character: 76 ASCII bytes, then 'é' across bytes 76-77.
  std::string utf8 = "i/" + std::string(74, '1') + "\xc3\xa9" + std::string(20, '2');
  EXPECT_EQ(parse_error(utf8), utf8.substr(0, 76) + "...: not an integer");
}

TEST(CallParams, ParseParamsReadsEachInOrder) {
  std::vector<std::string> args = {"i/3", "s/x", "array/(b/t)", "plain"};
  auto r = parse_params(args);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0], Value(3));
  EXPECT_EQ((*r)[1], Value("x"));
  EXPECT_EQ((*r)[2], Value::array({true}));
  EXPECT_EQ((*r)[3], Value("plain"));

  auto none = parse_params({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  std::vector<std::string> bad = {"i/1", "i/x", "d/y"};
  auto e = parse_params(bad);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, Errc::InvalidArgument);
  EXPECT_EQ(e.error().message, "parameter 2: i/x: not an integer");
}

TEST(CallParams, GarbageNeverCrashes) {
  // Random text over the delimiters and prefixes: each is accepted or refused with a message
  // that starts with the parameter; never an exception or a sanitizer report.
  std::mt19937 rng(7);
  const std::vector<std::string> pieces = {
      "array/", "struct/", "(",  ")",  "{",  "}", ",", ":",  "\\", " ", "i/", "I/", "s/",
      "h/",     "b/",      "d/", "n/", "t/", "1", "x", "ff", "t",  "-", ".",  "e"};
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    size_t n = rng() % 16;
    for (size_t i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
    auto r = parse_param(text);
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, Errc::InvalidArgument);
      EXPECT_EQ(r.error().message.rfind(text.substr(0, 77), 0), 0u) << text;
    }
  }
}

}  // namespace
}  // namespace callwire::call_params
