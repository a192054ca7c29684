// Internal to src/net (and the net headers other modules include): the system's sockets under
// one set of names, so that the rest of src/net is written once.
//
// POSIX: the BSD socket calls, errno, poll(2), fcntl. Windows: Winsock 2, where a socket is a
// SOCKET handle (held here as an int, as OpenSSL's SSL_set_fd does: Windows hands out small
// values), an error comes from WSAGetLastError() (mapped here to errno's names, so callers
// test EAGAIN and ECONNRESET either way), poll is WSAPoll, and the library starts Winsock
// itself (WSAStartup, once, at its first socket). Only this header and system_*.cpp differ by
// platform.
#pragma once

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX  // windows.h's min and max macros would break std::min
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <sys/types.h>  // ssize_t
#include <winsock2.h>
#include <ws2tcpip.h>
// After winsock2.h: Windows 10's Unix-domain sockets (sockaddr_un).
#include <afunix.h>
#else
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace callwire::net::sys {

#if defined(_WIN32)
using PollFd = WSAPOLLFD;
using SockLen = int;
inline constexpr bool kHasUnixSockets = false;
// A Winsock recv that SO_RCVTIMEO ends leaves the socket "in an indeterminate state" (the
// documentation's words): it must not be read again. Synchronous calls poll instead.
inline constexpr bool kTimedBlockingReads = false;
// What an error about a descriptor from elsewhere adds: Windows hands no sockets between
// processes the POSIX way (inetd's standard input, fd:N, systemd's LISTEN_FDS).
inline constexpr const char* kNoInheritedSockets =
    " (Windows passes no sockets between processes: inetd, fd:N and systemd: are POSIX's)";
inline constexpr int kShutdownWrite = SD_SEND;
inline constexpr int kShutdownBoth = SD_BOTH;
#else
using PollFd = pollfd;
using SockLen = socklen_t;
inline constexpr bool kHasUnixSockets = true;
inline constexpr bool kTimedBlockingReads = true;
inline constexpr const char* kNoInheritedSockets = "";
inline constexpr int kShutdownWrite = SHUT_WR;
inline constexpr int kShutdownBoth = SHUT_RDWR;
#endif

/// Readies the system's sockets: WSAStartup on Windows (once per process; the first call of
/// any thread does it), nothing elsewhere. False when it failed (then no socket can be made).
bool start_sockets() noexcept;

/// The last socket call's error on this thread, as errno names it (EAGAIN for Windows'
/// WSAEWOULDBLOCK, ECONNRESET for WSAECONNRESET, ...).
int last_error() noexcept;

/// Clears last_error() (to 0), before a call that may or may not set it (OpenSSL's).
void clear_error() noexcept;

/// The system's words for an error last_error() gave ("Connection refused").
std::string error_text(int err);

/// Closes a descriptor (close; closesocket on Windows, where every descriptor the library holds
/// is a socket: its wake-ups are socket pairs). Errors are ignored: it is gone either way.
void close_descriptor(int fd) noexcept;
/// close_descriptor, keeping last_error() as it was (a descriptor whose setup failed).
void close_keeping_error(int fd) noexcept;

/// A poll entry for `fd` watching `events` (POLLIN, POLLOUT).
inline PollFd poll_entry(int fd, short events) noexcept {
  PollFd p{};
  p.fd = static_cast<decltype(p.fd)>(fd);
  p.events = events;
  return p;
}
inline int fd_of(const PollFd& p) noexcept { return static_cast<int>(p.fd); }

/// poll(2) or WSAPoll: how many entries are ready, 0 after `timeout_ms`, -1 with last_error().
int poll_sockets(PollFd* entries, size_t count, int timeout_ms) noexcept;

/// recv(2) of at most `size` bytes: -1 with last_error() on failure. `peek`: MSG_PEEK.
ssize_t receive(int fd, void* data, size_t size, bool peek = false) noexcept;

/// Sets or clears non-blocking mode (O_NONBLOCK, FIONBIO). False when it failed.
bool set_nonblocking(int fd, bool nonblocking) noexcept;

/// Keeps `fd` from child processes (FD_CLOEXEC; not inheritable on Windows). False when it
/// failed.
bool set_no_inherit(int fd) noexcept;

/// setsockopt with an int value (Windows takes it as a char pointer). False when it failed.
bool set_int_option(int fd, int level, int name, int value) noexcept;
/// getsockopt of an int value; false when it failed.
bool get_int_option(int fd, int level, int name, int& value) noexcept;

/// Whether `err` means "not now" (would block, interrupted) rather than a failure.
inline bool is_transient(int err) noexcept {
  return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

/// Peeks at one byte without waiting, whether the socket blocks or not: 1 when there is one,
/// 0 when the peer has closed, -1 with last_error() otherwise (EWOULDBLOCK: nothing yet).
ssize_t peek_now(int fd) noexcept;

/// SO_RCVTIMEO and SO_SNDTIMEO of a blocking socket (timeval; milliseconds on Windows).
void set_io_timeout(int fd, std::chrono::microseconds timeout) noexcept;

/// Raises the process's descriptor limit towards `wanted` (RLIMIT_NOFILE; Windows has none).
void raise_descriptor_limit(size_t wanted) noexcept;

/// What is at `path`: nothing, a Unix-domain socket's file, or something else.
enum class PathKind { Missing, Socket, Other };
PathKind path_kind(const std::string& path) noexcept;

}  // namespace callwire::net::sys
