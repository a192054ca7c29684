// The sockets of system.hpp on Windows (Winsock 2).
#include "net/system.hpp"

#if defined(_WIN32)

#include <windows.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace callwire::net::sys {

bool start_sockets() noexcept {
  // Once per process, never undone: WSACleanup at exit would pull sockets from under threads
  // still closing theirs.
  static const bool started = [] {
    WSADATA data;
    return WSAStartup(MAKEWORD(2, 2), &data) == 0;
  }();
  return started;
}

namespace {

// Winsock's errors and the errno names callers test (both ways: error_text words them as
// Windows does), with POSIX's words for a system that has none for them (Wine's FormatMessage
// knows no Winsock error).
struct ErrorName {
  int winsock;
  int errno_value;
  const char* text;
};
constexpr ErrorName kErrorNames[] = {
    {WSAEWOULDBLOCK, EWOULDBLOCK, "Resource temporarily unavailable"},
    {WSAEINPROGRESS, EINPROGRESS, "Operation now in progress"},
    {WSAEINTR, EINTR, "Interrupted system call"},
    {WSAECONNRESET, ECONNRESET, "Connection reset by peer"},
    {WSAECONNABORTED, ECONNABORTED, "Software caused connection abort"},
    {WSAECONNREFUSED, ECONNREFUSED, "Connection refused"},
    {WSAENOTCONN, ENOTCONN, "Transport endpoint is not connected"},
    {WSAESHUTDOWN, EPIPE, "Broken pipe"},
    {WSAETIMEDOUT, ETIMEDOUT, "Connection timed out"},
    {WSAEADDRINUSE, EADDRINUSE, "Address already in use"},
    {WSAEADDRNOTAVAIL, EADDRNOTAVAIL, "Cannot assign requested address"},
    {WSAENETUNREACH, ENETUNREACH, "Network is unreachable"},
    {WSAEHOSTUNREACH, EHOSTUNREACH, "No route to host"},
    {WSAEMFILE, EMFILE, "Too many open files"},
    {WSAENOBUFS, ENOBUFS, "No buffer space available"},
    {WSAEACCES, EACCES, "Permission denied"},
    {WSAEINVAL, EINVAL, "Invalid argument"},
    {WSAEAFNOSUPPORT, EAFNOSUPPORT, "Address family not supported by protocol"},
    {WSAENOTSOCK, ENOTSOCK, "Socket operation on non-socket"},
};

}  // namespace

int last_error() noexcept {
  const int e = WSAGetLastError();
  for (const ErrorName& n : kErrorNames)
    if (n.winsock == e) return n.errno_value;
  return e;  // as Windows numbers it; error_text words it
}

void clear_error() noexcept { WSASetLastError(0); }

std::string error_text(int err) {
  int code = err;
  const char* fallback = nullptr;
  for (const ErrorName& n : kErrorNames)
    if (n.errno_value == err) {
      code = n.winsock;
      fallback = n.text;
    }
  // An errno of the C runtime's own (EBADF, ENOMEM): its words. Winsock's start at 10000.
  if (code < WSABASEERR) return std::strerror(code);
  char text[256];
  DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                           static_cast<DWORD>(code), MAKELANGID(LANG_ENGLISH, SUBLANG_DEFAULT),
                           text, sizeof text, nullptr);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == '.')) --n;
  if (n == 0) return fallback ? std::string(fallback) : "error " + std::to_string(err);
  return std::string(text, n);
}

void close_descriptor(int fd) noexcept { ::closesocket(static_cast<SOCKET>(fd)); }

void close_keeping_error(int fd) noexcept {
  const int err = WSAGetLastError();
  ::closesocket(static_cast<SOCKET>(fd));
  WSASetLastError(err);
}

int poll_sockets(PollFd* entries, size_t count, int timeout_ms) noexcept {
  // WSAPoll refuses an empty set, which poll(2) takes as a sleep.
  if (count == 0) {
    ::Sleep(timeout_ms < 0 ? INFINITE : static_cast<DWORD>(timeout_ms));
    return 0;
  }
  return ::WSAPoll(entries, static_cast<ULONG>(count), timeout_ms);
}

ssize_t receive(int fd, void* data, size_t size, bool peek) noexcept {
  const int n = size > INT32_MAX ? INT32_MAX : static_cast<int>(size);
  return ::recv(static_cast<SOCKET>(fd), static_cast<char*>(data), n, peek ? MSG_PEEK : 0);
}

bool set_nonblocking(int fd, bool nonblocking) noexcept {
  u_long mode = nonblocking ? 1 : 0;
  return ::ioctlsocket(static_cast<SOCKET>(fd), FIONBIO, &mode) == 0;
}

bool set_no_inherit(int fd) noexcept {
  return ::SetHandleInformation(reinterpret_cast<HANDLE>(static_cast<uintptr_t>(fd)),
                                HANDLE_FLAG_INHERIT, 0) != 0;
}

bool set_int_option(int fd, int level, int name, int value) noexcept {
  return ::setsockopt(static_cast<SOCKET>(fd), level, name, reinterpret_cast<const char*>(&value),
                      sizeof value) == 0;
}

bool get_int_option(int fd, int level, int name, int& value) noexcept {
  int length = sizeof value;
  return ::getsockopt(static_cast<SOCKET>(fd), level, name, reinterpret_cast<char*>(&value),
                      &length) == 0;
}

ssize_t peek_now(int fd) noexcept {
  // Windows has no MSG_DONTWAIT, and the socket may be blocking: recv only once it is
  // readable, which it is also when the peer has closed.
  WSAPOLLFD p = poll_entry(fd, POLLRDNORM);
  const int ready = ::WSAPoll(&p, 1, 0);
  if (ready < 0) return -1;
  if (ready == 0) {
    WSASetLastError(WSAEWOULDBLOCK);
    return -1;
  }
  char byte;
  return ::recv(static_cast<SOCKET>(fd), &byte, 1, MSG_PEEK);
}

void set_io_timeout(int fd, std::chrono::microseconds timeout) noexcept {
  // Whole milliseconds, rounded up (0 would mean no timeout at all).
  const DWORD ms = static_cast<DWORD>((timeout.count() + 999) / 1000);
  for (int option : {SO_RCVTIMEO, SO_SNDTIMEO})
    ::setsockopt(static_cast<SOCKET>(fd), SOL_SOCKET, option, reinterpret_cast<const char*>(&ms),
                 sizeof ms);
}

void raise_descriptor_limit(size_t) noexcept {}  // sockets are handles: no per-process limit

PathKind path_kind(const std::string& path) noexcept {
  const DWORD attributes = ::GetFileAttributesA(path.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) return PathKind::Missing;
  // A Unix-domain socket's file is a reparse point (IO_REPARSE_TAG_AF_UNIX).
  return attributes & FILE_ATTRIBUTE_REPARSE_POINT ? PathKind::Socket : PathKind::Other;
}

}  // namespace callwire::net::sys

#endif
