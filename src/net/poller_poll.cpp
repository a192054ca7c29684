// The Poller over POSIX poll(2) (see poller.hpp): the BSDs, macOS, and Linux built with
// CALLWIRE_PORTABLE. A wait costs a look at every descriptor, which is what poll is.
#include "net/poller.hpp"

#if !CALLWIRE_HAVE_EPOLL

#include <cerrno>

namespace callwire::net {

namespace {

short to_poll(uint32_t events) noexcept {
  short bits = 0;
  if (events & kReadable) bits |= POLLIN;
  if (events & kWritable) bits |= POLLOUT;
  return bits;
}

uint32_t from_poll(short revents) noexcept {
  uint32_t events = 0;
  if (revents & POLLIN) events |= kReadable;
  if (revents & POLLOUT) events |= kWritable;
  if (revents & (POLLERR | POLLNVAL)) events |= kError;
  if (revents & POLLHUP) events |= kHangup;
  return events;
}

}  // namespace

Result<Poller> Poller::create() { return Poller(); }

bool Poller::add(int fd, uint32_t events, void* data) noexcept {
  if (fd < 0 || index_.count(fd)) {
    errno = fd < 0 ? EBADF : EEXIST;
    return false;
  }
  try {
    index_.emplace(fd, fds_.size());
    try {
      fds_.push_back(sys::poll_entry(fd, to_poll(events)));
      data_.push_back(data);
    } catch (...) {
      if (fds_.size() > data_.size()) fds_.pop_back();
      index_.erase(fd);
      throw;
    }
  } catch (...) {
    errno = ENOMEM;
    return false;
  }
  return true;
}

bool Poller::modify(int fd, uint32_t events, void* data) noexcept {
  auto it = index_.find(fd);
  if (it == index_.end()) {
    errno = ENOENT;
    return false;
  }
  fds_[it->second].events = to_poll(events);
  data_[it->second] = data;
  return true;
}

void Poller::remove(int fd) noexcept {
  auto it = index_.find(fd);
  if (it == index_.end()) return;
  const size_t at = it->second, last = fds_.size() - 1;
  index_.erase(it);
  if (at != last) {
    fds_[at] = fds_[last];
    data_[at] = data_[last];
    index_[sys::fd_of(fds_[at])] = at;
  }
  fds_.pop_back();
  data_.pop_back();
}

int Poller::wait(ReadyEvent* out, int max, int timeout_ms) noexcept {
  int ready = sys::poll_sockets(fds_.data(), fds_.size(), timeout_ms);
  if (ready <= 0) return 0;
  // From where the last wait stopped, so a busy descriptor early in the list cannot keep the
  // later ones waiting when more are ready than fit in `out`.
  const size_t n = fds_.size();
  int count = 0;
  for (size_t k = 0; k < n && count < max; ++k) {
    const size_t i = (start_ + k) % n;
    if (fds_[i].revents == 0) continue;
    out[count++] = {from_poll(fds_[i].revents), data_[i]};
  }
  start_ = n ? (start_ + 1) % n : 0;
  return count;
}

int Poller::fd() const noexcept { return -1; }

}  // namespace callwire::net

#endif  // !CALLWIRE_HAVE_EPOLL
