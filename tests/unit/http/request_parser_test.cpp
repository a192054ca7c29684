// Unit tests of the HTTP/1.1 request parser: real clients' requests split at every byte
// offset and fed a byte at a time, pipelining, every refusal, and the linear-time property.

#include "http/request_parser.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "http/syntax.hpp"

namespace callwire::http {
namespace {

struct Outcome {
  ParseStatus status = ParseStatus::Incomplete;
  size_t consumed = 0;
  int http_status = 0;
  std::string method, target, body, host, authorization, content_encoding, content_type;
  HttpVersion version = HttpVersion::Http11;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<uint64_t> content_length;
  bool chunked = false, keep_alive = false, expect_continue = false, gzip = false,
       accept_gzip = false, accepts_trailers = false;

  bool operator==(const Outcome&) const = default;
};

Outcome capture(const RequestParser& p, ParseResult r) {
  Outcome o;
  o.status = r.status;
  o.consumed = r.consumed;
  o.http_status = r.http_status;
  if (r.status != ParseStatus::Complete) return o;
  const Request& q = p.request();
  o.method = q.method;
  o.target = q.target;
  o.body = q.body;
  o.host = q.host;
  o.authorization = q.authorization;
  o.content_encoding = q.content_encoding;
  o.content_type = q.content_type;
  // Kept while parsing so the server need not search: it must be what a search finds.
  EXPECT_EQ(q.content_type, q.find_header("Content-Type"));
  o.version = q.version;
  for (const Header& h : q.headers) o.headers.emplace_back(h.name, h.value);
  o.content_length = q.content_length;
  o.chunked = q.chunked;
  o.keep_alive = q.keep_alive;
  o.expect_continue = q.expect_continue;
  o.gzip = q.content_encoding_gzip;
  o.accept_gzip = q.accept_gzip;
  o.accepts_trailers = q.accepts_trailers;
  return o;
}

Outcome parse_whole(std::string_view input, RequestLimits limits = {}) {
  RequestParser p(limits);
  Buffer body;
  // Copy into exactly-sized storage so that ASan catches a read past the end.
  std::vector<char> exact(input.begin(), input.end());
  return capture(p, p.parse({exact.data(), exact.size()}, body));
}

ParseResult parse_status(std::string_view input, RequestLimits limits = {}) {
  RequestParser p(limits);
  Buffer body;
  return p.parse(input, body);
}

// Feeds input[0, cut) then the whole input, each time from a fresh copy (the buffer moves
// between calls, as a growing receive buffer does).
Outcome parse_split(std::string_view input, size_t cut, ParseResult* first = nullptr,
                    RequestLimits limits = {}) {
  RequestParser p(limits);
  Buffer body;
  std::string part(input.substr(0, cut));
  ParseResult r1 = p.parse(part, body);
  if (first) *first = r1;
  std::string whole(input);
  return capture(p, p.parse(whole, body));
}

Outcome parse_bytewise(std::string_view input, uint64_t* scanned = nullptr,
                       RequestLimits limits = {}) {
  RequestParser p(limits);
  Buffer body;
  std::string grown;
  ParseResult r;
  for (size_t i = 0; i < input.size(); ++i) {
    grown.push_back(input[i]);
    r = p.parse(grown, body);
    if (r.status != ParseStatus::Incomplete) break;
  }
  if (scanned) *scanned = p.bytes_scanned();
  return capture(p, r);
}

// The consistency property every valid request must have.
void expect_split_invariant(std::string_view input, const Outcome& expected) {
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    ParseResult first;
    Outcome o = parse_split(input, cut, &first);
    EXPECT_EQ(o, expected) << "cut at " << cut;
    if (cut < expected.consumed) {
      EXPECT_EQ(first.status, ParseStatus::Incomplete) << "cut at " << cut;
    }
  }
  EXPECT_EQ(parse_bytewise(input), expected);
}

const std::string kPythonBody =
    "<?xml version='1.0'?>\n<methodCall>\n<methodName>sample.add</methodName>\n<params>\n"
    "<param>\n<value><int>2</int></value>\n</param>\n<param>\n<value><int>3</int></value>\n"
    "</param>\n</params>\n</methodCall>\n";

std::string python_request() {
  return "POST /RPC2 HTTP/1.1\r\nHost: localhost:8080\r\nAccept-Encoding: gzip\r\n"
         "Content-Type: text/xml\r\nUser-Agent: Python-xmlrpc/3.11\r\nContent-Length: " +
         std::to_string(kPythonBody.size()) + "\r\n\r\n" + kPythonBody;
}

TEST(RequestParser, TeListingTrailers) {
  // A client that reads chunked answers trailers and all (callwire's client says so): a long
  // answer may be sent to it while it is written.
  for (auto [te, yes] : {std::pair<std::string_view, bool>{"trailers", true},
                         {"TRAILERS", true},
                         {"deflate;q=0.5, trailers", true},
                         {"gzip", false},
                         {"trailersx", false},
                         {"", false}}) {
    SCOPED_TRACE(te);
    std::string req = "POST /RPC2 HTTP/1.1\r\nHost: h\r\nTE: " + std::string(te) +
                      "\r\nConnection: TE\r\nContent-Length: 2\r\n\r\nab";
    Outcome o = parse_whole(req);
    ASSERT_EQ(o.status, ParseStatus::Complete);
    EXPECT_EQ(o.accepts_trailers, yes);
    EXPECT_TRUE(o.keep_alive);
    expect_split_invariant(req, o);
  }
  EXPECT_FALSE(parse_whole(python_request()).accepts_trailers);
}

TEST(RequestParser, PythonXmlrpcClient) {
  std::string req = python_request();
  Outcome o = parse_whole(req);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.consumed, req.size());
  EXPECT_EQ(o.method, "POST");
  EXPECT_EQ(o.target, "/RPC2");
  EXPECT_EQ(o.version, HttpVersion::Http11);
  EXPECT_EQ(o.host, "localhost:8080");
  EXPECT_EQ(o.body, kPythonBody);
  EXPECT_EQ(o.content_length, kPythonBody.size());
  EXPECT_TRUE(o.keep_alive);
  EXPECT_TRUE(o.accept_gzip);
  EXPECT_FALSE(o.chunked);
  EXPECT_FALSE(o.expect_continue);
  ASSERT_EQ(o.headers.size(), 5u);
  EXPECT_EQ(o.headers[3].first, "User-Agent");
  EXPECT_EQ(o.headers[3].second, "Python-xmlrpc/3.11");
  expect_split_invariant(req, o);
}

TEST(RequestParser, Curl) {
  std::string body = "<methodCall><methodName>x</methodName></methodCall>";
  std::string req =
      "POST /RPC2 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: curl/7.88.1\r\n"
      "Accept: */*\r\nContent-Type: text/xml\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  Outcome o = parse_whole(req);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.body, body);
  EXPECT_FALSE(o.accept_gzip);
  expect_split_invariant(req, o);
}

TEST(RequestParser, XmlrpcCCurlClient) {
  // xmlrpc-c's curl transport: Basic auth, 100-continue, deflate/gzip accepted.
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<methodCall>\r\n"
      "<methodName>sample.add</methodName>\r\n</methodCall>\r\n";
  std::string req =
      "POST /RPC2 HTTP/1.1\r\nHost: localhost:8080\r\nAuthorization: Basic "
      "dXNlcjpwYXNz\r\nUser-Agent: Xmlrpc-c/1.59.1 Curl/7.88.1\r\n"
      "Accept: */*\r\nAccept-Encoding: deflate, gzip\r\nContent-Type: text/xml\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\nExpect: 100-continue\r\n\r\n" + body;
  Outcome o = parse_whole(req);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.authorization, "Basic dXNlcjpwYXNz");
  EXPECT_TRUE(o.expect_continue);
  EXPECT_TRUE(o.accept_gzip);
  EXPECT_EQ(o.body, body);
  expect_split_invariant(req, o);
}

const char kChunked[] =
    "POST /RPC2 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
    "Content-Encoding: gzip\r\n\r\n"
    "5;name=value;other=\"quoted\"\r\nhello\r\n"
    "0000000000000007 ; ext\r\n, world\r\n"
    "A\r\n0123456789\r\n"
    "0;last\r\nX-Trailer: yes\r\nX-Other: 1\r\n\r\n";

TEST(RequestParser, ChunkedWithExtensionsAndTrailers) {
  std::string req = kChunked;
  Outcome o = parse_whole(req);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.http_status;
  EXPECT_EQ(o.consumed, req.size());
  EXPECT_TRUE(o.chunked);
  EXPECT_EQ(o.content_length, std::nullopt);
  EXPECT_EQ(o.body, "hello, world0123456789");
  EXPECT_TRUE(o.gzip);
  EXPECT_EQ(o.content_encoding, "gzip");
  expect_split_invariant(req, o);
}

TEST(RequestParser, ChunkedBodyAppendsToCallersBuffer) {
  RequestParser p;
  Buffer body;
  body.append("keep");
  ASSERT_EQ(p.parse(kChunked, body).status, ParseStatus::Complete);
  EXPECT_EQ(body.view(), "keephello, world0123456789");
  EXPECT_EQ(p.request().body, "hello, world0123456789");
}

TEST(RequestParser, BareLfLineEndingsAccepted) {
  std::string req = "POST /x HTTP/1.1\nHost: h\nContent-Length: 3\n\nabc";
  Outcome o = parse_whole(req);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.body, "abc");
  expect_split_invariant(req, o);
  std::string chunked = "POST /x HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n";
  o = parse_whole(chunked);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.body, "abc");
  expect_split_invariant(chunked, o);
}

TEST(RequestParser, NoBodyAndLeadingEmptyLines) {
  std::string req = "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n";
  Outcome o = parse_whole(req);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.consumed, req.size());
  EXPECT_EQ(o.body, "");
  expect_split_invariant(req, o);
  EXPECT_EQ(parse_whole("\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n").http_status, 400);
}

TEST(RequestParser, Pipelined) {
  std::string first = python_request();
  std::string second =
      "POST /two HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "2\r\nok\r\n0\r\n\r\n";
  std::string third = "GET /three HTTP/1.0\r\n\r\n";
  std::string all = first + second + third;
  RequestParser p;
  Buffer body;
  std::string_view rest = all;
  ParseResult r = p.parse(rest, body);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.consumed, first.size());
  EXPECT_EQ(p.request().body, kPythonBody);
  rest.remove_prefix(r.consumed);
  p.reset();
  r = p.parse(rest, body);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.consumed, second.size());
  EXPECT_EQ(p.request().target, "/two");
  EXPECT_EQ(p.request().body, "ok");
  rest.remove_prefix(r.consumed);
  p.reset();
  r = p.parse(rest, body);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.consumed, third.size());
  EXPECT_EQ(p.request().target, "/three");
  EXPECT_FALSE(p.request().keep_alive);
}

TEST(RequestParser, ResultIsStickyUntilReset) {
  RequestParser p;
  Buffer body;
  std::string req = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
  ASSERT_EQ(p.parse(req, body).status, ParseStatus::Complete);
  std::string more = req + "GARBAGE";
  ParseResult r = p.parse(more, body);
  EXPECT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.consumed, req.size());
  p.reset();
  EXPECT_EQ(p.parse("BAD\r\n", body).http_status, 400);
  EXPECT_EQ(p.parse(req, body).http_status, 400);
}

TEST(RequestParser, InputThatShrinksIsRefusedNotOverread) {
  RequestParser p;
  Buffer body;
  EXPECT_EQ(p.parse("POST / HTTP/1.1\r\nHo", body).status, ParseStatus::Incomplete);
  EXPECT_EQ(p.parse("POST", body).http_status, 400);
}

TEST(RequestParser, HeadersCompleteBeforeBody) {
  RequestParser p;
  Buffer body;
  std::string req =
      "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n";
  EXPECT_EQ(p.parse(req, body).status, ParseStatus::Incomplete);
  EXPECT_TRUE(p.headers_complete());
  EXPECT_TRUE(p.request().expect_continue);
  EXPECT_EQ(p.request().content_length, 10u);
  req += "0123456789";
  EXPECT_EQ(p.parse(req, body).status, ParseStatus::Complete);
}

// ---- keep-alive, Expect, encodings

bool keep_alive(const std::string& version, const std::string& connection) {
  std::string req = "GET / " + version + "\r\nHost: h\r\n";
  if (!connection.empty()) req += "Connection: " + connection + "\r\n";
  Outcome o = parse_whole(req + "\r\n");
  EXPECT_EQ(o.status, ParseStatus::Complete);
  return o.keep_alive;
}

TEST(RequestParser, KeepAlive) {
  EXPECT_TRUE(keep_alive("HTTP/1.1", ""));
  EXPECT_FALSE(keep_alive("HTTP/1.1", "close"));
  EXPECT_FALSE(keep_alive("HTTP/1.1", "Upgrade, CLOSE"));
  EXPECT_FALSE(keep_alive("HTTP/1.1", "keep-alive , close"));
  EXPECT_TRUE(keep_alive("HTTP/1.1", "closed, x-close"));
  EXPECT_FALSE(keep_alive("HTTP/1.0", ""));
  EXPECT_TRUE(keep_alive("HTTP/1.0", "Keep-Alive"));
  EXPECT_TRUE(keep_alive("HTTP/1.0", "foo,keep-alive"));
  EXPECT_FALSE(keep_alive("HTTP/1.0", "keep-alive, close"));
}

TEST(RequestParser, ExpectContinueIgnoredInHttp10) {
  Outcome o = parse_whole("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n");
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_FALSE(o.expect_continue);
  o = parse_whole("POST / HTTP/1.1\r\nHost: h\r\nexpect:   100-Continue  \r\n\r\n");
  EXPECT_TRUE(o.expect_continue);
}

bool accept_gzip(const std::string& value) {
  Outcome o = parse_whole("GET / HTTP/1.1\r\nHost: h\r\nAccept-Encoding: " + value + "\r\n\r\n");
  EXPECT_EQ(o.status, ParseStatus::Complete);
  return o.accept_gzip;
}

TEST(RequestParser, AcceptEncoding) {
  EXPECT_TRUE(accept_gzip("gzip"));
  EXPECT_TRUE(accept_gzip("GZIP"));
  EXPECT_TRUE(accept_gzip("deflate, gzip;q=0.5"));
  EXPECT_TRUE(accept_gzip("x-gzip"));
  EXPECT_TRUE(accept_gzip("gzip ; q=1.0, br"));
  EXPECT_FALSE(accept_gzip("gzip;q=0"));
  EXPECT_FALSE(accept_gzip("gzip; q=0.000, deflate"));
  EXPECT_FALSE(accept_gzip("deflate, br"));
  EXPECT_FALSE(accept_gzip("gzipped"));
  EXPECT_FALSE(accept_gzip(""));
  EXPECT_TRUE(accept_gzip("gzip;q=0.001"));
}

TEST(RequestParser, ContentEncoding) {
  Outcome o = parse_whole("POST / HTTP/1.1\r\nHost: h\r\nContent-Encoding: deflate\r\n\r\n");
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_FALSE(o.gzip);
  EXPECT_EQ(o.content_encoding, "deflate");
  EXPECT_EQ(parse_whole("POST / HTTP/1.1\r\nHost: h\r\nContent-Encoding: gzip\r\n"
                        "Content-Encoding: gzip\r\n\r\n")
                .http_status,
            400);
}

TEST(RequestParser, ContentTypeKeptWhileParsing) {
  // The name in any case, the value without the white space around it, the first of two.
  std::string req =
      "POST /RPC2 HTTP/1.1\r\nHost: h\r\ncontent-TYPE: \t application/json; charset=utf-8 \t\r\n"
      "Content-Type: text/xml\r\nContent-Length: 2\r\n\r\n{}";
  Outcome o = parse_whole(req);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.content_type, "application/json; charset=utf-8");
  expect_split_invariant(req, o);

  EXPECT_EQ(parse_whole("POST / HTTP/1.1\r\nHost: h\r\nCONTENT-TYPE:text/xml\r\n\r\n").content_type,
            "text/xml");
  EXPECT_EQ(parse_whole("POST / HTTP/1.1\r\nHost: h\r\nContent-Type:  \r\n\r\n").content_type, "");
  // Names of the same length are not taken for it.
  EXPECT_EQ(parse_whole("POST / HTTP/1.1\r\nHost: h\r\nContent-Typo: x\r\n\r\n").content_type, "");

  // Known with the head, before the body (as content_encoding), and gone after reset().
  RequestParser p;
  Buffer body;
  std::string head =
      "POST / HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
      "Content-Length: 5\r\n\r\n{";
  ASSERT_EQ(p.parse(head, body).status, ParseStatus::Incomplete);
  ASSERT_TRUE(p.headers_complete());
  EXPECT_EQ(p.request().content_type, "application/json");
  p.reset();
  std::string bare = "POST / HTTP/1.1\r\nHost: h\r\n\r\n";
  ASSERT_EQ(p.parse(bare, body).status, ParseStatus::Complete);
  EXPECT_TRUE(p.request().content_type.empty());
}

TEST(RequestParser, HeaderValuesTrimmedAndFound) {
  std::string req = "GET / HTTP/1.1\r\nHost:h\r\nX-Empty:\r\nX-Pad: \t a b \t\r\n\r\n";
  RequestParser p;
  Buffer body;
  ASSERT_EQ(p.parse(req, body).status, ParseStatus::Complete);
  EXPECT_EQ(p.request().host, "h");
  EXPECT_EQ(p.request().find_header("x-pad"), "a b");
  EXPECT_EQ(p.request().find_header("X-EMPTY"), "");
  EXPECT_EQ(p.request().find_header("missing").data(), nullptr);
}

TEST(RequestParser, ObsTextInValueAccepted) {
  EXPECT_EQ(parse_whole("GET / HTTP/1.1\r\nHost: h\r\nX: caf\xc3\xa9\r\n\r\n").status,
            ParseStatus::Complete);
}

// ---- refusals

struct Refusal {
  const char* name;
  std::string request;
  int status;
};

std::vector<Refusal> refusals() {
  const std::string h = "POST / HTTP/1.1\r\nHost: h\r\n";
  return {
      // smuggling
      {"cl_and_te", h + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"te_and_cl", h + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400},
      {"two_cl_different", h + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400},
      {"two_cl_same", h + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400},
      {"cl_list", h + "Content-Length: 3, 3\r\n\r\nabc", 400},
      {"cl_sign", h + "Content-Length: +3\r\n\r\nabc", 400},
      {"cl_negative", h + "Content-Length: -1\r\n\r\n", 400},
      {"cl_hex", h + "Content-Length: 0x3\r\n\r\nabc", 400},
      {"cl_empty", h + "Content-Length: \r\n\r\n", 400},
      {"cl_space_inside", h + "Content-Length: 1 2\r\n\r\n", 400},
      {"cl_overflow", h + "Content-Length: 99999999999999999999999\r\n\r\n", 400},
      {"cl_over_max_body", h + "Content-Length: 33554433\r\n\r\n", 413},
      {"te_gzip", h + "Transfer-Encoding: gzip\r\n\r\n", 501},
      {"te_gzip_chunked", h + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501},
      {"te_chunked_twice", h + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
       501},
      {"te_identity", h + "Transfer-Encoding: identity\r\n\r\n", 501},
      {"te_chunked_suffix", h + "Transfer-Encoding: chunkedx\r\n\r\n", 501},
      {"te_in_http10", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
      // header syntax
      {"no_colon", h + "NoColon\r\n\r\n", 400},
      {"space_before_colon", h + "Content-Length : 3\r\n\r\nabc", 400},
      {"tab_before_colon", h + "X\t: 3\r\n\r\n", 400},
      {"empty_name", h + ": v\r\n\r\n", 400},
      {"obs_fold", h + "X-A: 1\r\n 2\r\n\r\n", 400},
      {"obs_fold_tab", h + "X-A: 1\r\n\t2\r\n\r\n", 400},
      {"space_first_header", "POST / HTTP/1.1\r\n Host: h\r\n\r\n", 400},
      {"bad_name_char", h + "X(A): 1\r\n\r\n", 400},
      {"nul_in_value", h + std::string("X: a\0b\r\n\r\n", 10), 400},
      {"ctl_in_value",
       h + "X: a\x01"
           "b\r\n\r\n",
       400},
      {"del_in_value", h + "X: a\x7f\r\n\r\n", 400},
      {"bare_cr_in_value", h + "X: a\rb\r\n\r\n", 400},
      {"bare_cr_line_end", h + "X: a\r\r\n\r\n", 400},
      {"bare_cr_blank_line", h + "\r\r\n", 400},
      {"missing_host_11", "GET / HTTP/1.1\r\n\r\n", 400},
      {"two_hosts", h + "Host: h\r\n\r\n", 400},
      {"two_authorizations", h + "Authorization: a\r\nAuthorization: b\r\n\r\n", 400},
      // request line
      {"no_version", "GET /\r\n\r\n", 400},
      {"http09", "GET /\r\n", 400},
      {"double_space", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"leading_space", " GET / HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"trailing_space", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400},
      {"tab_separator", "GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"bad_method_char", "GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"empty_target", "GET  HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"ctl_in_target", "GET /\x01 HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"utf8_in_target", "GET /\xc3\xa9 HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"lowercase_http", "GET / http/1.1\r\nHost: h\r\n\r\n", 400},
      {"garbage_version", "GET / HTTPS/1.1\r\nHost: h\r\n\r\n", 400},
      {"http_no_number", "GET / HTTP/\r\nHost: h\r\n\r\n", 400},
      {"http_letters", "GET / HTTP/1.x\r\nHost: h\r\n\r\n", 400},
      {"bare_cr_request_line", "GET / HTTP/1.1\rHost: h\r\n\r\n", 400},
      {"version_09", "GET / HTTP/0.9\r\n\r\n", 505},
      {"version_20", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505},
      {"version_12", "GET / HTTP/1.2\r\nHost: h\r\n\r\n", 505},
      {"version_3", "GET / HTTP/3\r\nHost: h\r\n\r\n", 505},
      {"too_many_empty_lines", "\r\n\n\r\n\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      // chunked framing
      {"chunk_not_hex", h + "Transfer-Encoding: chunked\r\n\r\nxyz\r\n", 400},
      {"chunk_empty_size", h + "Transfer-Encoding: chunked\r\n\r\n\r\n", 400},
      {"chunk_negative", h + "Transfer-Encoding: chunked\r\n\r\n-1\r\n", 400},
      {"chunk_0x", h + "Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", 400},
      {"chunk_overflow", h + "Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", 400},
      {"chunk_over_max_body", h + "Transfer-Encoding: chunked\r\n\r\n2000001\r\n", 413},
      {"chunk_sum_over_max_body",
       h + "Transfer-Encoding: chunked\r\n\r\n1000000\r\n" + std::string(0x1000000, 'a') +
           "\r\n1000001\r\n",
       413},
      {"chunk_missing_crlf", h + "Transfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", 400},
      {"chunk_cr_without_lf", h + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\rX0\r\n\r\n", 400},
      {"chunk_data_too_long", h + "Transfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n", 400},
      {"chunk_trailing_space", h + "Transfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n", 400},
      {"chunk_ext_ctl", h + "Transfer-Encoding: chunked\r\n\r\n3;a\x01\r\nabc\r\n0\r\n\r\n", 400},
      {"chunk_bare_cr", h + "Transfer-Encoding: chunked\r\n\r\n3\rabc\r\n0\r\n\r\n", 400},
      {"trailer_no_colon", h + "Transfer-Encoding: chunked\r\n\r\n0\r\nbad\r\n\r\n", 400},
      {"trailer_obs_fold", h + "Transfer-Encoding: chunked\r\n\r\n0\r\nA: b\r\n c\r\n\r\n", 400},
  };
}

TEST(RequestParser, Refusals) {
  for (const Refusal& r : refusals()) {
    Outcome o = parse_whole(r.request);
    EXPECT_EQ(o.status, ParseStatus::Error) << r.name;
    EXPECT_EQ(o.http_status, r.status) << r.name;
  }
}

// An error, however the input is split, is the same error (or Incomplete on a prefix).
TEST(RequestParser, RefusalsSplitAtEveryOffset) {
  for (const Refusal& r : refusals()) {
    if (r.request.size() > 4096) continue;  // the 16 MiB case: whole only
    Outcome expected = parse_whole(r.request);
    for (size_t cut = 0; cut <= r.request.size(); ++cut) {
      ParseResult first;
      Outcome o = parse_split(r.request, cut, &first);
      ASSERT_EQ(o, expected) << r.name << " cut at " << cut;
      if (first.status == ParseStatus::Error) {
        EXPECT_EQ(first.http_status, r.status) << r.name;
      }
    }
    EXPECT_EQ(parse_bytewise(r.request), expected) << r.name;
  }
}

TEST(RequestParser, ContentLengthOverLimitDecidedBeforeBody) {
  RequestLimits limits;
  limits.max_body = 100;
  EXPECT_EQ(
      parse_status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n", limits).http_status,
      413);
  EXPECT_EQ(
      parse_status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n", limits).status,
      ParseStatus::Incomplete);
}

TEST(RequestParser, ChunkedOverLimitDecidedFromChunkSize) {
  RequestLimits limits;
  limits.max_body = 10;
  std::string h = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(parse_status(h + "6\r\nabcdef\r\n5\r\n", limits).http_status, 413);
  EXPECT_EQ(parse_status(h + "6\r\nabcdef\r\n4\r\nabcd\r\n0\r\n\r\n", limits).status,
            ParseStatus::Complete);
}

TEST(RequestParser, ChunkedWireOverheadBounded) {
  // One-byte chunks with long extensions: the body is small, the wire is not.
  RequestLimits limits;
  limits.max_body = 1000;
  limits.max_header_bytes = 1024;
  std::string req = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 100; ++i) req += "1;" + std::string(100, 'e') + "\r\nx\r\n";
  EXPECT_EQ(parse_status(req, limits).http_status, 413);
}

TEST(RequestParser, ChunkSizeLineLimit) {
  RequestLimits limits;
  limits.max_header_bytes = 256;
  std::string h = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(parse_status(h + "1;" + std::string(300, 'e'), limits).http_status, 400);
  EXPECT_EQ(parse_status(h + "1;" + std::string(300, 'e') + "\r\n", limits).http_status, 400);
}

TEST(RequestParser, HeaderBytesLimit) {
  RequestLimits limits;
  limits.max_header_bytes = 64;
  std::string base = "GET / HTTP/1.1\r\nHost: h\r\nX: ";  // 28 bytes
  // Exactly at the limit: 28 + 32 + 2 + 2 = 64.
  std::string at = base + std::string(32, 'a') + "\r\n\r\n";
  ASSERT_EQ(at.size(), 64u);
  EXPECT_EQ(parse_status(at, limits).status, ParseStatus::Complete);
  std::string over = base + std::string(33, 'a') + "\r\n\r\n";
  EXPECT_EQ(parse_status(over, limits).http_status, 431);
  // Decided without waiting for the end of the line.
  EXPECT_EQ(parse_status(base + std::string(100, 'a'), limits).http_status, 431);
  // And consistent at every split.
  Outcome expected = parse_whole(over, limits);
  for (size_t cut = 0; cut <= over.size(); ++cut) {
    EXPECT_EQ(parse_split(over, cut, nullptr, limits), expected) << cut;
  }
  // Default limit: a 17 KiB header.
  EXPECT_EQ(
      parse_status("GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(17 * 1024, 'a')).http_status,
      431);
}

TEST(RequestParser, TooManyHeaders) {
  RequestLimits limits;
  limits.max_headers = 4;
  std::string req = "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n";
  EXPECT_EQ(parse_status(req + "\r\n", limits).status, ParseStatus::Complete);
  EXPECT_EQ(parse_status(req + "D: 4\r\n\r\n", limits).http_status, 431);
  std::string many = "GET / HTTP/1.1\r\nHost: h\r\n";
  for (int i = 0; i < 64; ++i) many += "X: 1\r\n";
  EXPECT_EQ(parse_status(many + "\r\n").http_status, 431);
}

TEST(RequestParser, TrailerLimits) {
  RequestLimits limits;
  limits.max_headers = 2;
  std::string h = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
  EXPECT_EQ(parse_status(h + "A: 1\r\nB: 2\r\n\r\n", limits).status, ParseStatus::Complete);
  EXPECT_EQ(parse_status(h + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits).http_status, 431);
  limits = {};
  limits.max_header_bytes = 100;
  EXPECT_EQ(parse_status(h + "A: " + std::string(200, 'a'), limits).http_status, 431);
}

// ---- linear time

TEST(RequestParser, SlowlorisHeaderIsLinear) {
  // A 16 KiB header section sent one byte at a time: every call rescans nothing.
  std::string req = "POST /RPC2 HTTP/1.1\r\nHost: h\r\n";
  while (req.size() < 16 * 1024 - 100) req += "X-Filler: " + std::string(50, 'f') + "\r\n";
  req += "Content-Length: 0\r\n\r\n";
  RequestLimits limits;
  limits.max_headers = 1000;
  uint64_t scanned = 0;
  Outcome o = parse_bytewise(req, &scanned, limits);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.http_status;
  EXPECT_EQ(o.consumed, req.size());
  EXPECT_LE(scanned, 2 * req.size());
  // A single line of 16 KiB (the worst case for a line scanner), one byte at a time.
  std::string one_line = "POST / HTTP/1.1\r\nHost: h\r\nX: " + std::string(16000, 'v') + "\r\n\r\n";
  o = parse_bytewise(one_line, &scanned);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_LE(scanned, 2 * one_line.size());
}

TEST(RequestParser, SlowChunkedBodyIsLinear) {
  std::string req = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 200; ++i)
    req += "10;ext=" + std::string(40, 'e') + "\r\n0123456789abcdef\r\n";
  req += "0\r\nT: 1\r\n\r\n";
  uint64_t scanned = 0;
  Outcome o = parse_bytewise(req, &scanned);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.http_status;
  EXPECT_EQ(o.body.size(), 200u * 16);
  EXPECT_LE(scanned, 2 * req.size());
}

}  // namespace
}  // namespace callwire::http

namespace {
bool reference_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y + 32);
    if (x != y) return false;
  }
  return true;
}
}  // namespace

// The eight-bytes-at-a-time comparison agrees with the byte-by-byte definition on every byte
// value (letters, '@' '[' '`' '{' next to them, controls, bytes >= 0x80), at every length.
TEST(Iequals, AgreesWithTheBytewiseDefinition) {
  std::mt19937 rng(7);
  const std::string alphabet = "AZazMm@[`{-_09\r\t\x7f\x80\xc1\xdb\xe1\xfa\xff";
  for (int round = 0; round < 20000; ++round) {
    size_t n = rng() % 24;
    std::string a(n, ' '), b(n, ' ');
    for (size_t i = 0; i < n; ++i) {
      a[i] = rng() % 2 ? alphabet[rng() % alphabet.size()] : char(rng());
      b[i] = a[i];
      if (rng() % 3 == 0) b[i] = char(b[i] ^ 0x20);  // a case flip, or another byte
      if (rng() % 17 == 0) b[i] = char(rng());
    }
    ASSERT_EQ(callwire::http::iequals(a, b), reference_iequals(a, b)) << a << " / " << b;
  }
  EXPECT_TRUE(callwire::http::iequals("Content-Length", "content-length"));
  EXPECT_FALSE(callwire::http::iequals("Content-Length", "content-lengtx"));
  EXPECT_FALSE(callwire::http::iequals("@ontent-length", "`ontent-length"));
}

// The sixteen-at-a-time scan of a field name agrees with the byte table: the colon found at
// the same place, and the same error, for every byte value at every position and length.
TEST(FieldLine, NameScanAgreesWithTheByteTable) {
  namespace syntax = callwire::http::syntax;
  auto reference = [](std::string_view line, size_t& colon) {
    size_t i = 0;
    while (i < line.size() && syntax::is_tchar(static_cast<unsigned char>(line[i]))) ++i;
    if (i == line.size()) return syntax::FieldLineError::NoColon;
    if (line[i] != ':')
      return line.find(':', i) == std::string_view::npos ? syntax::FieldLineError::NoColon
                                                         : syntax::FieldLineError::BadName;
    if (i == 0) return syntax::FieldLineError::NoColon;
    colon = i;
    return syntax::is_field_value(line.substr(i + 1)) ? syntax::FieldLineError::None
                                                      : syntax::FieldLineError::BadValue;
  };
  auto check = [&](const std::string& line) {
    size_t colon = 0, expected_colon = 0;
    auto error = syntax::scan_field_line(line, colon);
    ASSERT_EQ(error, reference(line, expected_colon)) << line;
    if (error == syntax::FieldLineError::None) {
      ASSERT_EQ(colon, expected_colon) << line;
    }
  };
  const std::string name_chars = "abcxyzABCXYZ0189-_.!~`|^";
  std::mt19937 rng(5);
  for (int round = 0; round < 50000; ++round) {
    std::string line(rng() % 48, 'a');
    for (char& c : line) c = name_chars[rng() % name_chars.size()];
    if (!line.empty() && rng() % 8) line[rng() % line.size()] = ':';
    if (!line.empty() && rng() % 3 == 0) line[rng() % line.size()] = char(rng());
    check(line + ": v");
    check(line);
  }
  for (int c = 0; c < 256; ++c) {
    for (size_t at : {size_t{0}, size_t{7}, size_t{15}, size_t{16}, size_t{20}}) {
      std::string line = "X-Abcdefghij-Klmnopq-Rst: value";
      line[at] = char(c);
      check(line);
    }
  }
}

// The sixteen-at-a-time LF search finds the first LF wherever it is (in the vector steps or
// the byte tail, with bytes of every value around it), and reads nothing past the end it is
// given: the bytes after `end` hold an LF it must not report.
TEST(FindLf, FirstLfAtEveryPositionAndLength) {
  namespace syntax = callwire::http::syntax;
  std::mt19937 rng(12);
  for (size_t length = 0; length <= 70; ++length) {
    for (size_t lf = 0; lf <= length; ++lf) {  // lf == length: none in range
      std::string bytes(length + 16, '\n');
      for (size_t i = 0; i < length; ++i) {
        char c = char(rng());
        bytes[i] = c == '\n' ? 'x' : c;
      }
      if (lf < length) bytes[lf] = '\n';
      if (lf + 1 < length) bytes[length - 1] = '\n';  // a later LF: the first must win
      const char* found = syntax::find_lf(bytes.data(), bytes.data() + length);
      if (lf < length) {
        ASSERT_EQ(found, bytes.data() + lf) << length << " " << lf;
      } else {
        ASSERT_EQ(found, nullptr) << length;
      }
    }
  }
}

// The word-at-a-time value check agrees with the byte table for every byte value at every
// position and length.
TEST(FieldValue, WordCheckAgreesWithTheByteTable) {
  namespace syntax = callwire::http::syntax;
  std::mt19937 rng(11);
  for (int round = 0; round < 20000; ++round) {
    std::string v(rng() % 40, 'a');
    for (char& c : v) c = rng() % 4 ? char(0x20 + rng() % 0x5f) : char(rng());
    bool expected = true;
    for (char c : v) expected = expected && syntax::is_value_char(static_cast<unsigned char>(c));
    ASSERT_EQ(syntax::is_field_value(v), expected);
  }
  for (int c = 0; c < 256; ++c) {
    std::string v = "0123456789abcdef0123";
    v[rng() % v.size()] = char(c);
    EXPECT_EQ(syntax::is_field_value(v), syntax::is_value_char(static_cast<unsigned char>(c))) << c;
  }
}
