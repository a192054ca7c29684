#include "net/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cstring>
#include <string>

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
                                                       const std::string& key_file,
                                                       const std::string& client_ca_file,
                                                       bool client_cert_optional) {
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
  if (!client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, client_ca_file.c_str(), nullptr) != 1)
      return Error(Errc::TlsError, "TLS client CA file " + client_ca_file + ": " +
                                       take_openssl_errors("cannot read"));
    // The CAs' names go in the certificate request, so a client with several certificates
    // knows which to show.
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(client_ca_file.c_str()))
      SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx,
                       SSL_VERIFY_PEER | (client_cert_optional ? 0 : SSL_VERIFY_FAIL_IF_NO_PEER_CERT),
                       nullptr);
  }
  return out;
}

Result<std::unique_ptr<TlsContext>> TlsContext::client(bool verify, const std::string& ca_file,
                                                       const std::string& cert_file,
                                                       const std::string& key_file,
                                                       const std::string& key_password) {
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
  if (!cert_file.empty() || !key_file.empty()) {
    if (cert_file.empty() || key_file.empty())
      return Error(Errc::TlsError, "a client certificate needs both its file and its key file");
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1)
      return Error(Errc::TlsError, "TLS client certificate " + cert_file + ": " +
                                       take_openssl_errors("cannot read"));
    // The password is read once here, from a copy the context keeps no longer than this.
    std::string password = key_password;
    SSL_CTX_set_default_passwd_cb_userdata(ctx, password.data());
    SSL_CTX_set_default_passwd_cb(ctx, [](char* buf, int size, int, void* data) -> int {
      const char* p = static_cast<const char*>(data);
      int n = static_cast<int>(std::strlen(p));
      if (n > size) return -1;
      std::memcpy(buf, p, static_cast<size_t>(n));
      return n;
    });
    int loaded = SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM);
    SSL_CTX_set_default_passwd_cb(ctx, nullptr);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, nullptr);
    OPENSSL_cleanse(password.data(), password.size());
    if (loaded != 1)
      return Error(Errc::TlsError, "TLS client key " + key_file + ": " +
                                       take_openssl_errors("cannot read (or a wrong password)"));
    if (SSL_CTX_check_private_key(ctx) != 1)
      return Error(Errc::TlsError, "TLS client key " + key_file + " does not match " + cert_file);
  }
  return out;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

}  // namespace callwire::net
