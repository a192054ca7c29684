// Internal: OpenSSL contexts for servers (certificate and key) and clients (verification).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "callwire/error.hpp"

typedef struct ssl_ctx_st SSL_CTX;  // NOLINT: OpenSSL's own spelling

namespace callwire::net {

/// What both sides may restrict: the oldest protocol version and the ciphers.
struct TlsProtocolSettings {
  int min_version = 12;      ///< 12 (TLS 1.2) or 13 (TLS 1.3); anything else is refused
  std::string ciphers;       ///< OpenSSL cipher list for TLS 1.2 ("ECDHE+AESGCM"); empty: default
  std::string ciphersuites;  ///< TLS 1.3 suites ("TLS_AES_256_GCM_SHA384:..."); empty: default
};

/// A server's certificate, and what it asks of clients.
struct TlsServerSettings {
  std::string cert_file;  ///< PEM certificate chain
  std::string key_file;   ///< PEM private key
  /// With either, clients are asked for a certificate verified against these CAs (a PEM file,
  /// a hashed directory as `openssl rehash` makes): one without is refused in the handshake
  /// unless `client_cert_optional`.
  std::string client_ca_file;
  std::string client_ca_dir;
  bool client_cert_optional = false;
  TlsProtocolSettings protocol;
};

/// A client's trust and, for mutual TLS, its own certificate.
struct TlsClientSettings {
  /// Check the peer's chain (against `ca_file` and `ca_dir`, or the system's store when both
  /// are empty) and its name.
  bool verify = true;
  std::string ca_file;
  std::string ca_dir;
  /// PEM; shown to servers that ask. The key encrypted with `key_password` when given.
  std::string cert_file;
  std::string key_file;
  std::string_view key_password;  // borrowed: read once, and only a wiped copy is kept
  TlsProtocolSettings protocol;
};

/// An SSL_CTX: TLS 1.2 or later. Ownership: owns the context; streams using it must not
/// outlive it. Thread-safety: immutable after creation; shared by every thread.
class TlsContext {
 public:
  /// A server context. Errors: TlsError naming the file and OpenSSL's reason (an unreadable
  /// certificate, key or CA file or directory, a key that does not match); InvalidArgument (a
  /// min_version other than 12 or 13, a cipher list or suite list OpenSSL refuses).
  static Result<std::unique_ptr<TlsContext>> server(const TlsServerSettings& settings);
  /// A client context. Errors: TlsError (an unreadable CA file or directory, certificate or
  /// key file, a wrong password, a key that does not match); InvalidArgument as server().
  static Result<std::unique_ptr<TlsContext>> client(const TlsClientSettings& settings);

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
