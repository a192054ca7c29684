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

Status apply_protocol(SSL_CTX* ctx, const TlsOptions& o) {
  const int version = static_cast<int>(o.min_version);
  if (version != 12 && version != 13)
    return Error(Errc::InvalidArgument,
                 "tls.min_version " + std::to_string(version) + ": TLS 1.2 or 1.3 only");
  SSL_CTX_set_min_proto_version(ctx, version == 13 ? TLS1_3_VERSION : TLS1_2_VERSION);
  if (!o.ciphers.empty()) {
    Status each = check_cipher_entries(o.ciphers, false, "tls.ciphers");
    if (!each) return each;
    if (SSL_CTX_set_cipher_list(ctx, o.ciphers.c_str()) != 1)
      return Error(Errc::InvalidArgument, "tls.ciphers \"" + o.ciphers +
                                              "\": " + take_openssl_errors("no cipher matches"));
  }
  if (!o.ciphersuites.empty()) {
    Status each = check_cipher_entries(o.ciphersuites, true, "tls.ciphersuites");
    if (!each) return each;
    if (SSL_CTX_set_ciphersuites(ctx, o.ciphersuites.c_str()) != 1)
      return Error(Errc::InvalidArgument, "tls.ciphersuites \"" + o.ciphersuites + "\": " +
                                              take_openssl_errors("no cipher suite matches"));
  }
  return {};
}

// This side's certificate chain and key, the key decrypted with key_password when given.
Status load_certificate(SSL_CTX* ctx, const TlsOptions& o) {
  if (o.cert_file.empty() || o.key_file.empty())
    return Error(Errc::InvalidArgument,
                 "tls.cert_file and tls.key_file: a certificate needs both its file and its key");
  if (SSL_CTX_use_certificate_chain_file(ctx, o.cert_file.c_str()) != 1)
    return Error(Errc::TlsError,
                 "tls.cert_file " + o.cert_file + ": " + take_openssl_errors("cannot read"));
  // The password is read once here, from a copy the context keeps no longer than this.
  std::string password(o.key_password);
  SSL_CTX_set_default_passwd_cb_userdata(ctx, password.data());
  SSL_CTX_set_default_passwd_cb(ctx, [](char* buf, int size, int, void* data) -> int {
    const char* p = static_cast<const char*>(data);
    int n = static_cast<int>(std::strlen(p));
    if (n > size) return -1;
    std::memcpy(buf, p, static_cast<size_t>(n));
    return n;
  });
  int loaded = SSL_CTX_use_PrivateKey_file(ctx, o.key_file.c_str(), SSL_FILETYPE_PEM);
  SSL_CTX_set_default_passwd_cb(ctx, nullptr);
  SSL_CTX_set_default_passwd_cb_userdata(ctx, nullptr);
  OPENSSL_cleanse(password.data(), password.size());
  if (loaded != 1)
    return Error(Errc::TlsError, "tls.key_file " + o.key_file + ": " +
                                     take_openssl_errors("cannot read (or a wrong password)"));
  if (SSL_CTX_check_private_key(ctx) != 1)
    return Error(Errc::TlsError,
                 "tls.key_file " + o.key_file + " does not match tls.cert_file " + o.cert_file);
  return {};
}

// Trusted CAs from a PEM file, a hashed directory, or both. `what` names them in errors.
Status load_verify(SSL_CTX* ctx, const std::string& file, const std::string& dir) {
  if (!file.empty() && SSL_CTX_load_verify_locations(ctx, file.c_str(), nullptr) != 1)
    return Error(Errc::TlsError, "tls.ca_file " + file + ": " + take_openssl_errors("cannot read"));
  if (!dir.empty()) {
    // OpenSSL reads a directory's files lazily, at verification, and takes a missing one
    // without a word: check here that it is a directory we can read.
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec) || access(dir.c_str(), R_OK | X_OK) != 0)
      return Error(Errc::TlsError, "tls.ca_dir " + dir + ": not a readable directory");
    if (SSL_CTX_load_verify_locations(ctx, nullptr, dir.c_str()) != 1)
      return Error(Errc::TlsError, "tls.ca_dir " + dir + ": " + take_openssl_errors("cannot use"));
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<TlsContext>> TlsContext::create(const TlsOptions& o, TlsSide side) {
  ERR_clear_error();
  SSL_CTX* ctx = new_context(side.server ? TLS_server_method() : TLS_client_method());
  if (!ctx) return Error(Errc::TlsError, take_openssl_errors("cannot create a TLS context"));
  const bool verify = !side.server && side.verify_peer;
  std::unique_ptr<TlsContext> out(new TlsContext(ctx, verify));
  Status protocol = apply_protocol(ctx, o);
  if (!protocol) return protocol.error();
  // A server always shows a certificate; a client only to servers that ask, when it has one.
  if (side.server || !o.cert_file.empty() || !o.key_file.empty()) {
    Status certificate = load_certificate(ctx, o);
    if (!certificate) return certificate.error();
  }
  const bool has_cas = !o.ca_file.empty() || !o.ca_dir.empty();
  if (side.server && has_cas) {
    Status loaded = load_verify(ctx, o.ca_file, o.ca_dir);
    if (!loaded) return loaded.error();
    // The CAs' names go in the certificate request, so a client with several certificates
    // knows which to show.
    STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
    if (names && !o.ca_file.empty()) SSL_add_file_cert_subjects_to_stack(names, o.ca_file.c_str());
    if (names && !o.ca_dir.empty()) SSL_add_dir_cert_subjects_to_stack(names, o.ca_dir.c_str());
    ERR_clear_error();  // a file of the directory that is no certificate: not named, no more
    if (names) SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(
        ctx, SSL_VERIFY_PEER | (side.client_cert_optional ? 0 : SSL_VERIFY_FAIL_IF_NO_PEER_CERT),
        nullptr);
  } else if (verify) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (!has_cas) {
      if (SSL_CTX_set_default_verify_paths(ctx) != 1)
        return Error(Errc::TlsError,
                     "TLS CAs (the system's store): " + take_openssl_errors("cannot read"));
    } else {
      Status loaded = load_verify(ctx, o.ca_file, o.ca_dir);
      if (!loaded) return loaded.error();
    }
  } else if (!side.server) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  return out;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

}  // namespace callwire::net
