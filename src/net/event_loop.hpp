// Internal: one epoll event loop, run by one thread, with a cross-thread wake-up, posted tasks
// and a coarse periodic tick (timeouts are swept on the tick, not armed per read).
#pragma once

#include <sys/epoll.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "callwire/error.hpp"
#include "net/fd.hpp"

namespace callwire::net {

/// Something registered with a loop: called with the epoll event bits.
class Watcher {
 public:
  virtual void on_event(uint32_t events) = 0;

 protected:
  ~Watcher() = default;
};

/// Ownership: watchers are borrowed; remove (or close) a watcher's fd before destroying it.
/// Thread-safety: add/modify/remove/run/quit on the loop's own thread; wake() and post() from
/// any thread, and wake() from a signal handler.
class EventLoop {
 public:
  /// Errors: InvalidArgument with the system's reason (out of file descriptors).
  static Result<std::unique_ptr<EventLoop>> create();
  ~EventLoop() = default;

  bool add(int fd, uint32_t events, Watcher* watcher) noexcept;
  bool modify(int fd, uint32_t events, Watcher* watcher) noexcept;
  void remove(int fd) noexcept;

  /// Runs until quit(): dispatches events, runs posted tasks after a wake(), calls
  /// `after_events(woken)` after each batch of events and `on_tick` about every `tick`.
  void run(std::chrono::milliseconds tick, const std::function<void()>& on_tick,
           const std::function<void(bool woken)>& after_events);
  void quit() noexcept { quit_ = true; }

  // ---- Driven by a host's loop instead of run() (no thread of ours). The epoll descriptor
  // is itself pollable: readable when any event registered inside is ready, the wake-up
  // included, so a host watches this one descriptor for reading plus next_timeout().

  /// The epoll descriptor, to watch for reading (never to read, close or wait on otherwise).
  int fd() const noexcept { return epoll_.get(); }
  /// One turn of run() that never blocks: the events ready now, the posted tasks, `on_tick`
  /// when its time has come (the first call starts the clock), then `after_events`. False
  /// once quit() was called.
  bool run_once(std::chrono::milliseconds tick, const std::function<void()>& on_tick,
                const std::function<void(bool woken)>& after_events);
  /// How long a host may wait before the next run_once(): until the tick is due (the whole
  /// tick before the first run_once), 0 while posted tasks wait.
  std::chrono::milliseconds next_timeout(std::chrono::milliseconds tick);
  /// Whether tasks posted have not run yet (any thread).
  bool has_tasks();

  /// Wakes the loop (async-signal-safe).
  void wake() noexcept;
  /// Runs `task` on the loop's thread soon.
  void post(std::function<void()> task);

 private:
  EventLoop(UniqueFd epoll, UniqueFd wake) : epoll_(std::move(epoll)), wake_fd_(std::move(wake)) {}
  // Dispatches a batch from epoll_wait; runs the posted tasks when the wake-up was in it.
  // Returns whether it was.
  bool dispatch(const epoll_event* events, int n, std::vector<std::function<void()>>& tasks);

  UniqueFd epoll_;
  UniqueFd wake_fd_;
  bool quit_ = false;
  std::mutex tasks_mutex_;
  std::vector<std::function<void()>> tasks_;
  std::chrono::steady_clock::time_point next_tick_{};  // run_once's; epoch: not yet started
};

}  // namespace callwire::net
