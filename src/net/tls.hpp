// Internal: OpenSSL contexts, for servers and clients, from the public TlsOptions.
#pragma once

#include <memory>
#include <string>

#include "callwire/error.hpp"
#include "callwire/tls.hpp"

typedef struct ssl_ctx_st SSL_CTX;  // NOLINT: OpenSSL's own spelling

namespace callwire::net {

/// What only one side sets, beside the TlsOptions both share.
struct TlsSide {
  bool server = false;
  /// Client: check the peer's chain (against TlsOptions' CAs, or the system's store when
  /// both are empty) and its name.
  bool verify_peer = true;
  /// Server with CAs: clients that show no certificate are served too.
  bool client_cert_optional = false;

  static TlsSide of_client(bool verify_peer) noexcept { return {false, verify_peer, false}; }
  static TlsSide of_server(bool client_cert_optional) noexcept {
    return {true, false, client_cert_optional};
  }
};

/// An SSL_CTX: TLS 1.2 or later. Ownership: owns the context; streams using it must not
/// outlive it. Thread-safety: immutable after creation; shared by every thread.
class TlsContext {
 public:
  /// The one way from the public TlsOptions to a context, for either side. The files are read
  /// now. A server needs cert_file and key_file; a client takes both or neither. Errors, each
  /// naming the field ("tls.key_file ..."): TlsError with OpenSSL's reason (an unreadable
  /// certificate, key, CA file or directory, a wrong key_password, a key that does not
  /// match); InvalidArgument (a min_version other than 1.2 or 1.3, a cipher list or suite
  /// list with an entry that selects nothing, a certificate without its key).
  static Result<std::unique_ptr<TlsContext>> create(const TlsOptions& options, TlsSide side);

  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const noexcept { return ctx_; }
  bool verifies() const noexcept { return verify_; }

 private:
  TlsContext(SSL_CTX* ctx, bool verify) : ctx_(ctx), verify_(verify) {}
  SSL_CTX* ctx_;
  bool verify_;
};

/// OpenSSL's queued errors as one line ("error:0A000086:SSL routines::certificate verify
/// failed"), clearing the queue; `fallback` when the queue is empty.
std::string take_openssl_errors(const char* fallback);

}  // namespace callwire::net
