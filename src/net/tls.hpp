// Internal: OpenSSL contexts for servers (certificate and key) and clients (verification).
#pragma once

#include <memory>
#include <string>

#include "callwire/error.hpp"

typedef struct ssl_ctx_st SSL_CTX;  // NOLINT: OpenSSL's own spelling

namespace callwire::net {

/// An SSL_CTX: TLS 1.2 or later. Ownership: owns the context; streams using it must not
/// outlive it. Thread-safety: immutable after creation; shared by every thread.
class TlsContext {
 public:
  /// A server context from PEM files: a certificate chain and its private key. With
  /// `client_ca_file`, clients are asked for a certificate verified against it: one without
  /// is refused in the handshake unless `client_cert_optional`.
  /// Errors: TlsError naming the file and OpenSSL's reason.
  static Result<std::unique_ptr<TlsContext>> server(const std::string& cert_file,
                                                    const std::string& key_file,
                                                    const std::string& client_ca_file = {},
                                                    bool client_cert_optional = false);
  /// A client context. `verify` checks the peer's chain (against `ca_file`, or the system's
  /// store when empty) and its name. With `cert_file` and `key_file` (PEM; the key encrypted
  /// with `key_password` when given) it shows that certificate to servers that ask (mutual
  /// TLS). Errors: TlsError (an unreadable CA, certificate or key file, a wrong password, a
  /// key that does not match).
  static Result<std::unique_ptr<TlsContext>> client(bool verify, const std::string& ca_file,
                                                    const std::string& cert_file = {},
                                                    const std::string& key_file = {},
                                                    const std::string& key_password = {});

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
