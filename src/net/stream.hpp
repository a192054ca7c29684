// Internal: a byte stream over a connected socket, plain or TLS. The connection code above
// is written once against this type; TLS is one more kind of stream, not a copy of that code.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "net/fd.hpp"

typedef struct ssl_st SSL;  // NOLINT: OpenSSL's own spelling; keeps <openssl/ssl.h> out

namespace callwire::net {

class TlsContext;

enum class IoStatus {
  Ok,         ///< `n` bytes were moved (n > 0)
  WantRead,   ///< try again when the socket is readable
  WantWrite,  ///< try again when the socket is writable
  Eof,        ///< the peer closed its side
  Error,      ///< the connection is broken; `error` says why
};

struct IoResult {
  size_t n = 0;
  IoStatus status = IoStatus::Ok;
};

/// Reads and writes on a non-blocking socket; never raises SIGPIPE.
/// Ownership: owns the socket (and the TLS session); a TlsContext passed in must outlive it.
/// Thread-safety: none; one thread at a time.
class Stream {
 public:
  Stream() = default;
  /// A plain stream over `fd`.
  explicit Stream(UniqueFd fd) : fd_(std::move(fd)) {}
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();

  /// Makes this a TLS stream: the server side of the handshake (`server` true) or the client
  /// side, verifying the peer's certificate against `host` when the context verifies: a name
  /// against its DNS names (and sent as SNI whether or not it verifies), an IPv4 or IPv6
  /// literal against its IP addresses (and never sent as SNI, RFC 6066). The handshake runs
  /// inside the first reads and writes; a mismatch fails it with an error naming `host`.
  /// Errors: false when OpenSSL cannot allocate the session or refuses `host` (error() says
  /// so).
  bool start_tls(TlsContext& context, bool server, const std::string& host = {});

  IoResult read(char* data, size_t size) noexcept;
  IoResult write(const char* data, size_t size) noexcept;
  /// Bytes TLS already decrypted and holds: read them before waiting for the socket.
  bool has_buffered_input() const noexcept;
  /// TLS: the first bytes (up to 5) the peer sent, as they came: "HTTP/" from a plain HTTP
  /// server answering a ClientHello, "POST " from a plain HTTP client. Empty on a plain stream.
  std::string_view first_bytes() const noexcept;
  /// TLS on a blocking socket: past `deadline`, a read or write gives up with WantRead or
  /// WantWrite instead of waiting for the rest of a record, which a peer may trickle a byte at
  /// a time (each socket read satisfied, so no socket timeout fires). nullopt: none. A no-op
  /// on a plain stream, whose reads return what came.
  void set_blocking_deadline(
      std::optional<std::chrono::steady_clock::time_point> deadline) noexcept;
  /// Sends a TLS close_notify when possible (best effort, never blocks).
  void shutdown() noexcept;
  /// The first step of a lingering close: shutdown(), then the sending side ended (the peer
  /// reads to the end of the answer and sees EOF); reading goes on (net::drain_input).
  void close_sending() noexcept;

  int fd() const noexcept { return fd_.get(); }
  /// Gives up the socket of a plain (not TLS) stream, open as it is; the stream is then closed.
  UniqueFd release_plain() noexcept { return std::move(fd_); }
  bool is_tls() const noexcept { return ssl_ != nullptr; }
  /// A TLS stream whose handshake has completed.
  bool handshake_done() const noexcept;
  /// The subject of the certificate the peer showed and the handshake verified, in RFC 2253
  /// form ("CN=alice,O=Example"); empty when there is none (plain, or not shown).
  std::string verified_peer_subject() const;
  /// Why the last Error happened.
  const std::string& error() const noexcept { return error_; }

 private:
  IoResult tls_result(int rc, size_t n, const char* what) noexcept;

  UniqueFd fd_;
  SSL* ssl_ = nullptr;
  std::string error_;
  std::string peer_name_;  // the name or address a client stream checks the certificate for
};

}  // namespace callwire::net
