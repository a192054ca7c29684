// Internal: how a call's cancel token (CallOptions::cancel) reaches the thread that waits for
// the call: a synchronous call's poll is woken; an asynchronous call is marked and its I/O
// thread poked.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>

#include "callwire/error.hpp"
#include "net/socket.hpp"

namespace callwire::detail {

/// What a cancelled call ends with.
inline Error cancelled_error() { return Error(Errc::Cancelled, "the call was cancelled"); }
/// A synchronous call ended by ClientOptions::interrupt.
inline Error interrupted_error() { return Error(Errc::Cancelled, "the call was interrupted"); }

/// A synchronous call's watch on its token: while it lives, request_stop() from any thread
/// signals wake_fd(), which the call polls beside its socket. Ownership: owns its registration;
/// the descriptor is the calling thread's own, reused call after call. Thread-safety: made,
/// used and destroyed on the calling thread (the stop comes from anywhere).
class SyncCancel {
 public:
  explicit SyncCancel(const std::stop_token& token);
  /// Unregisters (waiting for a stop being signalled right now), then unsignals the waker.
  ~SyncCancel();
  SyncCancel(const SyncCancel&) = delete;
  SyncCancel& operator=(const SyncCancel&) = delete;

  /// The token can be stopped and the waker works: the call must poll wake_fd() instead of
  /// blocking in send and recv.
  bool watching() const noexcept { return waker_ != nullptr; }
  bool requested() const noexcept { return token_.stop_requested(); }
  int wake_fd() const noexcept { return waker_ ? waker_->fd() : -1; }

 private:
  struct Wake {
    net::WakeFd* waker;
    void operator()() const noexcept { waker->raise(); }
  };
  std::stop_token token_;
  net::WakeFd* waker_ = nullptr;
  std::optional<std::stop_callback<Wake>> callback_;
};

/// An asynchronous call's: request_stop() marks it and runs `poke` (which asks the I/O thread to
/// end marked calls now). Ownership: owns its registration; heap-allocated so the registration
/// never moves. Thread-safety: requested() from the I/O thread, the stop from anywhere; destroy
/// it on the I/O thread once the call ended (that unregisters it).
class AsyncCancel {
 public:
  /// Null when `token` can never be stopped: such a call costs nothing.
  static std::unique_ptr<AsyncCancel> watch(const std::stop_token& token,
                                            std::function<void()> poke);
  bool requested() const noexcept { return requested_.load(std::memory_order_acquire); }

 private:
  struct Mark {
    AsyncCancel* self;
    void operator()() const noexcept {
      self->requested_.store(true, std::memory_order_release);
      self->poke_();
    }
  };
  explicit AsyncCancel(std::function<void()> poke) : poke_(std::move(poke)) {}
  std::atomic<bool> requested_{false};
  std::function<void()> poke_;
  std::optional<std::stop_callback<Mark>> callback_;  // last: registered once the rest is set
};

/// Why an asynchronous call still waiting must end now, if it must: it was cancelled, or its
/// deadline passed (Errc::Timeout with `timeout_message`).
inline std::optional<Error> call_ended(std::chrono::steady_clock::time_point now,
                                       std::chrono::steady_clock::time_point deadline,
                                       const AsyncCancel* cancel, const char* timeout_message) {
  if (cancel && cancel->requested()) return cancelled_error();
  if (now >= deadline) return Error(Errc::Timeout, timeout_message);
  return std::nullopt;
}

}  // namespace callwire::detail
