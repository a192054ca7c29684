#include "net/socket.hpp"

#include <algorithm>
#include <cerrno>
#include <string>

#include "net/file_io.hpp"
#include "net/portable_calls.hpp"
#include "net/system.hpp"

namespace callwire::net {

namespace {

// poll(2)'s bit for "the peer closed its side" where there is one (Linux's POLLRDHUP), else 0:
// POLLIN then shows it, and a peek tells.
#if CALLWIRE_HAVE_POLLRDHUP
constexpr short kPollPeerClosed = POLLRDHUP;
#else
constexpr short kPollPeerClosed = 0;
#endif

}  // namespace

void set_nodelay(int fd) noexcept { sys::set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1); }

bool set_receive_low_water(int fd, size_t bytes) noexcept {
#if CALLWIRE_HAVE_EPOLL
  // Linux: epoll reports a TCP socket readable once SO_RCVLOWAT bytes are queued (the kernel
  // caps the mark at half the largest receive buffer, and wakes early under memory pressure).
  return sys::set_int_option(fd, SOL_SOCKET, SO_RCVLOWAT,
                             static_cast<int>(std::min<size_t>(bytes, INT32_MAX)));
#else
  // poll(2) and kqueue do not all honour it the same way: readiness stays any byte.
  (void)fd;
  (void)bytes;
  return false;
#endif
}

void refuse_connection(UniqueFd fd, std::string_view answer) noexcept {
  char sink[4096];
  // Accepted non-blocking: the reads take what has come, without waiting.
  for (int i = 0; i < 16 && sys::receive(fd.get(), sink, sizeof sink) > 0; ++i) {
  }
  (void)!send_nosignal(fd.get(), answer.data(), answer.size(), true);
  shutdown(fd.get(), sys::kShutdownWrite);
}

namespace {

// A Unix path that exists: replace it only if it is a socket nobody listens on.
Status clear_stale_unix_path(const Endpoint& endpoint, const SocketAddress& address) {
  const sys::PathKind kind = sys::path_kind(endpoint.path);
  if (kind == sys::PathKind::Missing) return {};
  if (kind == sys::PathKind::Other)
    return Error(Errc::InvalidArgument, endpoint.path + " exists and is not a socket");
  UniqueFd probe(open_stream_socket(AF_UNIX, false));
  if (probe && connect(probe.get(), address.get(), address.length) == 0)
    return Error(Errc::InvalidArgument, endpoint.path + ": a server is already listening");
  remove_file(endpoint.path);
  return {};
}

}  // namespace

Result<UniqueFd> listen_on(const Endpoint& endpoint, bool reuse_port, int backlog) {
  auto addresses = resolve(endpoint);
  if (!addresses) return addresses.error();
  Error last(Errc::InvalidArgument, "no address to listen on");
  for (const SocketAddress& address : *addresses) {
    if (endpoint.kind == Endpoint::Kind::Unix) {
      Status s = clear_stale_unix_path(endpoint, address);
      if (!s) return s.error();
    }
    UniqueFd fd(open_stream_socket(address.family(), true));
    if (!fd) {
      last = Error(Errc::InvalidArgument, errno_message("socket", sys::last_error()));
      continue;
    }
    if (endpoint.kind == Endpoint::Kind::Tcp) {
#if defined(_WIN32)
      // Windows' SO_REUSEADDR would let another socket take the port from under this one;
      // a restarted server may bind past TIME_WAIT there without it.
      sys::set_int_option(fd.get(), SOL_SOCKET, SO_EXCLUSIVEADDRUSE, 1);
#else
      sys::set_int_option(fd.get(), SOL_SOCKET, SO_REUSEADDR, 1);
#endif
#ifdef SO_REUSEPORT
      if (reuse_port && !sys::set_int_option(fd.get(), SOL_SOCKET, SO_REUSEPORT, 1))
        return Error(Errc::InvalidArgument, errno_message("SO_REUSEPORT", sys::last_error()));
#else
      if (reuse_port)
        return Error(Errc::InvalidArgument, "SO_REUSEPORT: this system has no such option");
#endif
    }
    if (bind(fd.get(), address.get(), address.length) != 0) {
      last = Error(Errc::InvalidArgument,
                   errno_message("bind " + endpoint.to_string(), sys::last_error()));
      continue;
    }
    if (listen(fd.get(), backlog) != 0) {
      last = Error(Errc::InvalidArgument,
                   errno_message("listen " + endpoint.to_string(), sys::last_error()));
      continue;
    }
    return fd;
  }
  return last;
}

bool wait_fd(int fd, bool for_write, std::chrono::steady_clock::time_point deadline) noexcept {
  return wait_fd(fd, for_write, deadline, -1) == WaitResult::Ready;
}

WaitResult wait_fd(int fd, bool for_write, std::chrono::steady_clock::time_point deadline,
                   int wake_fd) noexcept {
  for (;;) {
    auto now = std::chrono::steady_clock::now();
    // Not the milliseconds left, which round a deadline just past to 0 (a poll that finds
    // a trickling peer's next byte, again and again, for up to a millisecond).
    if (now >= deadline) return WaitResult::Timeout;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    sys::PollFd p[2] = {sys::poll_entry(fd, for_write ? POLLOUT : POLLIN),
                        sys::poll_entry(wake_fd, POLLIN)};
    // Round up so a deadline 0.4 ms away is not a busy loop.
    int rc = sys::poll_sockets(p, wake_fd >= 0 ? 2 : 1,
                               static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30)));
    if (rc > 0) return p[0].revents ? WaitResult::Ready : WaitResult::Woken;
    if (rc < 0 && sys::last_error() != EINTR) return WaitResult::Ready;  // the I/O reports it
  }
}

Result<bool> ready_adopted_socket(int fd) {
  const std::string name = "descriptor " + std::to_string(fd);
  int type = 0;
  if (!sys::get_int_option(fd, SOL_SOCKET, SO_TYPE, type) || type != SOCK_STREAM)
    return Error(Errc::InvalidArgument,
                 name + " is not a stream socket" + sys::kNoInheritedSockets);
  sockaddr_storage peer{};
  sys::SockLen peer_length = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0)
    return Error(Errc::InvalidArgument, name + " is not a connected socket");
  if (!sys::set_nonblocking(fd, true) || !sys::set_no_inherit(fd))
    return Error(Errc::InvalidArgument,
                 errno_message(name + ": making it non-blocking", sys::last_error()));
  prepare_for_send(fd);
  return peer.ss_family == AF_INET || peer.ss_family == AF_INET6;
}

Accepted accept_connection(int listen_fd) {
  Accepted a;
  sockaddr_storage address{};
  sys::SockLen length = sizeof address;
  int fd = accept_nonblocking(listen_fd, reinterpret_cast<sockaddr*>(&address), &length);
  if (fd < 0) {
    const int err = sys::last_error();
    if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM)
      a.outcome = Accepted::Outcome::OutOfDescriptors;
    return a;  // EAGAIN, or a connection reset or aborted in the backlog: nothing to take
  }
  a.outcome = Accepted::Outcome::Connection;
  a.fd.reset(fd);
  a.peer = format_peer(reinterpret_cast<sockaddr*>(&address), length);
  return a;
}

PeerOf peer_of(int fd) {
  sockaddr_storage address{};
  sys::SockLen length = sizeof address;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {"unknown"};
  return {format_peer(reinterpret_cast<sockaddr*>(&address), length),
          address.ss_family == AF_INET || address.ss_family == AF_INET6};
}

void set_blocking(int fd, bool blocking) noexcept { sys::set_nonblocking(fd, !blocking); }

void set_io_timeout(int fd, std::chrono::microseconds timeout) noexcept {
  if (timeout < std::chrono::microseconds(1000)) timeout = std::chrono::microseconds(1000);
  sys::set_io_timeout(fd, timeout);
}

void shutdown_both(int fd) noexcept { shutdown(fd, sys::kShutdownBoth); }

void raise_descriptor_limit(size_t wanted) noexcept { sys::raise_descriptor_limit(wanted); }

bool send_now(int fd, std::string_view bytes) noexcept {
  ssize_t n = send_nosignal(fd, bytes.data(), bytes.size(), true);
  return n == static_cast<ssize_t>(bytes.size());
}

Drain drain_input(int fd, size_t limit, size_t& discarded) noexcept {
  char sink[16 * 1024];
  for (;;) {
    ssize_t n = sys::receive(fd, sink, sizeof sink);
    if (n > 0) {
      discarded += static_cast<size_t>(n);
      if (discarded > limit) return Drain::Done;
      continue;
    }
    const int err = n < 0 ? sys::last_error() : 0;
    if (err == EINTR) continue;
    if (sys::is_transient(err)) return Drain::Pending;
    return Drain::Done;  // end of file, or an error
  }
}

IdleState peek_idle(int fd) noexcept {
  for (;;) {
    ssize_t n = sys::peek_now(fd);
    if (n > 0) return IdleState::Data;
    if (n == 0) return IdleState::Closed;
    const int err = sys::last_error();
    if (err == EINTR) continue;
    return sys::is_transient(err) ? IdleState::Quiet : IdleState::Closed;
  }
}

std::vector<IdleState> watch_idle(std::span<const int> fds,
                                  std::chrono::steady_clock::time_point deadline) {
  std::vector<IdleState> seen(fds.size(), IdleState::Quiet);
  std::vector<sys::PollFd> polled;
  std::vector<size_t> index;  // polled[k] is fds[index[k]]
  for (size_t i = 0; i < fds.size(); ++i) {
    seen[i] = peek_idle(fds[i]);
    if (seen[i] != IdleState::Quiet) continue;
    polled.push_back(sys::poll_entry(fds[i], POLLIN | kPollPeerClosed));
    index.push_back(i);
  }
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (polled.empty() || left.count() <= 0) return seen;
    int rc = sys::poll_sockets(polled.data(), polled.size(),
                               static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30)));
    if (rc < 0 && sys::last_error() != EINTR) return seen;
    for (size_t k = polled.size(); k-- > 0;) {
      if (polled[k].revents == 0) continue;
      seen[index[k]] = peek_idle(sys::fd_of(polled[k]));
      if (seen[index[k]] == IdleState::Quiet) continue;  // spurious: keep watching
      polled.erase(polled.begin() + static_cast<ptrdiff_t>(k));
      index.erase(index.begin() + static_cast<ptrdiff_t>(k));
    }
  }
}

void wait_readable(std::span<const int> fds, int wake_fd, std::vector<int>& ready) {
  ready.clear();
  std::vector<sys::PollFd> polled;
  polled.reserve(fds.size() + 1);
  polled.push_back(sys::poll_entry(wake_fd, POLLIN));
  for (int fd : fds) polled.push_back(sys::poll_entry(fd, POLLIN | kPollPeerClosed));
  int rc;
  do {
    rc = sys::poll_sockets(polled.data(), polled.size(), -1);
  } while (rc < 0 && sys::last_error() == EINTR);
  if (rc < 0) return;
  for (size_t k = 1; k < polled.size(); ++k)
    if (polled[k].revents != 0) ready.push_back(sys::fd_of(polled[k]));
}

Result<UniqueFd> start_connect(const SocketAddress& address, const std::string& description) {
  UniqueFd fd(open_stream_socket(address.family(), true));
  if (!fd) return Error(Errc::ConnectFailed, errno_message("socket", sys::last_error()));
  if (address.family() != AF_UNIX) set_nodelay(fd.get());
  if (connect(fd.get(), address.get(), address.length) != 0) {
    // In progress: EINPROGRESS on POSIX, WSAEWOULDBLOCK (EWOULDBLOCK here) on Windows.
    const int err = sys::last_error();
    if (err != EINPROGRESS && err != EWOULDBLOCK)
      return Error(Errc::ConnectFailed, errno_message("connect to " + description, err));
  }
  return fd;
}

int finish_connect(int fd) noexcept {
  int err = 0;
  if (!sys::get_int_option(fd, SOL_SOCKET, SO_ERROR, err)) return sys::last_error();
  return err;
}

}  // namespace callwire::net
