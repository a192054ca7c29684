// A raw-socket HTTP server for client tests: it answers whatever the test says, right or wrong.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace callwire {

// A one-thread TCP server that hands each accepted connection to `serve` (the raw fd).
class FakeServer {
 public:
  explicit FakeServer(std::function<void(int fd)> serve, bool accept = true)
      : serve_(std::move(serve)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 16);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    if (accept) thread_ = std::thread([this] { run(); });
  }
  ~FakeServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/RPC2"; }
  uint16_t port() const { return port_; }
  int accepts() const { return accepts_.load(); }

  // Reads one request (head and Content-Length body) from fd; empty on EOF.
  static std::string read_request(int fd) {
    std::string got;
    char buf[65536];
    for (;;) {
      size_t end = got.find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t cl = got.find("Content-Length: ");
        size_t length = cl < end ? std::stoul(got.substr(cl + 16, 12)) : 0;
        if (got.size() >= end + 4 + length) return got;
      }
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 3000) <= 0) return {};
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return {};
      got.append(buf, static_cast<size_t>(n));
    }
  }
  static void send_all(int fd, std::string_view s) {
    while (!s.empty()) {
      ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      s.remove_prefix(static_cast<size_t>(n));
    }
  }
  static std::string ok_response(std::string_view xml, std::string_view extra = {}) {
    return "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: " +
           std::to_string(xml.size()) + "\r\n" + std::string(extra) + "\r\n" + std::string(xml);
  }

 private:
  void run() {
    while (!stop_) {
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      ++accepts_;
      serve_(c);
      ::close(c);
    }
  }
  std::function<void(int)> serve_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepts_{0};
};

}  // namespace callwire
