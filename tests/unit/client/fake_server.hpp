// A raw-socket HTTP server for client tests: it answers whatever the test says, right or wrong.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "http_test_util.hpp"
#include "net/address.hpp"
#include "net/socket.hpp"
#include "net/wake_fd.hpp"

namespace callwire {

// A one-thread TCP server that hands each accepted connection to `serve` (a blocking socket).
class FakeServer {
 public:
  explicit FakeServer(std::function<void(int fd)> serve, bool accept = true)
      : serve_(std::move(serve)) {
    net::Endpoint here;
    here.host = "127.0.0.1";
    listener_ = std::move(net::listen_on(here, false, 16).value());
    port_ = net::local_port(listener_.get());
    stop_ = std::move(net::WakeFd::create().value());
    if (accept) thread_ = std::thread([this] { run(); });
  }
  ~FakeServer() {
    stop_.raise();
    if (thread_.joinable()) thread_.join();
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
      if (!testing::wait_readable(fd, 3000)) return {};
      ssize_t n = testing::receive_some(fd, buf, sizeof buf);
      if (n <= 0) return {};
      got.append(buf, static_cast<size_t>(n));
    }
  }
  static void send_all(int fd, std::string_view s) { testing::send_all(fd, s); }
  static std::string ok_response(std::string_view xml, std::string_view extra = {}) {
    return "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: " +
           std::to_string(xml.size()) + "\r\n" + std::string(extra) + "\r\n" + std::string(xml);
  }

 private:
  // Accepts until the destructor raises stop_; each connection is served, then closed.
  void run() {
    for (;;) {
      net::sys::PollFd watch[2] = {net::sys::poll_entry(listener_.get(), POLLIN),
                                   net::sys::poll_entry(stop_.fd(), POLLIN)};
      if (net::sys::poll_sockets(watch, 2, -1) < 0 &&
          !net::sys::is_transient(net::sys::last_error()))
        return;
      if (watch[1].revents != 0) return;
      if (watch[0].revents == 0) continue;
      int c = net::accept_nonblocking(listener_.get(), nullptr, nullptr);
      if (c < 0) continue;
      net::sys::set_nonblocking(c, false);
      ++accepts_;
      serve_(c);
      testing::close_socket(c);
    }
  }
  std::function<void(int)> serve_;
  net::UniqueFd listener_;
  net::WakeFd stop_;
  uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<int> accepts_{0};
};

}  // namespace callwire
