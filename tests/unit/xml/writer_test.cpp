#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "callwire/xml.hpp"
#include "xml/scalar_text.hpp"

namespace callwire::xml {
namespace {

std::string response_xml(const Value& v, Dialect dialect = Dialect::I8) {
  Buffer out;
  Status s = write_response(out, v, {dialect});
  EXPECT_TRUE(s) << s.error().message;
  return std::string(out.view());
}

// The <value> element of a response.
std::string value_xml(const Value& v, Dialect dialect = Dialect::I8) {
  std::string doc = response_xml(v, dialect);
  size_t b = doc.find("<param>") + 7, e = doc.rfind("</param>");
  return doc.substr(b, e - b);
}

TEST(Writer, SampleAdd) {
  Buffer out;
  const Value params[] = {5, 3};
  ASSERT_TRUE(write_call(out, "sample.add", params));
  EXPECT_EQ(out.view(),
            "<?xml version=\"1.0\"?><methodCall><methodName>sample.add</methodName><params>"
            "<param><value><int>5</int></value></param><param><value><int>3</int></value></param>"
            "</params></methodCall>");
}

TEST(Writer, Scalars) {
  EXPECT_EQ(value_xml(Value()), "<value><nil/></value>");
  EXPECT_EQ(value_xml(true), "<value><boolean>1</boolean></value>");
  EXPECT_EQ(value_xml(-12), "<value><int>-12</int></value>");
  EXPECT_EQ(value_xml(Value::i8(INT64_MIN)), "<value><i8>-9223372036854775808</i8></value>");
  EXPECT_EQ(value_xml("s"), "<value><string>s</string></value>");
  EXPECT_EQ(value_xml(""), "<value><string></string></value>");
  EXPECT_EQ(value_xml(Value::bytes("Hello", 5)), "<value><base64>SGVsbG8=</base64></value>");
  // No bytes, as Python writes them: Go's kolo/xmlrpc reads <base64></base64> as nil.
  EXPECT_EQ(value_xml(Value::bytes("", 0)), "<value><base64>\n</base64></value>");
  EXPECT_EQ(value_xml(Value::array()), "<value><array><data></data></array></value>");
  EXPECT_EQ(value_xml(Value::structure()), "<value><struct></struct></value>");
  EXPECT_EQ(
      value_xml(Value::structure({{"a", 1}})),
      "<value><struct><member><name>a</name><value><int>1</int></value></member></struct></value>");
}

TEST(Writer, DoublesShortestWithoutExponent) {
  EXPECT_EQ(value_xml(0.1), "<value><double>0.1</double></value>");
  EXPECT_EQ(value_xml(-2.5), "<value><double>-2.5</double></value>");
  EXPECT_EQ(value_xml(1e21), "<value><double>1000000000000000000000</double></value>");
  EXPECT_EQ(value_xml(1.5e-7), "<value><double>0.00000015</double></value>");
  EXPECT_EQ(value_xml(1e100), "<value><double>1" + std::string(100, '0') + "</double></value>");
  Buffer out;
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    Status s = write_response(out, bad);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::Unrepresentable);
    EXPECT_TRUE(out.empty());
  }
}

TEST(Writer, DoubleFastPathAgreesWithTheGeneralOne) {
  std::mt19937_64 rng(5);
  char fast[400], general[400];
  for (int i = 0; i < 300000; ++i) {
    double d;
    switch (i % 4) {
      case 0: {  // any bits
        uint64_t bits = rng();
        std::memcpy(&d, &bits, sizeof d);
        break;
      }
      case 1:  // ratios: long fractions
        d = double(int64_t(rng() % 2000000000000) - 1000000000000) / double(1 + rng() % 100000);
        break;
      case 2:  // prices and scores: a few decimals
        d = double(int64_t(rng() % 100000000)) / 1000.0;
        break;
      default:  // every magnitude around the fast path's edges
        d = double(int64_t(rng() % 1000000) - 500000) * std::pow(10.0, int(rng() % 24) - 12);
        break;
    }
    if (!std::isfinite(d)) continue;
    size_t n = scalar::format_double(d, fast);
    size_t m = scalar::format_double_general(d, general);
    ASSERT_EQ(std::string_view(fast, n), std::string_view(general, m));
  }
}

// parse_double reads the usual texts exactly in one operation; everything else goes to
// read_double (from_chars). Both must give the same bits for every text.
TEST(ScalarText, ParseDoubleMatchesTheGeneralReader) {
  std::mt19937_64 rng(7);
  char text[64];
  int fast_path_texts = 0;
  for (int i = 0; i < 300000; ++i) {
    // Digits (1-20, sometimes leading zeros), a point somewhere or none, sometimes an exponent.
    size_t n = 0;
    if (rng() % 2) text[n++] = "+-"[rng() % 2];
    const size_t start = n;
    size_t digits = 1 + rng() % 20;
    size_t point = rng() % (digits + 2);  // == digits + 1: no point
    for (size_t d = 0; d < digits; ++d) {
      if (d == point) text[n++] = '.';
      text[n++] = char('0' + (d == 0 && rng() % 4 == 0 ? 0 : rng() % 10));
    }
    if (point == digits) text[n++] = '.';
    if (rng() % 3 == 0) n += size_t(std::snprintf(text + n, 16, "e%d", int(rng() % 61) - 30));
    std::string_view s(text, n);
    double fast = 0, general = 0;
    ASSERT_TRUE(scalar::parse_double(s, fast)) << s;
    auto [ptr, ec] = read_double(text + start, text + n, general);
    ASSERT_EQ(ptr, text + n) << s;
    ASSERT_EQ(ec, std::errc()) << s;
    if (text[0] == '-') general = -general;
    ASSERT_EQ(std::bit_cast<uint64_t>(fast), std::bit_cast<uint64_t>(general)) << s;
    fast_path_texts += digits <= 15;
  }
  EXPECT_GT(fast_path_texts, 100000);
  // The edges: 2^53 and one past it, 10^22 and 10^23, negative zero.
  for (std::string_view s : {"9007199254740992", "9007199254740993", "1e22", "1e23", "-0.0", "0.1",
                             "123456789012345.6", "4.35", "1.7976931348623157e308"}) {
    double fast = 0, general = 0;
    ASSERT_TRUE(scalar::parse_double(s, fast)) << s;
    bool minus = s[0] == '-';
    (void)read_double(s.data() + minus, s.data() + s.size(), general);
    if (minus) general = -general;
    EXPECT_EQ(std::bit_cast<uint64_t>(fast), std::bit_cast<uint64_t>(general)) << s;
  }
}

// parse_integer takes up to 18 digits without overflow tests and longer texts with them: both
// must agree with from_chars and the range on every text, at the edges of both widths.
TEST(ScalarText, ParseIntegerMatchesFromChars) {
  auto reference = [](std::string_view s, int64_t min, int64_t max, int64_t& out) {
    bool negative = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
    if (s.empty() || s[0] == '-' || s[0] == '+') return false;
    std::string text = (negative ? "-" : "") + std::string(s);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || v < min || v > max) return false;
    out = v;
    return true;
  };
  auto check = [&](std::string_view s) {
    for (auto [min, max] :
         {std::pair{int64_t{INT32_MIN}, int64_t{INT32_MAX}}, std::pair{INT64_MIN, INT64_MAX}}) {
      int64_t fast = -7, general = -7;
      bool fast_ok = scalar::parse_integer(s, min, max, fast);
      ASSERT_EQ(fast_ok, reference(s, min, max, general)) << s;
      if (fast_ok) {
        ASSERT_EQ(fast, general) << s;
      }
    }
  };
  for (std::string_view s : {"0",
                             "-0",
                             "+0",
                             "",
                             "-",
                             "+",
                             "1x",
                             "x1",
                             " 1",
                             "--1",
                             "+-1",
                             "2147483647",
                             "2147483648",
                             "-2147483648",
                             "-2147483649",
                             "999999999999999999",
                             "-999999999999999999",
                             "0000000000000000001",
                             "9223372036854775807",
                             "9223372036854775808",
                             "-9223372036854775808",
                             "-9223372036854775809",
                             "00000000000000000000009223372036854775807",
                             "99999999999999999999",
                             "12345678901234567\xb9",
                             "1234567890123456789/"})
    check(s);
  std::mt19937_64 rng(11);
  char text[40];
  for (int i = 0; i < 200000; ++i) {
    size_t n = 0;
    if (rng() % 2) text[n++] = "+-"[rng() % 2];
    size_t digits = 1 + rng() % 22;
    for (size_t d = 0; d < digits; ++d) text[n++] = char('0' + rng() % 10);
    if (rng() % 50 == 0) text[rng() % n] = "a:/ \xff"[rng() % 5];  // a byte that is no digit
    check(std::string_view(text, n));
  }
}

TEST(Writer, DateTimeCanonical) {
  DateTime dt = *DateTime::parse("2014-11-10T23:38:51.25+0100");
  EXPECT_EQ(value_xml(dt),
            "<value><dateTime.iso8601>20141110T23:38:51.25+01:00</dateTime.iso8601></value>");
  dt.month = 13;
  Buffer out;
  EXPECT_EQ(write_response(out, dt).error().code, Errc::Unrepresentable);
}

TEST(Writer, Escaping) {
  EXPECT_EQ(value_xml("a<b>&c\r\nd\"e'f"),
            "<value><string>a&lt;b&gt;&amp;c&#13;\nd\"e'f</string></value>");
  EXPECT_EQ(value_xml("]]>"), "<value><string>]]&gt;</string></value>");
  EXPECT_EQ(value_xml("\xC3\xA9\xF0\x9F\x98\x80\t"),
            "<value><string>\xC3\xA9\xF0\x9F\x98\x80\t</string></value>");
  EXPECT_EQ(value_xml(Value::structure({{"<k>", 1}})),
            "<value><struct><member><name>&lt;k&gt;</name><value><int>1</int></value></member></"
            "struct></value>");
  // Long runs with escapes scattered through them (the vectorised path).
  std::string long_text;
  for (int i = 0; i < 100; ++i) long_text += "0123456789abcdefghij<&>\r";
  std::string expected;
  for (int i = 0; i < 100; ++i) expected += "0123456789abcdefghij&lt;&amp;&gt;&#13;";
  EXPECT_EQ(value_xml(long_text), "<value><string>" + expected + "</string></value>");
}

// Text escaped by the definition: <, &, > and CR as references, everything else as it is.
std::string escaped_by_definition(const std::string& s) {
  std::string e;
  for (char c : s) {
    switch (c) {
      case '<':
        e += "&lt;";
        break;
      case '&':
        e += "&amp;";
        break;
      case '>':
        e += "&gt;";
        break;
      case '\r':
        e += "&#13;";
        break;
      default:
        e += c;
    }
  }
  return e;
}

// Short strings and member names (up to 14 bytes live inside the Value and take a 16-byte
// path) against the plain definition, with each special byte at each position of every length
// around the inline limit.
TEST(Writer, ShortTextAgreesWithTheDefinitionAtEveryLengthAndPosition) {
  const std::string specials[] = {
      "<", "&", ">", "\r", "\t", "\n", " ", "\xC3\xA9", "\x01", "\xC3", std::string("\0", 1)};
  for (size_t len = 0; len <= 17; ++len) {
    for (size_t at = 0; at < std::max<size_t>(len, 1); ++at) {
      for (const std::string& special : specials) {
        std::string text(len, 'x');
        if (len > 0) text.replace(at, 1, special);
        bool valid = special != "\x01" && special != "\xC3" && special[0] != '\0';
        Buffer out;
        Status as_string = write_response(out, Value(text));
        Status as_name = write_response(out, Value::structure({{text, 1}}));
        if (!valid && len > 0) {
          EXPECT_FALSE(as_string) << "len " << len << " at " << at;
          EXPECT_FALSE(as_name) << "len " << len << " at " << at;
          continue;
        }
        ASSERT_TRUE(as_string && as_name) << "len " << len << " at " << at;
        EXPECT_EQ(value_xml(Value(text)),
                  "<value><string>" + escaped_by_definition(text) + "</string></value>");
        EXPECT_EQ(value_xml(Value::structure({{text, 1}})),
                  "<value><struct><member><name>" + escaped_by_definition(text) +
                      "</name><value><int>1</int></value></member></struct></value>");
      }
    }
  }
}

// Long texts dense with markup (escaped in bursts a byte at a time) and sparse (a run at a
// time), with CR, UTF-8 and a refused byte at every place a burst can begin, end or be cut.
TEST(Writer, TextDenseWithEscapesAgreesWithTheDefinition) {
  std::mt19937 rng(20261127);
  const std::string pieces[] = {"<",
                                "&",
                                ">",
                                "<<<<<<<<",
                                "x",
                                "\r",
                                "\t",
                                "\n",
                                "\xC3\xA9",
                                "\xF0\x9F\x98\x80",
                                "plain text of some length, no markup"};
  for (int round = 0; round < 4000; ++round) {
    std::string text;
    size_t length = rng() % 400;
    bool dense = rng() % 2;
    while (text.size() < length) {
      size_t pick =
          dense ? rng() % std::size(pieces) : (rng() % 8 ? std::size(pieces) - 1 : rng() % 4);
      text += pieces[pick];
    }
    bool refused = rng() % 10 == 0 && !text.empty();
    if (refused) text[rng() % text.size()] = '\x01';
    Buffer out;
    Status s = write_response(out, Value(text));
    if (refused) {
      EXPECT_FALSE(s) << "round " << round;
      continue;
    }
    ASSERT_TRUE(s) << "round " << round;
    EXPECT_EQ(value_xml(Value(text)),
              "<value><string>" + escaped_by_definition(text) + "</string></value>")
        << "round " << round;
  }
  // A string of nothing but escapes, far longer than a burst.
  std::string all(100000, '<');
  std::string expected;
  for (size_t i = 0; i < all.size(); ++i) expected += "&lt;";
  EXPECT_EQ(value_xml(Value(all)), "<value><string>" + expected + "</string></value>");
}

TEST(Writer, RefusesWhatXmlCannotCarry) {
  Buffer out;
  out.append("keep");
  for (std::string bad : {std::string("a\x01"), std::string("\0", 1), std::string("\xC3"),
                          std::string("\xED\xA0\x80"), std::string("\xEF\xBF\xBF")}) {
    Status s = write_response(out, Value::array({1, Value::structure({{"k", bad}})}));
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::Unrepresentable);
    EXPECT_EQ(out.view(), "keep");  // left as it was
  }
  EXPECT_FALSE(write_call(out, "", {}));
  EXPECT_FALSE(write_call(out, "bad\x02name", {}));
  EXPECT_FALSE(write_fault(out, {1, "bad\x02"}));
  EXPECT_EQ(out.view(), "keep");
}

TEST(Writer, ApacheDialect) {
  std::string doc = response_xml(Value::array({Value::i8(5), Value()}), Dialect::Apache);
  EXPECT_EQ(doc,
            "<?xml version=\"1.0\"?><methodResponse "
            "xmlns:ex=\"http://ws.apache.org/xmlrpc/namespaces/extensions\"><params><param>"
            "<value><array><data><value><ex:i8>5</ex:i8></value><value><ex:nil/></value></data>"
            "</array></value></param></params></methodResponse>");
  Buffer call;
  ASSERT_TRUE(write_call(call, "m", {}, {Dialect::Apache}));
  EXPECT_NE(call.view().find("<methodCall xmlns:ex="), std::string_view::npos);
  // And the reader takes its own output back.
  Reader reader;
  auto r = reader.read_response(doc);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->result, Value::array({Value::i8(5), Value()}));
}

TEST(Writer, Fault) {
  Buffer out;
  ASSERT_TRUE(write_fault(out, {-32601, "no such method: <x>"}));
  EXPECT_EQ(
      out.view(),
      "<?xml version=\"1.0\"?><methodResponse><fault><value><struct><member><name>faultCode</name>"
      "<value><int>-32601</int></value></member><member><name>faultString</name><value><string>"
      "no such method: "
      "&lt;x&gt;</string></value></member></struct></value></fault></methodResponse>");
}

TEST(Writer, AppendsToWhatIsThere) {
  Buffer out;
  out.append("HTTP/1.1 200 OK\r\n\r\n");
  ASSERT_TRUE(write_response(out, 1));
  EXPECT_EQ(out.view().substr(0, 19), "HTTP/1.1 200 OK\r\n\r\n");
  EXPECT_EQ(out.view().substr(19, 21), "<?xml version=\"1.0\"?>");
}

TEST(Writer, WriteMessage) {
  Message m;
  m.kind = Message::Kind::Call;
  m.call.method_name = "x";
  m.call.params = Value(1);  // not an array
  Buffer out;
  EXPECT_EQ(write_message(out, m).error().code, Errc::InvalidArgument);
}

}  // namespace
}  // namespace callwire::xml
