// Helpers for the end-to-end tests over loopback: raw sockets with deadlines (so a test never
// hangs), a self-signed certificate, and a count of open file descriptors.
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <string_view>

namespace callwire::testing {

/// A blocking loopback socket whose reads give up after a deadline.
class RawSocket {
 public:
  explicit RawSocket(uint16_t port, bool v6 = false) {
    if (v6) {
      fd_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_port = htons(port);
      a.sin6_addr = in6addr_loopback;
      ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    } else {
      fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(port);
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    }
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  explicit RawSocket(const std::string& unix_path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, unix_path.c_str(), sizeof a.sun_path - 1);
    ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  /// Takes `connected_fd`, one end of a socketpair() or any connected socket.
  struct Adopt {
    int fd;
  };
  explicit RawSocket(Adopt a) : fd_(a.fd), ok_(a.fd >= 0) {}
  ~RawSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  bool connected() const { return ok_; }
  int fd() const { return fd_; }
  /// Closes the sending direction (the peer reads EOF) and keeps reading.
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  /// Reads until `done(received)` says so, the peer closes, or `timeout` passes.
  template <class Done>
  std::string read_until(Done done, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::string got;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done(got)) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[65536];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
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

/// Open file descriptors of this process.
inline int open_fds() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (readdir(d)) ++n;
    closedir(d);
  }
  return n;
}

}  // namespace callwire::testing
