#include "net/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace callwire::net {

std::string take_openssl_errors(const char* fallback) {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? fallback : out;
}

namespace {

SSL_CTX* new_context(const SSL_METHOD* method) {
  SSL_CTX* ctx = SSL_CTX_new(method);
  if (!ctx) return nullptr;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // A peer that closes without close_notify ends the stream like a clean close: HTTP's own
  // framing (Content-Length, chunked) is what detects truncation.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return ctx;
}

}  // namespace

Result<std::unique_ptr<TlsContext>> TlsContext::server(const std::string& cert_file,
                                                       const std::string& key_file) {
  ERR_clear_error();
  SSL_CTX* ctx = new_context(TLS_server_method());
  if (!ctx) return Error(Errc::TlsError, take_openssl_errors("cannot create a TLS context"));
  std::unique_ptr<TlsContext> out(new TlsContext(ctx, false));
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1)
    return Error(Errc::TlsError, "TLS certificate " + cert_file + ": " +
                                     take_openssl_errors("cannot read"));
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    return Error(Errc::TlsError, "TLS key " + key_file + ": " + take_openssl_errors("cannot read"));
  if (SSL_CTX_check_private_key(ctx) != 1)
    return Error(Errc::TlsError, "TLS key " + key_file + " does not match " + cert_file);
  return out;
}

Result<std::unique_ptr<TlsContext>> TlsContext::client(bool verify, const std::string& ca_file) {
  ERR_clear_error();
  SSL_CTX* ctx = new_context(TLS_client_method());
  if (!ctx) return Error(Errc::TlsError, take_openssl_errors("cannot create a TLS context"));
  std::unique_ptr<TlsContext> out(new TlsContext(ctx, verify));
  if (verify) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    int ok = ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx)
                             : SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr);
    if (ok != 1)
      return Error(Errc::TlsError, "TLS CA file " + (ca_file.empty() ? "(system)" : ca_file) +
                                       ": " + take_openssl_errors("cannot read"));
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  return out;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

}  // namespace callwire::net
