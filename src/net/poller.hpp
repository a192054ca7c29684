// Internal: what an event loop waits on. The event bits every watcher speaks, and the Poller
// over the system's readiness call: epoll where the system has it, poll(2) elsewhere (and with
// CALLWIRE_PORTABLE, which tests that path on Linux). One implementation is compiled,
// poller_epoll.cpp or poller_poll.cpp, chosen by CMake's feature checks.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "callwire/error.hpp"
#include "net/fd.hpp"
#include "net/system.hpp"

namespace callwire::net {

// The bits of interest and of readiness (epoll's values, which poller_epoll.cpp checks; the
// poll backend maps them).
inline constexpr uint32_t kReadable = 0x001;
inline constexpr uint32_t kWritable = 0x004;
inline constexpr uint32_t kError = 0x008;   ///< readiness only
inline constexpr uint32_t kHangup = 0x010;  ///< readiness only
/// Interest only: with several loops watching one listener, wake one of them (epoll's
/// EPOLLEXCLUSIVE); elsewhere every loop wakes and all but one find nothing to accept.
inline constexpr uint32_t kExclusive = 1u << 28;

/// One ready descriptor. Laid out as epoll's own event (packed on x86-64, as the kernel's is),
/// so the epoll backend waits straight into an array of them, with no copy per event.
struct ReadyEvent {
  uint32_t events;  ///< kReadable, kWritable, kError, kHangup
  void* data;       ///< what add() was given
}
#if defined(__x86_64__)
__attribute__((packed))
#endif
;

/// Ownership: owns its descriptor (epoll); borrows the watched ones, which must be removed
/// before they are closed. Thread-safety: one thread (the loop's).
class Poller {
 public:
  /// Errors: InvalidArgument with the system's reason (out of descriptors).
  static Result<Poller> create();
  Poller() = default;

  bool add(int fd, uint32_t events, void* data) noexcept;
  bool modify(int fd, uint32_t events, void* data) noexcept;
  void remove(int fd) noexcept;
  /// Waits up to `timeout_ms` (-1: without end, 0: not at all) and puts at most `max` ready
  /// descriptors' events in `out`: how many (0 after a timeout or a signal).
  int wait(ReadyEvent* out, int max, int timeout_ms) noexcept;
  /// A descriptor that is readable while an event is ready (epoll's own, for a host's loop to
  /// watch), or -1 where the system has none (poll: the host must call in at each tick).
  int fd() const noexcept;

 private:
  // Both backends' state, whichever is compiled: the header is the same for every module
  // (only src/net knows which backend it is), so the class has one layout everywhere.
  explicit Poller(UniqueFd epoll) noexcept : epoll_(std::move(epoll)) {}
  UniqueFd epoll_;                         // epoll's descriptor
  std::vector<sys::PollFd> fds_;           // poll's: the watched descriptors
  std::vector<void*> data_;                // data_[i] is fds_[i]'s
  std::unordered_map<int, size_t> index_;  // fd -> its place in fds_
  [[maybe_unused]] size_t start_ = 0;      // where the next wait begins to look (fairness)
};

}  // namespace callwire::net
