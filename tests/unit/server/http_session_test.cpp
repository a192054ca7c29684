// The server connection's HTTP rules without a socket: requests parsed from bytes, the
// session's decisions checked (refusals and their fields, credentials and their reuse, the
// call's deadline, protocol and keep-alive, gzip of answers).
#include "server/http_session.hpp"

#include <gtest/gtest.h>

#include <string>

#include "http/basic_auth.hpp"
#include "http/gzip.hpp"
#include "server/forwarded.hpp"

namespace callwire::detail {
namespace {

using namespace std::chrono_literals;

// Parses `head` (a request head; a body of `body` follows) and keeps the parser, whose
// request views into `bytes_`.
class Parsed {
 public:
  explicit Parsed(std::string head, std::string_view body = "<x/>") {
    bytes_ =
        head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
    http::ParseResult r = parser_.parse(bytes_, chunked_);
    EXPECT_EQ(r.status, http::ParseStatus::Complete) << bytes_;
  }
  const http::Request& request() const { return parser_.request(); }

 private:
  std::string bytes_;
  Buffer chunked_;
  http::RequestParser parser_;
};

std::string post(std::string_view target = "/RPC2", std::string_view extra = "") {
  return "POST " + std::string(target) + " HTTP/1.1\r\nHost: h\r\nContent-Type: text/xml\r\n" +
         std::string(extra);
}

const std::string kNoChallenge;

TEST(HttpSession, RefusesOnTheHeadWithTheFieldsTheStatusNeeds) {
  ServerOptions o;
  HttpSession s(o, kNoChallenge);
  EXPECT_EQ(s.check_head(Parsed(post()).request()).status, 0);
  EXPECT_EQ(s.check_head(Parsed(post("/")).request()).status, 0);
  EXPECT_EQ(s.check_head(Parsed(post("/RPC2?x=1")).request()).status, 0);         // query ignored
  EXPECT_EQ(s.check_head(Parsed(post("http://h:80/RPC2")).request()).status, 0);  // proxy form
  EXPECT_EQ(s.check_head(Parsed(post("http://h")).request()).status, 0);          // "/" by default

  HttpSession::Refusal get =
      s.check_head(Parsed("GET /RPC2 HTTP/1.1\r\nHost: h\r\n", "").request());
  EXPECT_EQ(get.status, 405);
  ASSERT_EQ(get.fields.size(), 1u);
  EXPECT_EQ(get.fields[0].name, "Allow");
  EXPECT_EQ(get.fields[0].value, "POST");

  HttpSession::Refusal elsewhere = s.check_head(Parsed(post("/other")).request());
  EXPECT_EQ(elsewhere.status, 404);
  EXPECT_TRUE(elsewhere.fields.empty());
  o.paths = {"/api"};
  EXPECT_EQ(s.check_head(Parsed(post("/RPC2")).request()).status, 404);
  EXPECT_EQ(s.check_head(Parsed(post("/api")).request()).status, 0);

  EXPECT_EQ(s.check_head(Parsed(post("/api", "Content-Encoding: br\r\n")).request()).status, 415);
  EXPECT_EQ(s.check_head(Parsed(post("/api", "Content-Encoding: gzip\r\n")).request()).status, 0);
  EXPECT_EQ(s.check_head(Parsed(post("/api", "Content-Encoding: Identity\r\n")).request()).status,
            0);
}

TEST(HttpSession, AsksForCredentialsOnceAndKnowsTheUser) {
  ServerOptions o;
  int asked = 0;
  o.authenticate = [&](std::string_view user, std::string_view password) {
    ++asked;
    return user == "ann" && password == "secret";
  };
  const std::string challenge = "Basic realm=\"callwire\"";
  HttpSession s(o, challenge);
  HttpSession::Refusal none = s.check_head(Parsed(post()).request());
  EXPECT_EQ(none.status, 401);
  ASSERT_EQ(none.fields.size(), 1u);
  EXPECT_EQ(none.fields[0].name, "WWW-Authenticate");
  EXPECT_EQ(none.fields[0].value, challenge);
  EXPECT_EQ(asked, 0);  // nothing to ask about

  std::string wrong = "Authorization: " + http::make_basic_auth("ann", "guess").value() + "\r\n";
  EXPECT_EQ(s.check_head(Parsed(post("/RPC2", wrong)).request()).status, 401);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(s.check_head(Parsed(post("/RPC2", "Authorization: Basic !!!\r\n")).request()).status,
            401);
  EXPECT_EQ(asked, 1);  // not Basic credentials: never asked

  std::string right = "Authorization: " + http::make_basic_auth("ann", "secret").value() + "\r\n";
  EXPECT_EQ(s.check_head(Parsed(post("/RPC2", right)).request()).status, 0);
  EXPECT_EQ(s.user(), "ann");
  EXPECT_EQ(s.check_head(Parsed(post("/RPC2", right)).request()).status, 0);
  EXPECT_EQ(asked, 2);             // the same credentials again: accepted as before
  s.take_gateway_user("mallory");  // we authenticate: a gateway cannot say otherwise
  EXPECT_EQ(s.user(), "ann");

  ServerOptions open;
  HttpSession behind_gateway(open, kNoChallenge);
  behind_gateway.take_gateway_user("bob");
  EXPECT_EQ(behind_gateway.user(), "bob");
}

TEST(HttpSession, SetsUpTheCall) {
  ServerOptions o;
  HttpSession s(o, kNoChallenge);
  Parsed plain(post("/RPC2", "X-Trace: 7\r\n"));
  HttpSession::CallSetup setup = s.setup_call(plain.request(), std::nullopt, false);
  EXPECT_EQ(setup.deadline, HttpSession::Clock::time_point::max());  // no timeout anywhere
  EXPECT_EQ(setup.protocol, Protocol::XmlRpc);
  EXPECT_TRUE(setup.keep_alive);
  // The request's fields are what the call's CallContext sees, as they are: no copy.
  std::span<const HeaderField> headers = plain.request().headers;
  ASSERT_EQ(headers.size(), 4u);  // Host, Content-Type, X-Trace, Content-Length
  EXPECT_EQ(headers[2].name, "X-Trace");
  EXPECT_EQ(headers[2].value, "7");

  EXPECT_FALSE(s.setup_call(plain.request(), std::nullopt, /*stopping=*/true).keep_alive);
  Parsed closing(post("/RPC2", "Connection: close\r\n"));
  EXPECT_FALSE(s.setup_call(closing.request(), std::nullopt, false).keep_alive);

  Parsed json("POST / HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n");
  EXPECT_EQ(s.setup_call(json.request(), std::nullopt, false).protocol, Protocol::JsonRpc);
  EXPECT_EQ(s.setup_call(plain.request(), Protocol::JsonRpc, false).protocol, Protocol::JsonRpc);

  // How far the deadline lies from the moment setup_call began, in whole milliseconds, or
  // max(); `slack` gets how long setup_call took (a loaded machine may pause it).
  std::chrono::milliseconds slack{0};
  auto deadline_in = [&](std::string_view extra) {
    Parsed p(post("/RPC2", extra));
    auto before = HttpSession::Clock::now();
    HttpSession::CallSetup c = s.setup_call(p.request(), std::nullopt, false);
    slack = std::chrono::ceil<std::chrono::milliseconds>(HttpSession::Clock::now() - before);
    return c.deadline == HttpSession::Clock::time_point::max()
               ? std::chrono::milliseconds::max()
               : std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - before);
  };
  auto is_near = [&](std::chrono::milliseconds got, std::chrono::milliseconds want) {
    return got >= want && got <= want + slack;
  };
  EXPECT_TRUE(is_near(deadline_in("X-Callwire-Timeout: 1500\r\n"), 1500ms));
  EXPECT_TRUE(is_near(deadline_in("x-callwire-timeout: 0\r\n"), 0ms));
  // Only 1 to 9 digits count, and only the first field.
  EXPECT_EQ(deadline_in("X-Callwire-Timeout: 1234567890\r\n"), std::chrono::milliseconds::max());
  EXPECT_EQ(deadline_in("X-Callwire-Timeout: 15s\r\n"), std::chrono::milliseconds::max());
  EXPECT_EQ(deadline_in("X-Callwire-Timeout: -1\r\n"), std::chrono::milliseconds::max());
  EXPECT_EQ(deadline_in("X-Callwire-Timeout: x\r\nX-Callwire-Timeout: 5\r\n"),
            std::chrono::milliseconds::max());
  // The server's call_timeout, and the earlier of the two.
  o.call_timeout = 2000ms;
  EXPECT_TRUE(is_near(deadline_in(""), 2000ms));
  EXPECT_TRUE(is_near(deadline_in("X-Callwire-Timeout: 300\r\n"), 300ms));
  EXPECT_TRUE(is_near(deadline_in("X-Callwire-Timeout: 999999\r\n"), 2000ms));
}

// CORS: a preflight on a served path is answered with what it asks; POST stays the only
// method; every answer's origin field comes from cors_fields().
TEST(HttpSession, AnswersCorsPreflights) {
  ServerOptions o;
  HttpSession plain(o, kNoChallenge);
  Parsed preflight(
      "OPTIONS /RPC2 HTTP/1.1\r\nHost: h\r\nOrigin: https://app.example\r\n"
      "Access-Control-Request-Method: POST\r\n"
      "Access-Control-Request-Headers: content-type, authorization\r\n",
      "");
  EXPECT_EQ(plain.check_head(preflight.request()).status, 405);  // no CORS: not served
  EXPECT_TRUE(plain.cors_fields().empty());

  o.cors_allow_origin = "https://app.example";
  o.cors_max_age = std::chrono::seconds(600);
  HttpSession cors(o, kNoChallenge);
  ASSERT_EQ(cors.cors_fields().size(), 1u);
  EXPECT_EQ(cors.cors_fields()[0].name, "Access-Control-Allow-Origin");
  EXPECT_EQ(cors.cors_fields()[0].value, "https://app.example");
  HttpSession::Refusal answer = cors.check_head(preflight.request());
  EXPECT_EQ(answer.status, 200);
  ASSERT_EQ(answer.fields.size(), 3u);
  EXPECT_EQ(answer.fields[0].name, "Access-Control-Allow-Methods");
  EXPECT_EQ(answer.fields[0].value, "POST");
  EXPECT_EQ(answer.fields[1].name, "Access-Control-Allow-Headers");
  EXPECT_EQ(answer.fields[1].value, "content-type, authorization");
  EXPECT_EQ(answer.fields[2].name, "Access-Control-Max-Age");
  EXPECT_EQ(answer.fields[2].value, "600");
  Parsed elsewhere("OPTIONS /other HTTP/1.1\r\nHost: h\r\n", "");
  EXPECT_EQ(cors.check_head(elsewhere.request()).status, 405);
  HttpSession::Refusal get = cors.check_head(Parsed("GET / HTTP/1.1\r\nHost: h\r\n", "").request());
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.fields[0].value, "POST, OPTIONS");
  EXPECT_EQ(cors.check_head(Parsed(post()).request()).status, 0);
}

// A preflight whose Access-Control-Request-Headers is not a field value (SCGI's variables may
// carry CR and LF; HTTP's parser refuses such a head first) is refused 400, without the echo:
// echoed, the answer would be refused by the writer and the client would get none.
TEST(HttpSession, RefusesAPreflightAskingForWhatIsNotAFieldValue) {
  ServerOptions o;
  o.cors_allow_origin = "https://app.example";
  HttpSession cors(o, kNoChallenge);
  http::Request request;
  request.method = "OPTIONS";
  request.target = "/RPC2";
  for (std::string_view bad : {"content-type\r\nX-Injected: 1", "a\nb", "a\x1b[2Jb", "a\x7f"}) {
    http::Header field{"Access-Control-Request-Headers", bad};
    request.headers = {&field, 1};
    HttpSession::Refusal answer = cors.check_head(request);
    EXPECT_EQ(answer.status, 400) << bad;
    EXPECT_TRUE(answer.fields.empty()) << bad;
  }
  http::Header good{"Access-Control-Request-Headers", "content-type"};
  request.headers = {&good, 1};
  EXPECT_EQ(cors.check_head(request).status, 200);
}

// The health path: GET answered 200 "ok" while serving, 503 "stopping" while stopping, before
// credentials; nothing when it is off, on other paths and methods, or on SCGI.
TEST(Forwarded, TheRightmostUntrustedAddressIsTheClient) {
  std::vector<net::IpRange> trusted = {net::parse_ip_range("127.0.0.1").value(),
                                       net::parse_ip_range("10.0.0.0/8").value()};
  auto client = [&](std::string fields) {
    static std::optional<Parsed> keep;  // the view points into the request
    keep.emplace("POST /RPC2 HTTP/1.1\r\nHost: h\r\n" + fields);
    return std::string(detail::forwarded_client(keep->request(), trusted));
  };
  EXPECT_EQ(client(""), "");
  EXPECT_EQ(client("X-Forwarded-For: 203.0.113.7\r\n"), "203.0.113.7");
  // The client's own claim left of it is not believed; trusted hops on the right are skipped.
  EXPECT_EQ(client("X-Forwarded-For: 1.1.1.1, 203.0.113.7, 10.1.2.3\r\n"), "203.0.113.7");
  EXPECT_EQ(client("X-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For: 198.51.100.2\r\n"),
            "198.51.100.2");
  EXPECT_EQ(client("x-forwarded-for: 2001:db8::7\r\n"), "2001:db8::7");
  EXPECT_EQ(client("X-Forwarded-For: [2001:db8::7]:4711\r\n"), "2001:db8::7");
  EXPECT_EQ(client("X-Forwarded-For: 192.0.2.1:4711\r\n"), "192.0.2.1");
  EXPECT_EQ(client("X-Forwarded-For: 127.0.0.1, 10.0.0.1\r\n"), "");   // all trusted
  EXPECT_EQ(client("X-Forwarded-For: 203.0.113.7, unknown\r\n"), "");  // not evidence
  EXPECT_TRUE(detail::is_trusted_proxy("127.0.0.1:5000", trusted));
  EXPECT_FALSE(detail::is_trusted_proxy("192.0.2.1:5000", trusted));
  EXPECT_FALSE(detail::is_trusted_proxy("127.0.0.1:5000", {}));
}

TEST(HttpSession, AnswersTheMetricsPathWithItsOwnCredentials) {
  ServerOptions o;
  Parsed metrics("GET /metrics HTTP/1.1\r\nHost: h\r\n", "");
  EXPECT_EQ(HttpSession(o, kNoChallenge).check_head(metrics.request()).status, 405);  // off

  o.metrics_path = "/metrics";
  int asked = 0;
  o.authenticate = [&](std::string_view, std::string_view) {
    ++asked;
    return false;
  };
  HttpSession open(o, kNoChallenge);
  HttpSession::Refusal page = open.check_head(metrics.request());
  EXPECT_EQ(page.status, 200);
  EXPECT_TRUE(page.metrics);
  EXPECT_EQ(asked, 0) << "the server's authenticate is not the metrics page's";
  // POST to it is a call to a path not served; the health path is not it.
  EXPECT_EQ(open.check_head(Parsed("POST /metrics HTTP/1.1\r\nHost: h\r\n", "").request()).status,
            404);

  o.metrics_authorization = "Bearer s3cret";
  HttpSession locked(o, kNoChallenge);
  HttpSession::Refusal refused = locked.check_head(metrics.request());
  EXPECT_EQ(refused.status, 401);
  EXPECT_FALSE(refused.metrics);
  bool challenged = false;
  for (const auto& f : refused.fields)
    if (f.name == "WWW-Authenticate") challenged = f.value.starts_with("Bearer");
  EXPECT_TRUE(challenged);
  Parsed wrong("GET /metrics HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer s3cre\r\n", "");
  EXPECT_EQ(locked.check_head(wrong.request()).status, 401);
  Parsed right("GET /metrics HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer s3cret\r\n", "");
  EXPECT_TRUE(locked.check_head(right.request()).metrics);
}

TEST(HttpSession, AnswersTheHealthPath) {
  ServerOptions o;
  Parsed health("GET /healthz HTTP/1.1\r\nHost: h\r\n", "");
  HttpSession off(o, kNoChallenge);
  EXPECT_EQ(off.check_head(health.request()).status, 405);  // no health path: as any GET

  o.health_path = "/healthz";
  int asked = 0;
  o.authenticate = [&](std::string_view, std::string_view) {
    ++asked;
    return false;
  };
  const std::string challenge = "Basic realm=\"callwire\"";
  HttpSession s(o, challenge);
  HttpSession::Refusal ok = s.check_head(health.request());
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "ok\n");
  ASSERT_EQ(ok.fields.size(), 1u);
  EXPECT_EQ(ok.fields[0].name, "Cache-Control");
  EXPECT_EQ(ok.fields[0].value, "no-store");
  HttpSession::Refusal stopping = s.check_head(health.request(), /*stopping=*/true);
  EXPECT_EQ(stopping.status, 503);
  EXPECT_EQ(stopping.body, "stopping\n");
  ASSERT_EQ(stopping.fields.size(), 2u);
  EXPECT_EQ(stopping.fields[1].name, "Retry-After");
  EXPECT_EQ(asked, 0) << "the health path asks for no credentials";
  // A query is ignored; the absolute form (through a proxy) is the same path.
  EXPECT_EQ(
      s.check_head(Parsed("GET /healthz?full=1 HTTP/1.1\r\nHost: h\r\n", "").request()).status,
      200);
  EXPECT_EQ(
      s.check_head(Parsed("GET http://h/healthz HTTP/1.1\r\nHost: h\r\n", "").request()).status,
      200);
  // Elsewhere, and other methods on it, are refused as before (without credentials first: 401).
  EXPECT_EQ(s.check_head(Parsed("GET /healthz/x HTTP/1.1\r\nHost: h\r\n", "").request()).status,
            405);
  HttpSession::Refusal post_health = s.check_head(Parsed(post("/healthz")).request());
  EXPECT_EQ(post_health.status, 404);
  // The 404 names the path asked for and those served.
  EXPECT_NE(post_health.body.find("nothing is served at /healthz"), std::string_view::npos)
      << post_health.body;
  EXPECT_EQ(s.check_head(Parsed(post()).request()).status, 401);
  // Behind a gateway (SCGI) there is none: the web server in front has its own.
  HttpSession scgi(o, challenge, /*http=*/false);
  EXPECT_EQ(scgi.check_head(health.request()).status, 405);
}

TEST(HttpSession, CapsTheRequestsOfAConnection) {
  ServerOptions o;
  o.max_requests_per_connection = 3;
  Parsed p(post());
  HttpSession http(o, kNoChallenge);
  EXPECT_TRUE(http.setup_call(p.request(), std::nullopt, false).keep_alive);
  EXPECT_TRUE(http.setup_call(p.request(), std::nullopt, false).keep_alive);
  EXPECT_FALSE(http.setup_call(p.request(), std::nullopt, false).keep_alive);  // the third
  HttpSession packets(o, kNoChallenge, /*http=*/false);
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(packets.setup_call(p.request(), std::nullopt, false).keep_alive);
  o.max_requests_per_connection = 0;
  HttpSession uncapped(o, kNoChallenge);
  for (int i = 0; i < 100; ++i)
    EXPECT_TRUE(uncapped.setup_call(p.request(), std::nullopt, false).keep_alive);
}

TEST(HttpSession, GzipsAnswersOnlyWhenAskedAndWorthIt) {
  ServerOptions o;
  HttpSession s(o, kNoChallenge);
  std::string big(10000, 'a');
  Buffer z;
  EXPECT_FALSE(s.gzip_answer(true, big, z));  // gzip_min_size 0: never
  o.gzip_min_size = 1000;
  EXPECT_FALSE(s.gzip_answer(false, big, z));                // the client did not ask
  EXPECT_FALSE(s.gzip_answer(true, big.substr(0, 999), z));  // too small
  ASSERT_TRUE(s.gzip_answer(true, big, z));
  EXPECT_LT(z.size(), big.size());
  Buffer back;
  ASSERT_EQ(http::gzip_inflate(z.view(), back, 1 << 20), http::InflateStatus::Ok);
  EXPECT_EQ(back.view(), big);
  // Bytes that do not shrink are sent as they are.
  std::string noise;
  uint32_t x = 12345;
  for (int i = 0; i < 4000; ++i) {
    x = x * 1103515245 + 12345;
    noise.push_back(char(x >> 24));
  }
  EXPECT_FALSE(s.gzip_answer(true, noise, z));
}

// ---- the WebSocket handshake (check_upgrade) ----

std::string upgrade(std::string_view extra = "", std::string_view target = "/RPC2",
                    std::string_view version = "HTTP/1.1") {
  return "GET " + std::string(target) + " " + std::string(version) +
         "\r\nHost: h\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
         std::string(extra);
}

std::string_view field(const HttpSession::Refusal& r, std::string_view name) {
  for (const http::Header& h : r.fields)
    if (h.name == name) return h.value;
  return {};
}

TEST(WebSocketHandshake, AcceptedWithTheRfcsAcceptKey) {
  ServerOptions o;
  HttpSession s(o, kNoChallenge, true, /*websocket=*/true);
  HttpSession::Refusal r =
      s.check_head(Parsed(upgrade("Sec-WebSocket-Version: 13\r\n"), "").request());
  EXPECT_EQ(r.status, 101);
  EXPECT_TRUE(r.upgrade);
  EXPECT_EQ(r.protocol, Protocol::JsonRpc);  // none offered: JSON-RPC
  EXPECT_EQ(field(r, "Upgrade"), "websocket");
  EXPECT_EQ(field(r, "Connection"), "Upgrade");
  EXPECT_EQ(field(r, "Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");  // RFC 6455 §1.3
  EXPECT_EQ(field(r, "Sec-WebSocket-Protocol"), "");

  HttpSession::Refusal xml = s.check_head(
      Parsed(upgrade("Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: xmlrpc\r\n"), "")
          .request());
  EXPECT_TRUE(xml.upgrade);
  EXPECT_EQ(xml.protocol, Protocol::XmlRpc);
  EXPECT_EQ(field(xml, "Sec-WebSocket-Protocol"), "xmlrpc");
}

TEST(WebSocketHandshake, RefusalsNameTheMistake) {
  ServerOptions o;
  o.websocket.allowed_origins = {"https://app.example"};
  HttpSession s(o, kNoChallenge, true, true);
  const std::string v13 = "Sec-WebSocket-Version: 13\r\n";
  auto check = [&](const std::string& head, int status, std::string_view words) {
    HttpSession::Refusal r = s.check_head(Parsed(head, "").request());
    EXPECT_EQ(r.status, status) << head;
    EXPECT_FALSE(r.upgrade);
    EXPECT_NE(r.body.find(words), std::string_view::npos) << r.body;
    return r;
  };
  HttpSession::Refusal old = check(upgrade("Sec-WebSocket-Version: 8\r\n"), 426, "version 13");
  EXPECT_EQ(field(old, "Sec-WebSocket-Version"), "13");
  check(upgrade(v13, "/other"), 404, "/other");
  check(upgrade(v13 + "Origin: https://evil.example\r\n"), 403, "allowed_origins");
  check(upgrade(v13, "/RPC2", "HTTP/1.0"), 400, "HTTP/1.1 GET");
  check(upgrade(v13 + "Sec-WebSocket-Protocol: graphql-ws, mqtt\r\n"), 400, "jsonrpc, xmlrpc");
  check(
      "GET /RPC2 HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: short\r\n" +
          v13,
      400, "Sec-WebSocket-Key");
  EXPECT_TRUE(
      s.check_head(Parsed(upgrade(v13 + "Origin: https://app.example\r\n"), "").request()).upgrade);
  // A body on the handshake would be read as frames.
  HttpSession::Refusal body = s.check_head(Parsed(upgrade(v13), "xyz").request());
  EXPECT_EQ(body.status, 400);
  EXPECT_NE(body.body.find("no body"), std::string_view::npos);
}

TEST(WebSocketHandshake, CredentialsAndPlainListeners) {
  ServerOptions o;
  o.authenticate = [](std::string_view user, std::string_view) { return user == "ann"; };
  const std::string challenge = "Basic realm=\"x\"";
  HttpSession s(o, challenge, true, true);
  const std::string v13 = "Sec-WebSocket-Version: 13\r\n";
  HttpSession::Refusal none = s.check_head(Parsed(upgrade(v13), "").request());
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(field(none, "WWW-Authenticate"), challenge);
  EXPECT_TRUE(s.check_head(Parsed(upgrade(v13 + "Authorization: Basic YW5uOng=\r\n"), "").request())
                  .upgrade);
  EXPECT_EQ(s.user(), "ann");
  // A listener without WebSocket says so rather than 405.
  ServerOptions defaults;
  HttpSession plain(defaults, kNoChallenge);
  HttpSession::Refusal r = plain.check_head(Parsed(upgrade(v13), "").request());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("ws://"), std::string_view::npos);
}

}  // namespace
}  // namespace callwire::detail
