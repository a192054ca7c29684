// The sockets of system.hpp on POSIX systems.
#include "net/system.hpp"

#if !defined(_WIN32)

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace callwire::net::sys {

bool start_sockets() noexcept { return true; }

int last_error() noexcept { return errno; }

void clear_error() noexcept { errno = 0; }

namespace {
// strerror_r comes in two forms: GNU's returns the text, POSIX's (the BSDs, macOS, musl)
// returns 0 and fills the buffer. Overloads on the result take either.
[[maybe_unused]] const char* strerror_text(const char* text, const char*) { return text; }
[[maybe_unused]] const char* strerror_text(int rc, const char* buffer) {
  return rc == 0 ? buffer : "unknown error";
}
}  // namespace

std::string error_text(int err) {
  char buf[128] = "";
  return strerror_text(strerror_r(err, buf, sizeof buf), buf);
}

void close_descriptor(int fd) noexcept { ::close(fd); }

void close_keeping_error(int fd) noexcept {
  const int err = errno;
  ::close(fd);
  errno = err;
}

int poll_sockets(PollFd* entries, size_t count, int timeout_ms) noexcept {
  return ::poll(entries, static_cast<nfds_t>(count), timeout_ms);
}

ssize_t receive(int fd, void* data, size_t size, bool peek) noexcept {
  return ::recv(fd, data, size, peek ? MSG_PEEK : 0);
}

bool set_nonblocking(int fd, bool nonblocking) noexcept {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return false;
  return fcntl(fd, F_SETFL, nonblocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) == 0;
}

bool set_no_inherit(int fd) noexcept { return fcntl(fd, F_SETFD, FD_CLOEXEC) == 0; }

bool set_int_option(int fd, int level, int name, int value) noexcept {
  return setsockopt(fd, level, name, &value, sizeof value) == 0;
}

bool get_int_option(int fd, int level, int name, int& value) noexcept {
  socklen_t length = sizeof value;
  return getsockopt(fd, level, name, &value, &length) == 0;
}

ssize_t peek_now(int fd) noexcept {
  char byte;
  return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
}

void set_io_timeout(int fd, std::chrono::microseconds timeout) noexcept {
  timeval tv{static_cast<time_t>(timeout.count() / 1000000),
             static_cast<suseconds_t>(timeout.count() % 1000000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void raise_descriptor_limit(size_t wanted) noexcept {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= wanted) return;
  r.rlim_cur = r.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(wanted, r.rlim_max);
  setrlimit(RLIMIT_NOFILE, &r);
}

PathKind path_kind(const std::string& path) noexcept {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return PathKind::Missing;
  return S_ISSOCK(st.st_mode) ? PathKind::Socket : PathKind::Other;
}

}  // namespace callwire::net::sys

#endif
