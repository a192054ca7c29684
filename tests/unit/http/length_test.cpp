// Message lengths are read one way by every framing (http::syntax::parse_length): the HTTP
// request and response parsers and SCGI's request and response parsers agree on which texts
// are lengths and what they say. Two readings of one length is how requests are smuggled.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/ascii.hpp"
#include "http/request_parser.hpp"
#include "http/response_parser.hpp"
#include "http/scgi.hpp"
#include "http/syntax.hpp"

namespace callwire::http {
namespace {

using syntax::LengthText;

TEST(ParseLength, DigitsOnlyWithin64Bits) {
  uint64_t n = 7;
  EXPECT_EQ(syntax::parse_length("0", n), LengthText::Ok);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(syntax::parse_length("00042", n), LengthText::Ok);
  EXPECT_EQ(n, 42u);
  EXPECT_EQ(syntax::parse_length("18446744073709551615", n), LengthText::Ok);
  EXPECT_EQ(n, UINT64_MAX);
  EXPECT_EQ(syntax::parse_length("18446744073709551616", n), LengthText::TooLarge);
  EXPECT_EQ(syntax::parse_length("99999999999999999999999", n), LengthText::TooLarge);
  for (const char* bad : {"", " 5", "5 ", "+5", "-5", "0x5", "5,5", "5.0", "\t5", "٥"})
    EXPECT_EQ(syntax::parse_length(bad, n), LengthText::Malformed) << bad;
}

// Whether each parser takes `length` as a body length of 0 bytes or more (the bodies here
// are empty, so a length over 0 leaves the parse incomplete: still taken).
bool http_request_takes(const std::string& length) {
  RequestLimits limits;
  limits.max_body = UINT64_MAX;
  RequestParser p(limits);
  Buffer body;
  std::string bytes = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: " + length + "\r\n\r\n";
  return p.parse(bytes, body).status != ParseStatus::Error;
}

bool http_response_takes(const std::string& length) {
  ResponseLimits limits;
  limits.max_body = UINT64_MAX;
  ResponseParser p(limits);
  Buffer body;
  std::string bytes = "HTTP/1.1 200 OK\r\nContent-Length: " + length + "\r\n\r\n";
  return p.parse(bytes, body).status != ParseStatus::Error;
}

bool scgi_request_takes(const std::string& length) {
  RequestLimits limits;
  limits.max_body = UINT64_MAX;
  ScgiRequestParser p(limits);
  Buffer body;
  std::string block = "CONTENT_LENGTH" + std::string(1, '\0') + length + std::string(1, '\0') +
                      "SCGI" + std::string(1, '\0') + "1" + std::string(1, '\0');
  std::string bytes = std::to_string(block.size()) + ":" + block + ",";
  return p.parse(bytes, body).status != ParseStatus::Error;
}

bool scgi_response_takes(const std::string& length) {
  ResponseLimits limits;
  limits.max_body = UINT64_MAX;
  ScgiResponseParser p(limits);
  Buffer body;
  std::string bytes = "Status: 200 OK\r\nContent-Length: " + length + "\r\n\r\n";
  return p.parse(bytes, body).status != ParseStatus::Error;
}

TEST(ParseLength, EveryFramingReadsLengthsAlike) {
  // A header field's value loses the white space around it first (RFC 9110 §5.5), so " 12"
  // is 12 in a head; SCGI's CONTENT_LENGTH variable is taken as it is.
  const std::vector<std::string> texts = {"0",
                                          "12",
                                          "00012",
                                          " 12",
                                          "12 ",
                                          "+12",
                                          "-1",
                                          "0x1",
                                          "1,1",
                                          "1.0",
                                          "",
                                          "\t",
                                          "1 2",
                                          "18446744073709551615",
                                          "18446744073709551616"};
  for (const std::string& text : texts) {
    SCOPED_TRACE("'" + text + "'");
    uint64_t n = 0;
    const bool in_a_head = syntax::parse_length(base::trim_ows(text), n) == LengthText::Ok;
    const bool as_variable = syntax::parse_length(text, n) == LengthText::Ok;
    EXPECT_EQ(http_request_takes(text), in_a_head);
    EXPECT_EQ(http_response_takes(text), in_a_head);
    EXPECT_EQ(scgi_response_takes(text), in_a_head);
    EXPECT_EQ(scgi_request_takes(text), as_variable);
  }
}

}  // namespace
}  // namespace callwire::http
