#include "client/failover.hpp"

#include <algorithm>
#include <numeric>
#include <thread>

namespace callwire::detail {

namespace {

// A failure that says the server is not there to take calls now.
bool server_down(const Error& e) {
  switch (e.code) {
    case Errc::ConnectFailed:
    case Errc::Timeout:
    case Errc::ConnectionClosed:
    case Errc::TlsError:
      return true;
    case Errc::HttpStatus:
      return e.http_status == 502 || e.http_status == 503 || e.http_status == 504;
    default:
      return false;
  }
}

}  // namespace

Failover::Failover(std::vector<Client> members, FailoverOptions options,
                   std::chrono::milliseconds default_timeout)
    : members_(std::move(members)),
      options_(std::move(options)),
      default_timeout_(default_timeout),
      down_until_(members_.size()) {
  for (const Client& c : members_) urls_ += (urls_.empty() ? "" : ", ") + c.url();
}

Failover::~Failover() {
  closing_.store(true);  // no asynchronous attempt starts on a member from now on
  while (starting_.load() > 0) std::this_thread::yield();  // one starting now: a moment
  members_.clear();                                        // each waits for its calls in flight
}

bool Failover::may_retry(std::string_view method, const Error& e) const {
  // Nothing was sent (no connection), or the server said it did not take the call (RFC 9110:
  // 503 is a refusal before processing; a balancer answers it for a backend it cannot use).
  if (e.code == Errc::ConnectFailed || (e.code == Errc::HttpStatus && e.http_status == 503))
    return true;
  bool idempotent =
      options_.all_idempotent ||
      std::find(options_.idempotent_methods.begin(), options_.idempotent_methods.end(), method) !=
          options_.idempotent_methods.end();
  return idempotent && server_down(e);
}

std::vector<size_t> Failover::order() {
  const size_t n = members_.size();
  const size_t start = next_.fetch_add(1, std::memory_order_relaxed) % n;
  const Clock::time_point now = Clock::now();
  std::vector<size_t> up, down;
  std::vector<Clock::time_point> until;
  {
    std::lock_guard lock(mutex_);
    until = down_until_;
  }
  for (size_t k = 0; k < n; ++k) {
    size_t i = (start + k) % n;
    (until[i] > now ? down : up).push_back(i);
  }
  std::stable_sort(down.begin(), down.end(),
                   [&](size_t a, size_t b) { return until[a] < until[b]; });
  up.insert(up.end(), down.begin(), down.end());
  return up;
}

void Failover::record(size_t i, const Error* failure) {
  std::lock_guard lock(mutex_);
  if (failure && server_down(*failure))
    down_until_[i] = Clock::now() + options_.backoff;
  else if (failure == nullptr || failure->code == Errc::Fault)
    down_until_[i] = Clock::time_point();  // it answered: back in the rotation
}

Failover::Clock::time_point Failover::deadline_of(const CallOptions& call) const {
  return Clock::now() + (call.timeout.count() > 0 ? call.timeout : default_timeout_);
}

std::chrono::milliseconds Failover::left(Clock::time_point deadline) const {
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  return std::max(ms, std::chrono::milliseconds(1));
}

size_t Failover::probe(std::chrono::milliseconds wait) {
  size_t open = 0;
  for (Client& c : members_) open += c.probe(wait);
  return open;
}

struct Failover::AsyncState {
  std::string method;
  CallOptions call;
  AsyncAttempt attempt;
  Done done;
  std::vector<size_t> order;
  size_t next = 0;
  Clock::time_point deadline;
  std::string tried;
};

void Failover::run_async(std::string method, const CallOptions& call, AsyncAttempt attempt,
                         Done done) {
  auto state = std::make_shared<AsyncState>();
  state->method = std::move(method);
  state->call = call;
  state->attempt = std::move(attempt);
  state->done = std::move(done);
  state->order = order();
  state->deadline = deadline_of(call);
  step(state);
}

void Failover::step(const std::shared_ptr<AsyncState>& state) {
  starting_.fetch_add(1);
  if (closing_.load()) {
    starting_.fetch_sub(1);
    return state->done(Error(Errc::Stopped, "the client is gone"));
  }
  const size_t i = state->order[state->next++];
  CallOptions each = state->call;
  each.timeout = left(state->deadline);
  // The URL by value: the callback may run while the members are being destroyed.
  state->attempt(members_[i], each, [this, state, i, url = members_[i].url()](Result<Value> r) {
    record(i, r ? nullptr : &r.error());
    if (r || !may_retry(state->method, r.error()) || state->next >= state->order.size() ||
        Clock::now() >= state->deadline) {
      if (!r && !state->tried.empty()) {
        Error e = r.error();
        e.message = "no server answered (" + state->tried + "; " + url + ": " + e.message + ")";
        return state->done(std::move(e));
      }
      return state->done(std::move(r));
    }
    state->tried += (state->tried.empty() ? "" : "; ") + url + ": " + r.error().message;
    step(state);
  });
  starting_.fetch_sub(1);
}

}  // namespace callwire::detail
