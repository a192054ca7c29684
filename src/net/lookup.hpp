// Internal: name lookups that never hold a caller past its deadline. getaddrinfo blocks for as
// long as the system's resolver retries and cannot be interrupted, so a name is looked up on a
// thread of its own; the caller waits for the lookup's descriptor with its own deadline (or
// watches it in an event loop) and may walk away, leaving the thread to finish and free it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "callwire/error.hpp"
#include "net/address.hpp"
#include "net/fd.hpp"
#include "net/wake_fd.hpp"

namespace callwire::net {

/// True when resolving `endpoint` needs the system's resolver (a TCP host name): numeric
/// literals and Unix paths resolve at once without it.
bool needs_lookup(const Endpoint& endpoint) noexcept;

/// One lookup in progress. Ownership: shared by its caller and its thread; the last to let go
/// frees it. Thread-safety: ready() and ready_fd() from any thread; take() once ready, by one.
class PendingLookup {
 public:
  /// Starts looking `endpoint` up on a new thread. Errors: InvalidArgument when no thread or
  /// descriptor is left.
  static Result<std::shared_ptr<PendingLookup>> start(const Endpoint& endpoint);
  ~PendingLookup() = default;
  PendingLookup(const PendingLookup&) = delete;
  PendingLookup& operator=(const PendingLookup&) = delete;

  /// Readable once the result is in (never cleared): poll it or watch it in an event loop.
  int ready_fd() const noexcept { return ready_fd_.fd(); }
  bool ready() const noexcept { return ready_.load(std::memory_order_acquire); }
  /// The addresses, or what resolve() said. Only once ready().
  Result<std::vector<SocketAddress>> take();

 private:
  explicit PendingLookup(WakeFd ready_fd) noexcept : ready_fd_(std::move(ready_fd)) {}
  void run(const Endpoint& endpoint) noexcept;

  WakeFd ready_fd_;
  std::atomic<bool> ready_{false};
  std::mutex mutex_;
  std::optional<Result<std::vector<SocketAddress>>> result_;
};

/// resolve() that gives up at `deadline` (Errc::Timeout, naming the host) or when `wake_fd`
/// (a WakeFd's; -1: none) is signalled (Errc::Cancelled). Literals resolve at once.
Result<std::vector<SocketAddress>> resolve_until(const Endpoint& endpoint,
                                                 std::chrono::steady_clock::time_point deadline,
                                                 int wake_fd = -1);

/// Tests only: replaces the system's resolver for names (literals never reach it) until reset
/// with an empty function; the lookups already started keep theirs.
using Resolver = std::function<Result<std::vector<SocketAddress>>(const Endpoint&)>;
void set_resolver_for_testing(Resolver resolver);

}  // namespace callwire::net
