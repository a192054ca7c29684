#include "server/websocket_channel.hpp"

#include <optional>

#include "callwire/json.hpp"
#include "server/connection.hpp"
#include "ws/frame_writer.hpp"

namespace callwire::detail {

Status WebSocketChannel::send(std::string_view method, const Value& params) {
  // Encoded outside the lock: the caller's thread does the work, not the loop's.
  Buffer body;
  if (Status s = json::write_call(body, {}, method, params); !s) return s;
  Buffer frame;
  ws::append_frame(frame, ws::Opcode::Text, body.view(), true, std::nullopt);
  {
    std::lock_guard lock(mutex_);
    if (!connection_) return Error(Errc::ConnectionClosed, "the connection has closed");
    const size_t waiting = unsent_.load(std::memory_order_relaxed) + queued_.size();
    if (waiting + frame.size() > max_unsent_)
      return Error(Errc::LimitExceeded, "the peer is not reading: " + std::to_string(waiting) +
                                            " bytes wait for it already (max_pending_output " +
                                            std::to_string(max_unsent_) +
                                            "); the notification is dropped");
    queued_.append(frame.view());
    if (!std::exchange(posted_, true)) {
      try {  // the loop's task holds the channel, which outlives both
        loop_->post([self = std::static_pointer_cast<WebSocketChannel>(shared_from_this())] {
          self->deliver();
        });
      } catch (...) {  // out of memory: this one is not sent, the next may be
        queued_.truncate(queued_.size() - frame.size());
        posted_ = false;
        throw;
      }
    }
  }
  return {};
}

bool WebSocketChannel::open() const noexcept {
  std::lock_guard lock(mutex_);
  return connection_ != nullptr;
}

void WebSocketChannel::detach() noexcept {
  std::lock_guard lock(mutex_);
  connection_ = nullptr;
  loop_ = nullptr;
  queued_ = Buffer();
}

void WebSocketChannel::deliver() {
  Buffer frames;
  Connection* connection;
  {
    std::lock_guard lock(mutex_);
    posted_ = false;
    std::swap(frames, queued_);
    connection = connection_;  // detached only on this thread: valid until this returns
  }
  if (connection && !frames.empty()) connection->send_notifications(frames.view());
}

}  // namespace callwire::detail
