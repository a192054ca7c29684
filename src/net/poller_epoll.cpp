// The Poller over Linux's epoll (see poller.hpp).
#include "net/poller.hpp"

#if CALLWIRE_HAVE_EPOLL

#include <sys/epoll.h>

#include <cerrno>
#include <cstddef>

#include "net/address.hpp"

namespace callwire::net {

static_assert(kReadable == EPOLLIN && kWritable == EPOLLOUT && kError == EPOLLERR &&
              kHangup == EPOLLHUP && kExclusive == EPOLLEXCLUSIVE);

Result<Poller> Poller::create() {
  UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll) return Error(Errc::InvalidArgument, errno_message("epoll_create1", errno));
  return Poller(std::move(epoll));
}

bool Poller::add(int fd, uint32_t events, void* data) noexcept {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = data;
  return epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool Poller::modify(int fd, uint32_t events, void* data) noexcept {
  epoll_event ev{};
  ev.events = events & ~kExclusive;  // EPOLLEXCLUSIVE is for EPOLL_CTL_ADD only
  ev.data.ptr = data;
  return epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &ev) == 0;
}

void Poller::remove(int fd) noexcept { epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr); }

// ReadyEvent is epoll_event's layout: the kernel writes the events in place.
static_assert(sizeof(ReadyEvent) == sizeof(epoll_event) &&
              offsetof(ReadyEvent, events) == offsetof(epoll_event, events) &&
              offsetof(ReadyEvent, data) == offsetof(epoll_event, data));

int Poller::wait(ReadyEvent* out, int max, int timeout_ms) noexcept {
  int n = epoll_wait(epoll_.get(), reinterpret_cast<epoll_event*>(out), max, timeout_ms);
  return n < 0 ? 0 : n;
}

int Poller::fd() const noexcept { return epoll_.get(); }

}  // namespace callwire::net

#endif  // CALLWIRE_HAVE_EPOLL
