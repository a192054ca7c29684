#include "net/socket.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "net/portable_calls.hpp"

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

void set_nodelay(int fd) noexcept {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void refuse_connection(UniqueFd fd, std::string_view answer) noexcept {
  char sink[4096];
  for (int i = 0; i < 16 && recv(fd.get(), sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  (void)!send_nosignal(fd.get(), answer.data(), answer.size(), true);
  shutdown(fd.get(), SHUT_WR);
}

namespace {

// A Unix path that exists: replace it only if it is a socket nobody listens on.
Status clear_stale_unix_path(const Endpoint& endpoint, const SocketAddress& address) {
  struct stat st {};
  if (lstat(endpoint.path.c_str(), &st) != 0) return {};
  if (!S_ISSOCK(st.st_mode))
    return Error(Errc::InvalidArgument, endpoint.path + " exists and is not a socket");
  UniqueFd probe(open_stream_socket(AF_UNIX, false));
  if (probe && connect(probe.get(), address.get(), address.length) == 0)
    return Error(Errc::InvalidArgument, endpoint.path + ": a server is already listening");
  unlink(endpoint.path.c_str());
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
      last = Error(Errc::InvalidArgument, errno_message("socket", errno));
      continue;
    }
    if (endpoint.kind == Endpoint::Kind::Tcp) {
      int one = 1;
      setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
#ifdef SO_REUSEPORT
      if (reuse_port && setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0)
        return Error(Errc::InvalidArgument, errno_message("SO_REUSEPORT", errno));
#else
      if (reuse_port)
        return Error(Errc::InvalidArgument, "SO_REUSEPORT: this system has no such option");
#endif
    }
    if (bind(fd.get(), address.get(), address.length) != 0) {
      last = Error(Errc::InvalidArgument, errno_message("bind " + endpoint.to_string(), errno));
      continue;
    }
    if (listen(fd.get(), backlog) != 0) {
      last = Error(Errc::InvalidArgument, errno_message("listen " + endpoint.to_string(), errno));
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
    pollfd p[2] = {{fd, static_cast<short>(for_write ? POLLOUT : POLLIN), 0}, {wake_fd, POLLIN, 0}};
    // Round up so a deadline 0.4 ms away is not a busy loop.
    int rc = poll(p, wake_fd >= 0 ? 2 : 1,
                  static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30)));
    if (rc > 0) return p[0].revents ? WaitResult::Ready : WaitResult::Woken;
    if (rc < 0 && errno != EINTR) return WaitResult::Ready;  // the caller's I/O reports it
  }
}

Result<bool> ready_adopted_socket(int fd) {
  const std::string name = "descriptor " + std::to_string(fd);
  int type = 0;
  socklen_t type_length = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_length) != 0 || type != SOCK_STREAM)
    return Error(Errc::InvalidArgument, name + " is not a stream socket");
  sockaddr_storage peer{};
  socklen_t peer_length = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0)
    return Error(Errc::InvalidArgument, name + " is not a connected socket");
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
      fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
    return Error(Errc::InvalidArgument, name + ": fcntl failed");
  prepare_for_send(fd);
  return peer.ss_family == AF_INET || peer.ss_family == AF_INET6;
}

Accepted accept_connection(int listen_fd) {
  Accepted a;
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  int fd = accept_nonblocking(listen_fd, reinterpret_cast<sockaddr*>(&address), &length);
  if (fd < 0) {
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
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
  socklen_t length = sizeof address;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {"unknown"};
  return {format_peer(reinterpret_cast<sockaddr*>(&address), length),
          address.ss_family == AF_INET || address.ss_family == AF_INET6};
}

void set_blocking(int fd, bool blocking) noexcept {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}

void set_io_timeout(int fd, std::chrono::microseconds timeout) noexcept {
  if (timeout < std::chrono::microseconds(1000)) timeout = std::chrono::microseconds(1000);
  timeval tv{static_cast<time_t>(timeout.count() / 1000000),
             static_cast<suseconds_t>(timeout.count() % 1000000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void shutdown_both(int fd) noexcept { shutdown(fd, SHUT_RDWR); }

void raise_descriptor_limit(size_t wanted) noexcept {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= wanted) return;
  r.rlim_cur = r.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(wanted, r.rlim_max);
  setrlimit(RLIMIT_NOFILE, &r);
}

bool send_now(int fd, std::string_view bytes) noexcept {
  ssize_t n = send_nosignal(fd, bytes.data(), bytes.size(), true);
  return n == static_cast<ssize_t>(bytes.size());
}

Drain drain_input(int fd, size_t limit, size_t& discarded) noexcept {
  char sink[16 * 1024];
  for (;;) {
    ssize_t n = ::recv(fd, sink, sizeof sink, 0);
    if (n > 0) {
      discarded += static_cast<size_t>(n);
      if (discarded > limit) return Drain::Done;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Drain::Pending;
    return Drain::Done;  // end of file, or an error
  }
}

IdleState peek_idle(int fd) noexcept {
  char byte;
  for (;;) {
    ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return IdleState::Data;
    if (n == 0) return IdleState::Closed;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? IdleState::Quiet : IdleState::Closed;
  }
}

std::vector<IdleState> watch_idle(std::span<const int> fds,
                                  std::chrono::steady_clock::time_point deadline) {
  std::vector<IdleState> seen(fds.size(), IdleState::Quiet);
  std::vector<pollfd> polled;
  std::vector<size_t> index;  // polled[k] is fds[index[k]]
  for (size_t i = 0; i < fds.size(); ++i) {
    seen[i] = peek_idle(fds[i]);
    if (seen[i] != IdleState::Quiet) continue;
    polled.push_back({fds[i], POLLIN | kPollPeerClosed, 0});
    index.push_back(i);
  }
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (polled.empty() || left.count() <= 0) return seen;
    int rc = poll(polled.data(), polled.size(),
                  static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30)));
    if (rc < 0 && errno != EINTR) return seen;
    for (size_t k = polled.size(); k-- > 0;) {
      if (polled[k].revents == 0) continue;
      seen[index[k]] = peek_idle(polled[k].fd);
      if (seen[index[k]] == IdleState::Quiet) continue;  // spurious: keep watching
      polled.erase(polled.begin() + static_cast<ptrdiff_t>(k));
      index.erase(index.begin() + static_cast<ptrdiff_t>(k));
    }
  }
}

void wait_readable(std::span<const int> fds, int wake_fd, std::vector<int>& ready) {
  ready.clear();
  std::vector<pollfd> polled;
  polled.reserve(fds.size() + 1);
  polled.push_back({wake_fd, POLLIN, 0});
  for (int fd : fds) polled.push_back({fd, POLLIN | kPollPeerClosed, 0});
  int rc;
  do {
    rc = poll(polled.data(), polled.size(), -1);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return;
  for (size_t k = 1; k < polled.size(); ++k)
    if (polled[k].revents != 0) ready.push_back(polled[k].fd);
}

Result<UniqueFd> start_connect(const SocketAddress& address, const std::string& description) {
  UniqueFd fd(open_stream_socket(address.family(), true));
  if (!fd) return Error(Errc::ConnectFailed, errno_message("socket", errno));
  if (address.family() != AF_UNIX) set_nodelay(fd.get());
  if (connect(fd.get(), address.get(), address.length) != 0 && errno != EINPROGRESS)
    return Error(Errc::ConnectFailed, errno_message("connect to " + description, errno));
  return fd;
}

int finish_connect(int fd) noexcept {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

}  // namespace callwire::net
