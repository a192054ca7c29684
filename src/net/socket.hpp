// Internal: opening listening and connected sockets. Every socket is close-on-exec and
// non-blocking; every TCP socket gets TCP_NODELAY (without it a request/response exchange
// waits for the peer's delayed ACK: xmlrpc-c fell from 280 to 12 calls/s).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "net/address.hpp"
#include "net/fd.hpp"
#include "net/wake_fd.hpp"

namespace callwire::net {

/// A listening socket on `endpoint`. A Unix path left over by a dead server (nobody accepts
/// on it) is replaced; one in use is an error. Errors: InvalidArgument with the system's
/// reason (address in use, permission denied, ...). The backlog defaults to the most the
/// kernel allows (net.core.somaxconn caps it): a burst of connections waits there instead of
/// being dropped while the server is busy. `reuse_port`: SO_REUSEPORT on a TCP socket, so that
/// several sockets (processes) of the same user may listen on one port, the kernel spreading
/// new connections over them (ignored for Unix sockets).
Result<UniqueFd> listen_on(const Endpoint& endpoint, bool reuse_port = false,
                           int backlog = SOMAXCONN);

/// Starts a non-blocking connect to `address`: the socket is connected, or connecting
/// (wait until writable, then finish_connect). Errors: ConnectFailed with the reason.
Result<UniqueFd> start_connect(const SocketAddress& address, const std::string& description);
/// After a connecting socket became writable: 0 when connected, else the errno.
int finish_connect(int fd) noexcept;

/// Sets TCP_NODELAY (ignored on non-TCP sockets).
void set_nodelay(int fd) noexcept;
/// Asks that a read of `fd` be woken only once `bytes` are queued (or the stream ends):
/// SO_RCVLOWAT, where the event loop honours it (epoll, for TCP). False where it does not, or it
/// failed: then nothing changed, and readiness means any byte.
bool set_receive_low_water(int fd, size_t bytes) noexcept;

/// Refuses a just-accepted, non-blocking connection with a last word: discards what the
/// peer has already sent (so closing does not reset the connection and lose `answer`), sends
/// `answer` if the socket takes it at once, and closes. Best effort, never blocks.
void refuse_connection(UniqueFd fd, std::string_view answer) noexcept;

/// Waits until `fd` is readable (or writable) or `deadline` passes: true when ready.
bool wait_fd(int fd, bool for_write, std::chrono::steady_clock::time_point deadline) noexcept;

/// What a wait for a descriptor ended with.
enum class WaitResult : uint8_t { Ready, Timeout, Woken };
/// As wait_fd, and Woken as soon as `wake_fd` (a WakeFd's; -1: none) is signalled, also when it
/// already was. Ready wins when both are.
WaitResult wait_fd(int fd, bool for_write, std::chrono::steady_clock::time_point deadline,
                   int wake_fd) noexcept;

/// Readies a descriptor someone hands over (inetd, socketpair(), a parent process): it must be
/// a connected stream socket; it is made non-blocking and close-on-exec. Returns whether it is
/// a TCP socket (IPv4 or IPv6; false: a Unix one). Errors: InvalidArgument naming the
/// descriptor and what is wrong.
Result<bool> ready_adopted_socket(int fd);

/// What accept_connection took from a listener's backlog.
struct Accepted {
  enum class Outcome : uint8_t {
    Connection,        ///< `fd` (non-blocking, close-on-exec) from `peer` (format_peer's text)
    None,              ///< nothing waiting (another loop took it), or it died in the backlog
    OutOfDescriptors,  ///< the process or system is out of descriptors (or buffers) for now
  };
  Outcome outcome = Outcome::None;
  UniqueFd fd;
  std::string peer;
};
/// Takes the next connection waiting on listening socket `listen_fd`. Never blocks.
Accepted accept_connection(int listen_fd);

/// The peer of a connected socket as format_peer writes it ("unknown" when the system cannot
/// say), and whether the socket is a TCP one.
struct PeerOf {
  std::string text;
  bool tcp = false;
};
PeerOf peer_of(int fd);

/// Makes a socket's reads and writes block (or not).
void set_blocking(int fd, bool blocking) noexcept;
/// How long a blocking read or write on the socket may wait (SO_RCVTIMEO and SO_SNDTIMEO);
/// at least a millisecond (0 would mean forever).
void set_io_timeout(int fd, std::chrono::microseconds timeout) noexcept;
/// Ends both directions of a connection now (the peer sees the end); the descriptor stays open.
void shutdown_both(int fd) noexcept;

/// Raises the process's soft limit on open descriptors toward `wanted` (never above the hard
/// limit, never lowering it).
void raise_descriptor_limit(size_t wanted) noexcept;

/// Sends all of `bytes` at once if the socket takes them without waiting: false when it does
/// not (full, reset, closed). Never blocks, never raises SIGPIPE.
bool send_now(int fd, std::string_view bytes) noexcept;

/// A lingering close's second step: what the peer still sends (the rest of a refused request)
/// is read and dropped until it closes, since closing with unread bytes would reset the
/// connection and the peer could lose the answer to the reset (RFC 9112 §9.6).
enum class Drain : uint8_t {
  Pending,  ///< nothing more to read for now: wait until the socket is readable again
  Done,     ///< the peer closed, the socket failed, or more than `limit` bytes came in all
};
/// Reads and drops what non-blocking `fd` holds; `discarded` counts the bytes across calls.
/// Never blocks; EINTR is retried.
Drain drain_input(int fd, size_t limit, size_t& discarded) noexcept;

/// What an idle connection (no answer awaited) holds, read without consuming anything.
enum class IdleState : uint8_t {
  Quiet,   ///< nothing: the peer may be there
  Closed,  ///< the peer closed or reset it (or it failed)
  Data,    ///< bytes nobody asked for
};
IdleState peek_idle(int fd) noexcept;

/// Watches idle connections until `deadline` for the peer closing or resetting them (a reset
/// answering a liveness probe takes a round trip). Returns, per descriptor, what was seen
/// last: Quiet for those that stayed so. With a deadline already past, only looks once.
std::vector<IdleState> watch_idle(std::span<const int> fds,
                                  std::chrono::steady_clock::time_point deadline);

/// Waits, with no deadline, until one of `fds` is readable (or closed, or in error) or
/// `wake_fd` (a WakeFd's) is signalled; `ready` is then the descriptors of `fds` that are
/// (empty when only the waker was). A client's watch over its idle connections.
void wait_readable(std::span<const int> fds, int wake_fd, std::vector<int>& ready);

}  // namespace callwire::net
