// Helpers for the end-to-end tests over loopback: raw sockets with deadlines (so a test never
// hangs), a self-signed certificate, and a count of open file descriptors.
#pragma once

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "net/address.hpp"
#include "net/portable_calls.hpp"
#include "net/socket.hpp"
#include "net/system.hpp"

#if !defined(_WIN32)
#include <fcntl.h>
#endif

namespace callwire::testing {

// The few socket calls the tests make themselves, through src/net's names for the system's
// sockets (POSIX or Winsock), so that the same tests run on Linux and, under Wine, on Windows.

/// Why a test of Unix-domain sockets skips where there are none (Windows).
inline constexpr const char* kNoUnixSockets =
    "no Unix-domain sockets on this system: HttpServer.UnixSocketsAreRefusedWhereThereAreNone "
    "checks that they are refused";

/// Waits until `fd` is readable (data or EOF): false after `timeout_ms`.
inline bool wait_readable(int fd, int timeout_ms) {
  net::sys::PollFd p = net::sys::poll_entry(fd, POLLIN);
  return net::sys::poll_sockets(&p, 1, timeout_ms) > 0;
}
/// One recv: the bytes read, 0 at EOF, -1 on error.
inline ssize_t receive_some(int fd, char* buf, size_t size) {
  return net::sys::receive(fd, buf, size);
}
/// Sends all of `bytes` on a blocking socket: false when the peer is gone.
inline bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = net::send_nosignal(fd, bytes.data(), bytes.size(), false);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}
inline void close_socket(int fd) { net::sys::close_descriptor(fd); }
/// Makes closing `fd` reset the connection (SO_LINGER with no time) instead of ending it.
inline void reset_on_close(int fd) {
  linger hard{};
  hard.l_onoff = 1;
  setsockopt(fd, SOL_SOCKET, SO_LINGER, reinterpret_cast<const char*>(&hard), sizeof hard);
}

/// Sets an environment variable for this process; `value` nullptr removes it.
inline void set_environment(const char* name, const char* value) {
#if defined(_WIN32)
  _putenv_s(name, value ? value : "");  // "" removes it on Windows
#else
  if (value)
    ::setenv(name, value, 1);
  else
    ::unsetenv(name);
#endif
}

/// A blocking TCP connection to 127.0.0.1 (or ::1) at `port`, with TCP_NODELAY: -1 when the
/// connection failed.
inline int connect_loopback(uint16_t port, bool v6 = false) {
  int fd = net::open_stream_socket(v6 ? AF_INET6 : AF_INET, false);
  if (fd < 0) return -1;
  int rc;
  if (v6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(port);
    a.sin6_addr.s6_addr[15] = 1;  // ::1
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (rc != 0) {
    close_socket(fd);
    return -1;
  }
  net::sys::set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1);
  return fd;
}

/// Two connected stream sockets, blocking: socketpair() where there is one, else a TCP
/// connection over loopback (Windows). False when they could not be made.
inline bool socket_pair(int (&fds)[2]) {
#if defined(_WIN32)
  net::Endpoint here;
  here.host = "127.0.0.1";
  auto listener = net::listen_on(here, false, 1);
  if (!listener) return false;
  fds[0] = connect_loopback(net::local_port(listener->get()));
  if (fds[0] < 0 || !wait_readable(listener->get(), 5000)) return false;
  fds[1] = net::accept_nonblocking(listener->get(), nullptr, nullptr);
  return fds[1] >= 0 && net::sys::set_nonblocking(fds[1], false);
#else
  return ::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0;
#endif
}

/// Whether a child process would inherit `fd` (no FD_CLOEXEC; inheritable on Windows).
inline bool inherited_by_children(int fd) {
#if defined(_WIN32)
  DWORD flags = 0;
  return ::GetHandleInformation(reinterpret_cast<HANDLE>(static_cast<uintptr_t>(fd)), &flags) &&
         (flags & HANDLE_FLAG_INHERIT);
#else
  return !(::fcntl(fd, F_GETFD) & FD_CLOEXEC);
#endif
}

/// A blocking loopback socket whose reads give up after a deadline.
class RawSocket {
 public:
  explicit RawSocket(uint16_t port, bool v6 = false)
      : fd_(connect_loopback(port, v6)), ok_(fd_ >= 0) {}
  explicit RawSocket(const std::string& unix_path) {
    if constexpr (net::sys::kHasUnixSockets) {
      fd_ = net::open_stream_socket(AF_UNIX, false);
      sockaddr_un a{};
      a.sun_family = AF_UNIX;
      std::strncpy(a.sun_path, unix_path.c_str(), sizeof a.sun_path - 1);
      ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    }
  }
  /// Takes `connected_fd`, one end of a socketpair() or any connected socket.
  struct Adopt {
    int fd;
  };
  explicit RawSocket(Adopt a) : fd_(a.fd), ok_(a.fd >= 0) {}
  ~RawSocket() {
    if (fd_ >= 0) close_socket(fd_);
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  bool connected() const { return ok_; }
  int fd() const { return fd_; }
  /// Closes the sending direction (the peer reads EOF) and keeps reading.
  void shutdown_write() { ::shutdown(fd_, net::sys::kShutdownWrite); }

  bool send(std::string_view bytes) { return send_all(fd_, bytes); }

  /// Reads until `done(received)` says so, the peer closes, or `timeout` passes.
  template <class Done>
  std::string read_until(Done done, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::string got;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done(got)) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      if (!wait_readable(fd_, static_cast<int>(left.count()))) break;
      char buf[65536];
      ssize_t n = receive_some(fd_, buf, sizeof buf);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      got.append(buf, static_cast<size_t>(n));
    }
    return got;
  }
  /// Everything until the peer closes (or the timeout).
  std::string read_all(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return read_until([](const std::string&) { return false; }, timeout);
  }
  /// `count` complete responses with Content-Length bodies.
  std::string read_responses(int count,
                             std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return read_until([count](const std::string& s) { return complete_responses(s) >= count; },
                      timeout);
  }
  /// The peer closed (a read returned 0 or an error).
  bool closed() const { return closed_; }

  /// How many complete responses `s` holds (each with a Content-Length body).
  static int complete_responses(std::string_view s) {
    int count = 0;
    for (;;) {
      size_t end = s.find("\r\n\r\n");
      if (end == std::string_view::npos) return count;
      std::string_view head = s.substr(0, end);
      size_t cl = head.find("Content-Length: ");
      size_t length = 0;
      if (cl != std::string_view::npos) length = std::stoul(std::string(head.substr(cl + 16, 12)));
      if (head.starts_with("HTTP/1.1 100")) length = 0;
      if (s.size() < end + 4 + length) return count;
      if (!head.starts_with("HTTP/1.1 100")) ++count;
      s.remove_prefix(end + 4 + length);
    }
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
  bool closed_ = false;
};

/// A POST of `body` to /RPC2 with the given extra header lines (each ending in \r\n).
inline std::string post(std::string_view body, std::string_view extra = {},
                        std::string_view path = "/RPC2") {
  std::string r = "POST " + std::string(path) + " HTTP/1.1\r\nHost: localhost\r\n";
  r += "Content-Type: text/xml\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  r += extra;
  r += "\r\n";
  r += body;
  return r;
}

inline std::string call_xml(std::string_view method, std::string_view params_xml = {}) {
  return "<?xml version=\"1.0\"?><methodCall><methodName>" + std::string(method) +
         "</methodName><params>" + std::string(params_xml) + "</params></methodCall>";
}

/// Open file descriptors of this process, where /proc counts them (Linux); -1 elsewhere, so a
/// leak check compares -1 with -1 there (docs/porting.md lists it among the Linux-only checks).
/// Under Wine, /proc is Linux's view of Wine's own process: not the program's sockets.
inline int open_fds() {
#if defined(_WIN32)
  return -1;
#endif
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/self/fd", ec);
  if (ec) return -1;
  int n = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) ++n;
  return n;
}

}  // namespace callwire::testing
