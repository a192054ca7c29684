#include "net/lookup.hpp"

#include <cerrno>
#include <system_error>
#include <thread>

#include "net/socket.hpp"
#include "net/system.hpp"

namespace callwire::net {

namespace {

std::mutex resolver_mutex;
Resolver& test_resolver() {
  static Resolver resolver;
  return resolver;
}

Resolver current_resolver() {
  std::lock_guard lock(resolver_mutex);
  return test_resolver();
}

}  // namespace

void set_resolver_for_testing(Resolver resolver) {
  std::lock_guard lock(resolver_mutex);
  test_resolver() = std::move(resolver);
}

bool needs_lookup(const Endpoint& endpoint) noexcept {
  if (endpoint.kind != Endpoint::Kind::Tcp) return false;
  unsigned char address[16];
  return inet_pton(AF_INET, endpoint.host.c_str(), address) != 1 &&
         inet_pton(AF_INET6, endpoint.host.c_str(), address) != 1;
}

Result<std::shared_ptr<PendingLookup>> PendingLookup::start(const Endpoint& endpoint) {
  auto ready = WakeFd::create();
  if (!ready) return ready.error();
  std::shared_ptr<PendingLookup> lookup(new PendingLookup(std::move(*ready)));
  try {
    std::thread([lookup, endpoint, resolver = current_resolver()] {
      Result<std::vector<SocketAddress>> found = resolver ? resolver(endpoint) : resolve(endpoint);
      {
        std::lock_guard lock(lookup->mutex_);
        lookup->result_.emplace(std::move(found));
      }
      lookup->ready_.store(true, std::memory_order_release);
      lookup->ready_fd_.raise();
    }).detach();
  } catch (const std::system_error& e) {
    return Error(Errc::InvalidArgument,
                 "cannot start a thread to resolve '" + endpoint.host + "': " + e.what());
  }
  return lookup;
}

Result<std::vector<SocketAddress>> PendingLookup::take() {
  std::lock_guard lock(mutex_);
  if (!result_) return Error(Errc::InvalidArgument, "the lookup has not ended");
  return std::move(*result_);
}

Result<std::vector<SocketAddress>> resolve_until(const Endpoint& endpoint,
                                                 std::chrono::steady_clock::time_point deadline,
                                                 int wake_fd) {
  if (!needs_lookup(endpoint)) return resolve(endpoint);
  auto lookup = PendingLookup::start(endpoint);
  if (!lookup) return lookup.error();
  switch (wait_fd((*lookup)->ready_fd(), false, deadline, wake_fd)) {
    case WaitResult::Ready:
      return (*lookup)->take();
    case WaitResult::Timeout:
      return Error(Errc::Timeout, "resolving '" + endpoint.host + "' took past the deadline");
    case WaitResult::Woken:
      break;
  }
  return Error(Errc::Cancelled, "the call was cancelled while resolving '" + endpoint.host + "'");
}

}  // namespace callwire::net
