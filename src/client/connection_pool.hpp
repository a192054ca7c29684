// Internal: a client's idle kept-alive connections, shared by every thread that calls; for a
// client that takes notifications (WebSocket), watched while idle by a thread of its own.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "client/client_connection.hpp"
#include "net/socket.hpp"

namespace callwire::detail {

/// Ownership: owns the idle connections, and the watcher thread when there is one (the
/// destructor stops it, waiting for a notification handler it is running). Borrows the
/// settings (they outlive it). Thread-safety: take and give_back from any thread at once.
class ConnectionPool {
 public:
  ConnectionPool(const ClientSettings& settings, size_t max_idle)
      : settings_(settings), max_idle_(max_idle) {}
  ~ConnectionPool();
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  /// An idle connection, or a new one (not yet connected) when there is none. One the watcher
  /// is reading is waited for (it reads what has come, without blocking), unless the caller is
  /// the watcher itself (a notification's handler making a call).
  std::unique_ptr<ClientConnection> take() {
    {
      std::lock_guard lock(mutex_);
      if (auto c = pop_idle_locked()) return c;
      if (reading_ == 0) return std::make_unique<ClientConnection>(settings_);
    }
    return take_after_watcher();
  }
  const ClientSettings& settings() const noexcept { return settings_; }
  /// Client::probe's part: sends `probe_bytes` (if any) on each idle connection (and on an
  /// adopted one not in use), watches them until `deadline` and drops those the peer closed
  /// or reset. Returns how many are kept. Calls made meanwhile find no idle connection and
  /// open their own.
  size_t probe(std::string_view probe_bytes, std::chrono::steady_clock::time_point deadline) {
    std::vector<std::unique_ptr<ClientConnection>> checked;
    {
      std::lock_guard lock(mutex_);
      checked.swap(idle_);
    }
    net::UniqueFd adopted(settings_.adopted_fd ? settings_.adopted_fd->exchange(-1) : -1);
    std::vector<int> fds;
    for (auto& c : checked) fds.push_back(c->fd());
    if (adopted) fds.push_back(adopted.get());
    std::vector<bool> sent(fds.size(), true);
    if (!probe_bytes.empty())
      for (size_t i = 0; i < fds.size(); ++i) sent[i] = net::send_now(fds[i], probe_bytes);
    std::vector<net::IdleState> seen = net::watch_idle(fds, deadline);
    auto alive = [&](size_t i, bool tls) {
      // Bytes waiting on a TLS connection may be the server's session tickets; on a plain
      // one they answer nothing, and would be read as the next call's answer.
      return sent[i] &&
             (seen[i] == net::IdleState::Quiet || (seen[i] == net::IdleState::Data && tls));
    };
    size_t kept = 0;
    if (adopted && alive(fds.size() - 1, false)) {
      settings_.adopted_fd->store(adopted.release());
      ++kept;
    }
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < checked.size(); ++i) {
      if (alive(i, checked[i]->tls()) && idle_.size() < max_idle_) {
        idle_.push_back(std::move(checked[i]));
        ++kept;
      }
    }
    return kept;
  }
  /// Keeps `c` for the next call if it can carry one and there is room; else drops it.
  void give_back(std::unique_ptr<ClientConnection> c) {
    if (!c->reusable()) return;
    if (settings_.adopted_fd) {
      // Client::adopt: the one socket goes back to the client, for whichever connection
      // object the next call makes (an asynchronous call has made its own already).
      settings_.adopted_fd->store(c->release_adopted().release());
      return;
    }
    std::lock_guard lock(mutex_);
    if (idle_.size() >= max_idle_) return;
    idle_.push_back(std::move(c));
    if (settings_.watch_idle) watch_locked();
  }

 private:
  // The most recently kept idle connection, or null. The caller holds mutex_.
  std::unique_ptr<ClientConnection> pop_idle_locked() {
    if (idle_.empty()) return nullptr;
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return c;
  }
  // take() when the only idle connections are the watcher's to read: waits for them (out of
  // line: the usual take() finds one, or none and no watcher).
  std::unique_ptr<ClientConnection> take_after_watcher();
  // Starts the watcher at the first connection kept, or wakes it to watch one more.
  void watch_locked();
  // The watcher thread: waits for an idle connection to become readable, takes it out of the
  // pool, lets it read (its notifications' handler runs then, with no lock held) and puts it
  // back unless it closed.
  void watch_loop();

  const ClientSettings& settings_;
  const size_t max_idle_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<ClientConnection>> idle_;
  std::optional<net::WakeFd> waker_;  // set once the watcher runs
  std::thread watcher_;
  size_t reading_ = 0;  // connections out of idle_ while the watcher reads them
  std::condition_variable read_done_;
  bool stopping_ = false;
};

}  // namespace callwire::detail
