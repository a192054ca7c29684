// SCGI framing: the request head a client sends, and the answers it reads (rtorrent's CGI
// response, one delimited by the end of the connection, an HTTP one), each split at every byte
// offset; every refusal with its kind.
#include "http/scgi.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace callwire::http {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;

TEST(ScgiRequestHead, IsANetstringOfPairsWithContentLengthFirst) {
  Buffer out;
  Header extra[] = {{"X-Trace", "t1"}, {"user-agent", "callwire"}};
  ScgiRequestHead head;
  head.content_length = 42;
  head.uri = "/RPC2";
  head.gzip = true;
  head.extra = extra;
  ASSERT_TRUE(append_scgi_request_head(out, head));
  std::string block =
      "CONTENT_LENGTH\0"
      "42\0"
      "SCGI\0"
      "1\0"
      "REQUEST_METHOD\0"
      "POST\0"
      "REQUEST_URI\0"
      "/RPC2\0"
      "SERVER_PROTOCOL\0"
      "HTTP/1.1\0"
      "CONTENT_TYPE\0"
      "text/xml\0"
      "HTTP_CONTENT_ENCODING\0"
      "gzip\0"
      "HTTP_X_TRACE\0"
      "t1\0"
      "HTTP_USER_AGENT\0"
      "callwire\0"s;
  EXPECT_EQ(std::string(out.view()), std::to_string(block.size()) + ":" + block + ",");
}

TEST(ScgiRequestHead, RefusesWhatWouldBreakTheFraming) {
  Buffer out;
  out.append("x");
  Header nul[] = {{"X-A", "a\0b"sv}};
  Header crlf[] = {{"X-A", "a\r\nb"}};
  Header name[] = {{"X A", "v"}};
  for (auto extra : {std::span<const Header>(nul), std::span<const Header>(crlf),
                     std::span<const Header>(name)}) {
    ScgiRequestHead head;
    head.extra = extra;
    Status s = append_scgi_request_head(out, head);
    EXPECT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::InvalidArgument);
  }
  ScgiRequestHead bad_uri;
  bad_uri.uri = "/a\nb";
  EXPECT_FALSE(append_scgi_request_head(out, bad_uri));
  EXPECT_EQ(out.view(), "x");  // nothing appended
}

struct Parsed {
  ParseStatus status;
  ResponseError error;
  size_t consumed;
  int code = 0;
  std::string reason, body, type;
  bool gzip = false, keep_alive = false;
  size_t fields = 0;
  bool operator==(const Parsed&) const = default;
};

Parsed capture(const ScgiResponseParser& p, ResponseParseResult r) {
  Parsed o{r.status, r.error, r.consumed};
  if (r.status != ParseStatus::Complete) return o;
  const Response& q = p.response();
  o.code = q.status;
  o.reason = q.reason;
  o.body = q.body;
  o.type = q.content_type;
  o.gzip = q.content_encoding_gzip;
  o.keep_alive = q.keep_alive;
  o.fields = q.headers.size();
  return o;
}

// Whole, then split at every offset (the storage moving between the calls); `eof`: the
// connection ends after the bytes.
Parsed parse_everywhere(std::string_view bytes, bool eof, ResponseLimits limits = {}) {
  auto finish = [eof](ScgiResponseParser& p, std::string_view in, Buffer& b) {
    return eof ? p.parse_eof(in, b) : p.parse(in, b);
  };
  ScgiResponseParser whole_parser(limits);
  Buffer body;
  Parsed whole = capture(whole_parser, finish(whole_parser, bytes, body));
  for (size_t split = 0; split <= bytes.size(); ++split) {
    ScgiResponseParser p(limits);
    std::string first(bytes.substr(0, split));
    p.parse(first, body);
    std::string all(bytes);
    Parsed again = capture(p, finish(p, all, body));
    EXPECT_EQ(again, whole) << "split at " << split;
    if (!(again == whole)) break;
  }
  return whole;
}

const std::string kXml = "<?xml version=\"1.0\"?><methodResponse/>";

TEST(ScgiResponseParser, ReadsRtorrentsAnswer) {
  std::string answer =
      "Status: 200 OK\r\nContent-Type: text/xml\r\nContent-Length: " + std::to_string(kXml.size()) +
      "\r\n\r\n" + kXml;
  Parsed p = parse_everywhere(answer + "junk", false);
  EXPECT_EQ(p.status, ParseStatus::Complete);
  EXPECT_EQ(p.consumed, answer.size());
  EXPECT_EQ(p.code, 200);
  EXPECT_EQ(p.reason, "OK");
  EXPECT_EQ(p.type, "text/xml");
  EXPECT_EQ(p.body, kXml);
  EXPECT_EQ(p.fields, 3u);
  EXPECT_FALSE(p.keep_alive);
}

TEST(ScgiResponseParser, ABodyWithoutLengthEndsWithTheConnection) {
  std::string answer = "Content-Type: text/xml\n\n" + kXml;  // bare LF; no Status: 200
  EXPECT_EQ(parse_everywhere(answer, false).status, ParseStatus::Incomplete);
  Parsed p = parse_everywhere(answer, true);
  EXPECT_EQ(p.status, ParseStatus::Complete);
  EXPECT_EQ(p.code, 200);
  EXPECT_EQ(p.body, kXml);
}

TEST(ScgiResponseParser, ReadsAnHttpAnswerButNeverKeepsTheConnection) {
  std::string answer =
      "HTTP/1.1 404 Not Found\r\nConnection: keep-alive\r\nContent-Length: 2\r\n"
      "\r\nno";
  Parsed p = parse_everywhere(answer, false);
  EXPECT_EQ(p.status, ParseStatus::Complete);
  EXPECT_EQ(p.code, 404);
  EXPECT_EQ(p.body, "no");
  EXPECT_FALSE(p.keep_alive);
}

TEST(ScgiResponseParser, RefusesWhatIsNotAnAnswer) {
  auto error_of = [](std::string_view bytes, bool eof, ResponseLimits limits = {}) {
    Parsed p = parse_everywhere(bytes, eof, limits);
    EXPECT_EQ(p.status, ParseStatus::Error) << bytes;
    return p.error;
  };
  EXPECT_EQ(error_of("", true), ResponseError::NoResponse);
  EXPECT_EQ(error_of("Status: 200 OK\r\n", true), ResponseError::Truncated);
  EXPECT_EQ(error_of("Content-Length: 9\r\n\r\nabc", true), ResponseError::Truncated);
  EXPECT_EQ(error_of("Status: 2000\r\n\r\n", false), ResponseError::Malformed);
  EXPECT_EQ(error_of("Status: 100 Continue\r\n\r\n", false), ResponseError::Malformed);
  EXPECT_EQ(error_of("Status: 20x\r\n\r\n", false), ResponseError::Malformed);
  EXPECT_EQ(error_of("no colon here\r\n\r\n", false), ResponseError::Malformed);
  EXPECT_EQ(error_of("Bad Name: x\r\n\r\n", false), ResponseError::Malformed);
  EXPECT_EQ(error_of("Content-Length: 1\r\nContent-Length: 1\r\n\r\nx", false),
            ResponseError::Malformed);
  EXPECT_EQ(error_of("Content-Length: -1\r\n\r\n", false), ResponseError::Malformed);
  ResponseLimits tiny;
  tiny.max_header_bytes = 32;
  tiny.max_headers = 2;
  tiny.max_body = 8;
  EXPECT_EQ(error_of("X-Long: " + std::string(40, 'a') + "\r\n\r\n", false, tiny),
            ResponseError::TooLarge);
  EXPECT_EQ(error_of(std::string(40, 'a'), false, tiny), ResponseError::TooLarge);
  EXPECT_EQ(error_of("A: 1\r\nB: 2\r\nC: 3\r\n\r\n", false, tiny), ResponseError::TooLarge);
  EXPECT_EQ(error_of("Content-Length: 9\r\n\r\n", false, tiny), ResponseError::TooLarge);
  EXPECT_EQ(error_of("\r\n" + std::string(9, 'b'), true, tiny), ResponseError::TooLarge);
}

TEST(ScgiResponseParser, ResetReadsAnotherAnswer) {
  ScgiResponseParser p;
  Buffer body;
  ASSERT_EQ(p.parse_eof("Status: 500 Oops\r\n\r\nbad", body).status, ParseStatus::Complete);
  EXPECT_EQ(p.response().status, 500);
  p.reset();
  ASSERT_EQ(p.parse("Content-Length: 2\r\n\r\nok", body).status, ParseStatus::Complete);
  EXPECT_EQ(p.response().status, 200);
  EXPECT_EQ(p.response().body, "ok");
  EXPECT_EQ(p.response().reason, "");
}

}  // namespace
}  // namespace callwire::http

// ---- the server's side ----

namespace callwire::http {
namespace {

std::string netstring(const std::string& block) {
  return std::to_string(block.size()) + ":" + block + ",";
}

// What nginx's scgi_pass sends (scgi_params and the request's header fields).
std::string nginx_request(const std::string& body, const std::string& extra = {}) {
  std::string block = "CONTENT_LENGTH\0"s + std::to_string(body.size()) + "\0"s +
                      "SCGI\0"
                      "1\0"
                      "REQUEST_METHOD\0"
                      "POST\0"
                      "REQUEST_URI\0"
                      "/RPC2\0"
                      "QUERY_STRING\0"
                      "\0"
                      "CONTENT_TYPE\0"
                      "text/xml\0"
                      "SERVER_PROTOCOL\0"
                      "HTTP/1.1\0"
                      "REMOTE_ADDR\0"
                      "127.0.0.1\0"
                      "REMOTE_PORT\0"
                      "51234\0"
                      "HTTP_HOST\0"
                      "127.0.0.1:8080\0"
                      "HTTP_USER_AGENT\0"
                      "Python-xmlrpc/3.11\0"
                      "HTTP_ACCEPT_ENCODING\0"
                      "gzip\0"s +
                      extra;
  return netstring(block) + body;
}

struct ParsedRequest {
  ParseStatus status;
  size_t consumed;
  int http_status;
  std::string method, target, body, agent, content_type, host, remote;
  bool accept_gzip = false, keep_alive = true;
  size_t headers = 0;
  bool operator==(const ParsedRequest&) const = default;
};

ParsedRequest capture(const ScgiRequestParser& p, ParseResult r) {
  ParsedRequest o{r.status, r.consumed, r.http_status};
  if (r.status != ParseStatus::Complete) return o;
  const Request& q = p.request();
  o.method = q.method;
  o.target = q.target;
  o.body = q.body;
  o.agent = q.find_header("user-agent");
  o.content_type = q.content_type;
  // Kept while parsing so the server need not search: it must be what a search finds.
  EXPECT_EQ(q.content_type, q.find_header("Content-Type"));
  o.host = q.host;
  o.remote = p.variable("REMOTE_ADDR");
  o.accept_gzip = q.accept_gzip;
  o.keep_alive = q.keep_alive;
  o.headers = q.headers.size();
  return o;
}

ParsedRequest parse_request_everywhere(std::string_view bytes, RequestLimits limits = {}) {
  Buffer unused;
  ScgiRequestParser whole_parser(limits);
  ParsedRequest whole = capture(whole_parser, whole_parser.parse(bytes, unused));
  for (size_t split = 0; split <= bytes.size(); ++split) {
    ScgiRequestParser p(limits);
    std::string first(bytes.substr(0, split));
    ParseResult r1 = p.parse(first, unused);
    if (r1.status == ParseStatus::Error) {
      EXPECT_EQ(whole.status, ParseStatus::Error) << "split at " << split;
      continue;
    }
    std::string all(bytes);
    ParsedRequest again = capture(p, p.parse(all, unused));
    EXPECT_EQ(again, whole) << "split at " << split;
    if (!(again == whole)) break;
  }
  return whole;
}

TEST(ScgiRequestParser, ReadsWhatNginxSends) {
  std::string body = "<methodCall><methodName>x</methodName></methodCall>";
  std::string bytes = nginx_request(body);
  ParsedRequest r = parse_request_everywhere(bytes + "next");
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.consumed, bytes.size());
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/RPC2");
  EXPECT_EQ(r.body, body);
  EXPECT_EQ(r.agent, "Python-xmlrpc/3.11");  // HTTP_USER_AGENT as User-Agent
  EXPECT_EQ(r.content_type, "text/xml");
  EXPECT_EQ(r.host, "127.0.0.1:8080");
  EXPECT_EQ(r.remote, "127.0.0.1");
  EXPECT_TRUE(r.accept_gzip);
  EXPECT_FALSE(r.keep_alive);
  EXPECT_EQ(r.headers, 5u);  // Content-Length, Content-Type, Host, User-Agent, Accept-Encoding
}

TEST(ScgiRequestParser, KeepsContentTypeFromItsVariable) {
  // CONTENT_TYPE is the field; an HTTP_CONTENT_TYPE after it names the same field and is
  // not the one kept (the first, as find_header finds).
  std::string json = netstring(
                         "CONTENT_LENGTH\0"
                         "2\0"
                         "SCGI\0"
                         "1\0"
                         "HTTP_X_A\0"
                         "1\0"
                         "CONTENT_TYPE\0"
                         "application/json\0"
                         "HTTP_CONTENT_TYPE\0"
                         "text/plain\0"s) +
                     "{}";
  ParsedRequest r = parse_request_everywhere(json);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.content_type, "application/json");

  std::string none = netstring(
      "CONTENT_LENGTH\0"
      "0\0"
      "SCGI\0"
      "1\0"
      "HTTP_X_A\0"
      "1\0"s);
  r = parse_request_everywhere(none);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.content_type, "");

  // reset() forgets it: the next request has its own, or none.
  ScgiRequestParser p;
  Buffer unused;
  ASSERT_EQ(p.parse(json, unused).status, ParseStatus::Complete);
  EXPECT_EQ(p.request().content_type, "application/json");
  p.reset();
  ASSERT_EQ(p.parse(none, unused).status, ParseStatus::Complete);
  EXPECT_TRUE(p.request().content_type.empty());
}

TEST(ScgiRequestParser, RefusesBadFramingWithTheRightStatus) {
  auto status_of = [](std::string_view bytes, RequestLimits limits = {}) {
    ParsedRequest r = parse_request_everywhere(bytes, limits);
    EXPECT_EQ(r.status, ParseStatus::Error) << bytes;
    return r.http_status;
  };
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\n\r\n"), 400);  // not SCGI at all
  EXPECT_EQ(status_of(":"), 400);
  EXPECT_EQ(status_of("5:abcde;"), 400);  // no ',' after the netstring
  EXPECT_EQ(status_of(netstring("SCGI\0"
                                "1\0"
                                "CONTENT_LENGTH\0"
                                "0\0"s)),
            400);  // not first
  EXPECT_EQ(status_of(netstring("CONTENT_LENGTH\0"
                                "0\0"s)),
            400);  // no SCGI=1
  EXPECT_EQ(status_of(netstring("CONTENT_LENGTH\0"
                                "0\0"
                                "SCGI\0"
                                "2\0"s)),
            400);
  EXPECT_EQ(status_of(netstring("CONTENT_LENGTH\0"
                                "x\0"
                                "SCGI\0"
                                "1\0"s)),
            400);
  EXPECT_EQ(status_of(netstring("CONTENT_LENGTH\0"
                                "0\0"
                                "SCGI\0"
                                "1"s)),
            400);  // unterminated
  EXPECT_EQ(status_of("12345678901:"), 431);
  EXPECT_EQ(status_of("12345678901x"), 431);  // the same however the bytes arrive (fuzz)
  RequestLimits tiny;
  tiny.max_header_bytes = 64;
  tiny.max_headers = 2;
  tiny.max_body = 10;
  EXPECT_EQ(status_of(nginx_request("x"), tiny), 431);
  EXPECT_EQ(status_of(netstring("CONTENT_LENGTH\0"
                                "11\0"
                                "SCGI\0"
                                "1\0"s),
                      tiny),
            413);
  EXPECT_EQ(status_of(netstring("CONTENT_LENGTH\0"
                                "99999999999999999999999\0"
                                "SCGI\0"
                                "1\0"s)),
            413);
  EXPECT_EQ(status_of(netstring("CONTENT_LENGTH\0"
                                "0\0"
                                "SCGI\0"
                                "1\0"
                                "HTTP_A\0"
                                "1\0"
                                "HTTP_B\0"
                                "2\0"s),
                      tiny),
            431);  // three header fields with Content-Length
}

TEST(ScgiRequestParser, WaitsForTheWholeBodyThenResets) {
  ScgiRequestParser p;
  Buffer unused;
  std::string bytes = nginx_request("0123456789");
  EXPECT_EQ(p.parse(bytes.substr(0, bytes.size() - 1), unused).status, ParseStatus::Incomplete);
  EXPECT_TRUE(p.headers_complete());
  EXPECT_EQ(*p.request().content_length, 10u);
  EXPECT_EQ(p.parse(bytes, unused).status, ParseStatus::Complete);
  p.reset();
  EXPECT_FALSE(p.headers_complete());
  std::string next = nginx_request("ab");  // the request's views point into it
  EXPECT_EQ(p.parse(next, unused).status, ParseStatus::Complete);
  EXPECT_EQ(p.request().body, "ab");
}

TEST(ScgiAnswers, HeadsInTheGapAndErrors) {
  Buffer out;
  out.append(std::string(kResponseHeadGap, ' '));
  out.append("<x/>");
  ResponseHead head;
  head.gzip = true;
  size_t start = place_scgi_response_head(out, kResponseHeadGap, head);
  ASSERT_NE(start, kNoRoom);
  EXPECT_EQ(out.view().substr(start),
            "Status: 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 4\r\n"
            "Content-Encoding: gzip\r\n\r\n<x/>");
  Buffer small;
  small.append("  <x/>");
  EXPECT_EQ(place_scgi_response_head(small, 2, {}), kNoRoom);

  Buffer error;
  Header allow{"Allow", "POST"};
  ASSERT_TRUE(append_scgi_error_response(error, 405, {&allow, 1}));
  EXPECT_EQ(error.view(),
            "Status: 405 Method Not Allowed\r\nAllow: POST\r\nContent-Type: text/plain; "
            "charset=utf-8\r\nContent-Length: 23\r\n\r\n405 Method Not Allowed\n");
  Header bad{"Bad Name", "x"};
  EXPECT_FALSE(append_scgi_error_response(error, 400, {&bad, 1}));
  EXPECT_EQ(cgi_peer("::1", "80"), "[::1]:80");
  EXPECT_EQ(cgi_peer("10.0.0.1", ""), "10.0.0.1");
  EXPECT_EQ(cgi_peer("", "80"), "");
}

}  // namespace
}  // namespace callwire::http
