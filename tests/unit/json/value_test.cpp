// The JSON <-> Value mapping both ways (include/callwire/json.hpp), and the reader's limits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "callwire/json.hpp"

namespace callwire::json {
namespace {

std::string to_json(const Value& v) {
  Buffer out;
  Status s = write_value(out, v);
  EXPECT_TRUE(s) << s.error().message;
  return std::string(out.view());
}

Result<Value> from_json(std::string_view text, JsonLimits limits = {}) {
  Reader reader(limits);
  return reader.read_value(text);
}

Value parsed(std::string_view text) {
  Result<Value> r = from_json(text);
  EXPECT_TRUE(r) << text << ": " << r.error().message;
  return r ? std::move(*r) : Value();
}

void expect_refused(std::string_view text, Errc code, int32_t fault, JsonLimits limits = {}) {
  Result<Value> r = from_json(text, limits);
  std::string shown(text.substr(0, 80));
  ASSERT_FALSE(r) << shown;
  EXPECT_EQ(r.error().code, code) << shown << ": " << r.error().message;
  EXPECT_EQ(r.error().fault_code, fault) << shown << ": " << r.error().message;
}

TEST(JsonValue, ScalarsRead) {
  EXPECT_TRUE(parsed("null").is_nil());
  EXPECT_EQ(parsed("true"), Value(true));
  EXPECT_EQ(parsed(" false "), Value(false));
  EXPECT_EQ(parsed("0"), Value(0));
  EXPECT_EQ(parsed("-0"), Value(0));
  EXPECT_EQ(parsed("2147483647"), Value(INT32_MAX));
  EXPECT_EQ(parsed("-2147483648"), Value(INT32_MIN));
  EXPECT_EQ(parsed("2147483648"), Value::i8(2147483648LL));
  EXPECT_EQ(parsed("-2147483649"), Value::i8(-2147483649LL));
  EXPECT_EQ(parsed("9223372036854775807"), Value::i8(INT64_MAX));
  EXPECT_EQ(parsed("-9223372036854775808"), Value::i8(INT64_MIN));
  EXPECT_EQ(parsed("1000000000000000000"), Value::i8(1000000000000000000LL));  // 19 digits
  EXPECT_EQ(parsed("-999999999999999999"), Value::i8(-999999999999999999LL));
  EXPECT_EQ(parsed("1.5"), Value(1.5));
  EXPECT_EQ(parsed("1e2"), Value(100.0));
  EXPECT_EQ(parsed("1.0"), Value(1.0));
  EXPECT_EQ(parsed("-0.0"), Value(-0.0));
  EXPECT_EQ(parsed("1e-400"), Value(0.0));  // below a double: zero
  EXPECT_EQ(parsed("\"h\\u00e9\\n\\ud83d\\ude00\""), Value("h\xC3\xA9\n\xF0\x9F\x98\x80"));
}

TEST(JsonValue, IntegersBeyond64BitsAreInvalidParams) {
  for (const char* text :
       {"9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "9999999999999999999", "-18446744073709551615", "18446744073709551615",
        "123456789012345678901234567890", "[1, 99999999999999999999]", "1e400", "-1e400"}) {
    expect_refused(text, Errc::Unrepresentable, fault_code::kInvalidParams);
  }
}

TEST(JsonValue, ContainersKeepOrder) {
  Value v = parsed(R"({"z": 1, "a": [true, null, "x", {"b": 2.5}], "m": {}})");
  ASSERT_TRUE(v.is_struct());
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v.members()[0].name(), "z");
  EXPECT_EQ(v.members()[1].name(), "a");
  EXPECT_EQ(v.members()[2].name(), "m");
  EXPECT_EQ(v["a"], Value::array({true, nullptr, "x", Value::structure({{"b", 2.5}})}));
  EXPECT_TRUE(v["m"].is_struct());
  EXPECT_EQ(parsed("[]"), Value::array());
}

TEST(JsonValue, RepeatedMemberNameIsAnInvalidRequest) {
  expect_refused(R"({"a": 1, "a": 2})", Errc::InvalidRequest, fault_code::kInvalidXmlRpc);
  expect_refused(R"([{"x": {"a": 1, "b": 1, "a": 2}}])", Errc::InvalidRequest,
                 fault_code::kInvalidXmlRpc);
  // Escapes are compared unescaped.
  expect_refused(R"({"a": 1, "\u0061": 2})", Errc::InvalidRequest, fault_code::kInvalidXmlRpc);
}

TEST(JsonValue, MalformedIsAParseError) {
  for (const char* text : {"",
                           " ",
                           "[",
                           "]",
                           "[1,]",
                           "[1 2]",
                           "{\"a\"}",
                           "{\"a\":}",
                           "{a:1}",
                           "tru",
                           "nul",
                           "[tru]",
                           "[nulll]",
                           "01",
                           "[01]",
                           "1.",
                           "[-]",
                           "[1e]",
                           "[.5]",
                           "[+1]",
                           "\"\\x\"",
                           "\"a",
                           "[\"\\ud800\"]",
                           "[\"\\udc00\"]",
                           "[1] [2]",
                           "{} x",
                           "[\"\x01\"]",
                           "[\"\xff\"]",
                           "[\"\xC0\x80\"]",
                           "[NaN]",
                           "[Infinity]",
                           "{\"a\":1,}"}) {
    expect_refused(text, Errc::NotWellFormed, fault_code::kParseError);
  }
}

TEST(JsonValue, Write) {
  EXPECT_EQ(to_json(Value()), "null");
  EXPECT_EQ(to_json(true), "true");
  EXPECT_EQ(to_json(false), "false");
  EXPECT_EQ(to_json(-12), "-12");
  EXPECT_EQ(to_json(Value::i8(INT64_MIN)), "-9223372036854775808");
  EXPECT_EQ(to_json(Value::i8(5)), "5");
  EXPECT_EQ(to_json(0.1), "0.1");
  EXPECT_EQ(to_json(1.0), "1.0");
  EXPECT_EQ(to_json(-0.0), "-0.0");
  EXPECT_EQ(to_json(1e100), "1e+100");
  EXPECT_EQ(to_json(5e-324), "5e-324");
  EXPECT_EQ(to_json(123456789.0), "123456789.0");
  EXPECT_EQ(to_json("a\"b\\c/\x01\x1f\b\f\n\r\t\x7f"), R"("a\"b\\c/\u0001\u001f\b\f\n\r\t)"
                                                       "\x7f\"");
  EXPECT_EQ(to_json("h\xC3\xA9\xF0\x9F\x98\x80"), "\"h\xC3\xA9\xF0\x9F\x98\x80\"");
  EXPECT_EQ(to_json(Value::bytes("Hello", 5)), "\"SGVsbG8=\"");
  EXPECT_EQ(to_json(Value::bytes("", 0)), "\"\"");
  DateTime dt;
  dt.year = 1998, dt.month = 7, dt.day = 17, dt.hour = 14, dt.minute = 8, dt.second = 55;
  EXPECT_EQ(to_json(dt), "\"1998-07-17T14:08:55\"");
  dt.fraction_digits = 3, dt.nanosecond = 123000000, dt.zone = DateTime::Zone::Offset;
  dt.offset_minutes = -90;
  EXPECT_EQ(to_json(dt), "\"1998-07-17T14:08:55.123-01:30\"");
  EXPECT_EQ(to_json(Value::array({1, "x", Value::array()})), R"([1,"x",[]])");
  EXPECT_EQ(to_json(Value::structure({{"b", 1}, {"a", Value::structure()}})), R"({"b":1,"a":{}})");
}

TEST(JsonValue, LongStringsEscapeEverywhere) {
  // Escapes and multi-byte characters at every offset around the eight-byte steps.
  for (size_t at = 0; at < 40; ++at) {
    for (std::string special : {"\"", "\\", "\n", "\x1f", "\xC3\xA9", "\xF0\x9F\x98\x80"}) {
      std::string s(at, 'a');
      s += special;
      s += std::string(20, 'b');
      Value v(s);
      std::string text = to_json(v);
      EXPECT_EQ(parsed(text), v) << text;
    }
  }
}

// Strings of up to 16 bytes take a path of their own (two 8-byte checks, one copy): every
// length around it, plain and with an escape, a multi-byte character or a bad byte at every
// offset, written exactly as the long path writes them.
TEST(JsonValue, ShortStringsAtEveryLengthAndOffset) {
  auto expected = [](std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\x1f') {
        out += "\\u001f";
      } else {
        out += c;
      }
    }
    return out + "\"";
  };
  for (size_t length = 0; length <= 18; ++length) {
    std::string plain(length, 'a');
    EXPECT_EQ(to_json(Value(plain)), expected(plain));
    for (size_t at = 0; at < length; ++at) {
      for (std::string special : {"\"", "\\", "\n", "\x1f", "\xC3\xA9"}) {
        std::string s = plain;
        s.replace(at, 1, special);
        EXPECT_EQ(to_json(Value(s)), expected(s)) << length << " " << at;
      }
      std::string bad = plain;
      bad[at] = '\xFF';
      Buffer out;
      EXPECT_EQ(write_value(out, Value(bad)).error().code, Errc::Unrepresentable) << at;
      EXPECT_EQ(out.size(), 0u);
    }
  }
}

TEST(JsonValue, WriteRefusesWhatJsonCannotCarry) {
  for (const Value& bad : {Value(std::numeric_limits<double>::quiet_NaN()),
                           Value(std::numeric_limits<double>::infinity()), Value("\xff"),
                           Value("ab\xC0\x80"), Value("\xED\xA0\x80"),
                           Value::array({1, Value("\xe2\x82")}), Value::structure({{"\xff", 1}})}) {
    Buffer out;
    out.append("keep");
    Status s = write_value(out, bad);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::Unrepresentable);
    EXPECT_EQ(out.view(), "keep");
  }
}

TEST(JsonValue, RoundTrips) {
  Value v = Value::structure(
      {{"nil", nullptr},
       {"t", true},
       {"int", INT32_MIN},
       {"i8", Value::i8(INT64_MAX)},
       {"d", 0.30000000000000004},
       {"whole", 3.0},
       {"tiny", 4.9e-324},
       {"big", 1.7976931348623157e308},
       {"s", "line\r\nend \xE2\x82\xAC"},
       {"a", Value::array({Value::array({Value::array()}), Value::structure({{"", ""}})})}});
  EXPECT_EQ(parsed(to_json(v)), v);
}

TEST(JsonLimits, DocumentSize) {
  JsonLimits limits;
  limits.max_document_size = 10;
  EXPECT_TRUE(from_json("[1,2,3,4]", limits));
  expect_refused("[1,2,3,4,5]", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
}

TEST(JsonLimits, Depth) {
  JsonLimits limits;
  limits.max_depth = 3;
  expect_refused("[[{\"a\":[]}]]", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
  EXPECT_TRUE(from_json("[[{\"a\":1}]]", limits));
  expect_refused("[[[[]]]]", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
  // The default (64), and far deeper input, refused without recursing through it.
  EXPECT_TRUE(from_json(std::string(64, '[') + std::string(64, ']')));
  expect_refused(std::string(65, '[') + std::string(65, ']'), Errc::LimitExceeded,
                 fault_code::kInvalidXmlRpc);
  expect_refused(std::string(500000, '[') + std::string(500000, ']'), Errc::LimitExceeded,
                 fault_code::kInvalidXmlRpc);
  // Unclosed, it is not JSON at all (simdjson's first pass sees that).
  expect_refused(std::string(500000, '['), Errc::NotWellFormed, fault_code::kParseError);
  // A setting above the hard maximum is lowered to it.
  limits.max_depth = 5000;
  EXPECT_EQ(Reader(limits).limits().max_depth, JsonLimits::kMaxDepth);
  EXPECT_TRUE(from_json(std::string(1000, '[') + std::string(1000, ']'), limits));
  expect_refused(std::string(1001, '[') + std::string(1001, ']'), Errc::LimitExceeded,
                 fault_code::kInvalidXmlRpc, limits);
}

TEST(JsonLimits, StringSize) {
  JsonLimits limits;
  limits.max_string_size = 4;
  EXPECT_TRUE(from_json("[\"abcd\", {\"abcd\": 1}]", limits));
  expect_refused("[\"abcde\"]", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
  expect_refused("{\"abcde\": 1}", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
  // Counted unescaped: six bytes of text, one character.
  EXPECT_TRUE(from_json("[\"\\u00e9\"]", limits));
}

TEST(JsonLimits, Elements) {
  JsonLimits limits;
  limits.max_elements = 5;  // 1, [2], 2, {...}, a: 3
  EXPECT_TRUE(from_json("[1, [2], {\"a\": 3}]", limits));
  limits.max_elements = 4;
  expect_refused("[1, [2], {\"a\": 3}]", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
}

// Strings and member names without escapes are copied straight from the input, the others
// unescaped first: both read the same, whatever white space follows them, at the root too.
TEST(JsonValue, StringsAndNamesWithAndWithoutEscapes) {
  EXPECT_EQ(parsed(R"("")"), Value(""));
  EXPECT_EQ(parsed(" \"abc\" \n"), Value("abc"));
  EXPECT_EQ(parsed(R"("a\"b")"), Value("a\"b"));
  EXPECT_EQ(parsed(R"("\\")"), Value("\\"));
  EXPECT_EQ(parsed(R"("\u00e9 and a long tail past the inline size")"),
            Value("\xC3\xA9 and a long tail past the inline size"));
  EXPECT_EQ(parsed(R"([ "a" , "b\n" ,"" ,"a string longer than fourteen bytes"  ])"),
            Value::array({"a", "b\n", "", "a string longer than fourteen bytes"}));
  EXPECT_EQ(parsed(R"({"":1, "a\tb" :2,"plain":"x", "\u0063":"y"})"),
            Value::structure({{"", 1}, {"a\tb", 2}, {"plain", "x"}, {"c", "y"}}));
  // A name spelt once plain and once escaped is the same name.
  expect_refused(R"({"a":1,"\u0061":2})", Errc::InvalidRequest, fault_code::kInvalidXmlRpc);
  // Stage 1 checks what the copy does not: control characters, UTF-8, the closing quote.
  expect_refused("[\"a\x01b\"]", Errc::NotWellFormed, fault_code::kParseError);
  expect_refused("{\"a\x01\":1}", Errc::NotWellFormed, fault_code::kParseError);
  expect_refused("[\"a\xFF\"]", Errc::NotWellFormed, fault_code::kParseError);
  expect_refused(R"(["abc)", Errc::NotWellFormed, fault_code::kParseError);
  expect_refused(R"(["abc" "d"])", Errc::NotWellFormed, fault_code::kParseError);
  // A string followed by a ':' where a ',' is due (simdjson skips a string it was not asked
  // for as a member name, and what follows it unchecked).
  expect_refused(R"([1,"":2}])", Errc::NotWellFormed, fault_code::kParseError);
  expect_refused(R"({"a":["x":2}]})", Errc::NotWellFormed, fault_code::kParseError);
  expect_refused(R"(["a":2])", Errc::NotWellFormed, fault_code::kParseError);
  expect_refused(R"(["a\q"])", Errc::NotWellFormed, fault_code::kParseError);
  expect_refused(R"({"a\q":1})", Errc::NotWellFormed, fault_code::kParseError);
  JsonLimits limits;
  limits.max_string_size = 3;
  EXPECT_TRUE(from_json(R"(["abc", {"abc": "a\"c"}])", limits));
  expect_refused(R"(["abcd"])", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
  expect_refused(R"(["ab\"cd"])", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
  expect_refused(R"({"abcd":1})", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
  expect_refused(R"({"ab\ncd":1})", Errc::LimitExceeded, fault_code::kInvalidXmlRpc, limits);
}

TEST(JsonReader, IsReusable) {
  Reader reader;
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(reader.read_value("[1,"));
    Result<Value> v = reader.read_value("[1, \"two\"]");
    ASSERT_TRUE(v);
    EXPECT_EQ(*v, Value::array({1, "two"}));
    EXPECT_FALSE(reader.read_value("[99999999999999999999]"));
    ASSERT_TRUE(reader.read_value("\"x\""));
  }
}

}  // namespace
}  // namespace callwire::json
