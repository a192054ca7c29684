// Unit tests of the head writers: exact bytes, the right-aligned server path, the gap's
// sufficiency, error responses, request heads read back by our request parser, and every
// refusal (no header injection, nothing written).

#include "http/response_writer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/basic_auth.hpp"
#include "http/chunked.hpp"
#include "http/request_parser.hpp"

namespace callwire::http {
namespace {

std::string format(const ResponseHead& head) {
  std::string out(response_head_size(head), '\0');
  EXPECT_EQ(format_response_head(out.data(), out.size(), head), out.size());
  return out;
}

TEST(ResponseWriter, DefaultHead) {
  ResponseHead head;
  head.content_length = 123;
  EXPECT_EQ(format(head),
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 123\r\n\r\n");
}

TEST(ResponseWriter, GzipCloseAndExtraFields) {
  Header extra[] = {{"Server", "callwire/0.1"}, {"X-Empty", ""}};
  ResponseHead head;
  head.content_type = "text/xml; charset=utf-8";
  head.content_length = 0;
  head.gzip = true;
  head.close = true;
  head.extra = extra;
  EXPECT_EQ(format(head),
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: 0\r\n"
            "Content-Encoding: gzip\r\nConnection: close\r\nServer: callwire/0.1\r\n"
            "X-Empty: \r\n\r\n");
  head = {};
  head.content_type = "";
  head.content_length = UINT64_MAX;
  EXPECT_EQ(format(head), "HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551615\r\n\r\n");
  head.status = 599;
  EXPECT_EQ(format(head).substr(0, 15), "HTTP/1.1 599 \r\n");
}

// An HTTP/1.0 request kept alive is told so: without "Connection: keep-alive" an HTTP/1.0
// client must take the answer as the connection's last (RFC 9112 Appendix C.2.2). The status
// line stays HTTP/1.1, as nginx answers.
TEST(ResponseWriter, Http10KeptAliveSaysKeepAlive) {
  ResponseHead head;
  head.content_length = 5;
  head.request_version = HttpVersion::Http10;
  EXPECT_EQ(format(head),
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 5\r\n"
            "Connection: keep-alive\r\n\r\n");
  head.close = true;
  EXPECT_EQ(format(head),
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 5\r\n"
            "Connection: close\r\n\r\n");
  head.close = false;
  head.request_version = HttpVersion::Http11;  // persistent by default: nothing to say
  EXPECT_EQ(format(head).find("Connection"), std::string::npos);
}

TEST(ResponseWriter, TooSmallWritesNothing) {
  ResponseHead head;
  head.content_length = 42;
  const size_t n = response_head_size(head);
  ASSERT_GT(n, 0u);
  for (size_t cap = 0; cap < n; ++cap) {
    std::string dst(n, '#');
    EXPECT_EQ(format_response_head(dst.data(), cap, head), 0u) << cap;
    EXPECT_EQ(dst, std::string(n, '#')) << cap;
  }
  std::string dst(n + 5, '#');
  EXPECT_EQ(format_response_head(dst.data(), dst.size(), head), n);
  EXPECT_EQ(dst.substr(n), "#####");
}

TEST(ResponseWriter, InvalidHeadsRefused) {
  std::vector<std::vector<Header>> bad_extras = {
      {{"X-A", "1\r\nSet-Cookie: evil=1"}},
      {{"X-A", "1\n"}},
      {{"X-A", std::string_view("a\0b", 3)}},
      {{"X-A", "a\x7f"}},
      {{"X-A", "a\rb"}},
      {{"X A", "1"}},
      {{"X:A", "1"}},
      {{"", "1"}},
      {{"X\r\nY", "1"}},
      {{"Content-Length", "5"}},
      {{"transfer-encoding", "chunked"}},
      {{"CONNECTION", "keep-alive"}},
      {{"Content-Type", "text/html"}},
      {{"Content-Encoding", "br"}},
      {{"Server", "ok"}, {"X-B", "\r\n"}},
  };
  for (const auto& extra : bad_extras) {
    ResponseHead head;
    head.extra = extra;
    EXPECT_EQ(response_head_size(head), 0u) << extra.back().name;
    char dst[512];
    EXPECT_EQ(format_response_head(dst, sizeof dst, head), 0u);
    Buffer out;
    EXPECT_FALSE(append_error_response(out, 400, extra).ok());
    EXPECT_TRUE(out.empty());
  }
  ResponseHead head;
  head.content_type = "text/xml\r\nX-Injected: 1";
  EXPECT_EQ(response_head_size(head), 0u);
  for (int status : {-1, 0, 99, 1000}) {
    head = {};
    head.status = status;
    EXPECT_EQ(response_head_size(head), 0u) << status;
    Buffer out;
    EXPECT_FALSE(append_error_response(out, status).ok());
    EXPECT_TRUE(out.empty());
  }
}

TEST(ResponseWriter, PlaceHeadWithALengthGivenAhead) {
  // An answer sent while it is written, whose length was known first: the head says that
  // length, not what the buffer holds yet.
  Buffer buf;
  buf.append(std::string(kResponseHeadGap, '\0'));
  buf.append("<?xml");
  ResponseHead head;
  head.content_length = 123456;
  head.length_ahead = true;
  size_t start = place_response_head(buf, kResponseHeadGap, head);
  ASSERT_NE(start, kNoRoom);
  EXPECT_EQ(buf.view().substr(start),
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 123456\r\n\r\n<?xml");
  head.length_ahead = false;  // counted from the buffer
  start = place_response_head(buf, kResponseHeadGap, head);
  EXPECT_NE(buf.view().substr(start).find("Content-Length: 5\r\n"), std::string_view::npos);
}

TEST(ResponseWriter, PlaceHeadRightAlignedBeforeTheBody) {
  // What the server does: reserve the gap, write the body, place the head.
  Buffer buf;
  buf.append(std::string(kResponseHeadGap, '\0'));
  const std::string body = "<?xml version=\"1.0\"?><methodResponse/>";
  buf.append(body);
  const char* storage = buf.data();
  ResponseHead head;
  head.close = true;
  size_t start = place_response_head(buf, kResponseHeadGap, head);
  ASSERT_NE(start, kNoRoom);
  EXPECT_EQ(buf.data(), storage);  // nothing moved, nothing allocated
  EXPECT_EQ(buf.view().substr(start),
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  // Too small a gap: kNoRoom, nothing written.
  Buffer small;
  small.append("0123456789");
  small.append(body);
  EXPECT_EQ(place_response_head(small, 10, head), kNoRoom);
  EXPECT_EQ(small.view(), "0123456789" + body);
  EXPECT_EQ(place_response_head(small, small.size() + 1, head), kNoRoom);
  // Exactly enough.
  ResponseHead h2;
  Buffer exact;
  std::string expect = "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 2\r\n\r\n";
  exact.append(std::string(expect.size(), '\0'));
  exact.append("ok");
  EXPECT_EQ(place_response_head(exact, expect.size(), h2), 0u);
  EXPECT_EQ(exact.view(), expect + "ok");
  // An invalid head is refused the same way.
  Header bad[] = {{"X", "a\nb"}};
  h2.extra = bad;
  EXPECT_EQ(place_response_head(buf, kResponseHeadGap, h2), kNoRoom);
  // A head longer than the writer's stack room (many or long extra fields), in a gap that
  // holds it and in one a byte too small.
  const std::string long_value(700, 'v');
  Header many[] = {{"X-Long", long_value}, {"X-Other", "1"}};
  ResponseHead h3;
  h3.extra = many;
  const std::string long_head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 2\r\n"
      "X-Long: " +
      long_value + "\r\nX-Other: 1\r\n\r\n";
  for (size_t spare : {size_t{0}, size_t{40}}) {
    Buffer big;
    big.append(std::string(long_head.size() + spare, '\0'));
    big.append("ok");
    EXPECT_EQ(place_response_head(big, long_head.size() + spare, h3), spare);
    EXPECT_EQ(big.view().substr(spare), long_head + "ok");
    EXPECT_EQ(place_response_head(big, long_head.size() - 1, h3), kNoRoom);
  }
}

TEST(ResponseWriter, ChunkedBodyWrittenAsItGrows) {
  // The server's streamed answer: a head with Transfer-Encoding, then chunks cut as the body
  // grows, each size line in a gap left before its data; the decoder gets the body back.
  Buffer buf;
  buf.append(std::string(kResponseHeadGap, '\0'));
  const size_t body_start = buf.size();
  buf.append("<?xml version=\"1.0\"?>");
  const char* storage = buf.data();
  ChunkedBodyWriter chunks;
  ResponseHead head;
  head.chunked = true;
  size_t start = place_response_head(buf, chunks.begin(body_start), head);
  ASSERT_NE(start, kNoRoom);
  EXPECT_EQ(buf.data(), storage);
  size_t sendable = chunks.cut(buf);
  EXPECT_EQ(buf.view().substr(start, sendable - start),
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n"
            "00000015\r\n<?xml version=\"1.0\"?>\r\n");
  EXPECT_EQ(chunks.cut(buf), sendable);  // nothing new: no empty chunk (it would end the body)
  buf.append("<methodResponse>");
  EXPECT_GT(chunks.cut(buf), sendable);
  buf.append("</methodResponse>");
  chunks.end(buf);
  std::string_view all = buf.view().substr(start);
  EXPECT_TRUE(all.ends_with("00000011\r\n</methodResponse>\r\n0\r\n\r\n")) << all;
  // An empty last piece leaves no empty chunk either.
  ChunkedBodyWriter again;
  Buffer b2;
  b2.append(std::string(16, '\0'));
  b2.append("x");
  again.begin(16);
  again.cut(b2);
  again.end(b2);
  EXPECT_EQ(b2.view().substr(6), "00000001\r\nx\r\n0\r\n\r\n");
  // The client's decoder reads it back.
  std::string_view wire = all.substr(all.find("\r\n\r\n") + 4);
  ChunkedDecoder decoder;
  Buffer decoded;
  Cursor cur;
  decoder.begin(0, decoded);
  EXPECT_EQ(decoder.decode(wire, cur, decoded, ChunkedLimits{}), ChunkedDecoder::Status::Done);
  EXPECT_EQ(decoded.view(), "<?xml version=\"1.0\"?><methodResponse></methodResponse>");
}

TEST(ResponseWriter, GapFitsEveryPlainHead) {
  // Any status, gzip, close, the largest length and a 64-byte content type.
  std::string type(64, 't');
  for (int status = 100; status <= 999; ++status) {
    ResponseHead head;
    head.status = status;
    head.content_type = type;
    head.content_length = UINT64_MAX;
    head.gzip = head.close = true;
    EXPECT_LE(response_head_size(head), kResponseHeadGap) << status;
    // The longest Connection field, and the Date the server adds to every answer.
    head.close = false;
    head.request_version = HttpVersion::Http10;
    head.date = "Sun, 06 Nov 1994 08:49:37 GMT";
    EXPECT_LE(response_head_size(head), kResponseHeadGap) << status;
  }
}

TEST(ResponseWriter, ReasonPhrases) {
  const std::pair<int, const char*> expected[] = {
      {100, "Continue"},
      {200, "OK"},
      {400, "Bad Request"},
      {401, "Unauthorized"},
      {404, "Not Found"},
      {405, "Method Not Allowed"},
      {408, "Request Timeout"},
      {413, "Content Too Large"},
      {431, "Request Header Fields Too Large"},
      {500, "Internal Server Error"},
      {501, "Not Implemented"},
      {503, "Service Unavailable"},
      {505, "HTTP Version Not Supported"},
  };
  for (auto [status, reason] : expected) EXPECT_EQ(reason_phrase(status), reason) << status;
  EXPECT_EQ(reason_phrase(299), "");
  EXPECT_EQ(reason_phrase(0), "");
  EXPECT_EQ(kContinueResponse, "HTTP/1.1 100 Continue\r\n\r\n");
}

TEST(ResponseWriter, ErrorResponses) {
  Buffer out;
  ASSERT_TRUE(append_error_response(out, 400).ok());
  EXPECT_EQ(out.view(),
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 16\r\n"
            "Connection: close\r\n\r\n400 Bad Request\n");
  out.clear();
  Header allow[] = {{"Allow", "POST"}};
  ASSERT_TRUE(append_error_response(out, 405, allow).ok());
  EXPECT_EQ(out.view(),
            "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain\r\nContent-Length: 23\r\n"
            "Connection: close\r\nAllow: POST\r\n\r\n405 Method Not Allowed\n");
  out.clear();
  Result<std::string> challenge = make_basic_challenge("callwire");
  ASSERT_TRUE(challenge.ok());
  Header auth[] = {{"WWW-Authenticate", *challenge}};
  out.append("previous;");
  ASSERT_TRUE(append_error_response(out, 401, auth).ok());
  EXPECT_EQ(out.view(),
            "previous;HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\n"
            "Content-Length: 17\r\nConnection: close\r\n"
            "WWW-Authenticate: Basic realm=\"callwire\", charset=\"UTF-8\"\r\n\r\n"
            "401 Unauthorized\n");
  out.clear();
  ASSERT_TRUE(append_error_response(out, 599).ok());
  EXPECT_EQ(out.view().substr(out.size() - 4), "599\n");
  // The body length always matches Content-Length.
  for (int status : {400, 401, 404, 405, 408, 413, 431, 500, 501, 503, 505}) {
    out.clear();
    ASSERT_TRUE(append_error_response(out, status).ok());
    std::string_view all = out.view();
    size_t end = all.find("\r\n\r\n");
    ASSERT_NE(end, std::string_view::npos);
    std::string_view body = all.substr(end + 4);
    EXPECT_NE(all.find("Content-Length: " + std::to_string(body.size()) + "\r\n"),
              std::string_view::npos);
    EXPECT_EQ(body, std::to_string(status) + " " + std::string(reason_phrase(status)) + "\n");
  }
}

// ---- client request heads

std::string request(const RequestHead& head) {
  Buffer out;
  Status st = append_request_head(out, head);
  EXPECT_TRUE(st.ok()) << st.error().message;
  return std::string(out.view());
}

TEST(RequestWriter, DefaultHead) {
  RequestHead head;
  head.host = "localhost";
  head.content_length = 99;
  EXPECT_EQ(request(head),
            "POST /RPC2 HTTP/1.1\r\nHost: localhost\r\nUser-Agent: callwire/0.1\r\n"
            "Content-Type: text/xml\r\nContent-Length: 99\r\n\r\n");
}

TEST(RequestWriter, TrailersAcceptedUnlessClosing) {
  // What callwire's client says so that a long answer may come while the server writes it;
  // a request that closes the connection says only that. TE is the writer's own field.
  RequestHead head;
  head.host = "h";
  head.accept_trailers = true;
  EXPECT_EQ(
      request(head),
      "POST /RPC2 HTTP/1.1\r\nHost: h\r\nUser-Agent: callwire/0.1\r\n"
      "Content-Type: text/xml\r\nTE: trailers\r\nConnection: TE\r\nContent-Length: 0\r\n\r\n");
  head.close = true;
  EXPECT_EQ(request(head).find("TE:"), std::string::npos);
  Header te[] = {{"TE", "gzip"}};
  head.extra = te;
  Buffer out;
  EXPECT_FALSE(append_request_head(out, head));
}

TEST(RequestWriter, EverythingOn) {
  Header extra[] = {{"X-Request-Id", "42"}, {"Cookie", "a=b; c=d"}};
  RequestHead head;
  head.path = "/xmlrpc/2/object?db=x%20y";
  head.host = "example.org";
  head.port = 8069;
  head.content_length = 7;
  head.accept_gzip = true;
  head.gzip = true;
  head.close = true;
  head.authorization = "Basic dXNlcjpwYXNz";
  head.extra = extra;
  EXPECT_EQ(request(head),
            "POST /xmlrpc/2/object?db=x%20y HTTP/1.1\r\nHost: example.org:8069\r\n"
            "User-Agent: callwire/0.1\r\nContent-Type: text/xml\r\n"
            "Accept-Encoding: gzip\r\n"
            "Authorization: Basic dXNlcjpwYXNz\r\nConnection: close\r\nX-Request-Id: 42\r\n"
            "Cookie: a=b; c=d\r\nContent-Length: 7\r\nContent-Encoding: gzip\r\n\r\n");
}

// Through a proxy: the absolute-form target with the Host's authority, and the proxy's
// credentials; without absolute_form they are never sent.
TEST(RequestWriter, AbsoluteFormForAProxy) {
  RequestHead head;
  head.host = "example.org";
  head.port = 8080;
  head.absolute_form = true;
  head.proxy_authorization = "Basic cHJveHk6cHc=";
  head.authorization = "Basic dXNlcjpwYXNz";
  head.content_length = 3;
  EXPECT_EQ(request(head),
            "POST http://example.org:8080/RPC2 HTTP/1.1\r\nHost: example.org:8080\r\n"
            "User-Agent: callwire/0.1\r\nContent-Type: text/xml\r\n"
            "Authorization: Basic dXNlcjpwYXNz\r\nProxy-Authorization: Basic cHJveHk6cHc=\r\n"
            "Content-Length: 3\r\n\r\n");
  head.host = "::1";
  head.port = 80;
  head.proxy_authorization = {};
  head.authorization = {};
  EXPECT_EQ(request(head).substr(0, 45), "POST http://[::1]/RPC2 HTTP/1.1\r\nHost: [::1]\r");
  head.absolute_form = false;
  head.proxy_authorization = "Basic cHJveHk6cHc=";
  EXPECT_EQ(request(head).find("Proxy-Authorization"), std::string::npos);
}

TEST(RequestWriter, Connect) {
  Buffer out;
  ASSERT_TRUE(append_connect_request(out, "example.org", 443, "callwire/0.1", "Basic eDp5"));
  EXPECT_EQ(out.view(),
            "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\nUser-Agent: "
            "callwire/0.1\r\nProxy-Authorization: Basic eDp5\r\n\r\n");
  out.clear();
  ASSERT_TRUE(append_connect_request(out, "::1", 8443, "", ""));
  EXPECT_EQ(out.view(), "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n\r\n");
  out.clear();
  EXPECT_FALSE(append_connect_request(out, "a b", 443, "", ""));
  EXPECT_FALSE(append_connect_request(out, "h", 443, "", "x\r\nEvil: 1"));
  EXPECT_FALSE(append_connect_request(out, "h", 443, "a\nb", ""));
  EXPECT_EQ(out.size(), 0u);
}

std::string host_field(std::string_view host, uint16_t port, bool tls = false) {
  RequestHead head;
  head.host = host;
  head.port = port;
  head.tls = tls;
  std::string r = request(head);
  size_t at = r.find("Host: ");
  return r.substr(at + 6, r.find("\r\n", at) - at - 6);
}

TEST(RequestWriter, HostAndPort) {
  EXPECT_EQ(host_field("h", 0), "h");
  EXPECT_EQ(host_field("h", 80), "h");
  EXPECT_EQ(host_field("h", 8080), "h:8080");
  EXPECT_EQ(host_field("h", 443), "h:443");
  EXPECT_EQ(host_field("h", 443, true), "h");
  EXPECT_EQ(host_field("h", 80, true), "h:80");
  EXPECT_EQ(host_field("h", 65535), "h:65535");
  EXPECT_EQ(host_field("127.0.0.1", 1), "127.0.0.1:1");
  EXPECT_EQ(host_field("::1", 8080), "[::1]:8080");
  EXPECT_EQ(host_field("::1", 80), "[::1]");
  EXPECT_EQ(host_field("[::1]", 8080), "[::1]:8080");
  EXPECT_EQ(host_field("2001:db8::ff00:42:8329", 0), "[2001:db8::ff00:42:8329]");
  EXPECT_EQ(host_field("::ffff:192.0.2.1", 9000), "[::ffff:192.0.2.1]:9000");
  EXPECT_EQ(host_field("fe80::1%eth0", 8080), "[fe80::1]:8080");
  EXPECT_EQ(host_field("[fe80::1%25eth0]", 0), "[fe80::1]");
  EXPECT_EQ(host_field("xn--bcher-kva.example", 0), "xn--bcher-kva.example");
}

TEST(RequestWriter, ReadBackByTheRequestParser) {
  Header extra[] = {{"X-A", "1"}};
  RequestHead head;
  head.host = "::1";
  head.port = 8000;
  head.accept_gzip = true;
  head.gzip = true;
  head.authorization = "Basic YTpi";
  head.content_length = 5;
  head.extra = extra;
  std::string wire = request(head) + "abcde";
  RequestParser parser;
  Buffer chunked;
  ParseResult r = parser.parse(wire, chunked);
  ASSERT_EQ(r.status, ParseStatus::Complete) << r.http_status;
  EXPECT_EQ(r.consumed, wire.size());
  const Request& q = parser.request();
  EXPECT_EQ(q.method, "POST");
  EXPECT_EQ(q.target, "/RPC2");
  EXPECT_EQ(q.host, "[::1]:8000");
  EXPECT_EQ(q.content_length, 5u);
  EXPECT_TRUE(q.accept_gzip);
  EXPECT_TRUE(q.content_encoding_gzip);
  EXPECT_TRUE(q.keep_alive);
  EXPECT_EQ(q.authorization, "Basic YTpi");
  EXPECT_EQ(q.find_header("x-a"), "1");
  EXPECT_EQ(q.body, "abcde");
}

TEST(RequestWriter, Refusals) {
  struct Case {
    const char* name;
    RequestHead head;
  };
  static const Header kOwned[] = {
      {"Host", "evil"},       {"content-length", "0"},    {"Transfer-Encoding", "chunked"},
      {"CONTENT-TYPE", "x"},  {"Content-Encoding", "br"}, {"Accept-Encoding", "br"},
      {"Authorization", "x"}, {"User-Agent", "x"},        {"Connection", "close"}};
  static const Header kBadName[] = {{"X A", "1"}};
  static const Header kColonName[] = {{"X:", "1"}};
  static const Header kEmptyName[] = {{"", "1"}};
  static const Header kCrlfName[] = {{"X\r\nHost", "1"}};
  static const Header kCrlfValue[] = {{"X", "1\r\nHost: evil"}};
  static const Header kLfValue[] = {{"X", "1\nHost: evil"}};
  static const Header kCrValue[] = {{"X", "1\rHost: evil"}};
  static const Header kNulValue[] = {{"X", std::string_view("1\0", 2)}};
  static const Header kDelValue[] = {{"X", "\x7f"}};
  static const Header kCtlValue[] = {{"X", "\x1b[31m"}};
  std::vector<Case> cases;
  auto with = [](auto f) {
    RequestHead h;
    h.host = "h";
    f(h);
    return h;
  };
  cases.push_back({"path_empty", with([](RequestHead& h) { h.path = ""; })});
  cases.push_back({"path_relative", with([](RequestHead& h) { h.path = "RPC2"; })});
  cases.push_back({"path_absolute_uri", with([](RequestHead& h) { h.path = "http://h/RPC2"; })});
  cases.push_back({"path_space", with([](RequestHead& h) { h.path = "/a b"; })});
  cases.push_back({"path_crlf", with([](RequestHead& h) { h.path = "/a\r\nHost: evil"; })});
  cases.push_back({"path_nul", with([](RequestHead& h) { h.path = std::string_view("/\0", 2); })});
  cases.push_back({"path_utf8", with([](RequestHead& h) { h.path = "/caf\xc3\xa9"; })});
  cases.push_back({"host_empty", with([](RequestHead& h) { h.host = ""; })});
  cases.push_back({"host_crlf", with([](RequestHead& h) { h.host = "h\r\nX: 1"; })});
  cases.push_back({"host_space", with([](RequestHead& h) { h.host = "a b"; })});
  cases.push_back({"host_slash", with([](RequestHead& h) { h.host = "a/b"; })});
  cases.push_back({"host_userinfo", with([](RequestHead& h) { h.host = "u@h"; })});
  cases.push_back({"host_nul", with([](RequestHead& h) { h.host = std::string_view("h\0", 2); })});
  cases.push_back({"host_open_bracket", with([](RequestHead& h) { h.host = "[::1"; })});
  cases.push_back({"host_empty_brackets", with([](RequestHead& h) { h.host = "[]"; })});
  cases.push_back({"host_brackets_no_colon", with([](RequestHead& h) { h.host = "[abc]"; })});
  cases.push_back({"host_ipv6_bad_char", with([](RequestHead& h) { h.host = "::g"; })});
  cases.push_back({"host_ipv6_crlf", with([](RequestHead& h) { h.host = "::1\r\n"; })});
  cases.push_back({"authorization_crlf",
                   with([](RequestHead& h) { h.authorization = "Basic x\r\nX-Evil: 1"; })});
  cases.push_back({"user_agent_lf", with([](RequestHead& h) { h.user_agent = "a\nb"; })});
  cases.push_back({"proxy_authorization_crlf", with([](RequestHead& h) {
                     h.absolute_form = true;
                     h.proxy_authorization = "Basic x\r\nX-Evil: 1";
                   })});
  cases.push_back({"content_type_nul",
                   with([](RequestHead& h) { h.content_type = std::string_view("a\0", 2); })});
  for (const Header* extra : {kBadName, kColonName, kEmptyName, kCrlfName, kCrlfValue, kLfValue,
                              kCrValue, kNulValue, kDelValue, kCtlValue})
    cases.push_back({"extra", with([&](RequestHead& h) { h.extra = {extra, 1}; })});
  for (const Header& owned : kOwned)
    cases.push_back({"owned", with([&](RequestHead& h) { h.extra = {&owned, 1}; })});
  for (const Case& c : cases) {
    Buffer out;
    out.append("untouched");
    Status st = append_request_head(out, c.head);
    EXPECT_FALSE(st.ok()) << c.name;
    EXPECT_EQ(st.error().code, Errc::InvalidArgument) << c.name;
    EXPECT_FALSE(st.error().message.empty()) << c.name;
    EXPECT_EQ(out.view(), "untouched") << c.name;
  }
}

}  // namespace
}  // namespace callwire::http
