#include "net/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
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

// OpenSSL takes a list when any one of its entries matches and drops the rest in silence: a
// typo would then quietly narrow (or not narrow) what is offered. Each entry that selects
// ciphers ("ECDHE+AESGCM", "HIGH", a suite's name) must match on its own; the ones that only
// remove or reorder ("!aNULL", "-RSA", "+SHA", "@STRENGTH") are left to OpenSSL.
Status check_cipher_entries(const std::string& list, bool suites, const char* option) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(suites ? ":" : ":, ", start);
    if (end == std::string::npos) end = list.size();
    std::string entry = list.substr(start, end - start);
    start = end + 1;
    if (entry.empty() || std::strchr("!-+@", entry[0])) continue;
    SSL_CTX* probe = SSL_CTX_new(TLS_method());
    if (!probe) return Error(Errc::NoMemory, "cannot create a TLS context");
    int ok = suites ? SSL_CTX_set_ciphersuites(probe, entry.c_str())
                    : SSL_CTX_set_cipher_list(probe, entry.c_str());
    SSL_CTX_free(probe);
    ERR_clear_error();
    if (ok != 1)
      return Error(Errc::InvalidArgument, std::string(option) + " \"" + list + "\": \"" + entry +
                                              "\" matches no " +
                                              (suites ? "TLS 1.3 cipher suite" : "cipher"));
  }
  return {};
}

Status apply_protocol(SSL_CTX* ctx, const TlsProtocolSettings& p) {
  if (p.min_version != 12 && p.min_version != 13)
    return Error(Errc::InvalidArgument,
                 "tls_min_version " + std::to_string(p.min_version) + ": TLS 1.2 or 1.3 only");
  SSL_CTX_set_min_proto_version(ctx, p.min_version == 13 ? TLS1_3_VERSION : TLS1_2_VERSION);
  if (!p.ciphers.empty()) {
    Status each = check_cipher_entries(p.ciphers, false, "tls_ciphers");
    if (!each) return each;
    if (SSL_CTX_set_cipher_list(ctx, p.ciphers.c_str()) != 1)
      return Error(Errc::InvalidArgument, "tls_ciphers \"" + p.ciphers +
                                              "\": " + take_openssl_errors("no cipher matches"));
  }
  if (!p.ciphersuites.empty()) {
    Status each = check_cipher_entries(p.ciphersuites, true, "tls_ciphersuites");
    if (!each) return each;
    if (SSL_CTX_set_ciphersuites(ctx, p.ciphersuites.c_str()) != 1)
      return Error(Errc::InvalidArgument, "tls_ciphersuites \"" + p.ciphersuites + "\": " +
                                              take_openssl_errors("no cipher suite matches"));
  }
  return {};
}

// Trusted CAs from a PEM file, a hashed directory, or both. `what` names them in errors.
Status load_verify(SSL_CTX* ctx, const std::string& file, const std::string& dir,
                   const char* what) {
  if (!file.empty() && SSL_CTX_load_verify_locations(ctx, file.c_str(), nullptr) != 1)
    return Error(Errc::TlsError,
                 std::string(what) + " file " + file + ": " + take_openssl_errors("cannot read"));
  if (!dir.empty()) {
    // OpenSSL reads a directory's files lazily, at verification, and takes a missing one
    // without a word: check here that it is a directory we can read.
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec) || access(dir.c_str(), R_OK | X_OK) != 0)
      return Error(Errc::TlsError,
                   std::string(what) + " directory " + dir + ": not a readable directory");
    if (SSL_CTX_load_verify_locations(ctx, nullptr, dir.c_str()) != 1)
      return Error(Errc::TlsError, std::string(what) + " directory " + dir + ": " +
                                       take_openssl_errors("cannot use"));
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<TlsContext>> TlsContext::server(const TlsServerSettings& s) {
  ERR_clear_error();
  SSL_CTX* ctx = new_context(TLS_server_method());
  if (!ctx) return Error(Errc::TlsError, take_openssl_errors("cannot create a TLS context"));
  std::unique_ptr<TlsContext> out(new TlsContext(ctx, false));
  Status protocol = apply_protocol(ctx, s.protocol);
  if (!protocol) return protocol.error();
  if (SSL_CTX_use_certificate_chain_file(ctx, s.cert_file.c_str()) != 1)
    return Error(Errc::TlsError,
                 "TLS certificate " + s.cert_file + ": " + take_openssl_errors("cannot read"));
  if (SSL_CTX_use_PrivateKey_file(ctx, s.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    return Error(Errc::TlsError,
                 "TLS key " + s.key_file + ": " + take_openssl_errors("cannot read"));
  if (SSL_CTX_check_private_key(ctx) != 1)
    return Error(Errc::TlsError, "TLS key " + s.key_file + " does not match " + s.cert_file);
  if (!s.client_ca_file.empty() || !s.client_ca_dir.empty()) {
    Status loaded = load_verify(ctx, s.client_ca_file, s.client_ca_dir, "TLS client CA");
    if (!loaded) return loaded.error();
    // The CAs' names go in the certificate request, so a client with several certificates
    // knows which to show.
    STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
    if (names && !s.client_ca_file.empty())
      SSL_add_file_cert_subjects_to_stack(names, s.client_ca_file.c_str());
    if (names && !s.client_ca_dir.empty())
      SSL_add_dir_cert_subjects_to_stack(names, s.client_ca_dir.c_str());
    ERR_clear_error();  // a file of the directory that is no certificate: not named, no more
    if (names) SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(
        ctx, SSL_VERIFY_PEER | (s.client_cert_optional ? 0 : SSL_VERIFY_FAIL_IF_NO_PEER_CERT),
        nullptr);
  }
  return out;
}

Result<std::unique_ptr<TlsContext>> TlsContext::client(const TlsClientSettings& s) {
  ERR_clear_error();
  SSL_CTX* ctx = new_context(TLS_client_method());
  if (!ctx) return Error(Errc::TlsError, take_openssl_errors("cannot create a TLS context"));
  std::unique_ptr<TlsContext> out(new TlsContext(ctx, s.verify));
  Status protocol = apply_protocol(ctx, s.protocol);
  if (!protocol) return protocol.error();
  if (s.verify) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (s.ca_file.empty() && s.ca_dir.empty()) {
      if (SSL_CTX_set_default_verify_paths(ctx) != 1)
        return Error(Errc::TlsError, "TLS CA file (system): " + take_openssl_errors("cannot read"));
    } else {
      Status loaded = load_verify(ctx, s.ca_file, s.ca_dir, "TLS CA");
      if (!loaded) return loaded.error();
    }
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  const std::string& cert_file = s.cert_file;
  const std::string& key_file = s.key_file;
  if (!cert_file.empty() || !key_file.empty()) {
    if (cert_file.empty() || key_file.empty())
      return Error(Errc::TlsError, "a client certificate needs both its file and its key file");
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1)
      return Error(Errc::TlsError, "TLS client certificate " + cert_file + ": " +
                                       take_openssl_errors("cannot read"));
    // The password is read once here, from a copy the context keeps no longer than this.
    std::string password(s.key_password);
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
