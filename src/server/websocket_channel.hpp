// Internal: the notifications a server's WebSocket connection carries to its peer
// (Notifier::notify): any thread encodes a notification and queues it here; the connection's
// event loop takes the queue and sends it after what the connection has queued already.
#pragma once

#include <atomic>
#include <mutex>

#include "callwire/buffer.hpp"
#include "dispatch/notify_channel.hpp"
#include "net/event_loop.hpp"

namespace callwire::detail {

class Connection;

/// Ownership: shared by its connection and the notifiers handed out; the connection detaches
/// when it closes. Thread-safety: send(), open() from any thread; the rest on the loop's.
class WebSocketChannel final : public NotifyChannel {
 public:
  /// `max_unsent`: the most bytes (answers and notifications) that may wait for the peer
  /// before a notification is refused (ServerOptions::max_pending_output).
  WebSocketChannel(net::EventLoop& loop, Connection& connection, size_t max_unsent) noexcept
      : loop_(&loop), connection_(&connection), max_unsent_(max_unsent) {}

  Status send(std::string_view method, const Value& params) override;
  bool open() const noexcept override;

  /// The connection has closed: every later send() fails, what is queued is dropped.
  void detach() noexcept;
  /// The bytes the connection has queued and not sent, as of its last write.
  void note_unsent(size_t bytes) noexcept { unsent_.store(bytes, std::memory_order_relaxed); }

 private:
  // On the loop: hands what is queued to the connection.
  void deliver();

  mutable std::mutex mutex_;
  net::EventLoop* loop_;    // null once detached
  Connection* connection_;  // null once detached
  Buffer queued_;           // whole frames, not yet handed to the connection
  bool posted_ = false;     // a deliver() is posted and has not run
  const size_t max_unsent_;
  std::atomic<size_t> unsent_{0};
};

}  // namespace callwire::detail
