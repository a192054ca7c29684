// Internal: one event loop (a Poller: epoll, or poll(2) where there is none), run by one
// thread, with a cross-thread wake-up, posted tasks and a coarse periodic tick (timeouts are
// swept on the tick, not armed per read).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "callwire/error.hpp"
#include "net/fd.hpp"
#include "net/poller.hpp"
#include "net/wake_fd.hpp"

namespace callwire::net {

/// Something registered with a loop: called with the readiness bits (kReadable, kWritable,
/// kError, kHangup: net/poller.hpp).
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

  /// `events`: kReadable, kWritable, kExclusive (net/poller.hpp).
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
  // included, so a host watches this one descriptor for reading plus next_timeout(). With
  // poll(2) there is no such descriptor: fd() is the wake-up's, and next_timeout() is never
  // more than kPollHostTick, so the host calls in often enough to see the sockets.

  /// Whether fd() shows every event (epoll's descriptor); false with poll(2), where a host
  /// must call in at least every kPollHostTick, even with nothing pending.
  bool fd_shows_all_events() const noexcept { return poller_.fd() >= 0; }
  /// The descriptor to watch for reading (never to read, close or wait on otherwise).
  int fd() const noexcept { return poller_.fd() >= 0 ? poller_.fd() : wake_.fd(); }
  /// A host loop over poll(2): how long next_timeout() lets it wait at most.
  static constexpr std::chrono::milliseconds kPollHostTick{5};
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

  /// The time of the current turn: read once as a turn's events arrive, before they are
  /// dispatched (so what they start is timed from then, not from the last tick), and again
  /// by refresh_now(). The loop's thread only.
  std::chrono::steady_clock::time_point now() const noexcept { return now_; }
  void refresh_now() noexcept { now_ = std::chrono::steady_clock::now(); }

  /// Wakes the loop (async-signal-safe).
  void wake() noexcept;
  /// Runs `task` on the loop's thread soon.
  void post(std::function<void()> task);

 private:
  EventLoop(Poller poller, WakeFd wake) : poller_(std::move(poller)), wake_(std::move(wake)) {}
  // Dispatches a batch from the poller; runs the posted tasks when the wake-up was in it.
  // Returns whether it was.
  bool dispatch(const ReadyEvent* events, int n, std::vector<std::function<void()>>& tasks);

  Poller poller_;
  WakeFd wake_;
  bool quit_ = false;
  std::mutex tasks_mutex_;
  std::vector<std::function<void()>> tasks_;
  std::chrono::steady_clock::time_point next_tick_{};  // run_once's; epoch: not yet started
  std::chrono::steady_clock::time_point now_ = std::chrono::steady_clock::now();
};

}  // namespace callwire::net
