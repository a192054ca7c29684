// Internal: what a Notifier sends through. A transport whose connections can carry
// notifications to their peer (the server's WebSocket connections) implements it; the
// dispatcher's CallContext hands it to handlers as a Notifier.
#pragma once

#include <memory>
#include <string_view>

#include "callwire/error.hpp"
#include "callwire/value.hpp"

namespace callwire::detail {

/// Ownership: shared by the connection and every Notifier; outlives the connection, which
/// detaches from it when it closes. Thread-safety: send() and open() from any thread.
class NotifyChannel : public std::enable_shared_from_this<NotifyChannel> {
 public:
  virtual ~NotifyChannel() = default;
  /// Queues a notification for the peer (Notifier::notify's contract).
  virtual Status send(std::string_view method, const Value& params) = 0;
  /// Whether the connection is still open.
  virtual bool open() const noexcept = 0;
};

}  // namespace callwire::detail
