// Internal: a client's idle kept-alive connections, shared by every thread that calls.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "client/client_connection.hpp"

namespace callwire::detail {

/// Ownership: owns the idle connections; borrows the settings (they outlive it).
/// Thread-safety: take and give_back from any thread at once.
class ConnectionPool {
 public:
  ConnectionPool(const ClientSettings& settings, size_t max_idle)
      : settings_(settings), max_idle_(max_idle) {}

  /// An idle connection, or a new one (not yet connected) when there is none.
  std::unique_ptr<ClientConnection> take() {
    {
      std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        return c;
      }
    }
    return std::make_unique<ClientConnection>(settings_);
  }
  /// Keeps `c` for the next call if it can carry one and there is room; else drops it.
  void give_back(std::unique_ptr<ClientConnection> c) {
    if (!c->reusable()) return;
    std::lock_guard lock(mutex_);
    if (idle_.size() < max_idle_) idle_.push_back(std::move(c));
  }

 private:
  const ClientSettings& settings_;
  const size_t max_idle_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<ClientConnection>> idle_;
};

}  // namespace callwire::detail
