#include "net/wake_fd.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "net/address.hpp"

#if CALLWIRE_HAVE_EVENTFD
#include <sys/eventfd.h>
#endif

namespace callwire::net {

Result<WakeFd> WakeFd::create() {
#if CALLWIRE_HAVE_EVENTFD
  UniqueFd fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!fd) return Error(Errc::InvalidArgument, errno_message("eventfd", errno));
  return WakeFd(std::move(fd), UniqueFd());
#else
  int ends[2];
  if (pipe(ends) != 0) return Error(Errc::InvalidArgument, errno_message("pipe", errno));
  UniqueFd read(ends[0]), write(ends[1]);
  for (int fd : ends) {
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
      return Error(Errc::InvalidArgument, errno_message("fcntl", errno));
  }
  return WakeFd(std::move(read), std::move(write));
#endif
}

void WakeFd::raise() noexcept {
#if CALLWIRE_HAVE_EVENTFD
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(read_.get(), &one, sizeof one);  // full: raised already
#else
  char one = 1;
  [[maybe_unused]] ssize_t n = ::write(write_.get(), &one, 1);  // full: raised already
#endif
}

void WakeFd::clear() noexcept {
#if CALLWIRE_HAVE_EVENTFD
  uint64_t count;
  [[maybe_unused]] ssize_t n = ::read(read_.get(), &count, sizeof count);
#else
  char bytes[64];
  while (::read(read_.get(), bytes, sizeof bytes) == ssize_t(sizeof bytes)) {
  }
#endif
}

}  // namespace callwire::net
