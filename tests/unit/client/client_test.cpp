// The client against misbehaving servers: every error is distinct and clear, every wait ends
// by its deadline, and no file descriptor leaks.
#include "callwire/client.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "callwire/base64.hpp"
#include "callwire/dispatch.hpp"
#include "callwire/server.hpp"
#include "fake_server.hpp"
#include "http_test_util.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

const std::string kIntResponse =
    "<?xml version=\"1.0\"?><methodResponse><params><param><value><int>7</int></value>"
    "</param></params></methodResponse>";

ClientOptions quick() {
  ClientOptions o;
  o.timeout = 500ms;
  return o;
}

TEST(Client, ConnectionRefused) {
  int fds = testing::open_fds();
  uint16_t port;
  {
    FakeServer closed([](int) {}, false);
    port = static_cast<uint16_t>(std::stoi(closed.url().substr(17)));
  }
  auto r = Client("http://127.0.0.1:" + std::to_string(port) + "/RPC2", quick()).call("x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::ConnectFailed) << r.error().message;
  EXPECT_NE(r.error().message.find("refused"), std::string::npos) << r.error().message;
  EXPECT_EQ(testing::open_fds(), fds);
}

TEST(Client, SilentServerTimesOutByTheDeadline) {
  int fds = testing::open_fds();
  {
    FakeServer silent([](int fd) {
      FakeServer::read_request(fd);
      std::this_thread::sleep_for(1500ms);
    });
    Client client(silent.url(), quick());
    auto start = std::chrono::steady_clock::now();
    auto r = client.call("x");
    auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::Timeout);
    EXPECT_GE(took, 450ms);
    EXPECT_LT(took, 1200ms);
    // A per-call deadline overrides the client's.
    CallOptions shorter;
    shorter.timeout = 100ms;
    start = std::chrono::steady_clock::now();
    EXPECT_EQ(client.call("x", {}, shorter).error().code, Errc::Timeout);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 900ms);
  }
  EXPECT_EQ(testing::open_fds(), fds);
}

TEST(Client, ServerThatNeverAcceptsTimesOut) {
  FakeServer backlog([](int) {}, false);  // the kernel completes the handshake; nobody reads
  auto start = std::chrono::steady_clock::now();
  auto r = Client(backlog.url(), quick()).call("x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
}

TEST(Client, DistinctErrors) {
  int fds = testing::open_fds();
  struct Case {
    const char* name;
    std::string answer;
    Errc code;
  };
  std::vector<Case> cases = {
      {"closed", "", Errc::ConnectionClosed},
      {"status", "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n",
       Errc::HttpStatus},
      {"not http", "SSH-2.0-OpenSSH\r\n\r\n", Errc::BadResponse},
      {"not xml-rpc", FakeServer::ok_response("<html>hello</html>"), Errc::BadResponse},
      {"truncated", "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n<?xml", Errc::ConnectionClosed},
      {"fault",
       FakeServer::ok_response(
           "<methodResponse><fault><value><struct><member><name>faultCode</name><value>"
           "<int>4</int></value></member><member><name>faultString</name><value>"
           "Too many params</value></member></struct></value></fault></methodResponse>"),
       Errc::Fault},
      {"lying length", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\nabc",
       Errc::LimitExceeded},
  };
  for (const Case& c : cases) {
    FakeServer server([&](int fd) {
      FakeServer::read_request(fd);
      FakeServer::send_all(fd, c.answer);
    });
    ClientOptions o = quick();
    o.max_response_size = 1 << 20;
    auto r = Client(server.url(), o).call("x");
    ASSERT_FALSE(r) << c.name;
    EXPECT_EQ(r.error().code, c.code) << c.name << ": " << r.error().message;
    if (c.code == Errc::Fault) {
      EXPECT_EQ(r.error().fault_code, 4);
      EXPECT_EQ(r.error().message, "Too many params");
    }
  }
  EXPECT_EQ(testing::open_fds(), fds);
}

// A typed call reads its result straight from the answer: a document that breaks off or goes
// wrong midway is still BadResponse (not a conversion error), and a fault is still a fault.
TEST(Client, TypedResultsReadFromTheAnswerReportBrokenDocuments) {
  struct Case {
    const char* name;
    std::string body;
    Errc code;
    const char* says;
  };
  const std::string head = "<methodResponse><params><param><value><array><data>";
  std::vector<Case> cases = {
      {"unclosed", head + "<value><string>a</string></value>", Errc::BadResponse, "not XML-RPC"},
      {"bad element", head + "<value><string>a</string></value><value><string>b</value>",
       Errc::BadResponse, "not XML-RPC"},
      {"bad base64 late",
       head + "<value><string>a</string></value></data></array></value>"
              "</param><param><value><int>1</int></value></param></params>"
              "</methodResponse>",
       Errc::BadResponse, "exactly one <param>"},
      {"wrong type",
       head + "<value><int>1</int></value></data></array></value></param>"
              "</params></methodResponse>",
       Errc::TypeMismatch, "x: result[0] must be string, got int"},
      {"fault",
       "<methodResponse><fault><value><struct><member><name>faultCode</name><value>"
       "<int>4</int></value></member><member><name>faultString</name><value>"
       "Too many params</value></member></struct></value></fault></methodResponse>",
       Errc::Fault, "Too many params"},
  };
  for (const Case& c : cases) {
    FakeServer server([&](int fd) {
      FakeServer::read_request(fd);
      FakeServer::send_all(fd, FakeServer::ok_response(c.body));
    });
    Result<std::vector<std::string>> r =
        Client(server.url(), quick()).call<std::vector<std::string>>("x");
    ASSERT_FALSE(r) << c.name;
    EXPECT_EQ(r.error().code, c.code) << c.name << ": " << r.error().message;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos)
        << c.name << ": " << r.error().message;
  }
}

// A large blob's answer is decoded as it arrives (src/xml/decode_ahead.hpp): whatever pieces it
// comes in, and however its text is laid out, the typed call gets exactly the bytes sent, and a
// second answer on the same connection is never mixed with what was decoded of the first.
TEST(Client, LargeBlobsArrivingInPiecesAreReadWhole) {
  auto blob_of = [](size_t n, uint8_t seed) {
    std::vector<uint8_t> bytes(n);
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 131 + seed + (i >> 9));
    return bytes;
  };
  auto document = [](std::string_view text) {
    return "<?xml version=\"1.0\"?><methodResponse><params><param><value><base64>" +
           std::string(text) + "</base64></value></param></params></methodResponse>";
  };
  const std::vector<uint8_t> first = blob_of(700001, 1), second = blob_of(700001, 2);
  std::string wrapped, plain = base64_encode(second);
  for (size_t i = 0; i < plain.size(); i += 76) wrapped += plain.substr(i, 76) + "\r\n";
  const std::vector<std::string> answers = {
      FakeServer::ok_response(document(base64_encode(first))),
      FakeServer::ok_response(document(base64_encode(second))),  // the same length
      FakeServer::ok_response(document(wrapped)),
  };
  // The answers go out in pieces, with pauses, so the client reads each in many steps.
  FakeServer server([&](int fd) {
    for (const std::string& answer : answers) {
      if (FakeServer::read_request(fd).empty()) return;
      for (size_t at = 0; at < answer.size(); at += 90001) {
        FakeServer::send_all(fd, std::string_view(answer).substr(at, 90001));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
  });
  ClientOptions options;
  options.timeout = 20s;
  options.max_response_size = 8 << 20;
  Client client(server.url(), options);
  for (const auto* want : {&first, &second, &second}) {
    Result<std::vector<uint8_t>> got = client.call<std::vector<uint8_t>>("blob");
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_TRUE(*got == *want);
  }
  EXPECT_EQ(server.accepts(), 1);
}

TEST(Client, RetriesOnceWhenAKeptConnectionWasClosed) {
  // Answers one request per connection, keep-alive advertised, then closes.
  FakeServer server([](int fd) {
    if (!FakeServer::read_request(fd).empty())
      FakeServer::send_all(fd, FakeServer::ok_response(kIntResponse));
  });
  Client client(server.url(), quick());
  for (int i = 0; i < 3; ++i) {
    auto r = client.call("x");
    ASSERT_TRUE(r) << i << ": " << r.error().message;
    EXPECT_EQ(r->as_int(), 7);
  }
  EXPECT_EQ(server.accepts(), 3);
}

// CallOptions::resend_if_stale = false: a call that finds its kept connection closed fails
// instead of running again on a fresh one, synchronously, asynchronously, and from C's view
// of the same option; the connection after it is fresh again.
TEST(Client, NoResendForCallsThatMustNotRunTwice) {
  FakeServer server([](int fd) {
    if (!FakeServer::read_request(fd).empty())
      FakeServer::send_all(fd, FakeServer::ok_response(kIntResponse));
  });
  ClientOptions o = quick();
  o.max_connections = 1;
  Client client(server.url(), o);
  CallOptions once;
  once.resend_if_stale = false;
  ASSERT_TRUE(client.call("x", {}, once));  // a new connection: nothing stale about it
  Result<Value> sync = client.call("x", {}, once);
  ASSERT_FALSE(sync);
  EXPECT_EQ(sync.error().code, Errc::ConnectionClosed) << sync.error().message;
  ASSERT_TRUE(client.call("x", {}, once));  // fresh again
  Result<Value> async = client.async_call("x", {}, once).get();
  ASSERT_FALSE(async);
  EXPECT_EQ(async.error().code, Errc::ConnectionClosed) << async.error().message;
  EXPECT_TRUE(client.call("x"));  // by default a stale connection is replaced
  EXPECT_TRUE(client.call("x"));
  // Four connections: the two refused calls were not sent again (with resends: six).
  EXPECT_EQ(server.accepts(), 4);
}

TEST(Client, BytesAfterAnAnswerAreNeverTheNextAnswer) {
  // Every connection's first answer (7) comes with a second, unasked-for one (8) in the same
  // write, as response splitting would inject; later answers on it would be 9.
  auto answer = [](int n) {
    return FakeServer::ok_response(
        "<?xml version=\"1.0\"?><methodResponse><params><param><value>"
        "<int>" +
        std::to_string(n) + "</int></value></param></params></methodResponse>");
  };
  FakeServer server([&](int fd) {
    for (int i = 0; !FakeServer::read_request(fd).empty(); ++i)
      FakeServer::send_all(fd, i == 0 ? answer(7) + answer(8) : answer(9));
  });
  Client client(server.url(), quick());
  for (int i = 0; i < 3; ++i) {
    auto r = client.call("x");
    ASSERT_TRUE(r) << i << ": " << r.error().message;
    EXPECT_EQ(r->as_int(), 7) << i;  // each call on a fresh connection
  }
  EXPECT_EQ(server.accepts(), 3);
}

TEST(Client, AsyncRetriesOnceWhenAKeptConnectionWasClosed) {
  // As above through the I/O thread, by name: the retry reconnects to the addresses the name
  // gave for the first connection (no lookup on the I/O thread).
  FakeServer server([](int fd) {
    if (!FakeServer::read_request(fd).empty())
      FakeServer::send_all(fd, FakeServer::ok_response(kIntResponse));
  });
  std::string url = server.url();
  url.replace(url.find("127.0.0.1"), 9, "localhost");
  ClientOptions o = quick();
  o.max_connections = 1;
  Client client(url, o);
  for (int i = 0; i < 3; ++i) {
    auto r = client.async_call("x", {}).get();
    ASSERT_TRUE(r) << i << ": " << r.error().message;
    EXPECT_EQ(r->as_int(), 7);
  }
  EXPECT_EQ(server.accepts(), 3);
}

TEST(Client, MulticallAcceptsWrappedAndBareResults) {
  const std::string bare =
      "<methodResponse><params><param><value><array><data>"
      "<value><int>1</int></value><value><string>two</string></value>"
      "<value><struct><member><name>faultCode</name><value><int>3</int></value></member>"
      "<member><name>faultString</name><value>bad</value></member></struct></value>"
      "</data></array></value></param></params></methodResponse>";
  FakeServer supervisor([&](int fd) {
    while (!FakeServer::read_request(fd).empty())
      FakeServer::send_all(fd, FakeServer::ok_response(bare));
  });
  std::vector<MethodCall> calls(3);
  calls[0].method_name = calls[1].method_name = calls[2].method_name = "m";
  auto r = Client(supervisor.url(), quick()).multicall(calls);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0]->as_int(), 1);
  EXPECT_EQ((*r)[1]->as_string(), "two");
  ASSERT_FALSE((*r)[2]);
  EXPECT_EQ((*r)[2].error().fault_code, 3);

  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  Server server(o);
  EXPECT_TRUE(
      server.add_method("id", [](Params p, CallContext&) { return p.empty() ? Value() : p[0]; }));
  ASSERT_TRUE(server.start());
  std::vector<MethodCall> ours = {{"id", Value::array({Value::array({Value(1)})})},
                                  {"missing", Value::array()},
                                  {"id", Value::array({Value("x")})}};
  auto m = Client(server.url()).multicall(ours);
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ(*(*m)[0], Value::array({Value(1)}));  // a one-element array result stays one
  EXPECT_EQ((*m)[1].error().fault_code, -32601);
  EXPECT_EQ((*m)[2]->as_string(), "x");
}

TEST(Client, AsyncCallsShareAPoolOfConnections) {
  ServerOptions so;
  so.listen = {"127.0.0.1:0"};
  so.threads = 2;
  Server server(so);
  EXPECT_TRUE(server.add_method(
      "mul", [](Params p, CallContext&) { return p[0].as_int() * p[1].as_int(); }));
  EXPECT_TRUE(server.add_method("sleep", [](Params p, CallContext&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(p[0].as_int()));
    return Value(true);
  }));
  ASSERT_TRUE(server.start());
  ClientOptions o;
  o.max_connections = 4;
  Client client(server.url(), o);
  std::vector<std::future<Result<Value>>> futures;
  for (int i = 0; i < 200; ++i) futures.push_back(client.async_call("mul", {Value(i), Value(3)}));
  for (int i = 0; i < 200; ++i) {
    auto r = futures[i].get();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->as_int(), i * 3);
  }
  // Callbacks, and a deadline that passes while waiting.
  std::atomic<int> timeouts{0};
  std::promise<void> all;
  std::atomic<int> left{3};
  CallOptions brief;
  brief.timeout = 200ms;
  for (int i = 0; i < 3; ++i)
    client.async_call(
        "sleep", {Value(600)},
        [&](Result<Value> r) {
          if (!r && r.error().code == Errc::Timeout) ++timeouts;
          if (--left == 0) all.set_value();
        },
        brief);
  ASSERT_EQ(all.get_future().wait_for(3s), std::future_status::ready);
  EXPECT_EQ(timeouts.load(), 3);
}

TEST(Client, OneClientSharedByManyThreads) {
  ServerOptions so;
  so.listen = {"127.0.0.1:0"};
  so.threads = 2;
  Server server(so);
  EXPECT_TRUE(server.add_method(
      "mul", [](Params p, CallContext&) { return p[0].as_int() * p[1].as_int(); }));
  ASSERT_TRUE(server.start());
  ClientOptions o;
  o.max_connections = 4;
  Client client(server.url(), o);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        auto r = client.call("mul", {Value(t), Value(i)});
        if (!r || r->as_int() != t * i) ++wrong;
        if (i % 50 == 0) {  // mix asynchronous calls in
          auto f = client.async_call("mul", {Value(i), Value(2)});
          auto a = f.get();
          if (!a || a->as_int() != i * 2) ++wrong;
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Client, BadUrlsAndHeaders) {
  EXPECT_FALSE(Client::create("ftp://x/"));
  EXPECT_FALSE(Client::create("http://"));
  EXPECT_FALSE(Client::create("http://host:70000/"));
  EXPECT_FALSE(Client::create("unix:"));
  EXPECT_TRUE(Client::create("http://[::1]:8080/RPC2"));
  ClientOptions o;
  o.headers = {{"X-Evil", "a\r\nInjected: yes"}};
  auto r = Client::create("http://127.0.0.1/", o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
  EXPECT_THROW(Client("nonsense"), Exception);
}

// ---- SCGI (scgi://, scgi+unix:): rtorrent's protocol ----

struct ScgiRequest {
  std::vector<std::pair<std::string, std::string>> headers;  // in order
  std::string body;
  std::string get(const std::string& name) const {
    for (const auto& [n, v] : headers)
      if (n == name) return v;
    return {};
  }
};

// Reads one SCGI request from fd: the netstring of header pairs, then CONTENT_LENGTH bytes.
bool read_scgi_request(int fd, ScgiRequest& out) {
  std::string got;
  char buf[65536];
  auto more = [&] {
    if (!testing::wait_readable(fd, 3000)) return false;
    ssize_t n = testing::receive_some(fd, buf, sizeof buf);
    if (n <= 0) return false;
    got.append(buf, size_t(n));
    return true;
  };
  while (got.find(':') == std::string::npos)
    if (!more()) return false;
  size_t colon = got.find(':');
  size_t length = std::stoul(got.substr(0, colon));
  while (got.size() < colon + 1 + length + 1)
    if (!more()) return false;
  if (got[colon + 1 + length] != ',') return false;
  std::string block = got.substr(colon + 1, length);
  for (size_t i = 0; i < block.size();) {
    size_t a = block.find('\0', i), b = block.find('\0', a + 1);
    out.headers.push_back({block.substr(i, a - i), block.substr(a + 1, b - a - 1)});
    i = b + 1;
  }
  size_t body_length = std::stoul(out.get("CONTENT_LENGTH"));
  size_t body_start = colon + 1 + length + 1;
  while (got.size() < body_start + body_length)
    if (!more()) return false;
  out.body = got.substr(body_start, body_length);
  return true;
}

// An SCGI server as rtorrent is one: a CGI response with Content-Length, answered by a real
// dispatcher, one request per connection.
struct ScgiPeer {
  Registry registry;
  std::optional<RequestDispatcher> dispatcher;
  std::vector<ScgiRequest> seen;
  std::mutex mutex;

  ScgiPeer() {
    EXPECT_TRUE(registry.bind("sample.add", [](int a, int b) { return a + b; }));
    EXPECT_TRUE(registry.bind("echo", [](std::string s) { return s; }));
    dispatcher.emplace(registry);
  }
  void serve(int fd) {
    ScgiRequest request;
    if (!read_scgi_request(fd, request)) return;
    std::string xml;
    {
      std::lock_guard lock(mutex);
      seen.push_back(request);
      xml = dispatcher->dispatch(request.body);
    }
    FakeServer::send_all(fd, "Status: 200 OK\r\nContent-Type: text/xml\r\nContent-Length: " +
                                 std::to_string(xml.size()) + "\r\n\r\n" + xml);
  }
};

TEST(Client, ScgiCallsLikeRtorrentsClients) {
  ScgiPeer peer;
  FakeServer server([&peer](int fd) { peer.serve(fd); });
  std::string url = server.url();
  url.replace(0, 4, "scgi");  // scgi://127.0.0.1:PORT/RPC2
  ClientOptions options = quick();
  options.headers = {{"X-Trace", "t1"}};
  Client client(url, options);
  EXPECT_EQ(client.call<int>("sample.add", 2, 3).value(), 5);
  EXPECT_EQ(client.call<int>("sample.add", 4, 5).value(), 9);
  EXPECT_EQ(server.accepts(), 2);  // SCGI carries one call per connection

  Result<int> unknown = client.call<int>("nope");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, Errc::Fault);
  EXPECT_EQ(unknown.error().fault_code, -32601);

  std::string big(1 << 20, 'x');
  EXPECT_EQ(client.call<std::string>("echo", big).value(), big);
  EXPECT_EQ(client.async_call<int>("sample.add", 1, 1).get().value(), 2);

  std::lock_guard lock(peer.mutex);
  ASSERT_FALSE(peer.seen.empty());
  const ScgiRequest& first = peer.seen.front();
  ASSERT_GE(first.headers.size(), 4u);
  EXPECT_EQ(first.headers[0].first, "CONTENT_LENGTH");  // first, as SCGI requires
  EXPECT_EQ(first.get("SCGI"), "1");
  EXPECT_EQ(first.get("REQUEST_METHOD"), "POST");
  EXPECT_EQ(first.get("REQUEST_URI"), "/RPC2");
  EXPECT_EQ(first.get("HTTP_X_TRACE"), "t1");
  EXPECT_EQ(first.get("CONTENT_LENGTH"), std::to_string(first.body.size()));
}

TEST(Client, ScgiAnswersOfEveryShape) {
  std::string answer;
  FakeServer server([&answer](int fd) {
    ScgiRequest request;
    if (read_scgi_request(fd, request)) FakeServer::send_all(fd, answer);
  });
  std::string url = server.url();
  url.replace(0, 4, "scgi");
  Client client(url, quick());
  auto call = [&](std::string a) {
    answer = std::move(a);
    return client.call<int>("m");
  };
  // Delimited by the end of the connection; with an HTTP status line; a bare LF head.
  EXPECT_EQ(call("Content-Type: text/xml\r\n\r\n" + kIntResponse).value(), 7);
  EXPECT_EQ(call(FakeServer::ok_response(kIntResponse)).value(), 7);
  EXPECT_EQ(call("Status: 200 OK\n\n" + kIntResponse).value(), 7);

  Result<int> r = call("Status: 503 Busy\r\n\r\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::HttpStatus);
  EXPECT_EQ(r.error().http_status, 503);
  EXPECT_EQ(r.error().message, "HTTP 503 Busy");
  r = call("Status: nonsense\r\n\r\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::BadResponse);
  r = call("");  // closed without a byte
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::ConnectionClosed);
  r = call("Content-Length: 100\r\n\r\nshort");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::ConnectionClosed);
}

TEST(Client, ScgiOverAUnixSocket) {
  if (!net::sys::kHasUnixSockets) GTEST_SKIP() << "no Unix-domain sockets here";
  net::Endpoint here;
  here.kind = net::Endpoint::Kind::Unix;
  here.path = ::testing::TempDir() + "callwire-scgi-" + std::to_string(::getpid());
  auto listener = net::listen_on(here, false, 4);
  ASSERT_TRUE(listener) << listener.error().message;
  ScgiPeer peer;
  std::thread t([&] {
    if (!testing::wait_readable(listener->get(), 5000)) return;
    int c = net::accept_nonblocking(listener->get(), nullptr, nullptr);
    if (c >= 0) {
      net::sys::set_nonblocking(c, false);
      peer.serve(c);
      testing::close_socket(c);
    }
  });
  Client client("scgi+unix:" + here.path, quick());
  EXPECT_EQ(client.call<int>("sample.add", 20, 22).value(), 42);
  t.join();
  listener->reset();
  std::filesystem::remove(here.path);
  std::lock_guard lock(peer.mutex);
  EXPECT_EQ(peer.seen.at(0).get("REQUEST_URI"), "/RPC2");
}

TEST(Client, ScgiUrlsNeedAPortAndNoUser) {
  EXPECT_EQ(Client::create("scgi://127.0.0.1").error().code, Errc::InvalidArgument);
  EXPECT_EQ(Client::create("scgi://u:p@127.0.0.1:5000").error().code, Errc::InvalidArgument);
  EXPECT_EQ(Client::create("scgi+unix:").error().code, Errc::InvalidArgument);
  EXPECT_TRUE(Client::create("scgi://[::1]:5000/RPC2"));
}

}  // namespace
}  // namespace callwire
