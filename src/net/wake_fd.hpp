// Internal: a descriptor that one thread polls and another (or a signal handler) makes
// readable: an eventfd where the system has one, a non-blocking self-pipe elsewhere (POSIX).
// The event loop's wake-up, a synchronous call's cancel, a name lookup's "done".
#pragma once

#include "callwire/error.hpp"
#include "net/fd.hpp"

namespace callwire::net {

/// Ownership: owns its descriptors. Thread-safety: raise() from any thread, and from a signal
/// handler; clear() by the thread that polls fd().
class WakeFd {
 public:
  /// Errors: InvalidArgument with the system's reason (out of descriptors).
  static Result<WakeFd> create();
  WakeFd() = default;

  /// Readable once raised, until cleared.
  int fd() const noexcept { return read_.get(); }
  /// Makes fd() readable (already raised: no change).
  void raise() noexcept;
  /// Makes fd() unreadable until the next raise().
  void clear() noexcept;

 private:
  WakeFd(UniqueFd read, UniqueFd write) noexcept
      : read_(std::move(read)), write_(std::move(write)) {}
  UniqueFd read_;
  UniqueFd write_;  // the pipe's other end; empty for an eventfd (read_ both ways)
};

}  // namespace callwire::net
