// Internal: a client over several servers that answer the same methods (Client::create_group).
// Each call goes to the next server in turn; one that fails is skipped for a backoff period;
// a call moves on to another server only when it cannot have reached one (or when its method
// may run twice).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/client.hpp"

namespace callwire::detail {

/// Ownership: owns the member clients. Thread-safety: every call from any thread at once;
/// the destructor lets no new attempt start, then waits for the members' calls in flight.
class Failover {
 public:
  using Clock = std::chrono::steady_clock;
  using Done = std::function<void(Result<Value>)>;
  /// One asynchronous attempt on `member`, ending through `done`.
  using AsyncAttempt = std::function<void(Client& member, const CallOptions&, Done done)>;

  Failover(std::vector<Client> members, FailoverOptions options,
           std::chrono::milliseconds default_timeout);
  ~Failover();
  Failover(const Failover&) = delete;
  Failover& operator=(const Failover&) = delete;

  /// Runs `attempt(member, options)` on the members in turn until one succeeds or the failure
  /// may not be retried; R is Result<T> or Status. Each attempt's timeout is what is left of
  /// the call's deadline. When every member failed, the last error names each one's.
  template <class R, class Attempt>
  R run(std::string_view method, const CallOptions& call, Attempt&& attempt);
  /// The same for an asynchronous call; `done` runs once, on the I/O thread of the last member
  /// tried.
  void run_async(std::string method, const CallOptions& call, AsyncAttempt attempt, Done done);

  Client& first() noexcept { return members_.front(); }
  std::span<Client> members() noexcept { return members_; }
  const std::string& urls() const noexcept { return urls_; }
  size_t probe(std::chrono::milliseconds wait);

  /// Whether a call that failed with `e` may go to another server: it cannot have reached one
  /// (no connection, a 503), or its method may run twice and the failure is the transport's.
  bool may_retry(std::string_view method, const Error& e) const;

 private:
  struct AsyncState;
  // The members in the order to try them for one call: round-robin among those not backing
  // off, then those backing off, soonest back first.
  std::vector<size_t> order();
  // Records the outcome of an attempt on member `i`.
  void record(size_t i, const Error* failure);
  std::chrono::milliseconds left(Clock::time_point deadline) const;
  Clock::time_point deadline_of(const CallOptions& call) const;
  void step(const std::shared_ptr<AsyncState>& state);

  std::vector<Client> members_;
  FailoverOptions options_;
  std::chrono::milliseconds default_timeout_;
  std::string urls_;
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::vector<Clock::time_point> down_until_;
  // The destructor sets closing_, then waits until no asynchronous attempt is starting
  // (starting_ counts them) before it destroys the members.
  std::atomic<bool> closing_{false};
  std::atomic<int> starting_{0};
};

template <class R, class Attempt>
R Failover::run(std::string_view method, const CallOptions& call, Attempt&& attempt) {
  const Clock::time_point deadline = deadline_of(call);
  std::string tried;
  std::optional<R> last;
  for (size_t i : order()) {
    if (last && Clock::now() >= deadline) break;
    CallOptions each = call;
    each.timeout = left(deadline);
    R r = attempt(members_[i], each);
    record(i, r ? nullptr : &r.error());
    if (r) return r;
    if (!may_retry(method, r.error())) return r;
    tried += (tried.empty() ? "" : "; ") + members_[i].url() + ": " + r.error().message;
    last.emplace(std::move(r));
  }
  Error e = last->error();
  e.message = "no server answered (" + tried + ")";
  return R(std::move(e));
}

}  // namespace callwire::detail
