// The client over WebSocket against callwire's server and a raw fake one: calls in both
// protocols, the server's notifications during a call and while the connection is idle (the
// pool's watcher thread: run under TSan too), pings answered, the handshake's refusals, and
// what cannot travel in a message refused up front.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "callwire.h"
#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "fake_server.hpp"
#include "ws/frame_reader.hpp"
#include "ws/frame_writer.hpp"
#include "ws/handshake.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

// A notification's first param as the tests compare it: a number, or a string in quotes.
std::string shown(const Value& v) {
  if (v.is_string()) return "\"" + std::string(v.as_string()) + "\"";
  if (auto n = v.try_as_i8()) return std::to_string(*n);
  return "?";
}

// Notifications as a client's handler receives them, for the test to wait on.
struct Received {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> seen;  // "method:first param"

  NotificationHandler handler() {
    return [this](std::string_view method, const Value& params) {
      std::string entry(method);
      if (params.is_array() && params.size() > 0) entry += ":" + shown(params[size_t{0}]);
      std::lock_guard lock(mutex);
      seen.push_back(entry);
      changed.notify_all();
    };
  }
  // The notifications once `count` have come, or those that came within 5 s.
  std::vector<std::string> wait_for(size_t count) {
    std::unique_lock lock(mutex);
    changed.wait_for(lock, 5s, [&] { return seen.size() >= count; });
    return seen;
  }
};

// A server with a ws:// listener and the methods the tests call.
struct WsServer {
  explicit WsServer(ServerOptions o = options()) : server(std::move(o)) {
    EXPECT_TRUE(server.add_method(
        "add", [](Params p, CallContext&) { return Value(p[0].as_int() + p[1].as_int()); }));
    EXPECT_TRUE(server.add_method(
        "peer", [](Params, CallContext& c) { return Value(std::string(c.peer())); }));
    // Sends `count` notifications "tick" [i], then answers `count`.
    EXPECT_TRUE(server.add_method("ticks", [](Params p, CallContext& c) {
      const int count = p[0].as_int();
      for (int i = 0; i < count; ++i)
        EXPECT_TRUE(c.notifier().notify("tick", Value::array({Value(i)})));
      return Value(count);
    }));
    EXPECT_TRUE(server.add_method("subscribe", [this](Params, CallContext& c) {
      std::lock_guard lock(mutex);
      kept = c.notifier();
      return Value(true);
    }));
    Status s = server.start();
    EXPECT_TRUE(s) << s.error().message;
  }
  static ServerOptions options() {
    ServerOptions o;
    o.listen = {"ws://127.0.0.1:0"};
    o.threads = 1;
    return o;
  }
  std::string url(std::string_view scheme = "ws://") const {
    return std::string(scheme) + "127.0.0.1:" + std::to_string(server.port()) + "/RPC2";
  }
  Notifier notifier() {
    std::lock_guard lock(mutex);
    return kept;
  }

  std::mutex mutex;
  Notifier kept;
  Server server;
};

TEST(WebSocketClient, CallsInXmlRpcAndJsonRpc) {
  WsServer s;
  Client xml(s.url());
  auto sum = xml.call("add", {Value(2), Value(3)});
  ASSERT_TRUE(sum) << sum.error().message;
  EXPECT_EQ(sum->as_int(), 5);
  Client json(s.url("jsonrpc+ws://"));
  for (int i = 0; i < 20; ++i) {  // one connection, call after call
    auto r = json.call("add", {Value(i), Value(1)});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->as_int(), i + 1);
  }
  auto fault = json.call("no.such.method");
  ASSERT_FALSE(fault);
  EXPECT_EQ(fault.error().code, Errc::Fault);
  EXPECT_EQ(fault.error().fault_code, -32601);
}

TEST(WebSocketClient, AJsonRpcBatchAndANotificationTravelInMessages) {
  WsServer s;
  Client json(s.url("jsonrpc+ws://"));
  Batch batch = json.batch();
  batch.call("add", {Value(1), Value(2)});
  batch.call("add", {Value(3), Value(4)});
  auto results = batch.send();
  ASSERT_TRUE(results) << results.error().message;
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0]->as_int(), 3);
  EXPECT_EQ((*results)[1]->as_int(), 7);
  // A notification of the client's is done once sent: no answer comes over WebSocket.
  EXPECT_TRUE(json.notify("add", {Value(1), Value(1)}));
  EXPECT_EQ(json.call("add", {Value(5), Value(5)})->as_int(), 10);
}

TEST(WebSocketClient, NotificationsOfACallReachTheHandlerInOrder) {
  for (unsigned handler_threads : {0u, 2u}) {  // sent after the answer, or before it
    ServerOptions o = WsServer::options();
    o.handler_threads = handler_threads;
    WsServer s(o);
    Received got;
    ClientOptions co;
    co.on_notification = got.handler();
    Client client(s.url("jsonrpc+ws://"), co);
    auto r = client.call("ticks", {Value(50)});
    ASSERT_TRUE(r) << r.error().message;
    std::vector<std::string> seen = got.wait_for(50);
    ASSERT_EQ(seen.size(), 50u) << "handler threads " << handler_threads;
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], "tick:" + std::to_string(i));
    // The connection still carries calls.
    EXPECT_EQ(client.call("add", {Value(1), Value(2)})->as_int(), 3);
  }
}

TEST(WebSocketClient, NotificationsComeWhileNoCallIsMade) {
  WsServer s;
  Received got;
  ClientOptions co;
  co.on_notification = got.handler();
  Client client(s.url("jsonrpc+ws://"), co);
  const std::string peer = std::string(client.call("peer")->as_string());
  ASSERT_TRUE(client.call("subscribe"));
  Notifier n = s.notifier();
  ASSERT_TRUE(n);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(n.notify("event", Value::array({Value(i)})));
  EXPECT_EQ(got.wait_for(3), (std::vector<std::string>{"event:0", "event:1", "event:2"}));
  // Read by the watcher, the connection goes back to the pool: the next call takes it.
  EXPECT_EQ(std::string(client.call("peer")->as_string()), peer);
}

TEST(WebSocketClient, AnswersTheServersPingsWhileIdle) {
  ServerOptions o = WsServer::options();
  o.websocket.ping_interval = 100ms;  // a ping unanswered for 100 ms closes the connection
  WsServer s(o);
  Received got;
  ClientOptions co;
  co.on_notification = got.handler();
  Client client(s.url("jsonrpc+ws://"), co);
  const std::string peer = std::string(client.call("peer")->as_string());
  std::this_thread::sleep_for(600ms);  // idle through several pings: the time is the test
  EXPECT_EQ(std::string(client.call("peer")->as_string()), peer)
      << "the connection was not kept alive";
}

TEST(WebSocketClient, AConnectionTheServerClosedIsReplacedUnseen) {
  ServerOptions o = WsServer::options();
  o.idle_timeout = 100ms;  // closes idle connections with a Close
  o.websocket.ping_interval = 0ms;
  WsServer s(o);
  for (bool watched : {false, true}) {
    Received got;
    ClientOptions co;
    if (watched) co.on_notification = got.handler();
    Client client(s.url("jsonrpc+ws://"), co);
    const std::string peer = std::string(client.call("peer")->as_string());
    std::this_thread::sleep_for(400ms);  // past the idle timeout: the time is the test
    auto again = client.call("peer");
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_NE(std::string(again->as_string()), peer);
  }
}

TEST(WebSocketClient, TheHandshakeCarriesCredentialsAndItsRefusalsAreHttpStatuses) {
  ServerOptions o = WsServer::options();
  o.authenticate = [](std::string_view user, std::string_view password) {
    return user == "alice" && password == "secret";
  };
  WsServer s(o);
  const std::string port = std::to_string(s.server.port());
  Client good("ws://alice:secret@127.0.0.1:" + port + "/RPC2");
  auto r = good.call("add", {Value(1), Value(1)});
  ASSERT_TRUE(r) << r.error().message;
  Client anonymous("ws://127.0.0.1:" + port + "/RPC2");
  auto refused = anonymous.call("add", {Value(1), Value(1)});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::HttpStatus);
  EXPECT_EQ(refused.error().http_status, 401);
  EXPECT_NE(refused.error().message.find("refused the WebSocket opening"), std::string::npos)
      << refused.error().message;
}

TEST(WebSocketClient, TheTraceShowsMessagesUnmasked) {
  WsServer s;
  std::mutex mutex;
  std::vector<std::string> bodies;
  ClientOptions co;
  co.trace = [&](const TraceEvent& e) {
    std::lock_guard lock(mutex);
    bodies.emplace_back(e.body);
  };
  Client client(s.url("jsonrpc+ws://"), co);
  ASSERT_TRUE(client.call("add", {Value(2), Value(2)}));
  std::lock_guard lock(mutex);
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_NE(bodies[0].find("\"method\":\"add\""), std::string::npos) << bodies[0];
  EXPECT_NE(bodies[1].find("\"result\":4"), std::string::npos) << bodies[1];
}

TEST(WebSocketClient, WhatAMessageCannotCarryIsRefused) {
  WsServer s;
  Client client(s.url("jsonrpc+ws://"));
  CallOptions with_header;
  with_header.headers = {{"X-Trace", "1"}};
  auto r = client.call("add", {Value(1), Value(1)}, with_header);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
  ClientOptions bad;
  bad.headers = {{"Sec-WebSocket-Protocol", "other"}};
  EXPECT_FALSE(Client::create(s.url(), bad));
  ClientOptions notified;
  notified.on_notification = [](std::string_view, const Value&) {};
  auto over_http = Client::create("jsonrpc+http://127.0.0.1:1/", notified);
  ASSERT_FALSE(over_http);
  EXPECT_NE(over_http.error().message.find("WebSocket only"), std::string::npos);
  EXPECT_FALSE(Client::adopt(::dup(0), ConnectionFraming::WebSocket));
}

// A raw server's side of the handshake: reads the opening request and answers it with
// `answer_fields` after the status line (the accept key filled in unless `accept` is given).
std::string answer_opening(int fd, std::string_view answer_fields,
                           std::string accept = std::string()) {
  std::string request = FakeServer::read_request(fd);
  const size_t at = request.find("Sec-WebSocket-Key: ");
  if (at == std::string::npos) return request;
  const std::string key = request.substr(at + 19, 24);
  if (accept.empty()) accept = ws::accept_key(key);
  std::string answer =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Accept: " +
      accept + "\r\n" + std::string(answer_fields) + "\r\n";
  EXPECT_TRUE(testing::send_all(fd, answer));
  return request;
}

TEST(WebSocketClient, AnOpeningAnswerThatDoesNotFitIsRefused) {
  struct Case {
    std::string fields;
    std::string accept;
    bool json;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"", "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", true, "Sec-WebSocket-Accept"},
      {"Sec-WebSocket-Protocol: mqtt\r\n", "", true, "chose subprotocol 'mqtt'"},
      {"", "", false, "chose no subprotocol"},
      {"Sec-WebSocket-Extensions: permessage-deflate\r\n", "", true, "extension"},
  };
  for (const Case& c : cases) {
    FakeServer server([&](int fd) { answer_opening(fd, c.fields, c.accept); });
    const std::string url = std::string(c.json ? "jsonrpc+ws://" : "ws://") +
                            "127.0.0.1:" + std::to_string(server.port()) + "/";
    ClientOptions o;
    o.timeout = 3s;
    auto r = Client(url, o).call("add");
    ASSERT_FALSE(r) << c.expected;
    EXPECT_EQ(r.error().code, Errc::BadResponse) << r.error().message;
    EXPECT_NE(r.error().message.find(c.expected), std::string::npos) << r.error().message;
  }
}

// Reads the next frame a client sent (masked), unmasked; empty when none comes.
struct ClientFrames {
  int fd;
  ws::FrameReader reader{ws::Role::Server};
  std::string rest;
  ws::Event next(std::string& payload) {
    for (;;) {
      ws::Event e = reader.next(rest);
      rest.erase(0, e.consumed);
      if (e.kind != ws::EventKind::NeedMore) {
        payload = std::string(e.payload);
        return e;
      }
      char buf[4096];
      if (!testing::wait_readable(fd, 3000)) return {};
      ssize_t n = testing::receive_some(fd, buf, sizeof buf);
      if (n <= 0) return {};
      rest.assign(buf, size_t(n));
    }
  }
};

TEST(WebSocketClient, APingBeforeTheAnswerIsAnsweredAndFramesMaySplitAnywhere) {
  std::promise<bool> ponged;  // set by the server's thread once it has read what came back
  std::future<bool> pong = ponged.get_future();
  FakeServer server([&](int fd) {
    std::string request = answer_opening(fd, "Sec-WebSocket-Protocol: jsonrpc\r\n");
    ClientFrames frames{fd};
    std::string payload;
    if (frames.next(payload).kind != ws::EventKind::Text) return;
    Buffer out;
    ws::append_ping(out, "are you there", std::nullopt);
    ws::append_frame(out, ws::Opcode::Text,
                     R"({"jsonrpc":"2.0","method":"hello","params":["world"]})", true,
                     std::nullopt);
    // The answer in two fragments, sent a byte at a time.
    ws::append_frame(out, ws::Opcode::Text, R"({"jsonrpc":"2.0",)", false, std::nullopt);
    ws::append_frame(out, ws::Opcode::Continuation, R"("id":1,"result":42})", true, std::nullopt);
    for (char c : out.view()) testing::send_all(fd, std::string_view(&c, 1));
    ws::Event e = frames.next(payload);
    ponged.set_value(e.kind == ws::EventKind::Pong && payload == "are you there");
  });
  Received got;
  ClientOptions o;
  o.on_notification = got.handler();
  Client client("jsonrpc+ws://127.0.0.1:" + std::to_string(server.port()) + "/", o);
  auto r = client.call("answer");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->as_int(), 42);
  EXPECT_EQ(got.wait_for(1), std::vector<std::string>{"hello:\"world\""});
  ASSERT_EQ(pong.wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(pong.get());
}

TEST(WebSocketClient, AServerThatBreaksTheProtocolFailsTheCallNotTheClient) {
  FakeServer server([&](int fd) {
    answer_opening(fd, "Sec-WebSocket-Protocol: jsonrpc\r\n");
    ClientFrames frames{fd};
    std::string payload;
    if (frames.next(payload).kind != ws::EventKind::Text) return;
    // A masked frame from a server.
    Buffer out;
    ws::append_frame(out, ws::Opcode::Text, "{}", true, ws::MaskKey{1, 2, 3, 4});
    testing::send_all(fd, out.view());
    frames.next(payload);  // the client's Close
  });
  Client client("jsonrpc+ws://127.0.0.1:" + std::to_string(server.port()) + "/");
  auto r = client.call("answer");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::BadResponse);
  EXPECT_NE(r.error().message.find("WebSocket"), std::string::npos) << r.error().message;
}

extern "C" void count_c_notification(const char* method, const cw_value* params, void* data) {
  auto* got = static_cast<Received*>(data);
  std::lock_guard lock(got->mutex);
  size_t size = 0;
  cw_value_array_size(params, &size);
  got->seen.push_back(std::string(method) + ":" + std::to_string(size));
  got->changed.notify_all();
}

TEST(WebSocketClient, NotificationsInC) {
  WsServer s;
  Received got;
  cw_client_options o;
  cw_client_options_init(&o);
  o.on_notification = count_c_notification;
  o.notification_data = &got;
  cw_client* client = nullptr;
  cw_error error{};
  ASSERT_EQ(cw_client_new(s.url("jsonrpc+ws://").c_str(), &o, &client, &error), CW_OK)
      << error.message;
  cw_value* arg = nullptr;
  ASSERT_EQ(cw_value_new_int(3, &arg), CW_OK);
  cw_value* result = nullptr;
  ASSERT_EQ(cw_client_call(client, "ticks", &arg, 1, nullptr, &result, &error), CW_OK)
      << error.message;
  EXPECT_EQ(got.wait_for(3), (std::vector<std::string>{"tick:1", "tick:1", "tick:1"}));
  cw_value_free(result);
  cw_value_free(arg);
  cw_client_free(client);
}

}  // namespace
}  // namespace callwire
