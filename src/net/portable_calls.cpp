#include "net/portable_calls.hpp"

#include <cerrno>

#if !defined(_WIN32)
#include <signal.h>
#endif

namespace callwire::net {

namespace {

// Close-on-exec and, when asked, non-blocking, on a descriptor made without them (unused
// where the system sets both as it makes one).
[[maybe_unused]] bool set_fd_flags(int fd, bool nonblocking) noexcept {
  return sys::set_no_inherit(fd) && (!nonblocking || sys::set_nonblocking(fd, true));
}

// A descriptor that failed its setup: closed, its error kept.
[[maybe_unused]] int fail_closed(int fd) noexcept {
  sys::close_keeping_error(fd);
  return -1;
}

}  // namespace

void prepare_for_send(int fd) noexcept {
#if CALLWIRE_HAVE_SO_NOSIGPIPE && !CALLWIRE_HAVE_MSG_NOSIGNAL
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#else
  (void)fd;
#endif
}

int open_stream_socket(int family, bool nonblocking) noexcept {
#if CALLWIRE_HAVE_SOCK_CLOEXEC
  const int fd =
      ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
#elif defined(_WIN32)
  if (!sys::start_sockets()) return -1;
  const SOCKET s = ::WSASocketW(family, SOCK_STREAM, 0, nullptr, 0, WSA_FLAG_NO_HANDLE_INHERIT);
  if (s == INVALID_SOCKET) return -1;
  const int fd = static_cast<int>(s);
  if (nonblocking && !sys::set_nonblocking(fd, true)) return fail_closed(fd);
#else
  const int fd = ::socket(family, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (!set_fd_flags(fd, nonblocking)) return fail_closed(fd);
#endif
  prepare_for_send(fd);
  return fd;
}

int accept_nonblocking(int listen_fd, sockaddr* address, sys::SockLen* length) noexcept {
#if CALLWIRE_HAVE_ACCEPT4
  const int fd = ::accept4(listen_fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return -1;
#else
  // Between accept and fcntl another thread's fork+exec could inherit it: the window
  // accept4 closes, and the reason it is used where it exists.
#if defined(_WIN32)
  const SOCKET s = ::accept(static_cast<SOCKET>(listen_fd), address, length);
  if (s == INVALID_SOCKET) return -1;
  const int fd = static_cast<int>(s);
#else
  const int fd = ::accept(listen_fd, address, length);
  if (fd < 0) return -1;
#endif
  if (!set_fd_flags(fd, true)) return fail_closed(fd);
#endif
  prepare_for_send(fd);
  return fd;
}

ssize_t send_nosignal(int fd, const void* data, size_t size, bool dont_wait) noexcept {
#if defined(_WIN32)
  // No SIGPIPE, and no MSG_DONTWAIT: the library's sockets are non-blocking when it matters.
  (void)dont_wait;
  const int n = size > INT32_MAX ? INT32_MAX : static_cast<int>(size);
  return ::send(static_cast<SOCKET>(fd), static_cast<const char*>(data), n, 0);
#elif CALLWIRE_HAVE_MSG_NOSIGNAL
  return ::send(fd, data, size, MSG_NOSIGNAL | (dont_wait ? MSG_DONTWAIT : 0));
#elif CALLWIRE_HAVE_SO_NOSIGPIPE
  return ::send(fd, data, size, dont_wait ? MSG_DONTWAIT : 0);
#else
  const int wait_flag = dont_wait ? MSG_DONTWAIT : 0;
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  const ssize_t n = ::send(fd, data, size, wait_flag);
  const int err = errno;
  if (n < 0 && err == EPIPE && !sigismember(&old, SIGPIPE)) {
    // The SIGPIPE this send raised waits on this thread: taken, so unblocking delivers nothing.
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
      int taken;
      sigwait(&pipe_only, &taken);
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return n;
#endif
}

}  // namespace callwire::net
