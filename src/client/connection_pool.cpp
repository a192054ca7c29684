#include "client/connection_pool.hpp"

#include <algorithm>

namespace callwire::detail {

ConnectionPool::~ConnectionPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (waker_) waker_->raise();
  }
  if (watcher_.joinable()) watcher_.join();
}

std::unique_ptr<ClientConnection> ConnectionPool::take_after_watcher() {
  {
    std::unique_lock lock(mutex_);
    // A notification's handler making a call runs on the watcher: it must not wait for itself.
    if (std::this_thread::get_id() != watcher_.get_id())
      read_done_.wait(lock, [this] { return !idle_.empty() || reading_ == 0; });
    if (auto c = pop_idle_locked()) return c;
  }
  return std::make_unique<ClientConnection>(settings_);
}

void ConnectionPool::watch_locked() {
  if (waker_) {
    waker_->raise();
    return;
  }
  // Without a descriptor for the waker, idle connections are read at their next call instead.
  auto fd = net::WakeFd::create();
  if (!fd) return;
  waker_ = std::move(*fd);
  watcher_ = std::thread([this] { watch_loop(); });
}

void ConnectionPool::watch_loop() {
  std::vector<int> fds;
  std::vector<int> ready;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      waker_->clear();
      fds.clear();
      for (const auto& c : idle_) fds.push_back(c->fd());
    }
    net::wait_readable(fds, waker_->fd(), ready);
    for (int fd : ready) {
      std::unique_ptr<ClientConnection> c;
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        // A call may have taken it since: then it is that call's to read.
        auto it = std::find_if(idle_.begin(), idle_.end(),
                               [fd](const auto& idle) { return idle->fd() == fd; });
        if (it == idle_.end()) continue;
        c = std::move(*it);
        idle_.erase(it);
        ++reading_;
      }
      const bool alive = c->read_idle();
      std::lock_guard lock(mutex_);
      --reading_;
      // Closed or broken: dropped here (out of the lock would do too; this is simpler).
      if (alive && idle_.size() < max_idle_) idle_.push_back(std::move(c));
      read_done_.notify_all();
    }
  }
}

}  // namespace callwire::detail
