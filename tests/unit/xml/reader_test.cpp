// The reader, rule by rule: the XML 1.0 subset, the XML-RPC grammar, what real peers send
// (docs/xml-reader.md), limits and error reporting.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "callwire/base64.hpp"
#include "callwire/convert.hpp"
#include "callwire/xml.hpp"
#include "counting_reader.hpp"
#include "value/value_build.hpp"

namespace callwire::xml {
namespace {

// A response whose value is `inner` (the text between <value> and </value>).
std::string response_with(std::string_view inner) {
  return "<?xml version=\"1.0\"?><methodResponse><params><param><value>" + std::string(inner) +
         "</value></param></params></methodResponse>";
}

Value value_of(std::string_view inner) {
  Reader reader;
  Result<MethodResponse> r = reader.read_response(response_with(inner));
  EXPECT_TRUE(r) << inner << " -> " << (r ? "" : r.error().message);
  if (!r) return Value("<error>");
  EXPECT_FALSE(r->is_fault);
  return r->result;
}

Error error_of(std::string_view document, ReaderLimits limits = {}) {
  Reader reader(limits);
  Result<Message> r = reader.read(document);
  EXPECT_FALSE(r) << document;
  return r ? Error() : r.error();
}

Error value_error(std::string_view inner) { return error_of(response_with(inner)); }

::testing::AssertionResult fails_with(const Error& e, int32_t code, std::string_view words) {
  if (e.fault_code != code)
    return ::testing::AssertionFailure()
           << "fault " << e.fault_code << " (" << e.message << "), expected " << code;
  if (e.message.find(words) == std::string::npos)
    return ::testing::AssertionFailure() << "message '" << e.message << "' lacks '" << words << "'";
  return ::testing::AssertionSuccess();
}

// ---- documents ----

TEST(Reader, SampleAdd) {
  Reader reader;
  auto call = reader.read_call(
      "<?xml version=\"1.0\"?><methodCall><methodName>sample.add</methodName><params>"
      "<param><value><int>5</int></value></param><param><value><int>3</int></value></param>"
      "</params></methodCall>");
  ASSERT_TRUE(call) << call.error().message;
  EXPECT_EQ(call->method_name, "sample.add");
  ASSERT_EQ(call->params.size(), 2u);
  EXPECT_EQ(call->params[0].as_int(), 5);
  EXPECT_EQ(call->params[1].as_int(), 3);
}

TEST(Reader, ParamsMayBeAbsentOrEmpty) {
  Reader reader;
  for (const char* doc :
       {"<methodCall><methodName>m</methodName></methodCall>",
        "<methodCall><methodName>m</methodName><params/></methodCall>",
        "<methodCall><methodName>m</methodName><params></params></methodCall>",
        "<methodCall>\n  <methodName>m</methodName>\n  <params>\n  </params>\n</methodCall>\n"}) {
    auto call = reader.read_call(doc);
    ASSERT_TRUE(call) << doc << ": " << call.error().message;
    EXPECT_TRUE(call->params.is_array());
    EXPECT_EQ(call->params.size(), 0u);
  }
}

TEST(Reader, Fault) {
  Reader reader;
  auto r = reader.read_response(
      "<methodResponse><fault><value><struct>"
      "<member><name>faultCode</name><value><int>4</int></value></member>"
      "<member><name>faultString</name><value><string>Too many "
      "parameters.</string></value></member>"
      "</struct></value></fault></methodResponse>");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->is_fault);
  EXPECT_EQ(r->fault.code, 4);
  EXPECT_EQ(r->fault.string, "Too many parameters.");
}

TEST(Reader, FaultCodeAsI8AndApacheFaultCause) {
  Reader reader;
  // rtorrent writes faultCode as <i8>; Apache adds faultCause, which is never deserialised.
  auto r = reader.read_response(
      "<methodResponse><fault><value><struct>"
      "<member><name>faultCode</name><value><i8>-501</i8></value></member>"
      "<member><name>faultString</name><value>Unsupported target type found.</value></member>"
      "<member><name>faultCause</name><value><base64>rO0ABXNy</base64></value></member>"
      "</struct></value></fault></methodResponse>");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->fault.code, -501);
  EXPECT_EQ(r->fault.string, "Unsupported target type found.");
}

TEST(Reader, MalformedFaults) {
  auto fault = [](std::string_view members) {
    return "<methodResponse><fault><value><struct>" + std::string(members) +
           "</struct></value></fault></methodResponse>";
  };
  EXPECT_TRUE(
      fails_with(error_of(fault("<member><name>faultString</name><value>x</value></member>")),
                 -32600, "faultCode"));
  EXPECT_TRUE(fails_with(
      error_of(fault("<member><name>faultCode</name><value><int>1</int></value></member>")), -32600,
      "faultString"));
  EXPECT_TRUE(fails_with(
      error_of(fault("<member><name>faultCode</name><value><i8>99999999999</i8></value></member>"
                     "<member><name>faultString</name><value>x</value></member>")),
      -32600, "faultCode"));
  EXPECT_TRUE(fails_with(
      error_of("<methodResponse><fault><value><int>1</int></value></fault></methodResponse>"),
      -32600, "struct"));
}

TEST(Reader, ResponseCarriesExactlyOneParam) {
  EXPECT_TRUE(fails_with(error_of("<methodResponse><params></params></methodResponse>"), -32600,
                         "<param>"));
  EXPECT_TRUE(fails_with(
      error_of("<methodResponse><params><param><value>1</value></param><param><value>2</value>"
               "</param></params></methodResponse>"),
      -32600, "exactly one"));
}

TEST(Reader, ReadCallAndReadResponseCheckTheRoot) {
  Reader reader;
  auto call = reader.read_call(response_with("x"));
  ASSERT_FALSE(call);
  EXPECT_TRUE(fails_with(call.error(), -32600, "expected <methodCall>"));
  auto response = reader.read_response("<methodCall><methodName>m</methodName></methodCall>");
  ASSERT_FALSE(response);
  EXPECT_TRUE(fails_with(response.error(), -32600, "expected <methodResponse>"));
  EXPECT_TRUE(fails_with(error_of("<foo/>"), -32600, "<methodCall> or <methodResponse>"));
}

TEST(Reader, MethodName) {
  EXPECT_TRUE(fails_with(error_of("<methodCall><methodName></methodName></methodCall>"), -32600,
                         "empty <methodName>"));
  EXPECT_TRUE(fails_with(error_of("<methodCall><params/></methodCall>"), -32600, "<methodName>"));
  Reader reader;
  auto call = reader.read_call("<methodCall><methodName>a&amp;b</methodName></methodCall>");
  ASSERT_TRUE(call);
  EXPECT_EQ(call->method_name, "a&b");
}

// ---- values: the PROTOCOL.md table, row by row ----

TEST(Reader, UntypedValueIsAString) {
  EXPECT_EQ(value_of("plain text"), Value("plain text"));
  EXPECT_EQ(value_of("  spaces kept  "), Value("  spaces kept  "));
}

TEST(Reader, SlowPathsGiveTheSameValues) {
  // Spaces inside end tags, comments between elements and self-closing forms leave the
  // lexer's fast paths; the result must not change.
  Reader reader;
  auto r = reader.read_response(
      "<methodResponse ><params><!--c--><param ><value >text</value ></param></params >"
      "</methodResponse >");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->result, Value("text"));
  EXPECT_EQ(value_of("<int>5</int >"), Value(5));
  EXPECT_EQ(value_of("<array ><data ><value >a</value ><!-- x --><value/></data ></array >"),
            Value::array({"a", ""}));
  EXPECT_EQ(value_of("<struct ><member ><name >k</name ><value >v</value ></member ></struct >"),
            Value::structure({{"k", "v"}}));
  EXPECT_TRUE(fails_with(value_error("text</string>"), -32700, "mismatched"));
  EXPECT_TRUE(fails_with(value_error("<int>5</i4>"), -32700, "mismatched"));
}

TEST(Reader, WhitespaceAroundScalarsIsTrimmed) {
  EXPECT_EQ(value_of("<i8>\n 0\n </i8>"), Value::i8(0));  // rtorrent
  EXPECT_EQ(value_of("<int> 42 </int>"), Value(42));
  EXPECT_EQ(value_of("<double>\t1.5\n</double>"), Value(1.5));
  EXPECT_EQ(value_of("<boolean> 1 </boolean>"), Value(true));
  EXPECT_EQ(value_of("\n  <int>7</int>\n"), Value(7));  // between elements: insignificant
  // ...but not inside strings.
  EXPECT_EQ(value_of("<string> a </string>"), Value(" a "));
}

TEST(Reader, Integers) {
  EXPECT_EQ(value_of("<int>2147483647</int>"), Value(2147483647));
  EXPECT_EQ(value_of("<i4>-2147483648</i4>"), Value(INT32_MIN));
  EXPECT_EQ(value_of("<int>+0007</int>"), Value(7));
  EXPECT_EQ(value_of("<i8>9223372036854775807</i8>"), Value::i8(INT64_MAX));
  EXPECT_EQ(value_of("<i8>-9223372036854775808</i8>"), Value::i8(INT64_MIN));
  EXPECT_EQ(value_of("<i8>5</i8>").type(), Type::I8);
  for (const char* bad : {"<int>2147483648</int>", "<int>-2147483649</int>", "<int></int>",
                          "<int>1.0</int>", "<int>0x10</int>", "<int>1 2</int>", "<int>+</int>",
                          "<i8>9223372036854775808</i8>", "<int>--1</int>"})
    EXPECT_TRUE(fails_with(value_error(bad), -32600, "invalid")) << bad;
}

TEST(Reader, ApacheExtensions) {
  const std::string ns = " xmlns:ex=\"http://ws.apache.org/xmlrpc/namespaces/extensions\"";
  Reader reader;
  auto r = reader.read_response(
      "<methodResponse" + ns +
      "><params><param><value><array><data>"
      "<value><ex:i1>-128</ex:i1></value><value><ex:i2>32767</ex:i2></value>"
      "<value><ex:i8>123456789012</ex:i8></value><value><ex:nil/></value>"
      "<value><ex:float>1.5</ex:float></value><value><ex:biginteger>12</ex:biginteger></value>"
      "<value><ex:dateTime>2001-10-26T21:32:52.12679+02:00</ex:dateTime></value>"
      "</data></array></value></param></params></methodResponse>");
  ASSERT_TRUE(r) << r.error().message;
  const Value& a = r->result;
  EXPECT_EQ(a[0], Value(-128));
  EXPECT_EQ(a[1], Value(32767));
  EXPECT_EQ(a[2], Value::i8(123456789012));
  EXPECT_TRUE(a[3].is_nil());
  EXPECT_EQ(a[4], Value(1.5));
  EXPECT_EQ(a[5], Value::i8(12));
  EXPECT_EQ(a[6].as_datetime().to_string(), "20011026T21:32:52.12679+02:00");
  EXPECT_TRUE(fails_with(value_error("<ex:i1>128</ex:i1>"), -32600, "8-bit"));
}

TEST(Reader, SerializableIsRefused) {
  EXPECT_TRUE(fails_with(value_error("<ex:serializable>rO0ABQ==</ex:serializable>"), -32600,
                         "CVE-2016-5003"));
}

TEST(Reader, UnknownTypesAreRefused) {
  EXPECT_TRUE(fails_with(value_error("<foo>1</foo>"), -32600, "unknown type <foo>"));
  EXPECT_TRUE(fails_with(value_error("<ex:dom><a/></ex:dom>"), -32600, "unknown type"));
}

TEST(Reader, Doubles) {
  EXPECT_EQ(value_of("<double>1e+100</double>"), Value(1e100));  // Python's repr
  EXPECT_EQ(value_of("<double>-0.5</double>"), Value(-0.5));
  EXPECT_EQ(value_of("<double>+.5</double>"), Value(0.5));
  EXPECT_EQ(value_of("<double>5.</double>"), Value(5.0));
  EXPECT_EQ(value_of("<double>2E-3</double>"), Value(0.002));
  EXPECT_EQ(value_of("<double>1e-400</double>"), Value(0.0));  // below the smallest: zero
  EXPECT_EQ(value_of("<double>" + std::string(400, '0') + "1e-330</double>"), Value(0.0));
  EXPECT_EQ(value_of("<double>" + std::string(400, '0') + "1.5</double>"), Value(1.5));
  // Out of a double's range, where the first significant digit stands decides: zero or refused.
  EXPECT_EQ(value_of("<double>0.0001e-330</double>"), Value(0.0));
  EXPECT_EQ(value_of("<double>-12e-330</double>"), Value(-0.0));
  EXPECT_EQ(value_of("<double>0e999</double>"), Value(0.0));
  EXPECT_EQ(value_of("<double>0.00001e310</double>"), Value(1e305));
  EXPECT_TRUE(fails_with(value_error("<double>0.001e400</double>"), -32600, "invalid double"));
  EXPECT_TRUE(fails_with(value_error("<double>00.5e309</double>"), -32600, "invalid double"));
  EXPECT_TRUE(fails_with(value_error("<double>1" + std::string(400, '0') + "</double>"), -32600,
                         "invalid double"));
  EXPECT_EQ(value_of("<double>0." + std::string(400, '0') + "1</double>"), Value(0.0));
  for (const char* bad :
       {"<double>nan</double>", "<double>inf</double>", "<double>1e999</double>",
        "<double>1.2.3</double>", "<double></double>", "<double>.</double>",
        "<double>0x1p3</double>", "<double>1e</double>", "<double>Infinity</double>"})
    EXPECT_TRUE(fails_with(value_error(bad), -32600, "invalid double")) << bad;
}

TEST(Reader, Booleans) {
  EXPECT_EQ(value_of("<boolean>0</boolean>"), Value(false));
  EXPECT_EQ(value_of("<boolean>1</boolean>"), Value(true));
  for (const char* bad : {"<boolean>2</boolean>", "<boolean>true</boolean>", "<boolean/>"})
    EXPECT_TRUE(fails_with(value_error(bad), -32600, "boolean")) << bad;
}

TEST(Reader, DateTimes) {
  EXPECT_EQ(
      value_of("<dateTime.iso8601>19980717T14:08:55</dateTime.iso8601>").as_datetime().to_string(),
      "19980717T14:08:55");
  EXPECT_EQ(value_of("<dateTime.iso8601>2014-11-10T23:38:51+0000</dateTime.iso8601>")
                .as_datetime()
                .to_string(),
            "20141110T23:38:51+00:00");
  EXPECT_EQ(value_of("<dateTime.iso8601>20141110T23:38:51Z</dateTime.iso8601>").as_datetime().zone,
            DateTime::Zone::Utc);
  EXPECT_EQ(
      value_of("<dateTime.iso8601>20180222T130252</dateTime.iso8601>").as_datetime().to_string(),
      "20180222T13:02:52");
  EXPECT_EQ(value_of("<dateTime.iso8601> 20180222T13:02:52.000001 </dateTime.iso8601>")
                .as_datetime()
                .nanosecond,
            1000u);
  EXPECT_TRUE(fails_with(value_error("<dateTime.iso8601>19981317T14:08:55</dateTime.iso8601>"),
                         -32600, "invalid dateTime"));
}

TEST(Reader, Base64WithLineBreaks) {
  Value v = value_of("<base64>\nSGVsbG8s\nIHdvcmxk\r\nIQ==\n</base64>");
  ASSERT_TRUE(v.is_bytes());
  std::span<const uint8_t> b = v.as_bytes();
  EXPECT_EQ(std::string(b.begin(), b.end()), "Hello, world!");
  EXPECT_EQ(value_of("<base64></base64>"), Value::bytes("", 0));
  EXPECT_EQ(value_of("<base64/>"), Value::bytes("", 0));
  EXPECT_TRUE(fails_with(value_error("<base64>SGVsbG8*</base64>"), -32600, "invalid base64"));
  EXPECT_TRUE(fails_with(value_error("<base64>S</base64>"), -32600, "invalid base64"));
}

// Base64 text is taken with one memchr and checked by the decoder alone; everything that is not
// plain base64 goes back to the checked path and reads (or fails) as any other text.
TEST(Reader, Base64TextThatIsNotPlainTakesTheCheckedPath) {
  auto hello = Value::bytes("Hello", 5);
  EXPECT_EQ(value_of("<base64>SGVs&#98;G8=</base64>"), hello);          // a reference
  EXPECT_EQ(value_of("<base64>SGVs<![CDATA[bG8=]]></base64>"), hello);  // CDATA
  EXPECT_EQ(value_of("<base64>SGVs<!-- x -->bG8=</base64>"), hello);    // a comment
  EXPECT_EQ(value_of("<base64>SGVsbG8=</base64 >"), hello);             // space in the end tag
  EXPECT_EQ(value_of("<base64>SGVs\r\nbG8=\r\n</base64>"), hello);      // CR LF
  EXPECT_TRUE(fails_with(value_error("<base64>SGVsbG8=</base65>"), -32700, "base64"));
  EXPECT_TRUE(fails_with(value_error("<base64>SGVs\x01"
                                     "bG8=</base64>"),
                         -32702, ""));
  EXPECT_TRUE(fails_with(value_error("<base64>SGVs>bG8=</base64>"), -32600, "invalid base64"));
  EXPECT_TRUE(fails_with(value_error("<base64>SGVs<x/>bG8=</base64>"), -32600, "<x>"));
  EXPECT_TRUE(fails_with(value_error("<base64>SGVsbG8="), -32700, ""));
  // A blob long enough for the vectorised decoder, with a bad character near its end.
  std::string long_text(4000, 'A');
  EXPECT_EQ(value_of("<base64>" + long_text + "</base64>").as_bytes().size(), 3000u);
  long_text[3990] = '*';
  EXPECT_TRUE(fails_with(value_error("<base64>" + long_text + "</base64>"), -32600,
                         "unexpected character '*' at offset 3990"));
}

TEST(Reader, EmptyValues) {
  EXPECT_EQ(value_of("<string/>"), Value(""));
  EXPECT_EQ(value_of("<string></string>"), Value(""));
  EXPECT_EQ(value_of(""), Value(""));
  EXPECT_EQ(value_of("<array><data/></array>"), Value::array());
  EXPECT_EQ(value_of("<array><data></data></array>"), Value::array());
  EXPECT_EQ(value_of("<array/>"), Value::array());
  EXPECT_EQ(value_of("<struct/>"), Value::structure());
  EXPECT_EQ(value_of("<struct></struct>"), Value::structure());
  Reader reader;
  auto r = reader.read_response(
      "<methodResponse><params><param><value/></param></params></methodResponse>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->result, Value(""));
}

TEST(Reader, Nil) {
  EXPECT_TRUE(value_of("<nil/>").is_nil());
  EXPECT_TRUE(value_of("<nil></nil>").is_nil());
  EXPECT_TRUE(value_of("<ex:nil/>").is_nil());
  EXPECT_TRUE(fails_with(value_error("<nil>x</nil>"), -32600, "empty"));
}

TEST(Reader, StructsKeepOrderAndTheLastDuplicate) {
  Value v = value_of(
      "<struct><member><name>b</name><value>1</value></member>"
      "<member><name>a</name><value><int>2</int></value></member>"
      "<member><name>b</name><value>3</value></member></struct>");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v.members()[0].name(), "b");
  EXPECT_EQ(v.members()[0].value(), Value("3"));
  EXPECT_EQ(v.members()[1].name(), "a");
}

TEST(Reader, StructMembers) {
  Value v = value_of("<struct><member><name/><value/></member></struct>");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v.members()[0].name(), "");
  EXPECT_EQ(v.members()[0].value(), Value(""));
  EXPECT_TRUE(fails_with(value_error("<struct><member><value>1</value></member></struct>"), -32600,
                         "expected <name>"));
  EXPECT_TRUE(fails_with(value_error("<struct><member><name>a</name></member></struct>"), -32600,
                         "expected <value>"));
  EXPECT_TRUE(fails_with(value_error("<struct><value>1</value></struct>"), -32600, "<member>"));
  EXPECT_TRUE(fails_with(value_error("<struct><member/></struct>"), -32600, "empty <member>"));
  EXPECT_TRUE(fails_with(
      value_error(
          "<struct><member><name>a</name><value>1</value><value>2</value></member></struct>"),
      -32600, "expected </member>"));
}

TEST(Reader, Arrays) {
  Value v = value_of(
      "<array><data><value>a</value><value/><value><array><data><value><int>1</int></value>"
      "</data></array></value><value><struct/></value></data></array>");
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], Value("a"));
  EXPECT_EQ(v[1], Value(""));
  EXPECT_EQ(v[2], Value::array({1}));
  EXPECT_EQ(v[3], Value::structure());
  EXPECT_TRUE(
      fails_with(value_error("<array><value>1</value></array>"), -32600, "expected <data>"));
  EXPECT_TRUE(fails_with(value_error("<array><data>x</data></array>"), -32600, "unexpected text"));
  EXPECT_TRUE(fails_with(value_error("<array><data><int>1</int></data></array>"), -32600,
                         "<value> or </data>"));
}

TEST(Reader, MixedContentIsRefused) {
  EXPECT_TRUE(fails_with(value_error("text<int>1</int>"), -32600, "beside an element"));
  EXPECT_TRUE(fails_with(value_error("<int>1</int>text"), -32600, "unexpected text"));
  EXPECT_TRUE(fails_with(value_error("<int>1</int><int>2</int>"), -32600, "expected </value>"));
  EXPECT_TRUE(fails_with(value_error("<string>a<b/>c</string>"), -32600, "inside <string>"));
}

TEST(Reader, NamespacePrefixesOnStructureAreNotStripped) {
  EXPECT_TRUE(fails_with(error_of("<x:methodCall><methodName>m</methodName></x:methodCall>"),
                         -32600, "methodCall"));
}

// ---- XML 1.0 ----

TEST(Reader, EntitiesAndCharacterReferences) {
  EXPECT_EQ(value_of("&lt;&gt;&amp;&apos;&quot;"), Value("<>&'\""));
  EXPECT_EQ(value_of("&#65;&#x42;&#x00E9;&#128512;"), Value("AB\xC3\xA9\xF0\x9F\x98\x80"));
  EXPECT_EQ(value_of("<string>a&#13;&#10;b</string>"), Value("a\r\nb"));
}

TEST(Reader, CdataCommentsAndPis) {
  EXPECT_EQ(value_of("<string><![CDATA[<not> & markup]]></string>"), Value("<not> & markup"));
  EXPECT_EQ(value_of("<string>a<!-- c -->b<?pi data?>c</string>"), Value("abc"));
  EXPECT_EQ(value_of("<string>]></string>"), Value("]>"));
  EXPECT_EQ(value_of("<string><![CDATA[]]]]><![CDATA[>]]></string>"), Value("]]>"));
}

// Long CDATA sections (scanned sixteen bytes a step) read as the same text escaped, with ']',
// ']]' and CR at every place in a step, UTF-8 across steps, and a bad byte reported where it is
// (line 1, its column).
TEST(Reader, LongCdataAgreesWithEscapedText) {
  const std::string pieces[] = {"]",        "]]",
                                "]>",       "\r",
                                "\r\n",     "<&>",
                                "\xC3\xA9", "\xF0\x9F\x98\x80",
                                "x",        "0123456789abcdef"};
  unsigned seed = 7;
  auto next = [&seed] { return (seed = seed * 1103515245u + 12345u) >> 8; };
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    size_t length = next() % 100;
    while (text.size() < length) text += pieces[next() % std::size(pieces)];
    if (text.find("]]>") != std::string::npos) continue;
    std::string escaped;  // the same text as character data, CR kept as a reference
    for (char c : text)
      escaped += c == '<' ? "&lt;" : c == '&' ? "&amp;" : c == '>' ? "&gt;" : std::string(1, c);
    EXPECT_EQ(value_of("<string><![CDATA[" + text + "]]></string>"),
              value_of("<string>" + escaped + "</string>"))
        << "round " << round;
  }
  std::string long_text(1000, 'a');
  long_text[500] = '\x01';
  std::string inner = "<string><![CDATA[" + long_text + "]]></string>";
  Error e = value_error(inner);
  EXPECT_TRUE(fails_with(e, -32702, "not allowed in XML"));
  size_t column = response_with(inner).find('\x01') + 1;
  EXPECT_NE(e.message.find("1:" + std::to_string(column) + ":"), std::string::npos) << e.message;
  EXPECT_TRUE(fails_with(value_error("<string><![CDATA[" + std::string(1000, 'a') + "]]</string>"),
                         -32700, "unterminated CDATA"));
}

// Text dense with references (decoded in bursts after the first) and sparse, against the
// definition: every predefined and numeric reference, CR, ']', comments and CDATA at every
// place a burst can begin, end or be cut; an undefined entity reported at its own column.
TEST(Reader, TextWithReferencesAgreesWithTheDefinition) {
  const std::pair<std::string, std::string> pieces[] = {
      {"&lt;", "<"},
      {"&gt;", ">"},
      {"&amp;", "&"},
      {"&apos;", "'"},
      {"&quot;", "\""},
      {"&#65;", "A"},
      {"&#x3C;", "<"},
      {"\r\n", "\n"},
      {"\r", "\n"},
      {"]", "]"},
      {"]>", "]>"},
      {"x", "x"},
      {"\t\n", "\t\n"},
      {"\xC3\xA9", "\xC3\xA9"},
      {"<!--c-->", ""},
      {"<![CDATA[<&]]>", "<&"},
      {"plain text of some length without markup", "plain text of some length without markup"}};
  unsigned seed = 11;
  auto next = [&seed] { return (seed = seed * 1103515245u + 12345u) >> 8; };
  for (int round = 0; round < 3000; ++round) {
    std::string xml, text;
    size_t length = next() % 300;
    bool dense = next() % 2;
    while (xml.size() < length) {
      size_t pick =
          dense ? next() % std::size(pieces) : (next() % 8 ? std::size(pieces) - 1 : next() % 3);
      xml += pieces[pick].first;
      text += pieces[pick].second;
    }
    if (xml.find("]]>") != std::string::npos) continue;
    EXPECT_EQ(value_of("<string>" + xml + "</string>"), Value(text))
        << "round " << round << ": " << xml;
  }
  std::string inner = "<string>" + std::string(30, 'a') + "&lt;&amp;&gt;x&lt;&bogus;</string>";
  Error e = value_error(inner);
  EXPECT_TRUE(fails_with(e, -32700, "undefined entity &bogus;"));
  size_t column = response_with(inner).find("&bogus;") + 1;
  EXPECT_NE(e.message.find("1:" + std::to_string(column) + ":"), std::string::npos) << e.message;
}

TEST(Reader, EndOfLineNormalisation) {
  EXPECT_EQ(value_of("<string>a\r\nb\rc\nd</string>"), Value("a\nb\nc\nd"));
  EXPECT_EQ(value_of("<string><![CDATA[x\r\ny]]></string>"), Value("x\ny"));
}

TEST(Reader, Utf8) {
  EXPECT_EQ(value_of("<string>h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80</string>"),
            Value("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"));
  Reader reader;
  EXPECT_TRUE(reader.read("\xEF\xBB\xBF<methodCall><methodName>m</methodName></methodCall>"));
}

TEST(Reader, InvalidUtf8IsRefused) {
  for (const char* bad : {"\xC3", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                          "\xFF", "\x80", "a\xC3(b"})
    EXPECT_TRUE(
        fails_with(value_error(std::string("<string>") + bad + "</string>"), -32702, "UTF-8"))
        << bad;
}

TEST(Reader, CharactersXmlForbids) {
  EXPECT_TRUE(fails_with(value_error("<string>a\x01</string>"), -32702, "U+0001 is not allowed"));
  EXPECT_TRUE(fails_with(value_error(std::string("<string>a\0b</string>", 13)), -32702, "U+0000"));
  EXPECT_TRUE(fails_with(value_error("<string>\xEF\xBF\xBE</string>"), -32702, "U+FFFE"));
  EXPECT_TRUE(fails_with(value_error("&#0;"), -32702, "U+0000"));
  EXPECT_TRUE(fails_with(value_error("&#xD800;"), -32702, "U+D800"));
  EXPECT_TRUE(fails_with(value_error("&#x110000;"), -32702, "reference"));
  EXPECT_TRUE(fails_with(value_error("&#99999999999999;"), -32702, "reference"));
  EXPECT_EQ(value_of("a\tb\nc"), Value("a\tb\nc"));
}

TEST(Reader, MalformedReferences) {
  EXPECT_TRUE(fails_with(value_error("&foo;"), -32700, "undefined entity &foo;"));
  EXPECT_TRUE(fails_with(value_error("a & b"), -32700, "'&'"));
  EXPECT_TRUE(fails_with(value_error("&amp"), -32700, "';'"));
  EXPECT_TRUE(fails_with(value_error("&#;"), -32700, "character reference"));
  EXPECT_TRUE(fails_with(value_error("&#x;"), -32700, "character reference"));
  EXPECT_TRUE(fails_with(value_error("&#12a;"), -32700, "character reference"));
  EXPECT_TRUE(fails_with(value_error("&#X41;"), -32700, "character reference"));
}

TEST(Reader, DoctypeIsRefusedOutright) {
  EXPECT_TRUE(fails_with(
      error_of("<!DOCTYPE methodCall><methodCall><methodName>m</methodName></methodCall>"), -32600,
      "DOCTYPE"));
  // Billion laughs never gets as far as an entity.
  EXPECT_TRUE(fails_with(error_of("<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
                                  "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>"
                                  "<methodCall><methodName>&lol2;</methodName></methodCall>"),
                         -32600, "DOCTYPE"));
  EXPECT_TRUE(fails_with(value_error("<!DOCTYPE x>"), -32700, "DOCTYPE"));
}

TEST(Reader, TagsMustMatchAndClose) {
  EXPECT_TRUE(
      fails_with(value_error("<int>1</i4>"), -32700, "mismatched end tag </i4>, expected </int>"));
  EXPECT_TRUE(fails_with(error_of("<methodCall><methodName>m</methodName>"), -32700,
                         "<methodCall> is not closed"));
  EXPECT_TRUE(fails_with(error_of("<methodCall><methodName>m"), -32700, "not closed"));
  EXPECT_TRUE(
      fails_with(error_of("<methodCall><methodName>m</methodName><"), -32700, "end of document"));
  EXPECT_TRUE(
      fails_with(error_of("<methodCall><methodName>m</methodName></methodCall"), -32700, "'>'"));
}

TEST(Reader, NothingAfterTheRoot) {
  const std::string call = "<methodCall><methodName>m</methodName></methodCall>";
  Reader reader;
  EXPECT_TRUE(reader.read(call + "\n<!-- trailing comment -->\n<?pi?>\n"));
  EXPECT_TRUE(fails_with(error_of(call + "x"), -32700, "after the root"));
  EXPECT_TRUE(fails_with(error_of(call + call), -32700, "after the root"));
}

TEST(Reader, EmptyAndNonDocuments) {
  EXPECT_TRUE(fails_with(error_of(""), -32700, "no root element"));
  EXPECT_TRUE(fails_with(error_of("  \n "), -32700, "no root element"));
  EXPECT_TRUE(fails_with(error_of("hello"), -32700, "text before the root"));
  EXPECT_TRUE(fails_with(error_of("<"), -32700, "end of document"));
}

TEST(Reader, Attributes) {
  Reader reader;
  EXPECT_TRUE(
      reader.read("<methodCall a='1' b=\"&amp;&#65;\" ><methodName>m</methodName></methodCall>"));
  EXPECT_TRUE(fails_with(error_of("<methodCall a='1' a='2'/>"), -32700, "duplicate attribute"));
  EXPECT_TRUE(fails_with(error_of("<methodCall a=1/>"), -32700, "quoted"));
  EXPECT_TRUE(fails_with(error_of("<methodCall a/>"), -32700, "'='"));
  EXPECT_TRUE(fails_with(error_of("<methodCall a='<'/>"), -32700, "'<'"));
  EXPECT_TRUE(fails_with(error_of("<methodCall a='1'b='2'/>"), -32700, "white space"));
  EXPECT_TRUE(fails_with(error_of("<methodCall a='&x;'/>"), -32700, "undefined entity"));
}

TEST(Reader, XmlDeclaration) {
  Reader reader;
  const std::string body = "<methodCall><methodName>m</methodName></methodCall>";
  for (const char* decl :
       {"<?xml version=\"1.0\"?>", "<?xml version='1.0' encoding='UTF-8'?>",
        "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\" ?>",
        "<?xml version=\"1.0\" encoding=\"US-ASCII\"?>", "<?xml version=\"1.1\"?>"})
    EXPECT_TRUE(reader.read(decl + body)) << decl;
  EXPECT_TRUE(fails_with(error_of("<?xml?>" + body), -32700, "XML declaration"));
  EXPECT_TRUE(fails_with(error_of("<?xml version=\"2.0\"?>" + body), -32700, "version"));
  EXPECT_TRUE(fails_with(error_of(" <?xml version=\"1.0\"?>" + body), -32700, "not at the start"));
  EXPECT_TRUE(fails_with(error_of("<?xml encoding=\"UTF-8\" version=\"1.0\"?>" + body), -32700,
                         "XML declaration"));
}

TEST(Reader, Encodings) {
  const std::string body = "<methodCall><methodName>caf\xE9</methodName></methodCall>";
  Reader reader;
  auto latin1 = reader.read_call("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" + body);
  ASSERT_TRUE(latin1) << latin1.error().message;
  EXPECT_EQ(latin1->method_name, "caf\xC3\xA9");
  EXPECT_TRUE(fails_with(error_of("<?xml version=\"1.0\" encoding=\"US-ASCII\"?>" + body), -32702,
                         "US-ASCII"));
  EXPECT_TRUE(fails_with(error_of("<?xml version=\"1.0\" encoding=\"UTF-16\"?>" + body), -32701,
                         "unsupported encoding"));
  EXPECT_TRUE(
      fails_with(error_of("<?xml version=\"1.0\" encoding=\"KOI8-R\"?>" + body), -32701, "KOI8-R"));
  EXPECT_TRUE(fails_with(error_of("\xFF\xFE<\0m\0"), -32701, "UTF-16"));
  // A UTF-8 byte order mark goes with US-ASCII (a subset), not with ISO-8859-1.
  EXPECT_TRUE(
      reader.read("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"US-ASCII\"?>"
                  "<methodCall><methodName>m</methodName></methodCall>"));
  EXPECT_TRUE(
      fails_with(error_of("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" + body),
                 -32701, "byte order mark"));
  // Without a declaration the document is UTF-8, and a Latin-1 byte is invalid.
  EXPECT_TRUE(fails_with(error_of(body), -32702, "UTF-8"));
}

TEST(Reader, ErrorsSayLineAndColumn) {
  Error e = error_of(
      "<methodCall>\n  <methodName>m</methodName>\n  <params><foo/></params>\n</methodCall>");
  EXPECT_EQ(e.code, Errc::InvalidRequest);
  EXPECT_EQ(e.message.substr(0, 5), "3:11:") << e.message;
  // Columns count characters, not bytes.
  Error u = error_of("<methodCall><methodName>\xC3\xA9\xC3\xA9</methodName><x/></methodCall>");
  EXPECT_EQ(u.message.substr(0, 5), "1:40:") << u.message;
}

// ---- limits ----

TEST(Reader, DocumentSizeLimit) {
  ReaderLimits limits;
  limits.max_document_size = 64;
  Error e = error_of(response_with(std::string(100, 'x')), limits);
  EXPECT_EQ(e.code, Errc::LimitExceeded);
  EXPECT_TRUE(fails_with(e, -32600, "exceeds max_document_size (64 bytes)"));
}

TEST(Reader, DepthLimit) {
  auto nested = [](int depth) {
    std::string inner = "<int>1</int>";
    for (int i = 0; i < depth; ++i)
      inner = "<array><data><value>" + inner + "</value></data></array>";
    return inner;
  };
  Reader reader;
  EXPECT_TRUE(reader.read(response_with(nested(64))));
  Error e = error_of(response_with(nested(65)));
  EXPECT_EQ(e.code, Errc::LimitExceeded);
  EXPECT_TRUE(fails_with(e, -32600, "nesting depth exceeds max_depth (64)"));
  // Structs count too, and the limit is per reader.
  std::string structs = "x";
  for (int i = 0; i < 10; ++i)
    structs = "<struct><member><name>k</name><value>" + structs + "</value></member></struct>";
  ReaderLimits limits;
  limits.max_depth = 9;
  EXPECT_EQ(error_of(response_with(structs), limits).code, Errc::LimitExceeded);
  limits.max_depth = 10;
  EXPECT_TRUE(Reader(limits).read(response_with(structs)));
}

TEST(Reader, DepthLimitHasACeiling) {
  ReaderLimits limits;
  limits.max_depth = 1u << 30;
  EXPECT_EQ(Reader(limits).limits().max_depth, ReaderLimits::kMaxDepth);
}

TEST(Reader, DeepNestingAtTheCeiling) {
  const int depth = int(ReaderLimits::kMaxDepth);
  std::string doc = "<methodResponse><params><param><value>";
  for (int i = 0; i < depth; ++i) doc += "<array><data><value>";
  doc += "x";
  for (int i = 0; i < depth; ++i) doc += "</value></data></array>";
  doc += "</value></param></params></methodResponse>";
  ReaderLimits limits;
  limits.max_depth = depth;
  limits.max_elements = size_t(depth) * 4;
  Reader reader(limits);
  auto r = reader.read_response(doc);
  ASSERT_TRUE(r) << r.error().message;
  Buffer out;
  ASSERT_TRUE(write_response(out, r->result));
  EXPECT_EQ(out.size(), doc.size() + std::string_view("<?xml version=\"1.0\"?>").size() +
                            std::string_view("<string></string>").size());
}

TEST(Reader, ElementLimit) {
  std::string items;
  for (int i = 0; i < 100; ++i) items += "<value><int>1</int></value>";
  std::string doc = response_with("<array><data>" + items + "</data></array>");
  ReaderLimits limits;
  limits.max_elements = 150;
  Error e = error_of(doc, limits);
  EXPECT_EQ(e.code, Errc::LimitExceeded);
  EXPECT_TRUE(fails_with(e, -32600, "more elements than max_elements"));
  limits.max_elements = 300;
  EXPECT_TRUE(Reader(limits).read(doc));
}

TEST(Reader, StringLimit) {
  ReaderLimits limits;
  limits.max_string_size = 10;
  EXPECT_EQ(error_of(response_with("<string>12345678901</string>"), limits).code,
            Errc::LimitExceeded);
  EXPECT_EQ(error_of(response_with("12345678901"), limits).code, Errc::LimitExceeded);
  EXPECT_EQ(error_of(response_with("<base64>MTIzNDU2Nzg5MDE=</base64>"), limits).code,
            Errc::LimitExceeded);
  EXPECT_TRUE(Reader(limits).read(response_with("<string>1234567890</string>")));
}

// A member's name over max_string_size is refused where its <name> starts, whether it is read
// in one pass (plain text) or by the general path (a reference in it), into a tree or by a
// typed read.
TEST(Reader, MemberNameLimit) {
  ReaderLimits limits;
  limits.max_string_size = 10;
  // The long name first, and second (after a member: the one-pass path's other case).
  for (std::string_view name : {"12345678901", "1234567890&amp;"})
    for (std::string_view before :
         {"", "<member><name>x</name><value><i4>1</i4></value></member>  "}) {
      std::string doc =
          response_with("<struct>" + std::string(before) + "<member><name>" + std::string(name) +
                        "</name><value>1</value></member></struct>");
      const std::string where =
          "1:" + std::to_string(doc.find("<name>" + std::string(name)) + 1) + ": ";
      const std::string message =
          where + "a member name of 11 bytes exceeds max_string_size (10 bytes)";
      Error tree = error_of(doc, limits);
      EXPECT_EQ(tree.code, Errc::LimitExceeded) << name;
      EXPECT_EQ(tree.message, message) << name;

      struct Typed final : ValueSink {
        int32_t x = 0;
        Status read(ValueReader& r) override { return read_struct(r, field("x", x)); }
      } sink;
      Reader reader(limits);
      MethodResponse response;
      Status sunk;
      Status read = reader.read_response(doc, response, sink, sunk);
      ASSERT_FALSE(read) << name;
      EXPECT_EQ(read.error().code, Errc::LimitExceeded) << name;
      EXPECT_EQ(read.error().message, message) << name;
    }
  EXPECT_TRUE(Reader(limits).read(
      response_with("<struct><member><name>1234567890</name><value>1</value></member></struct>")));
}

// A name given twice keeps its first place and takes its last value (Value::set's rule), for
// short names and long, in structs small enough to search and large enough to index.
TEST(Reader, RepeatedMemberNamesKeepTheFirstPlaceAndTheLastValue) {
  const std::vector<std::string> pool = {"a",
                                         "b",
                                         "id",
                                         "name",
                                         "email",
                                         "score",
                                         "tags",
                                         "x1",
                                         "abcdefghijklm",
                                         "abcdefghijklmn",
                                         "a_long_member_name_1",
                                         "a_long_member_name_2"};
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = 1 + rng() % 12;
    std::string inner = "<struct>";
    Value expected = Value::structure();
    for (size_t i = 0; i < n; ++i) {
      const std::string& name = pool[rng() % (trial % 2 ? 4 : pool.size())];
      const int v = int(rng() % 100);
      inner += "<member><name>" + name + "</name><value><int>" + std::to_string(v) +
               "</int></value></member>";
      expected.set(name, v);
    }
    inner += "</struct>";
    Value got = value_of(inner);
    ASSERT_EQ(got.size(), expected.size()) << inner;
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got.members()[k].name(), expected.members()[k].name()) << inner;
      ASSERT_EQ(got.members()[k].value(), expected.members()[k].value()) << inner;
    }
    for (const Member& m : expected.members()) ASSERT_EQ(*got.find(m.name()), m.value()) << inner;
  }
}

// The usual member head (`</member> <member> <name>text</name> <value>`) is read in one pass;
// every other way of writing it goes tag by tag. Both read the same struct, as a tree and by a
// typed read, and a head that would pass max_elements is refused as the tag by tag path does.
TEST(Reader, MemberHeadsReadAlikeWrittenAnyWay) {
  const std::vector<std::string> heads = {
      "<member><name>b</name><value>",
      "\n  <member>\n    <name>b</name>\n    <value>",
      "<member ><name>b</name><value>",
      "<member><name >b</name><value>",
      "<member><name>b</name ><value>",
      "<member><!-- c --><name>b</name><value>",
      "<member><name><![CDATA[b]]></name><value>",
      "<member><name>&#98;</name><value>",
      "<member><name>b</name><value >",
  };
  for (const std::string& head : heads) {
    for (std::string_view close : {"</member>", "</member >", "</member>\n"}) {
      std::string inner = "<struct><member><name>a</name><value><int>1</int></value>" +
                          std::string(close) + head + "<int>2</int></value></member></struct>";
      Value v = value_of(inner);
      ASSERT_TRUE(v.is_struct()) << inner;
      EXPECT_EQ(v, Value::structure({{"a", 1}, {"b", 2}})) << inner;

      struct Typed final : ValueSink {
        int32_t a = 0, b = 0;
        Status read(ValueReader& r) override {
          return read_struct(r, field("a", a), field("b", b));
        }
      } sink;
      Reader reader;
      MethodResponse response;
      Status sunk;
      ASSERT_TRUE(reader.read_response(response_with(inner), response, sink, sunk)) << inner;
      ASSERT_TRUE(sunk) << inner;
      EXPECT_EQ(sink.a, 1) << inner;
      EXPECT_EQ(sink.b, 2) << inner;
    }
  }
  // Thirteen elements: methodResponse, params, param, value, struct, the first member's four
  // (member, name, value, int), then the second's; its head opens the 10th to the 12th.
  const std::string doc = response_with(
      "<struct><member><name>a</name><value><int>1</int></value></member>"
      "<member><name>b</name><value><int>2</int></value></member></struct>");
  for (size_t max = 9; max <= 12; ++max) {
    ReaderLimits limits;
    limits.max_elements = max;
    Error e = error_of(doc, limits);
    EXPECT_EQ(e.code, Errc::LimitExceeded) << max;
    EXPECT_TRUE(fails_with(e, -32600, "more elements than max_elements")) << max;
  }
  ReaderLimits enough;
  enough.max_elements = 13;
  EXPECT_TRUE(Reader(enough).read(doc));
}

// A typed read asks for a string or a number straight away (no peek first): the reader then
// reads the usual <string>, <int>, <i4> and <double> elements in one pass. What it gives, and
// what it refuses with (the message and where), is the tree path's, at and over the limits.
TEST(Reader, TypedReadsInOnePassSayWhatTheTreeSays) {
  struct Typed final : ValueSink {
    std::string text;
    double number = 0;
    bool as_string = true;
    Status read(ValueReader& r) override {
      return as_string ? read_value(r, text) : read_value(r, number);
    }
  };
  ReaderLimits limits;
  limits.max_string_size = 10;
  struct Case {
    std::string_view inner;
    bool as_string;
  };
  for (Case c : std::initializer_list<Case>{
           {"<string>1234567890</string>", true},
           {"<string>12345678901</string>", true},  // over max_string_size
           {"<string>Zo\xC3\xAB</string>", true},   // UTF-8, checked on the fast path
           {"<string>Zo\xC3</string>", true},       // bad UTF-8: the general path says where
           {"<string>r&amp;d</string>", true},      // a reference: the general path
           {"\n  <string>a b</string>\n", true},    // indented
           {"<string></string>", true},
           {"<int>42</int>", false},
           {"<int> -7 </int>", false},
           {"<i4>5</i4>", false},
           {"<double>38957.531</double>", false},
           {"<int>4x</int>", false},
           {"<int>99999999999</int>", false},
           {"<double>1e</double>", false},
           {"<int>1</int ><extra/>", false},
           {"<int>1</int>junk", false},
       }) {
    const std::string doc = response_with(c.inner);
    Reader reader(limits);
    Result<MethodResponse> tree = reader.read_response(doc);
    Typed sink;
    sink.as_string = c.as_string;
    MethodResponse response;
    Status sunk;
    Status read = reader.read_response(doc, response, sink, sunk);
    if (!tree) {
      ASSERT_FALSE(read) << c.inner;
      EXPECT_EQ(read.error().code, tree.error().code) << c.inner;
      EXPECT_EQ(read.error().message, tree.error().message) << c.inner;
      continue;
    }
    ASSERT_TRUE(read) << c.inner << ": " << read.error().message;
    if (!sunk) {  // a value of another type than asked for: the conversion's refusal
      const Error refused = c.as_string ? Convert<std::string>::from_value(tree->result).error()
                                        : Convert<double>::from_value(tree->result).error();
      EXPECT_EQ(sunk.error().message, refused.message) << c.inner;
      continue;
    }
    if (c.as_string)
      EXPECT_EQ(Value(sink.text), tree->result) << c.inner;
    else
      EXPECT_EQ(sink.number, Convert<double>::from_value(tree->result).value()) << c.inner;
  }
  // Both paths read these in one pass now: where they say the mistake is, checked by hand.
  for (std::string_view inner : {"<string>12345678901</string>", "<int>4x</int>",
                                 "<double>1e</double>", "<i4>99999999999</i4>"}) {
    const std::string doc = response_with(inner);
    Error e = error_of(doc, limits);
    const std::string where = "1:" + std::to_string(doc.find(inner) + 1) + ": ";
    EXPECT_EQ(e.message.substr(0, where.size()), where) << e.message;
  }
}

// An array of strings is read in one call to the reader (read_string_elements), each usual
// <value><string>text</string></value> in one pass; any other element (a reference to decode,
// an untyped or empty value, a number) is left to the element-by-element path, and the runs
// after it are read in one call again. What a typed read gives or refuses with is the tree
// path's, at and over the limits.
TEST(Reader, ArraysOfStringsReadInOneCallSayWhatTheTreeSays) {
  ReaderLimits limits;
  limits.max_string_size = 10;
  for (std::string_view items : {
           "",
           "<value><string>a</string></value><value><string>bc</string></value>",
           "\n  <value>\n    <string>a b</string>\n  </value>\n",
           "<value><string>a</string></value><value><string>r&amp;d</string></value>"
           "<value><string>z</string></value>",
           "<value>untyped</value><value><string>x</string></value>",
           "<value/><value><string/></value><value><string></string></value>",
           "<value><string>a</string></value><value><int>1</int></value>",
           "<value><string>a</string></value><value><string>12345678901</string></value>",
           "<value><string>1234567890</string></value>",
           "<value><string>Zo\xC3</string></value>",
           "<value><string>a</string></value><!-- c --><value><string>b</string></value>",
           "<value><string>a</string></value><value><string>b</string></value><junk/>",
       }) {
    const std::string doc = response_with("<array><data>" + std::string(items) + "</data></array>");
    Reader reader(limits);
    Result<MethodResponse> tree = reader.read_response(doc);
    test_support::CountedInto<std::vector<std::string>> sink;
    MethodResponse response;
    Status sunk;
    Status read = reader.read_response(doc, response, sink, sunk);
    if (!tree) {
      ASSERT_FALSE(read) << items;
      EXPECT_EQ(read.error().message, tree.error().message) << items;
      continue;
    }
    ASSERT_TRUE(read) << items << ": " << read.error().message;
    Result<std::vector<std::string>> want =
        Convert<std::vector<std::string>>::from_value(tree->result);
    if (!want) {
      ASSERT_FALSE(sunk) << items;
      EXPECT_EQ(sunk.error().message, want.error().message) << items;
      continue;
    }
    ASSERT_TRUE(sunk) << items << ": " << sunk.error().message;
    EXPECT_EQ(sink.value, *want) << items;
  }

  // The usual array: one call, no element read on its own.
  std::string items;
  for (int i = 0; i < 150; ++i)
    items += "<value><string>s" + std::to_string(i) + "</string></value>";
  const std::string doc = response_with("<array><data>" + items + "</data></array>");
  test_support::CountedInto<std::vector<std::string>> sink;
  MethodResponse response;
  Status sunk;
  ASSERT_TRUE(Reader().read_response(doc, response, sink, sunk));
  ASSERT_TRUE(sunk);
  EXPECT_TRUE(test_support::strings_read_in_one_call(sink, 150));

  // max_elements counts the elements read in one call as it counts the others.
  ReaderLimits few;
  few.max_elements = 245;  // methodResponse, params, param, value, array, data: 6, then 2 each
  Error e = error_of(doc, few);
  ASSERT_EQ(e.code, Errc::LimitExceeded);
  test_support::CountedInto<std::vector<std::string>> limited;
  Status over = Reader(few).read_response(doc, response, limited, sunk);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().message, e.message);

  // Outside an array: a misuse, and the document reads on.
  struct Outside final : ValueSink {
    Errc code = Errc::Ok;
    Status read(ValueReader& r) override {
      std::vector<std::string> texts;
      code = r.read_string_elements(texts).error().code;
      return {};
    }
  } outside;
  ASSERT_TRUE(Reader().read_response(doc, response, outside, sunk));
  EXPECT_EQ(outside.code, Errc::InvalidArgument);
}

TEST(Reader, TooManyAttributes) {
  std::string tag = "<methodCall";
  for (int i = 0; i < 40; ++i) tag += " a" + std::to_string(i) + "='x'";
  EXPECT_EQ(error_of(tag + "/>").code, Errc::LimitExceeded);
}

TEST(Reader, ReusedAfterAnError) {
  Reader reader;
  EXPECT_FALSE(reader.read(response_with("<array><data><value>1</value><foo/>")));
  auto ok = reader.read_response(response_with("<array><data><value>1</value></data></array>"));
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->result, Value::array({"1"}));
}

// ---- what the last document looked like (the server's dialect choice) ----

std::string call_with(std::string_view root_attributes, std::string_view inner) {
  return "<?xml version=\"1.0\"?><methodCall" + std::string(root_attributes) +
         "><methodName>m</methodName><params><param><value>" + std::string(inner) +
         "</value></param></params></methodCall>";
}

TEST(Reader, PrefixedTypesAreNoticed) {
  Reader reader;
  ASSERT_TRUE(reader.read_call(call_with("", "<i8>1</i8>")));
  EXPECT_FALSE(reader.last_used_prefixed_types());
  ASSERT_TRUE(reader.read_call(call_with("", "<ex:i8>1</ex:i8>")));
  EXPECT_TRUE(reader.last_used_prefixed_types());
  // Each document starts afresh.
  ASSERT_TRUE(reader.read_call(call_with("", "<nil/>")));
  EXPECT_FALSE(reader.last_used_prefixed_types());
  // Any prefix, deep in a structure, self-closing.
  ASSERT_TRUE(reader.read_call(
      call_with("",
                "<array><data><value><struct><member><name>a</name><value><x:nil/></value></member>"
                "</struct></value></data></array>")));
  EXPECT_TRUE(reader.last_used_prefixed_types());
  // Prefixes on other elements than types are not type names.
  ASSERT_TRUE(reader.read_call(call_with("", "<string>ex:i8</string>")));
  EXPECT_FALSE(reader.last_used_prefixed_types());
  EXPECT_FALSE(reader.read_call(call_with("", "<ex:unknown>1</ex:unknown>")));
  EXPECT_FALSE(reader.last_used_prefixed_types());
}

TEST(Reader, ApacheNamespaceDeclarationIsNoticed) {
  Reader reader;
  const std::string apache = "http://ws.apache.org/xmlrpc/namespaces/extensions";
  ASSERT_TRUE(reader.read_call(call_with(" xmlns:ex=\"" + apache + "\"", "<int>1</int>")));
  EXPECT_TRUE(reader.last_declared_apache_extensions());
  EXPECT_FALSE(reader.last_used_prefixed_types());
  ASSERT_TRUE(reader.read_call(call_with("", "<int>1</int>")));
  EXPECT_FALSE(reader.last_declared_apache_extensions());
  // Another prefix, single quotes, a default namespace: the URI is what counts.
  ASSERT_TRUE(reader.read_call(call_with(" xmlns:a='" + apache + "'", "1")));
  EXPECT_TRUE(reader.last_declared_apache_extensions());
  ASSERT_TRUE(reader.read_call(call_with(" xmlns=\"" + apache + "\"", "1")));
  EXPECT_TRUE(reader.last_declared_apache_extensions());
  // Other namespaces, other attributes, near misses.
  ASSERT_TRUE(reader.read_call(call_with(" xmlns:ex=\"http://example.com/\"", "1")));
  EXPECT_FALSE(reader.last_declared_apache_extensions());
  ASSERT_TRUE(reader.read_call(call_with(" xmlnsx=\"" + apache + "\"", "1")));
  EXPECT_FALSE(reader.last_declared_apache_extensions());
  ASSERT_TRUE(reader.read_call(call_with(" xmlns:ex=\"" + apache + "/\"", "1")));
  EXPECT_FALSE(reader.last_declared_apache_extensions());
}

TEST(Reader, ReadCallIntoReusesTheCall) {
  Reader reader;
  MethodCall call;
  ASSERT_TRUE(
      reader.read_call(call_with("", "<array><data><value>x</value></data></array>"), call));
  EXPECT_EQ(call.method_name, "m");
  EXPECT_EQ(call.params, Value::array({Value::array({"x"})}));
  const std::string no_params =
      "<methodCall><methodName>a.much.longer.method.name</methodName></methodCall>";
  ASSERT_TRUE(reader.read_call(no_params, call));
  EXPECT_EQ(call.method_name, "a.much.longer.method.name");
  EXPECT_EQ(call.params, Value::array());
  ASSERT_TRUE(reader.read_call(call_with("", "<int>7</int>"), call));
  EXPECT_EQ(call.method_name, "m");
  EXPECT_EQ(call.params, Value::array({7}));
  Status bad = reader.read_call("<methodCall><methodName>m</methodName><params>", call);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().fault_code, -32700);
  Status response = reader.read_call(response_with("1"), call);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().fault_code, -32600);
}

// What a typed read leaves is read with every check and built into nothing: reading one member
// of a large answer pays for checking the rest, not for a tree of it. (The corpus test and
// reader_fuzz compare the refusals of such reads with the tree path's, document by document.)
int value_allocations = 0;
bool count_value_allocation() {
  ++value_allocations;
  return true;
}
// A typed read of member `a` of a struct, leaving the rest.
struct OnlyA final : ValueSink {
  int32_t a = 0;
  Status read(ValueReader& r) override { return read_struct(r, field("a", a)); }
};
// The Values allocated while OnlyA reads `doc`, which must succeed with a == 1.
int values_allocated_reading_only_a(const std::string& doc) {
  Reader reader;
  OnlyA sink;
  MethodResponse response;
  Status sunk;
  value_allocations = 0;
  detail::set_value_alloc_hook(&count_value_allocation);
  Status read = reader.read_response(doc, response, sink, sunk);
  detail::set_value_alloc_hook(nullptr);
  EXPECT_TRUE(read) << read.error().message;
  EXPECT_TRUE(sunk) << sunk.error().message;
  EXPECT_EQ(sink.a, 1);
  return value_allocations;
}
// `doc` is refused by the tree path, and by OnlyA's read with the same message.
void expect_refused_alike(const std::string& doc) {
  Reader reader;
  Result<MethodResponse> tree = reader.read_response(doc);
  ASSERT_FALSE(tree);
  OnlyA sink;
  MethodResponse response;
  Status sunk;
  Status typed = reader.read_response(doc, response, sink, sunk);
  ASSERT_FALSE(typed);
  EXPECT_EQ(typed.error().message, tree.error().message);
}

TEST(Reader, WhatATypedReadLeavesIsCheckedNotBuilt) {
  const std::string doc = response_with(
      "<struct><member><name>a</name><value><int>1</int></value></member>"
      "<member><name>a name longer than a Value holds</name><value><array><data>"
      "<value><string>a string longer than a Value holds</string></value>"
      "<value>untyped text, as long</value><value/><value><i8>-9</i8></value>"
      "<value><struct><member><name>k</name><value><double>2.5</double></value></member>"
      "<member><name>t</name><value><dateTime.iso8601>20261129T05:00:00</dateTime.iso8601>"
      "</value></member><member><name>e</name><value><struct/></value></member></struct>"
      "</value><value><array><data/></array></value><value><boolean>1</boolean></value>"
      "<value><string>r&amp;d, decoded: longer than a Value holds</string></value>"
      "</data></array></value></member></struct>");
  ASSERT_TRUE(Reader().read_response(doc));  // the tree path accepts it
  EXPECT_EQ(values_allocated_reading_only_a(doc), 0);

  // Something wrong deep in the part left unread still fails the document, as in the tree.
  for (std::string_view bad : {"<int>1x</int>", "<struct><member><name>k</name></member></struct>",
                               "<array><data><value><i8>1</i8></data></array>"}) {
    SCOPED_TRACE(bad);
    expect_refused_alike(
        response_with("<struct><member><name>a</name><value><int>1</int></value></member>"
                      "<member><name>b</name><value>" +
                      std::string(bad) + "</value></member></struct>"));
  }
}

// A <base64> a typed read skips is checked without room for its bytes: no Value for them (the
// tree path's 300 KB), compact or in Python's lines of 76; and a bad one deep in it still fails
// the document with the tree path's message.
TEST(Reader, ASkippedBlobIsCheckedWithoutRoomForItsBytes) {
  std::vector<uint8_t> bytes(300000);
  std::mt19937 rng(5);
  for (uint8_t& b : bytes) b = uint8_t(rng());
  const std::string coded = base64_encode(bytes);
  std::string wrapped;
  for (size_t i = 0; i < coded.size(); i += 76) wrapped += coded.substr(i, 76) + "\n";
  auto answer = [](std::string_view blob) {
    return response_with(
        "<struct><member><name>a</name><value><int>1</int></value></member>"
        "<member><name>blob</name><value><base64>" +
        std::string(blob) + "</base64></value></member></struct>");
  };
  for (const std::string& blob : {coded, wrapped}) {
    const std::string doc = answer(blob);
    Result<MethodResponse> tree = Reader().read_response(doc);
    ASSERT_TRUE(tree) << tree.error().message;
    EXPECT_EQ(tree->result["blob"].as_bytes().size(), bytes.size());
    EXPECT_EQ(values_allocated_reading_only_a(doc), 0);
  }
  std::string bad_byte = wrapped, cut = coded.substr(0, coded.size() - 3);
  bad_byte[200001] = '!';
  for (const std::string& blob : {bad_byte, cut, coded + "Zg==Zg==", coded + "\n==\nZg"}) {
    SCOPED_TRACE(blob.size());
    expect_refused_alike(answer(blob));
  }
}

}  // namespace
}  // namespace callwire::xml
