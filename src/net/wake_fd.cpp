#include "net/wake_fd.hpp"

#include <cerrno>
#include <cstdint>

#include "net/address.hpp"
#include "net/portable_calls.hpp"
#include "net/system.hpp"

#if CALLWIRE_HAVE_EVENTFD
#include <sys/eventfd.h>
#endif
#if !defined(_WIN32)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace callwire::net {

Result<WakeFd> WakeFd::create() {
#if CALLWIRE_HAVE_EVENTFD
  UniqueFd fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!fd) return Error(Errc::InvalidArgument, errno_message("eventfd", errno));
  return WakeFd(std::move(fd), UniqueFd());
#elif defined(_WIN32)
  // WSAPoll watches sockets only: a connected pair over loopback stands in for the pipe.
  auto fail = [](const char* what) {
    return Error(Errc::InvalidArgument, errno_message(what, sys::last_error()));
  };
  UniqueFd listener(open_stream_socket(AF_INET, false));
  if (!listener) return fail("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sys::SockLen length = sizeof address;
  auto* generic = reinterpret_cast<sockaddr*>(&address);
  if (bind(listener.get(), generic, length) != 0 || listen(listener.get(), 1) != 0 ||
      getsockname(listener.get(), generic, &length) != 0)
    return fail("a wake-up socket's listener");
  UniqueFd write(open_stream_socket(AF_INET, false));
  if (!write || connect(write.get(), generic, length) != 0) return fail("a wake-up socket");
  UniqueFd read(accept_nonblocking(listener.get(), nullptr, nullptr));
  if (!read || !sys::set_nonblocking(write.get(), true)) return fail("a wake-up socket");
  sys::set_int_option(write.get(), IPPROTO_TCP, TCP_NODELAY, 1);
  return WakeFd(std::move(read), std::move(write));
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
#elif defined(_WIN32)
  // A non-blocking send may refuse the byte (WSAEWOULDBLOCK) with the pair all but empty: seen
  // under Wine, a worker's wake-up lost and its connection stalled until the client gave up.
  // So the byte is sent, or one is known to be waiting already (full, or raised twice).
  const char one = 1;
  for (;;) {
    if (send_nosignal(write_.get(), &one, 1, true) == 1) return;
    if (!sys::is_transient(sys::last_error())) return;  // the pair is broken: nothing to wake
    u_long waiting = 0;
    if (::ioctlsocket(static_cast<SOCKET>(read_.get()), FIONREAD, &waiting) == 0 && waiting > 0)
      return;
    sys::PollFd writable = sys::poll_entry(write_.get(), POLLOUT);
    sys::poll_sockets(&writable, 1, 1);
  }
#else
  char one = 1;
  [[maybe_unused]] ssize_t n = ::write(write_.get(), &one, 1);  // full: raised already
#endif
}

void WakeFd::clear() noexcept {
#if CALLWIRE_HAVE_EVENTFD
  uint64_t count;
  [[maybe_unused]] ssize_t n = ::read(read_.get(), &count, sizeof count);
#elif defined(_WIN32)
  char bytes[64];
  while (sys::receive(read_.get(), bytes, sizeof bytes) == ssize_t(sizeof bytes)) {
  }
#else
  char bytes[64];
  while (::read(read_.get(), bytes, sizeof bytes) == ssize_t(sizeof bytes)) {
  }
#endif
}

}  // namespace callwire::net
