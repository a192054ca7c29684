// Unit tests of the HTTP/1.1 response parser: real servers' responses (Python's
// SimpleXMLRPCServer, xmlrpc-c's Abyss, nginx) split at every byte offset and fed a byte at a
// time, interim responses, the end of the connection, every refusal with its message, lying
// lengths, and the linear-time property.

#include "http/response_parser.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "http/gzip.hpp"
#include "http/response_writer.hpp"

namespace callwire::http {
namespace {

template <size_t N>
std::string bin(const char (&lit)[N]) {
  return std::string(lit, N - 1);  // keeps NUL bytes
}

struct Outcome {
  ParseStatus status = ParseStatus::Incomplete;
  size_t consumed = 0;
  ResponseError error = ResponseError::None;
  std::string message;
  HttpVersion version = HttpVersion::Http11;
  int code = 0;
  std::string reason, body, content_encoding, content_type, www_authenticate;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<uint64_t> content_length;
  bool chunked = false, keep_alive = false, gzip = false;

  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << "{status " << int(o.status) << ", consumed " << o.consumed << ", error "
            << int(o.error) << " '" << o.message << "', code " << o.code << ", body "
            << o.body.size() << " bytes}";
}

Outcome capture(const ResponseParser& p, ResponseParseResult r) {
  Outcome o;
  o.status = r.status;
  o.consumed = r.consumed;
  o.error = r.error;
  o.message = p.error();
  if (r.status != ParseStatus::Complete) return o;
  const Response& q = p.response();
  o.version = q.version;
  o.code = q.status;
  o.reason = q.reason;
  o.body = q.body;
  o.content_encoding = q.content_encoding;
  o.content_type = q.content_type;
  o.www_authenticate = q.www_authenticate;
  for (const Header& h : q.headers) o.headers.emplace_back(h.name, h.value);
  o.content_length = q.content_length;
  o.chunked = q.chunked;
  o.keep_alive = q.keep_alive;
  o.gzip = q.content_encoding_gzip;
  return o;
}

ResponseParseResult feed(ResponseParser& p, std::string_view input, Buffer& body, bool eof) {
  return eof ? p.parse_eof(input, body) : p.parse(input, body);
}

Outcome parse_whole(std::string_view input, bool eof = false, ResponseLimits limits = {}) {
  ResponseParser p(limits);
  Buffer body;
  // Exactly-sized storage so that ASan catches a read past the end.
  std::vector<char> exact(input.begin(), input.end());
  return capture(p, feed(p, {exact.data(), exact.size()}, body, eof));
}

// Feeds input[0, cut) then the whole input (with parse_eof when `eof`), each from a fresh
// copy: the buffer moves between calls, as a growing receive buffer does.
Outcome parse_split(std::string_view input, size_t cut, bool eof,
                    ResponseParseResult* first = nullptr, ResponseLimits limits = {}) {
  ResponseParser p(limits);
  Buffer body;
  std::string part(input.substr(0, cut));
  ResponseParseResult r1 = p.parse(part, body);
  if (first) *first = r1;
  std::string whole(input);
  return capture(p, feed(p, whole, body, eof));
}

Outcome parse_bytewise(std::string_view input, bool eof, uint64_t* scanned = nullptr,
                       ResponseLimits limits = {}) {
  ResponseParser p(limits);
  Buffer body;
  std::string grown;
  ResponseParseResult r;
  for (size_t i = 0; i < input.size(); ++i) {
    grown.push_back(input[i]);
    r = p.parse(grown, body);
    if (r.status != ParseStatus::Incomplete) break;
  }
  if (eof && r.status == ParseStatus::Incomplete) r = p.parse_eof(grown, body);
  if (scanned) *scanned = p.bytes_scanned();
  return capture(p, r);
}

void expect_split_invariant(std::string_view input, const Outcome& expected, bool eof = false) {
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    ResponseParseResult first;
    Outcome o = parse_split(input, cut, eof, &first);
    ASSERT_EQ(o, expected) << "cut at " << cut;
    if (cut < expected.consumed && !eof) {
      EXPECT_EQ(first.status, ParseStatus::Incomplete) << "cut at " << cut;
    }
  }
  EXPECT_EQ(parse_bytewise(input, eof), expected);
}

// ---- real servers (bytes captured from the running servers, Debian 12)

// Python 3.11 xmlrpc.server.SimpleXMLRPCServer answering sample.add(2, 3).
const std::string kPython =
    "HTTP/1.0 200 OK\r\n"
    "Server: BaseHTTP/0.6 Python/3.11.7\r\n"
    "Date: Sun, 22 Nov 2026 00:22:48 GMT\r\n"
    "Content-type: text/xml\r\n"
    "Content-length: 121\r\n"
    "\r\n"
    "<?xml version='1.0'?>\n"
    "<methodResponse>\n"
    "<params>\n"
    "<param>\n"
    "<value><int>5</int></value>\n"
    "</param>\n"
    "</params>\n"
    "</methodResponse>\n";

TEST(ResponseParser, PythonSimpleXmlrpcServer) {
  Outcome o = parse_whole(kPython);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.consumed, kPython.size());
  EXPECT_EQ(o.version, HttpVersion::Http10);
  EXPECT_EQ(o.code, 200);
  EXPECT_EQ(o.reason, "OK");
  EXPECT_FALSE(o.keep_alive);  // HTTP/1.0 without keep-alive
  EXPECT_EQ(o.content_length, 121u);
  EXPECT_EQ(o.content_type, "text/xml");
  EXPECT_EQ(o.body.size(), 121u);
  EXPECT_EQ(o.body.substr(0, 21), "<?xml version='1.0'?>");
  ASSERT_EQ(o.headers.size(), 4u);
  EXPECT_EQ(o.headers[0],
            std::make_pair(std::string("Server"), std::string("BaseHTTP/0.6 Python/3.11.7")));
  expect_split_invariant(kPython, o);
  // At the end of the connection, the same.
  expect_split_invariant(kPython, o, /*eof=*/true);
}

TEST(ResponseParser, PythonFault) {
  std::string r =
      "HTTP/1.0 200 OK\r\n"
      "Server: BaseHTTP/0.6 Python/3.11.7\r\n"
      "Date: Sun, 22 Nov 2026 00:22:48 GMT\r\n"
      "Content-type: text/xml\r\n"
      "Content-length: 311\r\n"
      "\r\n"
      "<?xml version='1.0'?>\n"
      "<methodResponse>\n"
      "<fault>\n"
      "<value><struct>\n"
      "<member>\n"
      "<name>faultCode</name>\n"
      "<value><int>1</int></value>\n"
      "</member>\n"
      "<member>\n"
      "<name>faultString</name>\n"
      "<value><string>&lt;class 'Exception'&gt;:method \"nope\" is not supported</string></value>\n"
      "</member>\n"
      "</struct></value>\n"
      "</fault>\n"
      "</methodResponse>\n";
  Outcome o = parse_whole(r);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.body.size(), 311u);
  EXPECT_EQ(o.consumed, r.size());
}

// xmlrpc-c 1.33.14's Abyss server (xmlrpc_server_abyss), sample.add(2, 3), Connection: close.
const std::string kAbyssClose =
    "HTTP/1.1 200 OK\r\n"
    "Content-type: text/xml; charset=utf-8\r\n"
    "Content-length: 140\r\n"
    "Connection: close\r\n"
    "Date: Sun, 22 Nov 2026 00:22:53 UTC\r\n"
    "Server: Xmlrpc-c_Abyss/1.33.14\r\n"
    "\r\n"
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n"
    "<methodResponse>\r\n"
    "<params>\r\n"
    "<param><value><i4>5</i4></value></param>\r\n"
    "</params>\r\n"
    "</methodResponse>\r\n";

// The same server on a kept-alive connection, sample.add(1, 1).
const std::string kAbyssKeepAlive =
    "HTTP/1.1 200 OK\r\n"
    "Content-type: text/xml; charset=utf-8\r\n"
    "Content-length: 140\r\n"
    "Connection: Keep-Alive\r\n"
    "Keep-Alive: timeout=15, max=30\r\n"
    "Date: Sun, 22 Nov 2026 00:22:56 UTC\r\n"
    "Server: Xmlrpc-c_Abyss/1.33.14\r\n"
    "\r\n"
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n"
    "<methodResponse>\r\n"
    "<params>\r\n"
    "<param><value><i4>2</i4></value></param>\r\n"
    "</params>\r\n"
    "</methodResponse>\r\n";

// The same server answering GET: no Content-Length, the body ends with the connection.
const std::string kAbyss405 =
    "HTTP/1.1 405 Method Not Allowed\r\n"
    "Content-type: text/html\r\n"
    "Connection: close\r\n"
    "Date: Sun, 22 Nov 2026 00:22:57 UTC\r\n"
    "Server: Xmlrpc-c_Abyss/1.33.14\r\n"
    "\r\n"
    "<HTML><HEAD><TITLE>Error 405</TITLE></HEAD><BODY><H1>Error 405</H1><P>POST is the only HTTP "
    "method this server understands</P><p><HR><b><i><a href=\"http://xmlrpc-c.sourceforge.net\">"
    "ABYSS Web Server for XML-RPC For C/C++</a></i></b> version 1.33.14<br></p></BODY></HTML>";

TEST(ResponseParser, XmlrpcCAbyss) {
  Outcome o = parse_whole(kAbyssClose);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.version, HttpVersion::Http11);
  EXPECT_FALSE(o.keep_alive);
  EXPECT_EQ(o.content_type, "text/xml; charset=utf-8");
  EXPECT_EQ(o.body.size(), 140u);
  EXPECT_EQ(o.body.substr(o.body.size() - 19), "</methodResponse>\r\n");
  expect_split_invariant(kAbyssClose, o);

  o = parse_whole(kAbyssKeepAlive);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_TRUE(o.keep_alive);
  EXPECT_EQ(o.consumed, kAbyssKeepAlive.size());
  expect_split_invariant(kAbyssKeepAlive, o);
}

TEST(ResponseParser, XmlrpcCAbyssErrorBodyUntilEof) {
  ResponseParser p;
  Buffer body;
  ResponseParseResult r = p.parse(kAbyss405, body);
  EXPECT_EQ(r.status, ParseStatus::Incomplete);  // only the end of the connection ends it
  EXPECT_TRUE(p.headers_complete());
  EXPECT_EQ(p.response().status, 405);
  Outcome o = capture(p, p.parse_eof(kAbyss405, body));
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.consumed, kAbyss405.size());
  EXPECT_EQ(o.code, 405);
  EXPECT_EQ(o.reason, "Method Not Allowed");
  EXPECT_EQ(o.content_type, "text/html");
  EXPECT_EQ(o.content_length, std::nullopt);
  EXPECT_FALSE(o.keep_alive);
  EXPECT_EQ(o.body.substr(0, 6), "<HTML>");
  EXPECT_EQ(o.body.size(), kAbyss405.size() - kAbyss405.find("<HTML>"));
  expect_split_invariant(kAbyss405, o, /*eof=*/true);
  // A body until the end is never over the limit unnoticed.
  ResponseLimits limits;
  limits.max_body = 100;
  o = parse_whole(kAbyss405, false, limits);
  EXPECT_EQ(o.error, ResponseError::TooLarge);
  EXPECT_EQ(o.message, "response body over the 100-byte limit");
}

// nginx 1.22.1 (echo module, echo_flush between two writes): chunked.
const std::string kNginxChunked =
    "HTTP/1.1 200 OK\r\n"
    "Server: nginx/1.22.1\r\n"
    "Date: Sun, 22 Nov 2026 00:23:02 GMT\r\n"
    "Content-Type: text/xml\r\n"
    "Transfer-Encoding: chunked\r\n"
    "Connection: keep-alive\r\n"
    "\r\n"
    "15\r\n"
    "<?xml version=\"1.0\"?>\r\n"
    "5d\r\n"
    "<methodResponse><params><param><value><int>5</int></value></param></params></methodResponse>\n"
    "\r\n"
    "0\r\n"
    "\r\n";

// nginx with `gzip on`: gzip inside chunked.
const std::string kNginxGzip =
    bin("HTTP/1.1 200 OK\r\n"
        "Server: nginx/1.22.1\r\n"
        "Date: Sun, 22 Nov 2026 00:23:03 GMT\r\n"
        "Content-Type: text/xml\r\n"
        "Transfer-Encoding: chunked\r\n"
        "Connection: keep-alive\r\n"
        "Content-Encoding: gzip\r\n"
        "\r\n"
        "6d\r\n"
        "\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\x03\xb3\xb1\xaf\xc8\xcdQ(K-*\xce\xcc\xcf\xb3U2\xd4"
        "3P\xb2\xb7\xb3\xc9M-\xc9\xc8O\x09J-.\xc8\xcf+N\xb5\xb3)H,J\xcc-\x86\xd2v6e\x89"
        "9\xa5@\xd1\xe2\x92\xa2\xcc\xbct\xbb\x8c\xd4\x9c\x9c|\x05\x0c\xd2"
        "F\x1f*o\xa3\x0fU\xaf\x0f"
        "6\xc6\xce\x06"
        "B\x03\x8d\xd3G\xb3\x87\x0b\x00\xcd\x05\x84u\x8e\x00\x00\x00\r\n"
        "0\r\n"
        "\r\n");

TEST(ResponseParser, NginxChunked) {
  Outcome o = parse_whole(kNginxChunked);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.consumed, kNginxChunked.size());
  EXPECT_TRUE(o.chunked);
  EXPECT_TRUE(o.keep_alive);
  EXPECT_EQ(o.body,
            "<?xml version=\"1.0\"?><methodResponse><params><param><value><int>5</int></value>"
            "</param></params></methodResponse>\n");
  expect_split_invariant(kNginxChunked, o);
}

TEST(ResponseParser, NginxGzipInsideChunked) {
  Outcome o = parse_whole(kNginxGzip);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_TRUE(o.gzip);
  EXPECT_EQ(o.content_encoding, "gzip");
  EXPECT_EQ(o.body.size(), 0x6du);
  Buffer xml;
  ASSERT_EQ(gzip_inflate(o.body, xml, 1 << 20), InflateStatus::Ok);
  EXPECT_EQ(xml.view(),
            "<?xml version=\"1.0\"?><methodResponse><params><param><value><string>hello hello "
            "hello hello</string></value></param></params></methodResponse>\n");
  expect_split_invariant(kNginxGzip, o);
}

TEST(ResponseParser, ChunkedBodyAppendsToCallersBuffer) {
  ResponseParser p;
  Buffer body;
  body.append("keep");
  ASSERT_EQ(p.parse(kNginxChunked, body).status, ParseStatus::Complete);
  EXPECT_EQ(body.view().substr(0, 4), "keep");
  EXPECT_EQ(p.response().body, body.view().substr(4));
}

TEST(ResponseParser, ChunkExtensionsTrailersAndBareLf) {
  std::string r =
      "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n"
      "5;name=value;q=\"x\"\nhello\n000000007 ; e\r\n, world\r\n0\nX-Trailer: 1\n\n";
  Outcome o = parse_whole(r);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.body, "hello, world");
  EXPECT_EQ(o.consumed, r.size());
  expect_split_invariant(r, o);
}

// ---- interim responses

TEST(ResponseParser, InterimResponsesSkipped) {
  std::string r = "HTTP/1.1 100 Continue\r\n\r\n" + kAbyssKeepAlive;
  Outcome o = parse_whole(r);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.code, 200);
  EXPECT_EQ(o.consumed, r.size());
  EXPECT_EQ(o.body.size(), 140u);
  EXPECT_EQ(o.headers.size(), 6u);  // the final response's only
  expect_split_invariant(r, o);

  std::string several =
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\nX-A: 1\r\n\r\n"
      "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nContent-Length: 99\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  o = parse_whole(several);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.body, "ok");
  EXPECT_EQ(o.headers.size(), 1u);
  expect_split_invariant(several, o);

  std::string sixteen;
  for (int i = 0; i < 16; ++i) sixteen += "HTTP/1.1 100 Continue\r\n\r\n";
  EXPECT_EQ(parse_whole(sixteen + "HTTP/1.1 204 No Content\r\n\r\n").status, ParseStatus::Complete);
  o = parse_whole(sixteen + "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n");
  EXPECT_EQ(o.error, ResponseError::Malformed);
  EXPECT_EQ(o.message, "more than 16 interim (1xx) responses");
}

TEST(ResponseParser, NoBodyFor204And304) {
  std::string r = "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nnext";
  Outcome o = parse_whole(r);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.body, "");
  EXPECT_EQ(o.consumed, r.size() - 4);
  expect_split_invariant(r, o);
  o = parse_whole("HTTP/1.1 304 Not Modified\r\n\r\n");
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_TRUE(o.keep_alive);
}

TEST(ResponseParser, KeptAliveConnectionCarriesTheNextResponse) {
  std::string two =
      kAbyssKeepAlive + kNginxChunked + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  ResponseParser p;
  Buffer body;
  std::string_view rest = two;
  ResponseParseResult r = p.parse(rest, body);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.consumed, kAbyssKeepAlive.size());
  rest.remove_prefix(r.consumed);
  p.reset();
  body.clear();
  r = p.parse(rest, body);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.consumed, kNginxChunked.size());
  EXPECT_TRUE(p.response().chunked);
  rest.remove_prefix(r.consumed);
  p.reset();
  r = p.parse(rest, body);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(p.response().body, "");
  EXPECT_EQ(p.response().content_length, 0u);
}

TEST(ResponseParser, StickyUntilReset) {
  ResponseParser p;
  Buffer body;
  std::string r = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
  ASSERT_EQ(p.parse(r, body).status, ParseStatus::Complete);
  ResponseParseResult again = p.parse_eof(r + "garbage", body);
  EXPECT_EQ(again.status, ParseStatus::Complete);
  EXPECT_EQ(again.consumed, r.size());
  p.reset();
  EXPECT_EQ(p.parse("BAD\r\n", body).status, ParseStatus::Error);
  EXPECT_EQ(p.error(), "malformed status line");
  EXPECT_EQ(p.parse(r, body).status, ParseStatus::Error);
  p.reset();
  EXPECT_EQ(p.error(), "");
  EXPECT_EQ(p.parse(r, body).status, ParseStatus::Complete);
}

TEST(ResponseParser, InputThatShrinksIsRefusedNotOverread) {
  ResponseParser p;
  Buffer body;
  EXPECT_EQ(p.parse("HTTP/1.1 200 OK\r\nCon", body).status, ParseStatus::Incomplete);
  EXPECT_EQ(p.parse("HTTP", body).status, ParseStatus::Error);
}

TEST(ResponseParser, StatusLineVariants) {
  auto reason = [](std::string line) {
    Outcome o = parse_whole(line + "\r\nContent-Length: 0\r\n\r\n");
    EXPECT_EQ(o.status, ParseStatus::Complete) << line << ": " << o.message;
    return o.reason;
  };
  EXPECT_EQ(reason("HTTP/1.1 200 OK"), "OK");
  EXPECT_EQ(reason("HTTP/1.1 200 "), "");
  EXPECT_EQ(reason("HTTP/1.1 200"), "");  // tolerated
  EXPECT_EQ(reason("HTTP/1.1 500 Internal  Server\tError "), "Internal  Server\tError ");
  EXPECT_EQ(reason("HTTP/1.1 200 caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(reason("HTTP/1.1 599 Whatever"), "Whatever");
  Outcome o = parse_whole("HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(o.version, HttpVersion::Http11);
  o = parse_whole("\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(o.status, ParseStatus::Complete);
}

bool keep_alive(const std::string& version, const std::string& connection) {
  std::string r = version + " 200 OK\r\nContent-Length: 0\r\n";
  if (!connection.empty()) r += "Connection: " + connection + "\r\n";
  Outcome o = parse_whole(r + "\r\n");
  EXPECT_EQ(o.status, ParseStatus::Complete);
  return o.keep_alive;
}

TEST(ResponseParser, KeepAlive) {
  EXPECT_TRUE(keep_alive("HTTP/1.1", ""));
  EXPECT_FALSE(keep_alive("HTTP/1.1", "close"));
  EXPECT_FALSE(keep_alive("HTTP/1.1", "Keep-Alive, Close"));
  EXPECT_TRUE(keep_alive("HTTP/1.1", "closed"));
  EXPECT_FALSE(keep_alive("HTTP/1.0", ""));
  EXPECT_TRUE(keep_alive("HTTP/1.0", "keep-alive"));
  EXPECT_FALSE(keep_alive("HTTP/1.0", "keep-alive, close"));
  // A body that ends with the connection cannot keep it.
  Outcome o = parse_whole("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\nabc", true);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_FALSE(o.keep_alive);
  EXPECT_EQ(o.body, "abc");
}

TEST(ResponseParser, FieldsReported) {
  std::string r =
      "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\n"
      "WWW-Authenticate: Bearer\r\nContent-Type:text/plain\r\nContent-Type: text/html\r\n"
      "Content-Encoding: x-gzip\r\nX-Pad: \t a b \t\r\nContent-Length: 0\r\n\r\n";
  ResponseParser p;
  Buffer body;
  ASSERT_EQ(p.parse(r, body).status, ParseStatus::Complete) << p.error();
  const Response& q = p.response();
  EXPECT_EQ(q.status, 401);
  EXPECT_EQ(q.www_authenticate, "Basic realm=\"x\"");
  EXPECT_EQ(q.content_type, "text/plain");
  EXPECT_TRUE(q.content_encoding_gzip);
  EXPECT_EQ(q.find_header("x-pad"), "a b");
  EXPECT_EQ(q.find_header("missing").data(), nullptr);
  Outcome o = parse_whole("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 0\r\n\r\n");
  EXPECT_FALSE(o.gzip);
  EXPECT_EQ(o.content_encoding, "br");
}

// ---- refusals

struct Refusal {
  const char* name;
  std::string response;
  ResponseError kind;
  std::string message;
};

std::vector<Refusal> refusals() {
  const std::string h = "HTTP/1.1 200 OK\r\n";
  const std::string te = h + "Transfer-Encoding: chunked\r\n\r\n";
  const auto M = ResponseError::Malformed;
  const auto L = ResponseError::TooLarge;
  return {
      // status line
      {"http2", "HTTP/2 200 OK\r\n\r\n", M, "malformed status line"},
      {"http20", "HTTP/2.0 200 OK\r\n\r\n", M, "unsupported HTTP version HTTP/2.0"},
      {"http09", "HTTP/0.9 200 OK\r\n\r\n", M, "unsupported HTTP version HTTP/0.9"},
      {"lowercase", "http/1.1 200 OK\r\n\r\n", M, "malformed status line"},
      {"icy", "ICY 200 OK\r\n\r\n", M, "malformed status line"},
      {"html", "<html><body>hello</body></html>\r\n", M, "malformed status line"},
      {"two_digit_status", "HTTP/1.1 20 OK\r\n\r\n", M, "malformed status line"},
      {"four_digit_status", "HTTP/1.1 2000 OK\r\n\r\n", M, "malformed status line"},
      {"status_letters", "HTTP/1.1 2x0 OK\r\n\r\n", M, "malformed status line"},
      {"status_099", "HTTP/1.1 099 Low\r\n\r\n", M, "status code 99 out of range"},
      {"status_600", "HTTP/1.1 600 High\r\n\r\n", M, "status code 600 out of range"},
      {"double_space", "HTTP/1.1  200 OK\r\n\r\n", M, "malformed status line"},
      {"tab_separator", "HTTP/1.1\t200 OK\r\n\r\n", M, "malformed status line"},
      {"ctl_in_reason", "HTTP/1.1 200 O\x01K\r\n\r\n", M, "control character in the status line"},
      {"bare_cr_in_reason", "HTTP/1.1 200 O\rK\r\n\r\n", M, "control character in the status line"},
      {"switching_protocols", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", M,
       "unexpected 101 Switching Protocols"},
      {"too_many_empty_lines", "\r\n\r\n\n\r\n\n" + h + "\r\n", M,
       "empty lines instead of a status line"},
      // smuggling and framing
      {"cl_and_te", h + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", M,
       "Content-Length and Transfer-Encoding together"},
      {"te_and_cl", h + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", M,
       "Content-Length and Transfer-Encoding together"},
      {"two_cl_same", h + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", M,
       "repeated Content-Length"},
      {"two_cl_different", h + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", M,
       "repeated Content-Length"},
      {"cl_list", h + "Content-Length: 3, 3\r\n\r\nabc", M, "invalid Content-Length"},
      {"cl_sign", h + "Content-Length: +3\r\n\r\nabc", M, "invalid Content-Length"},
      {"cl_negative", h + "Content-Length: -1\r\n\r\n", M, "invalid Content-Length"},
      {"cl_empty", h + "Content-Length:\r\n\r\n", M, "invalid Content-Length"},
      {"cl_hex", h + "Content-Length: 0x10\r\n\r\n", M, "invalid Content-Length"},
      {"cl_overflow", h + "Content-Length: 184467440737095516160\r\n\r\n", M,
       "invalid Content-Length"},
      {"te_gzip", h + "Transfer-Encoding: gzip\r\n\r\n", M, "unsupported Transfer-Encoding"},
      {"te_gzip_chunked", h + "Transfer-Encoding: gzip, chunked\r\n\r\n", M,
       "unsupported Transfer-Encoding"},
      {"te_chunked_twice", h + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
       M, "unsupported Transfer-Encoding"},
      {"te_in_http10", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", M,
       "Transfer-Encoding in an HTTP/1.0 response"},
      {"two_content_encodings", h + "Content-Encoding: gzip\r\nContent-Encoding: gzip\r\n\r\n", M,
       "repeated Content-Encoding"},
      // header syntax
      {"obs_fold", h + "X-A: 1\r\n 2\r\n\r\n", M, "folded header line (obs-fold)"},
      {"obs_fold_tab", h + "X-A: 1\r\n\t2\r\n\r\n", M, "folded header line (obs-fold)"},
      {"space_before_colon", h + "Content-Length : 3\r\n\r\nabc", M, "malformed header field name"},
      {"no_colon", h + "NoColon\r\n\r\n", M, "malformed header field"},
      {"empty_name", h + ": v\r\n\r\n", M, "malformed header field"},
      {"bad_name_char", h + "X(A): 1\r\n\r\n", M, "malformed header field name"},
      {"nul_in_value", h + bin("X: a\0b\r\n\r\n"), M, "control character in a header field"},
      {"del_in_value", h + "X: a\x7f\r\n\r\n", M, "control character in a header field"},
      {"bare_cr_in_value", h + "X: a\rb\r\n\r\n", M, "control character in a header field"},
      {"bare_cr_blank_line", h + "\r\r\n", M, "malformed header field"},
      {"obs_fold_in_interim", "HTTP/1.1 100 Continue\r\nX: 1\r\n 2\r\n\r\n", M,
       "folded header line (obs-fold)"},
      // chunked framing
      {"chunk_not_hex", te + "xyz\r\n", M, "malformed chunk size line"},
      {"chunk_empty_size", te + "\r\n", M, "malformed chunk size line"},
      {"chunk_0x", te + "0x5\r\nhello\r\n0\r\n\r\n", M, "malformed chunk size line"},
      {"chunk_trailing_space", te + "3 \r\nabc\r\n0\r\n\r\n", M, "malformed chunk size line"},
      {"chunk_ext_ctl", te + "3;a\x01\r\nabc\r\n0\r\n\r\n", M, "malformed chunk size line"},
      {"chunk_overflow", te + "10000000000000000\r\n", M, "chunk size overflows"},
      {"chunk_data_too_long", te + "3\r\nabcd\r\n0\r\n\r\n", M, "no line end after chunk data"},
      {"chunk_cr_without_lf", te + "3\r\nabc\rX0\r\n\r\n", M, "no line end after chunk data"},
      {"trailer_no_colon", te + "0\r\nbad\r\n\r\n", M, "malformed trailer field"},
      {"trailer_obs_fold", te + "0\r\nA: b\r\n c\r\n\r\n", M, "folded trailer line (obs-fold)"},
      // limits
      {"cl_over_max_body", h + "Content-Length: 33554433\r\n\r\n", L,
       "response body of 33554433 bytes over the 33554432-byte limit"},
      {"cl_huge", h + "Content-Length: 1000000000000000\r\n\r\n", L,
       "response body of 1000000000000000 bytes over the 33554432-byte limit"},
      {"chunk_over_max_body", te + "2000001\r\n", L, "chunked body over the 33554432-byte limit"},
  };
}

TEST(ResponseParser, Refusals) {
  for (const Refusal& r : refusals()) {
    Outcome o = parse_whole(r.response);
    EXPECT_EQ(o.status, ParseStatus::Error) << r.name;
    EXPECT_EQ(o.error, r.kind) << r.name;
    EXPECT_EQ(o.message, r.message) << r.name;
    EXPECT_EQ(o.consumed, 0u) << r.name;
  }
}

TEST(ResponseParser, RefusalsSplitAtEveryOffset) {
  for (const Refusal& r : refusals()) {
    Outcome expected = parse_whole(r.response);
    for (size_t cut = 0; cut <= r.response.size(); ++cut) {
      ResponseParseResult first;
      Outcome o = parse_split(r.response, cut, false, &first);
      ASSERT_EQ(o, expected) << r.name << " cut at " << cut;
      if (first.status == ParseStatus::Error) {
        EXPECT_EQ(first.error, r.kind) << r.name;
      }
    }
    EXPECT_EQ(parse_bytewise(r.response, false), expected) << r.name;
  }
}

// ---- the end of the connection

TEST(ResponseParser, EndOfConnection) {
  struct Case {
    std::string input;
    ResponseError kind;
    std::string message;
  };
  const std::string cl = "HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n";
  const std::string te = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::vector<Case> cases = {
      {"", ResponseError::NoResponse, "connection closed before any response"},
      {"HTTP/1.1 20", ResponseError::Truncated, "connection closed inside the status line"},
      {"\r\n", ResponseError::Truncated, "connection closed inside the status line"},
      {"HTTP/1.1 100 Continue\r\n\r\n", ResponseError::Truncated,
       "connection closed inside the status line"},
      {"HTTP/1.1 200 OK\r\nContent-Le", ResponseError::Truncated,
       "connection closed inside the response headers"},
      {cl, ResponseError::Truncated, "truncated body: 0 of 200 bytes"},
      {cl + "0123456789", ResponseError::Truncated, "truncated body: 10 of 200 bytes"},
      {te, ResponseError::Truncated, "truncated chunked body after 0 bytes"},
      {te + "a\r\n0123", ResponseError::Truncated, "truncated chunked body after 4 bytes"},
      {te + "a\r\n0123456789", ResponseError::Truncated, "truncated chunked body after 10 bytes"},
      {te + "a\r\n0123456789\r\n5", ResponseError::Truncated,
       "truncated chunked body after 10 bytes"},
      {te + "0\r\n", ResponseError::Truncated, "connection closed inside the trailers"},
      {te + "0\r\nX: 1\r\n", ResponseError::Truncated, "connection closed inside the trailers"},
  };
  for (const Case& c : cases) {
    Outcome o = parse_whole(c.input, /*eof=*/true);
    EXPECT_EQ(o.status, ParseStatus::Error) << c.input;
    EXPECT_EQ(o.error, c.kind) << c.input;
    EXPECT_EQ(o.message, c.message) << c.input;
    for (size_t cut = 0; cut <= c.input.size(); ++cut)
      ASSERT_EQ(parse_split(c.input, cut, true), o) << c.input << " cut at " << cut;
    EXPECT_EQ(parse_bytewise(c.input, true), o) << c.input;
  }
  // An empty end-delimited body is a body.
  Outcome o = parse_whole("HTTP/1.0 200 OK\r\n\r\n", true);
  ASSERT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.body, "");
}

TEST(ResponseParser, LyingContentLengthCostsNothing) {
  // The server announces the limit and sends ten bytes: nothing is reserved, the body
  // Buffer is untouched, and the end of the connection reports the truncation.
  std::string r = "HTTP/1.1 200 OK\r\nContent-Length: 33554432\r\n\r\n0123456789";
  ResponseParser p;
  Buffer body;
  EXPECT_EQ(p.parse(r, body).status, ParseStatus::Incomplete);
  EXPECT_TRUE(p.headers_complete());
  EXPECT_EQ(p.response().content_length, 33554432u);
  EXPECT_EQ(body.capacity(), 0u);
  ResponseParseResult e = p.parse_eof(r, body);
  EXPECT_EQ(e.error, ResponseError::Truncated);
  EXPECT_EQ(p.error(), "truncated body: 10 of 33554432 bytes");
  // A chunk size over the limit is refused before its data.
  ResponseLimits limits;
  limits.max_body = 10;
  Outcome o = parse_whole(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "6\r\nabcdef\r\n5\r\n",
      false, limits);
  EXPECT_EQ(o.error, ResponseError::TooLarge);
  EXPECT_EQ(o.message, "chunked body over the 10-byte limit");
  o = parse_whole(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "6\r\nabcdef\r\n4\r\nabcd\r\n0\r\n\r\n",
      false, limits);
  EXPECT_EQ(o.status, ParseStatus::Complete);
  EXPECT_EQ(o.body, "abcdefabcd");
  o = parse_whole("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", false, limits);
  EXPECT_EQ(o.message, "response body of 11 bytes over the 10-byte limit");
  o = parse_whole("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", false, limits);
  EXPECT_EQ(o.status, ParseStatus::Complete);
}

TEST(ResponseParser, HeaderLimits) {
  ResponseLimits limits;
  limits.max_header_bytes = 64;
  std::string base = "HTTP/1.1 200 OK\r\nX: ";  // 20 bytes
  std::string at = base + std::string(40, 'a') + "\r\n\r\n";
  ASSERT_EQ(at.size(), 64u);
  EXPECT_EQ(parse_whole(at, true, limits).status, ParseStatus::Complete);
  std::string over = base + std::string(41, 'a') + "\r\n\r\n";
  Outcome o = parse_whole(over, false, limits);
  EXPECT_EQ(o.error, ResponseError::TooLarge);
  EXPECT_EQ(o.message, "response headers over 64 bytes");
  for (size_t cut = 0; cut <= over.size(); ++cut)
    ASSERT_EQ(parse_split(over, cut, false, nullptr, limits), o) << cut;
  // Decided without waiting for the line's end.
  EXPECT_EQ(parse_whole(base + std::string(100, 'a'), false, limits).error,
            ResponseError::TooLarge);
  // The default, as the user reads it.
  o = parse_whole("HTTP/1.1 200 OK\r\nX: " + std::string(17 * 1024, 'a'));
  EXPECT_EQ(o.message, "response headers over 16384 bytes");
  // Each interim head has its own budget.
  std::string interim = "HTTP/1.1 100 Continue\r\nX: " + std::string(30, 'i') + "\r\n\r\n";
  EXPECT_EQ(parse_whole(interim + interim + at, true, limits).status, ParseStatus::Complete);

  limits = {};
  limits.max_headers = 3;
  std::string three = "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nContent-Length: 0\r\n";
  EXPECT_EQ(parse_whole(three + "\r\n", false, limits).status, ParseStatus::Complete);
  o = parse_whole(three + "D: 4\r\n\r\n", false, limits);
  EXPECT_EQ(o.message, "more than 3 response header fields");
  std::string tr = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
  EXPECT_EQ(parse_whole(tr + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", false, limits).status,
            ParseStatus::Complete);
  o = parse_whole(tr + "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", false, limits);
  EXPECT_EQ(o.message, "more than 3 trailer fields");

  limits = {};
  limits.max_header_bytes = 100;
  o = parse_whole(tr + "A: " + std::string(200, 'a'), false, limits);
  EXPECT_EQ(o.message, "response trailers over 100 bytes");
  o = parse_whole("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + std::string(200, 'e'),
                  false, limits);
  EXPECT_EQ(o.message, "chunk size line over 100 bytes");
}

TEST(ResponseParser, ChunkedWireOverheadBounded) {
  ResponseLimits limits;
  limits.max_body = 1000;
  limits.max_header_bytes = 1024;
  std::string r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 100; ++i) r += "1;" + std::string(100, 'e') + "\r\nx\r\n";
  Outcome o = parse_whole(r, false, limits);
  EXPECT_EQ(o.error, ResponseError::TooLarge);
  EXPECT_EQ(o.message, "chunked framing over 3024 bytes");
}

// ---- a chunk's data read straight from the wire (chunk_data_due / chunk_data_read)

// Parses `wire` as a client reading `step` bytes at a time does when it reads a chunk's data
// straight into the body whenever the parser says some is due (at most `straight` at once);
// everything else goes through the input. `*skipped`: the bytes that never were in the input.
Outcome parse_reading_data_straight(std::string_view wire, size_t step, size_t straight,
                                    size_t* skipped, ResponseLimits limits = {}) {
  ResponseParser p(limits);
  Buffer body;
  std::string input;
  size_t at = 0;
  *skipped = 0;
  ResponseParseResult r;
  while (r.status == ParseStatus::Incomplete && at < wire.size()) {
    const uint64_t due = p.chunk_data_due(input);
    if (due != 0) {
      const size_t n = std::min({size_t(due), straight, wire.size() - at});
      body.append(wire.data() + at, n);
      p.chunk_data_read(n);
      *skipped += n;
      at += n;
    } else {
      const size_t n = std::min(step, wire.size() - at);
      input.append(wire.substr(at, n));
      at += n;
    }
    r = p.parse(input, body);
  }
  if (r.status == ParseStatus::Incomplete) r = p.parse_eof(input, body);
  return capture(p, r);
}

// A chunked answer of `sizes` chunks (with an extension on every other one), and its body.
std::string chunked_answer(const std::vector<size_t>& sizes, std::string* body) {
  std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (size_t i = 0; i < sizes.size(); ++i) {
    char line[32];
    std::snprintf(line, sizeof line, i % 2 ? "%zx;e=1\r\n" : "%08zX\r\n", sizes[i]);
    std::string data;
    for (size_t j = 0; j < sizes[i]; ++j) data.push_back(char('a' + (i + j) % 26));
    wire += line + data + "\r\n";
    *body += data;
  }
  return wire + "0\r\nX-Trailer: t\r\n\r\n";
}

TEST(ResponseParser, ChunkDataReadStraightGivesWhatTheInputGives) {
  std::string body;
  const std::string wire = chunked_answer({1, 7, 70000, 3, 4096, 300000, 5, 65536}, &body);
  const Outcome expected = parse_whole(wire);
  ASSERT_EQ(expected.status, ParseStatus::Complete) << expected.message;
  ASSERT_EQ(expected.body, body);
  for (size_t step : {1, 3, 10, 4096, 65536, 1 << 20}) {
    for (size_t straight : {1, 2, 1000, 1 << 20}) {
      size_t skipped = 0;
      Outcome o = parse_reading_data_straight(wire, step, straight, &skipped);
      ASSERT_EQ(o.status, ParseStatus::Complete) << step << "/" << straight << ": " << o.message;
      EXPECT_EQ(o.body, body) << step << "/" << straight;
      EXPECT_EQ(o.headers, expected.headers);
      // What was read straight is the only difference: the input holds the rest.
      EXPECT_EQ(o.consumed + skipped, wire.size()) << step << "/" << straight;
      if (step < (1u << 20)) {
        EXPECT_GT(skipped, 0u) << step << "/" << straight;
      }
    }
  }
  for (const std::string& small : {kNginxChunked, kNginxGzip}) {
    size_t skipped = 0;
    Outcome o = parse_reading_data_straight(small, 7, 3, &skipped);
    Outcome whole = parse_whole(small);
    EXPECT_EQ(o.body, whole.body);
    EXPECT_EQ(o.consumed + skipped, whole.consumed);
  }
}

TEST(ResponseParser, ChunkDataReadStraightStillCountsAgainstTheLimits) {
  ResponseLimits limits;
  limits.max_body = 1000;
  limits.max_header_bytes = 1024;
  // 900 bytes of data, then tiny chunks with long extensions: over 2 * 1000 + 1024 on the
  // wire only when the data read straight counts too.
  std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n384\r\n" +
                     std::string(900, 'd') + "\r\n";
  for (int i = 0; i < 20; ++i) wire += "1;" + std::string(100, 'e') + "\r\nx\r\n";
  wire += "0\r\n\r\n";
  size_t skipped = 0;
  Outcome o = parse_reading_data_straight(wire, 64, 64, &skipped, limits);
  EXPECT_GT(skipped, 800u);  // the first read took a few bytes of data with the head
  EXPECT_EQ(o.error, ResponseError::TooLarge);
  EXPECT_EQ(o.message, "chunked framing over 3024 bytes");
  EXPECT_EQ(parse_whole(wire, false, limits).message, "chunked framing over 3024 bytes");

  // A chunk past max_body is refused at its size line, before any of its data is due.
  std::string big;
  wire = chunked_answer({600, 600}, &big);
  o = parse_reading_data_straight(wire, 64, 64, &skipped, limits);
  EXPECT_EQ(o.error, ResponseError::TooLarge);
  EXPECT_EQ(o.message, parse_whole(wire, false, limits).message);
  EXPECT_LT(skipped, 600u);

  // Cut short inside data read straight: truncated, counting the data that came.
  std::string body;
  wire = chunked_answer({5000}, &body);
  const std::string cut = wire.substr(0, wire.size() - 3000);
  o = parse_reading_data_straight(cut, 100, 1000, &skipped);
  EXPECT_GT(skipped, 0u);
  EXPECT_EQ(o.error, ResponseError::Truncated);
  EXPECT_EQ(o.message, parse_whole(cut, true).message);
}

// ---- what our writer produces, we read

TEST(ResponseParser, ReadsOurWriter) {
  Buffer buf;
  buf.append(std::string(kResponseHeadGap, '\0'));
  buf.append("<methodResponse/>");
  ResponseHead head;
  head.gzip = true;
  size_t start = place_response_head(buf, kResponseHeadGap, head);
  ASSERT_NE(start, kNoRoom);
  Outcome o = parse_whole(buf.view().substr(start));
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.body, "<methodResponse/>");
  EXPECT_TRUE(o.gzip);
  EXPECT_TRUE(o.keep_alive);

  for (int status : {400, 401, 404, 405, 408, 413, 431, 500, 501, 503, 505}) {
    Buffer out;
    Header allow[] = {{"Allow", "POST"}};
    ASSERT_TRUE(append_error_response(out, status, allow).ok());
    o = parse_whole(out.view());
    ASSERT_EQ(o.status, ParseStatus::Complete) << status << ": " << o.message;
    EXPECT_EQ(o.code, status);
    EXPECT_EQ(o.reason, reason_phrase(status));
    EXPECT_FALSE(o.keep_alive);
    EXPECT_EQ(o.content_type, "text/plain");
    EXPECT_EQ(o.body, std::to_string(status) + " " + std::string(reason_phrase(status)) + "\n");
  }
}

// ---- linear time

TEST(ResponseParser, SlowHeadIsLinear) {
  std::string r = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n";
  while (r.size() < 16 * 1024 - 100) r += "X-Filler: " + std::string(50, 'f') + "\r\n";
  r += "Content-Length: 0\r\n\r\n";
  ResponseLimits limits;
  limits.max_headers = 1000;
  uint64_t scanned = 0;
  Outcome o = parse_bytewise(r, false, &scanned, limits);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.consumed, r.size());
  EXPECT_LE(scanned, 2 * r.size());
  std::string one_line = "HTTP/1.1 200 OK\r\nX: " + std::string(16000, 'v') + "\r\n\r\n";
  o = parse_bytewise(one_line, true, &scanned);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_LE(scanned, 2 * one_line.size());
}

TEST(ResponseParser, SlowChunkedBodyIsLinear) {
  std::string r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 200; ++i) r += "10;ext=" + std::string(40, 'e') + "\r\n0123456789abcdef\r\n";
  r += "0\r\nT: 1\r\n\r\n";
  uint64_t scanned = 0;
  Outcome o = parse_bytewise(r, false, &scanned);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.body.size(), 200u * 16);
  EXPECT_LE(scanned, 2 * r.size());
}

TEST(ResponseParser, SlowBodyUntilEofIsLinear) {
  std::string r = "HTTP/1.0 200 OK\r\n\r\n" + std::string(20000, 'b');
  uint64_t scanned = 0;
  Outcome o = parse_bytewise(r, true, &scanned);
  ASSERT_EQ(o.status, ParseStatus::Complete) << o.message;
  EXPECT_EQ(o.body.size(), 20000u);
  EXPECT_LE(scanned, 2 * r.size());
}

TEST(ResponseParser, AnAwaitedUpgradeEndsAtItsHead) {
  const std::string head =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
  const std::string frame = "\x81\x02hi";  // the new protocol's first bytes, right behind
  const std::string input = head + frame;
  for (size_t cut = 1; cut <= input.size(); ++cut) {
    ResponseParser parser;
    parser.set_upgrade_awaited(true);
    Buffer chunked;
    ResponseParseResult r = parser.parse(std::string_view(input).substr(0, cut), chunked);
    if (cut < head.size()) {
      EXPECT_EQ(r.status, ParseStatus::Incomplete) << cut;
      continue;
    }
    ASSERT_EQ(r.status, ParseStatus::Complete) << cut;
    EXPECT_EQ(r.consumed, head.size());
    EXPECT_EQ(parser.response().status, 101);
    EXPECT_TRUE(parser.response().body.empty());
    EXPECT_EQ(parser.response().find_header("Sec-WebSocket-Accept"),
              "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  }
  // Unawaited, it is refused as before; awaited, another status is an answer as ever.
  ResponseParser plain;
  Buffer chunked;
  EXPECT_EQ(plain.parse(input, chunked).status, ParseStatus::Error);
  ResponseParser refused;
  refused.set_upgrade_awaited(true);
  const std::string forbidden = "HTTP/1.1 403 Forbidden\r\nContent-Length: 3\r\n\r\nno\n";
  ResponseParseResult r = refused.parse(forbidden, chunked);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(refused.response().status, 403);
  EXPECT_EQ(refused.response().body, "no\n");
}

}  // namespace
}  // namespace callwire::http
