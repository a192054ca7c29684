// WebSocket connections end to end in raw bytes, for what the interop tests cannot see from a
// client library: a Notifier's contract (kept after its call, empty off WebSocket, refusing
// when the peer does not read, failing once the connection is gone), with handlers inline and
// on a worker pool.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "callwire.h"
#include "callwire/server.hpp"
#include "http_test_util.hpp"
#include "ws/frame_reader.hpp"
#include "ws/frame_writer.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;
using testing::RawSocket;

// A notifier a handler left behind, for the test to use afterwards.
struct Kept {
  std::mutex mutex;
  Notifier notifier;
  void keep(Notifier n) {
    std::lock_guard lock(mutex);
    notifier = std::move(n);
  }
  Notifier get() {
    std::lock_guard lock(mutex);
    return notifier;
  }
};

struct WsServer {
  explicit WsServer(unsigned handler_threads, Kept& kept) : server(options(handler_threads)) {
    EXPECT_TRUE(server.add_method("subscribe", [&kept](Params, CallContext& context) {
      kept.keep(context.notifier());
      return Value(static_cast<bool>(context.notifier()));
    }));
    Status s = server.start();
    EXPECT_TRUE(s) << s.error().message;
  }
  static ServerOptions options(unsigned handler_threads) {
    ServerOptions o;
    o.listen = {"ws://127.0.0.1:0"};
    o.threads = 1;
    o.handler_threads = handler_threads;
    o.max_pending_output = 256 * 1024;
    return o;
  }
  Server server;
};

// A client's side: the handshake, masked frames out, frames in.
class WsPeer {
 public:
  explicit WsPeer(uint16_t port) : socket_(port) {
    socket_.send(
        "GET /RPC2 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    std::string head = socket_.read_until(
        [](const std::string& got) { return got.find("\r\n\r\n") != std::string::npos; });
    upgraded_ = head.starts_with("HTTP/1.1 101 ");
    pending_ = head.substr(head.find("\r\n\r\n") + 4);
  }
  bool upgraded() const { return upgraded_; }
  RawSocket& socket() { return socket_; }
  void send_text(std::string_view text) {
    Buffer frame;
    ws::append_frame(frame, ws::Opcode::Text, text, true, ws::MaskKey{1, 2, 3, 4});
    socket_.send(frame.view());
  }
  // The next text message, or "" when none comes in time.
  std::string next_text(std::chrono::milliseconds timeout = 5s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      ws::Event e = reader_.next(pending_);
      pending_.erase(0, e.consumed);
      if (e.kind == ws::EventKind::Text) return std::string(e.payload);
      if (e.kind == ws::EventKind::Close || e.kind == ws::EventKind::Error) return {};
      if (e.kind != ws::EventKind::NeedMore) continue;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return {};
      pending_ += socket_.read_until([](const std::string& got) { return !got.empty(); }, left);
      if (socket_.closed() && pending_.empty()) return {};
    }
  }

 private:
  RawSocket socket_;
  bool upgraded_ = false;
  std::string pending_;
  ws::FrameReader reader_{ws::Role::Client};
};

constexpr std::string_view kSubscribe = R"({"jsonrpc":"2.0","id":1,"method":"subscribe"})";

TEST(WebSocketNotifier, KeptAfterItsCallItSendsUntilTheConnectionCloses) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    Kept kept;
    WsServer t(workers, kept);
    WsPeer peer(t.server.port(0));
    ASSERT_TRUE(peer.upgraded());
    peer.send_text(kSubscribe);
    EXPECT_EQ(peer.next_text(), R"({"jsonrpc":"2.0","result":true,"id":1})");
    Notifier n = kept.get();
    ASSERT_TRUE(n);
    EXPECT_TRUE(n.connected());
    // Later, from this thread: an event, with params by name.
    ASSERT_TRUE(n.notify("event", Value::structure({{"seq", 1}})));
    EXPECT_EQ(peer.next_text(), R"({"jsonrpc":"2.0","method":"event","params":{"seq":1}})");
    EXPECT_FALSE(n.notify("event", Value(3)));  // params neither array nor struct
    // The peer goes: the notifier says so, and keeps failing without harm.
    peer.socket().shutdown_write();
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (n.connected() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(5ms);
    EXPECT_FALSE(n.connected());
    Status closed = n.notify("event");
    ASSERT_FALSE(closed);
    EXPECT_EQ(closed.error().code, Errc::ConnectionClosed);
  }
}

TEST(WebSocketNotifier, APeerThatDoesNotReadIsRefusedNotBuffered) {
  Kept kept;
  WsServer t(0, kept);
  WsPeer peer(t.server.port(0));
  ASSERT_TRUE(peer.upgraded());
  peer.send_text(kSubscribe);
  ASSERT_FALSE(peer.next_text().empty());
  Notifier n = kept.get();
  // The peer reads nothing more: once max_pending_output (256 KiB) waits for it, notify()
  // refuses, and the connection stays.
  const std::string big(16 * 1024, 'x');
  Status s;
  int sent = 0;
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    s = n.notify("blob", Value::array({Value(big)}));
    if (!s) break;
    ++sent;
    if (sent % 16 == 0) std::this_thread::sleep_for(1ms);  // let the loop write what it can
  }
  ASSERT_FALSE(s) << "still accepted after " << sent;
  EXPECT_EQ(s.error().code, Errc::LimitExceeded) << s.error().message;
  EXPECT_NE(s.error().message.find("max_pending_output"), std::string::npos);
  EXPECT_TRUE(n.connected());
}

TEST(WebSocketNotifier, EmptyOffWebSocket) {
  Kept kept;
  WsServer t(0, kept);
  RawSocket http(t.server.port(0));
  const std::string body = R"({"jsonrpc":"2.0","id":1,"method":"subscribe"})";
  http.send("POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_NE(http.read_responses(1).find(R"("result":false)"), std::string::npos);
  Notifier n = kept.get();
  EXPECT_FALSE(n);
  EXPECT_FALSE(n.connected());
  Status s = n.notify("event");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::InvalidArgument);
}

// A server destroyed under a kept notifier: it fails, it does not touch freed memory.
TEST(WebSocketNotifier, OutlivesItsServer) {
  Kept kept;
  {
    WsServer t(0, kept);
    WsPeer peer(t.server.port(0));
    ASSERT_TRUE(peer.upgraded());
    peer.send_text(kSubscribe);
    ASSERT_FALSE(peer.next_text().empty());
  }
  Notifier n = kept.get();
  EXPECT_FALSE(n.connected());
  EXPECT_FALSE(n.notify("event"));
}

// The C API's notifier: got in a C handler, used from the test's thread after the call.
std::atomic<cw_notifier*> g_c_notifier{nullptr};

cw_status c_subscribe(cw_call* call, void*) {
  cw_notifier* n = cw_call_notifier(call);
  g_c_notifier.store(n);
  return cw_call_return_bool(call, n != nullptr);
}

TEST(WebSocketNotifier, FromC) {
  cw_server_options options;
  cw_server_options_init(&options);
  options.listen = "ws://127.0.0.1:0";
  cw_server* server = nullptr;
  cw_error err;
  ASSERT_EQ(cw_server_new(&options, &server, &err), CW_OK) << err.message;
  ASSERT_EQ(cw_server_add_method(server, "subscribe", c_subscribe, nullptr, nullptr, nullptr, &err),
            CW_OK);
  ASSERT_EQ(cw_server_start(server, &err), CW_OK) << err.message;
  {
    WsPeer peer(cw_server_port(server));
    ASSERT_TRUE(peer.upgraded());
    peer.send_text(kSubscribe);
    EXPECT_EQ(peer.next_text(), R"({"jsonrpc":"2.0","result":true,"id":1})");
    cw_notifier* n = g_c_notifier.exchange(nullptr);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(cw_notifier_connected(n), 1);
    EXPECT_EQ(cw_notifier_send(n, "tick", nullptr, &err), CW_OK);
    EXPECT_EQ(peer.next_text(), R"({"jsonrpc":"2.0","method":"tick","params":[]})");
    cw_value* params = nullptr;
    ASSERT_EQ(cw_value_new_int(7, &params), CW_OK);
    EXPECT_EQ(cw_notifier_send(n, "tick", params, &err), CW_INVALID_ARGUMENT);  // not an array
    cw_value_free(params);
    EXPECT_EQ(cw_notifier_send(n, nullptr, nullptr, &err), CW_INVALID_ARGUMENT);
    EXPECT_EQ(cw_notifier_send(nullptr, "tick", nullptr, &err), CW_INVALID_ARGUMENT);
    peer.socket().shutdown_write();
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (cw_notifier_connected(n) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(5ms);
    EXPECT_EQ(cw_notifier_connected(n), 0);
    EXPECT_EQ(cw_notifier_send(n, "tick", nullptr, &err), CW_CONNECTION_CLOSED);
    cw_notifier_free(n);
  }
  cw_server_free(server);
  cw_notifier_free(nullptr);
  EXPECT_EQ(cw_notifier_connected(nullptr), 0);
}

}  // namespace
}  // namespace callwire
