// The JSON form (docs/json-form.md): every mapping both ways, the $struct rule, every error
// path, and round trips.
#include "json_form.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace callwire::json_form {
namespace {

using namespace std::string_literals;

Value bytes_of(std::string_view s) { return Value::bytes(s.data(), s.size()); }

DateTime make_datetime(uint16_t y, uint8_t mo, uint8_t d, uint8_t h, uint8_t mi, uint8_t s) {
  DateTime dt;
  dt.year = y, dt.month = mo, dt.day = d, dt.hour = h, dt.minute = mi, dt.second = s;
  return dt;
}

Value read(std::string_view json) {
  auto r = value_from_json(json);
  EXPECT_TRUE(r.ok()) << json << " -> " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Value();
}

// Expects `json` refused as JSON that is not the form (-32600), with `part` in the message.
void expect_form_error(std::string_view json, std::string_view part) {
  auto r = value_from_json(json);
  ASSERT_FALSE(r.ok()) << json;
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
  EXPECT_EQ(r.error().fault_code, fault_code::kInvalidXmlRpc) << r.error().message;
  EXPECT_NE(r.error().message.find(part), std::string::npos)
      << "message: " << r.error().message << "\nwanted: " << part;
}

// Expects `json` refused as not JSON at all (-32700), with `part` in the message.
void expect_syntax_error(std::string_view json, std::string_view part = "invalid JSON") {
  auto r = value_from_json(json);
  ASSERT_FALSE(r.ok()) << json;
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
  EXPECT_EQ(r.error().fault_code, fault_code::kParseError) << r.error().message;
  EXPECT_NE(r.error().message.find(part), std::string::npos)
      << "message: " << r.error().message << "\nwanted: " << part;
}

void expect_message_error(std::string_view json, std::string_view part,
                          int32_t fault = fault_code::kInvalidXmlRpc) {
  auto r = message_from_json(json);
  ASSERT_FALSE(r.ok()) << json;
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
  EXPECT_EQ(r.error().fault_code, fault) << r.error().message;
  EXPECT_NE(r.error().message.find(part), std::string::npos)
      << "message: " << r.error().message << "\nwanted: " << part;
}

std::vector<std::string> member_names(const Value& v) {
  std::vector<std::string> names;
  for (const Member& m : v.members()) names.emplace_back(m.name());
  return names;
}

// ---- writing scalars

TEST(JsonFormWrite, Nil) { EXPECT_EQ(to_json(Value()), "null"); }

TEST(JsonFormWrite, Boolean) {
  EXPECT_EQ(to_json(Value(true)), "true");
  EXPECT_EQ(to_json(Value(false)), "false");
}

TEST(JsonFormWrite, Int) {
  EXPECT_EQ(to_json(Value(0)), "0");
  EXPECT_EQ(to_json(Value(-42)), "-42");
  EXPECT_EQ(to_json(Value(INT32_MAX)), "2147483647");
  EXPECT_EQ(to_json(Value(INT32_MIN)), "-2147483648");
}

TEST(JsonFormWrite, I8) {
  EXPECT_EQ(to_json(Value::i8(5)), R"({"$i8":5})");
  EXPECT_EQ(to_json(Value::i8(INT64_MAX)), R"({"$i8":9223372036854775807})");
  EXPECT_EQ(to_json(Value::i8(INT64_MIN)), R"({"$i8":-9223372036854775808})");
}

TEST(JsonFormWrite, DoublesAreBareNumbersWithAFractionOrAnExponent) {
  EXPECT_EQ(to_json(Value(1.5)), "1.5");
  EXPECT_EQ(to_json(Value(0.1)), "0.1");
  EXPECT_EQ(to_json(Value(1.0)), "1.0");  // "1" would read back as an int
  EXPECT_EQ(to_json(Value(-0.0)), "-0.0");
  EXPECT_EQ(to_json(Value(1e100)), "1e+100");
  EXPECT_EQ(to_json(Value(5e-324)), "5e-324");
  EXPECT_EQ(to_json(Value(DBL_MAX)), "1.7976931348623157e+308");
  EXPECT_EQ(to_json(Value::array({2.0, 2, Value::i8(2)})), R"([2.0,2,{"$i8":2}])");
  for (double d : {1.0, -0.0, 1e100, 5e-324, 0.1, 123456789.0}) {
    Result<Value> back = value_from_json(to_json(Value(d)));
    ASSERT_TRUE(back) << d;
    ASSERT_TRUE(back->is_double()) << d;
    EXPECT_EQ(std::signbit(back->as_double()), std::signbit(d));
    EXPECT_EQ(back->as_double(), d);
  }
}

TEST(JsonFormWrite, NonFiniteDoublesAreOutputOnlyStrings) {
  EXPECT_EQ(to_json(Value(std::nan(""))), R"({"$double":"NaN"})");
  EXPECT_EQ(to_json(Value(HUGE_VAL)), R"({"$double":"Infinity"})");
  EXPECT_EQ(to_json(Value(-HUGE_VAL)), R"({"$double":"-Infinity"})");
  expect_form_error(R"({"$double":"NaN"})", "$double must be a number, not a string");
}

TEST(JsonFormWrite, StringEscapes) {
  EXPECT_EQ(to_json(Value("")), R"("")");
  EXPECT_EQ(to_json(Value("plain / text")), R"("plain / text")");
  EXPECT_EQ(to_json(Value("q\"b\\")), R"("q\"b\\")");
  EXPECT_EQ(to_json(Value("\b\f\n\r\t")), R"("\b\f\n\r\t")");
  EXPECT_EQ(to_json(Value("\x01\x1f")), R"("\u0001\u001f")");
  EXPECT_EQ(to_json(Value(std::string_view("a\0b", 3))), R"("a\u0000b")");
  EXPECT_EQ(to_json(Value("\x7f")), "\"\x7f\"");  // DEL needs no escape in JSON
}

TEST(JsonFormWrite, NonAsciiUtf8PassesThrough) {
  std::string s = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF";
  EXPECT_EQ(to_json(Value(s)), "\"" + s + "\"");
}

TEST(JsonFormWrite, InvalidUtf8BecomesReplacementCharacters) {
  const std::string r = "\xEF\xBF\xBD";                                // U+FFFD
  EXPECT_EQ(to_json(Value("\x80")), "\"" + r + "\"");                  // lone continuation
  EXPECT_EQ(to_json(Value("a\xE2\x82")), "\"a" + r + "\"");            // truncated: one U+FFFD
  EXPECT_EQ(to_json(Value("\xE2\x82z")), "\"" + r + "z\"");            // cut short mid-string
  EXPECT_EQ(to_json(Value("\xC0\xAF")), "\"" + r + r + "\"");          // overlong
  EXPECT_EQ(to_json(Value("\xED\xA0\x80")), "\"" + r + r + r + "\"");  // a surrogate
  EXPECT_EQ(to_json(Value("\xF4\x90\x80\x80")), "\"" + r + r + r + r + "\"");  // > U+10FFFF
  EXPECT_EQ(to_json(Value("\xFF")), "\"" + r + "\"");
  // What is written is valid JSON and reads back (as the replaced text).
  EXPECT_EQ(read(to_json(Value("x\xFFy"))), Value("x" + r + "y"));
}

TEST(JsonFormWrite, DateTime) {
  DateTime dt = make_datetime(1998, 7, 17, 14, 8, 55);
  EXPECT_EQ(to_json(Value(dt)), R"({"$dateTime":"19980717T14:08:55"})");
  dt.zone = DateTime::Zone::Utc;
  dt.fraction_digits = 6;
  dt.nanosecond = 123456000;
  EXPECT_EQ(to_json(Value(dt)), R"({"$dateTime":"19980717T14:08:55.123456Z"})");
  dt.zone = DateTime::Zone::Offset;
  dt.offset_minutes = -(5 * 60 + 30);
  EXPECT_EQ(to_json(Value(dt)), R"({"$dateTime":"19980717T14:08:55.123456-05:30"})");
}

TEST(JsonFormWrite, Base64Rfc4648Vectors) {
  EXPECT_EQ(to_json(bytes_of("")), R"({"$base64":""})");
  EXPECT_EQ(to_json(bytes_of("f")), R"({"$base64":"Zg=="})");
  EXPECT_EQ(to_json(bytes_of("fo")), R"({"$base64":"Zm8="})");
  EXPECT_EQ(to_json(bytes_of("foo")), R"({"$base64":"Zm9v"})");
  EXPECT_EQ(to_json(bytes_of("foob")), R"({"$base64":"Zm9vYg=="})");
  EXPECT_EQ(to_json(bytes_of("fooba")), R"({"$base64":"Zm9vYmE="})");
  EXPECT_EQ(to_json(bytes_of("foobar")), R"({"$base64":"Zm9vYmFy"})");
  EXPECT_EQ(to_json(bytes_of("\xFB\xFF\x00"s)), R"({"$base64":"+/8A"})");
}

TEST(JsonFormWrite, Base64IsOneLine) {
  std::string big(1000, 'x');
  std::string json = to_json(bytes_of(big));
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_EQ(json.size(), std::string(R"({"$base64":""})").size() + 1336);
}

// ---- writing containers

TEST(JsonFormWrite, Arrays) {
  EXPECT_EQ(to_json(Value::array()), "[]");
  EXPECT_EQ(to_json(Value::array({1, "two", Value::array({true, Value()})})),
            R"([1,"two",[true,null]])");
}

TEST(JsonFormWrite, StructsKeepMemberOrder) {
  EXPECT_EQ(to_json(Value::structure()), "{}");
  EXPECT_EQ(to_json(Value::structure({{"z", 1}, {"a", 2}, {"m", 3}})), R"({"z":1,"a":2,"m":3})");
  EXPECT_EQ(to_json(Value::structure({{"k\"\n", 1}})), R"({"k\"\n":1})");
}

TEST(JsonFormWrite, StructRuleWrapsALoneDollarMember) {
  EXPECT_EQ(to_json(Value::structure({{"$i8", 5}})), R"({"$struct":{"$i8":5}})");
  EXPECT_EQ(to_json(Value::structure({{"$", 5}})), R"({"$struct":{"$":5}})");
  EXPECT_EQ(to_json(Value::structure({{"$struct", Value::structure()}})),
            R"({"$struct":{"$struct":{}}})");
  // Only a lone member can look like a tag.
  EXPECT_EQ(to_json(Value::structure({{"$a", 1}, {"b", 2}})), R"({"$a":1,"b":2})");
  EXPECT_EQ(to_json(Value::structure({{"a$", 1}})), R"({"a$":1})");
  // Nested: the rule applies at every level, and the wrapped values keep their own forms.
  EXPECT_EQ(to_json(Value::array({Value::structure({{"$x", Value::i8(1)}})})),
            R"([{"$struct":{"$x":{"$i8":1}}}])");
}

// ---- writing messages

TEST(JsonFormWrite, Messages) {
  Message call;
  call.kind = Message::Kind::Call;
  call.call.method_name = "sample.add";
  call.call.params = Value::array({5, 3});
  EXPECT_EQ(to_json(call), R"({"methodName":"sample.add","params":[5,3]})");
  call.call.params = Value::array();
  EXPECT_EQ(to_json(call), R"({"methodName":"sample.add","params":[]})");

  Message response;
  response.kind = Message::Kind::Response;
  response.response.result = Value::structure({{"sum", 8}});
  EXPECT_EQ(to_json(response), R"({"result":{"sum":8}})");

  Message fault;
  fault.kind = Message::Kind::Response;
  fault.response.is_fault = true;
  fault.response.fault = {4, "Too many \"parameters\""};
  EXPECT_EQ(to_json(fault), R"({"fault":{"faultCode":4,"faultString":"Too many \"parameters\""}})");
}

TEST(JsonFormWrite, Pretty) {
  Message call;
  call.call.method_name = "m";
  call.call.params =
      Value::array({1, Value::array(), Value::structure(), Value::i8(7),
                    Value::structure({{"a", Value::array({true})}, {"b", Value(2.5)}}),
                    Value::structure({{"$x", 1}})});
  EXPECT_EQ(to_json(call, Style::Pretty), R"({
  "methodName": "m",
  "params": [
    1,
    [],
    {},
    {"$i8": 7},
    {
      "a": [
        true
      ],
      "b": 2.5
    },
    {
      "$struct": {
        "$x": 1
      }
    }
  ]
})");
  Message fault;
  fault.kind = Message::Kind::Response;
  fault.response.is_fault = true;
  fault.response.fault = {-1, "no"};
  EXPECT_EQ(to_json(fault, Style::Pretty), R"({
  "fault": {
    "faultCode": -1,
    "faultString": "no"
  }
})");
  EXPECT_EQ(to_json(Value(3), Style::Pretty), "3");
  EXPECT_EQ(to_json(Value::i8(3), Style::Compact), R"({"$i8":3})");
}

// ---- reading scalars

TEST(JsonFormRead, Scalars) {
  EXPECT_TRUE(read("null").is_nil());
  EXPECT_EQ(read("true"), Value(true));
  EXPECT_EQ(read("false"), Value(false));
  EXPECT_EQ(read(R"("text")"), Value("text"));
  EXPECT_EQ(read(R"("\u00e9\ud83d\ude00\n\"\/")"), Value("\xC3\xA9\xF0\x9F\x98\x80\n\"/"));
  EXPECT_EQ(read(R"("a\u0000b")"), Value(std::string_view("a\0b", 3)));
  EXPECT_EQ(read("  \n 7 \t"), Value(7));
}

TEST(JsonFormRead, BareIntegersAreInts) {
  EXPECT_TRUE(read("0").is_int());
  EXPECT_EQ(read("-0"), Value(0));
  EXPECT_EQ(read("2147483647"), Value(INT32_MAX));
  EXPECT_EQ(read("-2147483648"), Value(INT32_MIN));
}

TEST(JsonFormRead, BareIntegersOutsideInt32AreRefusedWithAHint) {
  expect_form_error("2147483648", R"(write {"$i8": 2147483648} for a 64-bit integer)");
  expect_form_error("-2147483649", R"({"$i8": -2147483649})");
  expect_form_error("9223372036854775807", "out of the 32-bit range");
  expect_form_error("9223372036854775808", "out of the 64-bit range");
  expect_form_error("-9223372036854775809", "out of the 64-bit range");
  expect_form_error("123456789012345678901234567890", "out of the 64-bit range");
}

TEST(JsonFormRead, BareNumbersWithAFractionOrExponentAreDoubles) {
  EXPECT_EQ(read("1.5"), Value(1.5));
  EXPECT_EQ(read("1.0"), Value(1.0));
  EXPECT_EQ(read("1e3"), Value(1000.0));
  EXPECT_EQ(read("1E-2"), Value(0.01));
  EXPECT_EQ(read("-2.5e+2"), Value(-250.0));
  Value z = read("-0.0");
  ASSERT_TRUE(z.is_double());
  EXPECT_TRUE(std::signbit(z.as_double()));
  expect_form_error("1e400", "number 1e400 is out of the range of a double");
}

TEST(JsonFormRead, I8) {
  EXPECT_EQ(read(R"({"$i8":5})"), Value::i8(5));
  EXPECT_TRUE(read(R"({"$i8":5})").is_i8());
  EXPECT_EQ(read(R"({"$i8":9223372036854775807})"), Value::i8(INT64_MAX));
  EXPECT_EQ(read(R"({"$i8":-9223372036854775808})"), Value::i8(INT64_MIN));
  EXPECT_EQ(read(R"({ "$i8" : -1 })"), Value::i8(-1));
  expect_form_error(R"({"$i8":9223372036854775808})", "$i8 9223372036854775808 is out of");
  expect_form_error(R"({"$i8":-9223372036854775809})", "out of the 64-bit range");
  expect_form_error(R"({"$i8":1.0})", "$i8 takes a JSON integer, not 1.0");
  expect_form_error(R"({"$i8":1e2})", "$i8 takes a JSON integer");
  expect_form_error(R"({"$i8":"5"})", "$i8 must be a number, not a string");
  expect_form_error(R"({"$i8":null})", "$i8 must be a number, not null");
}

TEST(JsonFormRead, Double) {
  EXPECT_EQ(read(R"({"$double":1.5})"), Value(1.5));
  Value one = read(R"({"$double":1})");  // an integer token is fine here
  EXPECT_TRUE(one.is_double());
  EXPECT_EQ(one, Value(1.0));
  EXPECT_EQ(read(R"({"$double":-0})"), Value(-0.0));
  EXPECT_TRUE(std::signbit(read(R"({"$double":-0})").as_double()));
  EXPECT_EQ(read(R"({"$double":1e+100})"), Value(1e100));
  EXPECT_EQ(read(R"({"$double":123456789012345678901234567890})"), Value(1.2345678901234568e29));
  EXPECT_EQ(read(R"({"$double":9223372036854775808})"), Value(9223372036854775808.0));
  expect_form_error(R"({"$double":"1.5"})", "$double must be a number, not a string");
  expect_form_error(R"({"$double":[1]})", "$double must be a number, not an array");
  expect_form_error(R"({"$double":1e999})", "$double 1e999 is out of the range of a double");
}

TEST(JsonFormRead, DateTime) {
  DateTime dt = make_datetime(1998, 7, 17, 14, 8, 55);
  EXPECT_EQ(read(R"({"$dateTime":"19980717T14:08:55"})"), Value(dt));
  // Whatever DateTime::parse accepts, as peers send it.
  EXPECT_EQ(read(R"({"$dateTime":"1998-07-17T14:08:55"})"), Value(dt));
  DateTime z = dt;
  z.zone = DateTime::Zone::Utc;
  EXPECT_EQ(read(R"({"$dateTime":"19980717T14:08:55Z"})"), Value(z));
  expect_form_error(R"({"$dateTime":"yesterday"})", "$dateTime: invalid dateTime");
  expect_form_error(R"({"$dateTime":"19981317T14:08:55"})", "$dateTime:");
  expect_form_error(R"({"$dateTime":19980717})", "$dateTime must be a string, not a number");
}

TEST(JsonFormRead, Base64) {
  EXPECT_EQ(read(R"({"$base64":""})"), bytes_of(""));
  EXPECT_EQ(read(R"({"$base64":"Zg=="})"), bytes_of("f"));
  EXPECT_EQ(read(R"({"$base64":"Zm8="})"), bytes_of("fo"));
  EXPECT_EQ(read(R"({"$base64":"Zm9v"})"), bytes_of("foo"));
  EXPECT_EQ(read(R"({"$base64":"Zm9vYmFy"})"), bytes_of("foobar"));
  EXPECT_EQ(read(R"({"$base64":"+/8A"})"), bytes_of("\xFB\xFF\x00"s));
  // Lenient: no padding, whitespace and line breaks anywhere.
  EXPECT_EQ(read(R"({"$base64":"Zg"})"), bytes_of("f"));
  EXPECT_EQ(read(R"({"$base64":"Zm8"})"), bytes_of("fo"));
  EXPECT_EQ(read(R"({"$base64":" Zm9v\r\nYmFy\n"})"), bytes_of("foobar"));
  EXPECT_EQ(read(R"({"$base64":"Zm9vYg= ="})"), bytes_of("foob"));
  EXPECT_EQ(read(R"({"$base64":"Zg="})"), bytes_of("f"));  // a short final padding too
  expect_form_error(R"({"$base64":"Zm9v!"})", "unexpected character at offset 4");
  expect_form_error(R"({"$base64":"Zm-9"})", "unexpected character at offset 2");
  expect_form_error(R"({"$base64":"Zg==Zg=="})", "unexpected character at offset 4");
  expect_form_error(R"({"$base64":"Z"})", "middle of a group of four");
  expect_form_error(R"({"$base64":"Zm9vY"})", "middle of a group of four");
  expect_form_error(R"({"$base64":"Zm9v="})", "unexpected character at offset 4");
  expect_form_error(R"({"$base64":"="})", "unexpected character at offset 0");
  expect_form_error(R"({"$base64":5})", "$base64 must be a string, not a number");
}

// ---- reading containers and the $struct rule

TEST(JsonFormRead, Arrays) {
  EXPECT_EQ(read("[]"), Value::array());
  EXPECT_EQ(read(R"([1,"two",[true,null],{"$i8":3}])"),
            Value::array({1, "two", Value::array({true, Value()}), Value::i8(3)}));
}

TEST(JsonFormRead, Structs) {
  EXPECT_EQ(read("{}"), Value::structure());
  Value v = read(R"({"z":1,"a":{"$double":2},"m":[]})");
  EXPECT_EQ(v, Value::structure({{"z", 1}, {"a", 2.0}, {"m", Value::array()}}));
  EXPECT_EQ(member_names(v), (std::vector<std::string>{"z", "a", "m"}));
  EXPECT_EQ(read(R"({"":1})"), Value::structure({{"", 1}}));
  EXPECT_EQ(read(R"({"a\u0000b":1})"), Value::structure({{std::string_view("a\0b", 3), 1}}));
}

TEST(JsonFormRead, DuplicateKeysLastWins) {
  Value v = read(R"({"a":1,"b":2,"a":3})");
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v["a"], Value(3));
  EXPECT_EQ(member_names(v), (std::vector<std::string>{"a", "b"}));
  // Two members, so no tag, even with '$' names.
  EXPECT_EQ(read(R"({"$i8":1,"$i8":2})"), Value::structure({{"$i8", 2}}));
}

TEST(JsonFormRead, StructRule) {
  // The wrapper's members are names, not tags; their values keep the form's rules.
  EXPECT_EQ(read(R"({"$struct":{"$i8":5}})"), Value::structure({{"$i8", 5}}));
  EXPECT_EQ(read(R"({"$struct":{"$x":{"$i8":5}}})"), Value::structure({{"$x", Value::i8(5)}}));
  EXPECT_EQ(read(R"({"$struct":{}})"), Value::structure());
  EXPECT_EQ(read(R"({"$struct":{"a":1,"b":2}})"), Value::structure({{"a", 1}, {"b", 2}}));
  EXPECT_EQ(read(R"({"$struct":{"$struct":{}}})"),
            Value::structure({{"$struct", Value::structure()}}));
  // More than one member: a struct whatever the names.
  EXPECT_EQ(read(R"({"$i8":5,"b":2})"), Value::structure({{"$i8", 5}, {"b", 2}}));
  EXPECT_EQ(read(R"({"b":2,"$i8":5})"), Value::structure({{"b", 2}, {"$i8", 5}}));
  EXPECT_EQ(read(R"({"$foo":5,"$bar":6})"), Value::structure({{"$foo", 5}, {"$bar", 6}}));
  // One member without '$': a struct.
  EXPECT_EQ(read(R"({"i8":5})"), Value::structure({{"i8", 5}}));
  expect_form_error(R"({"$struct":5})", "$struct must be an object, not a number");
  expect_form_error(R"({"$struct":[]})", "$struct must be an object, not an array");
}

TEST(JsonFormRead, EscapedNamesFollowTheRuleByTheirValue) {
  EXPECT_EQ(read(R"({"\u0024i8":5})"), Value::i8(5));
  EXPECT_EQ(read(R"({"\u0041":5})"), Value::structure({{"A", 5}}));
  EXPECT_EQ(read(R"({"\\":5})"), Value::structure({{"\\", 5}}));
  expect_form_error(R"({"\u0024x":5})", R"(unknown tag "$x")");
}

// A regression: names that may be tags were once unescaped twice, overrunning simdjson's string
// buffer (found by fuzzing; ASan sees it).
TEST(JsonFormRead, LongDollarNamesAreReadOnce) {
  std::string name = "$" + std::string(4000, 'a');
  EXPECT_EQ(read(R"({")" + name + R"(":1,"b":2})"), Value::structure({{name, 1}, {"b", 2}}));
  Value v = read(R"({")" + name + R"(":1,"b":[{"$struct":{")" + name + R"(":{"$i8":2}}}]})");
  EXPECT_EQ(v, Value::structure(
                   {{name, 1}, {"b", Value::array({Value::structure({{name, Value::i8(2)}})})}}));
  std::string escaped = "\\u0024" + std::string(4000, 'a');
  expect_form_error(R"({")" + escaped + R"(":1})", "unknown tag");
}

TEST(JsonFormRead, UnknownTagsAreErrors) {
  expect_form_error(R"({"$foo":1})", R"(unknown tag "$foo")");
  expect_form_error(R"({"$":1})", R"(unknown tag "$")");
  expect_form_error(R"({"$I8":1})", R"(unknown tag "$I8")");
  expect_form_error(R"({"$int":1})", "{\"$struct\": {...}}");
  expect_form_error(R"([1,{"$nil":null}])", "(at /1/$nil)");
}

// ---- reading: syntax errors and where they are

TEST(JsonFormRead, SyntaxErrors) {
  expect_syntax_error("", "no JSON value");
  expect_syntax_error("   \n", "no JSON value");
  expect_syntax_error("{");
  expect_syntax_error("[1,]");
  expect_syntax_error("[1 2]");
  expect_syntax_error(R"({"a" 1})");
  expect_syntax_error(R"({"a":})");
  expect_syntax_error("{a:1}");
  expect_syntax_error("tru");
  expect_syntax_error("nul");
  expect_syntax_error("[nulll]");
  expect_syntax_error("01");
  expect_syntax_error("[-]");
  expect_syntax_error("[1.]");
  expect_syntax_error("NaN");
  expect_syntax_error("'single'");
  expect_syntax_error(R"("unterminated)");
  expect_syntax_error("\"raw\ncontrol\"");
  expect_syntax_error(R"("\ud800")");
  expect_syntax_error(R"("\x")");
  expect_syntax_error("1 2", "more text after the JSON value");
  expect_syntax_error("{} {}", "more text after the JSON value");
  expect_syntax_error("[1] x");
}

TEST(JsonFormRead, InvalidUtf8IsASyntaxErrorWithItsPlace) {
  expect_syntax_error("[\"ok\",\n \"b\xFFz\"]", "line 2, column 4");
}

TEST(JsonFormRead, SyntaxErrorsSayWhere) {
  auto r = value_from_json("{\n  \"a\": [1, 2,, 3]\n}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 2"), std::string::npos) << r.error().message;
}

TEST(JsonFormRead, FormErrorsSayWhere) {
  expect_form_error(R"({"a":[1,{"b c/d~e":2147483648}]})", "(at /a/1/b c~1d~0e)");
  expect_message_error(R"({"methodName":"m","params":[1,{"x":{"$i8":"1"}}]})",
                       "(at /params/1/x/$i8)");
}

TEST(JsonFormRead, ByteOrderMarkIsSkipped) {
  EXPECT_EQ(read("\xEF\xBB\xBF[1]"), Value::array({1}));
}

TEST(JsonFormRead, DeepNestingIsRefusedNotACrash) {
  auto nest = [](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += i % 2 ? "{\"a\":" : "[";
    s += "0";
    for (size_t i = n; i-- > 0;) s += i % 2 ? "}" : "]";
    return s;
  };
  EXPECT_TRUE(value_from_json(nest(1000)).ok());
  expect_form_error(nest(1001), "nested deeper than 1000");
  expect_form_error(nest(100000), "nested deeper than 1000");
  // A $struct wrapper is two objects deep.
  std::string wrapped;
  for (int i = 0; i < 600; ++i) wrapped += R"({"$struct":{"$x":)";
  wrapped += "0" + std::string(1200, '}');
  expect_form_error(wrapped, "nested deeper than 1000");
}

// ---- messages

TEST(JsonFormMessage, Call) {
  auto m = message_from_json(R"({"methodName":"sample.add","params":[5,3]})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->kind, Message::Kind::Call);
  EXPECT_EQ(m->call.method_name, "sample.add");
  EXPECT_EQ(m->call.params, Value::array({5, 3}));
  // Either order; no params means none.
  m = message_from_json(R"({"params":[],"methodName":"x"})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->call.method_name, "x");
  m = message_from_json(R"({"methodName":"system.listMethods"})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->call.params, Value::array());
}

TEST(JsonFormMessage, Response) {
  auto m = message_from_json(R"({"result":{"$i8":8}})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->kind, Message::Kind::Response);
  EXPECT_FALSE(m->response.is_fault);
  EXPECT_EQ(m->response.result, Value::i8(8));
  m = message_from_json(R"({"result":null})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(m->response.result.is_nil());
}

TEST(JsonFormMessage, Fault) {
  auto m = message_from_json(R"({"fault":{"faultString":"bad","faultCode":-32601}})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->kind, Message::Kind::Response);
  EXPECT_TRUE(m->response.is_fault);
  EXPECT_EQ(m->response.fault, (Fault{-32601, "bad"}));
}

TEST(JsonFormMessage, Errors) {
  expect_message_error("[1]", "a message must be an object, not an array");
  expect_message_error("5", "a message must be an object, not a number");
  expect_message_error("{}", "a message needs");
  expect_message_error(R"({"method":"x"})", R"(unknown member "method")");
  expect_message_error(R"({"params":[]})", R"("params" without "methodName")");
  expect_message_error(R"({"methodName":"m","result":1})", "not several");
  expect_message_error(R"({"result":1,"fault":{"faultCode":1,"faultString":""}})", "not several");
  expect_message_error(R"({"methodName":5})", "methodName must be a string, not a number");
  expect_message_error(R"({"methodName":"m","params":{}})",
                       "params must be an array, not an object");
  expect_message_error(R"({"methodName":"m","params":[2147483648]})", R"({"$i8": 2147483648})");
  expect_message_error(R"({"fault":5})", "fault must be an object, not a number");
  expect_message_error(R"({"fault":{"faultCode":1}})", R"(a fault needs "faultString")");
  expect_message_error(R"({"fault":{"faultString":"x"}})", R"(a fault needs "faultCode")");
  expect_message_error(R"({"fault":{"faultCode":1,"faultString":"x","faultCause":"y"}})",
                       R"(unknown member "faultCause")");
  expect_message_error(R"({"fault":{"faultCode":"1","faultString":"x"}})",
                       "faultCode must be a number, not a string");
  expect_message_error(R"({"fault":{"faultCode":1.5,"faultString":"x"}})",
                       "faultCode must be a 32-bit integer, not 1.5");
  expect_message_error(R"({"fault":{"faultCode":2147483648,"faultString":"x"}})",
                       "faultCode must be a 32-bit integer, not 2147483648");
  expect_message_error(R"({"fault":{"faultCode":1,"faultString":2}})",
                       "faultString must be a string, not a number");
  expect_message_error(R"({"methodName":"m"} x)", "more text", fault_code::kParseError);
  expect_message_error(R"({"methodName":"m",})", "invalid JSON", fault_code::kParseError);
  expect_message_error("", "no JSON value", fault_code::kParseError);
}

// ---- round trips

Value rich_value() {
  DateTime dt = make_datetime(2024, 2, 29, 23, 59, 60);
  dt.fraction_digits = 3;
  dt.nanosecond = 250000000;
  dt.zone = DateTime::Zone::Offset;
  dt.offset_minutes = 90;
  return Value::structure({
      {"nil", Value()},
      {"yes", true},
      {"int", INT32_MIN},
      {"i8", Value::i8(INT64_MAX)},
      {"small i8", Value::i8(1)},
      {"double", 0.1},
      {"negative zero", -0.0},
      {"tiny", 5e-324},
      {"string", "tab\t quote\" é 😀 \x01"},
      {"when", Value(dt)},
      {"bytes", bytes_of("\x00\x01\xFE\xFF"s)},
      {"empty bytes", bytes_of("")},
      {"array", Value::array({1, Value::array(), Value::structure()})},
      {"lonely", Value::structure({{"$i8", Value::structure({{"$struct", 1}})}})},
      {"$not lonely", Value::structure({{"$a", 1}, {"$b", 2}})},
  });
}

TEST(JsonFormRoundTrip, Values) {
  for (Style style : {Style::Compact, Style::Pretty}) {
    Value v = rich_value();
    std::string json = to_json(v, style);
    Value back = read(json);
    EXPECT_EQ(back, v) << json;
    EXPECT_EQ(member_names(back), member_names(v));
    EXPECT_EQ(to_json(back, style), json);
  }
}

TEST(JsonFormRoundTrip, Doubles) {
  for (double d : {0.0, 1.0, -1.5, 0.1, 1.0 / 3, 1e21, 1e-7, 123456789.125, DBL_MAX, DBL_MIN,
                   DBL_TRUE_MIN, 9007199254740993.0, 2.5e-300}) {
    Value back = read(to_json(Value(d)));
    ASSERT_TRUE(back.is_double()) << d;
    EXPECT_EQ(back.as_double(), d) << to_json(Value(d));
  }
}

TEST(JsonFormRoundTrip, EveryByteInBase64AndStrings) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += char(i);
  for (size_t n = 0; n <= all.size(); n += 37) {
    Value b = bytes_of(all.substr(0, n));
    EXPECT_EQ(read(to_json(b)), b);
  }
  std::string ascii = all.substr(0, 128);
  EXPECT_EQ(read(to_json(Value(ascii))), Value(ascii));
}

TEST(JsonFormRoundTrip, Messages) {
  Message call;
  call.call.method_name = "sample.rich";
  call.call.params = Value::array({rich_value(), Value::array({5, 3})});
  Message response;
  response.kind = Message::Kind::Response;
  response.response.result = rich_value();
  Message fault;
  fault.kind = Message::Kind::Response;
  fault.response.is_fault = true;
  fault.response.fault = {INT32_MIN, "line\nbreak"};
  for (const Message* m : {&call, &response, &fault}) {
    for (Style style : {Style::Compact, Style::Pretty}) {
      std::string json = to_json(*m, style);
      auto back = message_from_json(json);
      ASSERT_TRUE(back.ok()) << json << "\n" << back.error().message;
      EXPECT_EQ(back->kind, m->kind);
      EXPECT_EQ(back->call, m->call);
      EXPECT_EQ(back->response, m->response);
      EXPECT_EQ(to_json(*back, style), json);
    }
  }
}

}  // namespace
}  // namespace callwire::json_form
