#include "net/stream.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "net/address.hpp"
#include "net/portable_calls.hpp"
#include "net/system.hpp"
#include "net/tls.hpp"

namespace callwire::net {

namespace {

// OpenSSL's own socket BIO writes with write(2), which raises SIGPIPE on a closed peer. A
// library must not change the process's signal disposition, so TLS goes through this BIO,
// which sends without SIGPIPE (send_nosignal). It also keeps a blocking stream's deadline
// (Stream::set_blocking_deadline): OpenSSL reads a record to its end however slowly it comes.
struct SocketBio {
  using Clock = std::chrono::steady_clock;
  int fd;
  Clock::time_point deadline = Clock::time_point::max();
  // The first bytes the peer sent: "HTTP/" when it speaks plain HTTP, so that a failed
  // handshake can say so.
  char first[5] = {};
  uint8_t first_size = 0;
  bool past_deadline() const noexcept {
    return deadline != Clock::time_point::max() && Clock::now() >= deadline;
  }
};

int bio_write(BIO* bio, const char* data, size_t size, size_t* written) {
  const auto* socket = static_cast<const SocketBio*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  if (socket->past_deadline()) {
    BIO_set_retry_write(bio);
    return 0;
  }
  ssize_t n = send_nosignal(socket->fd, data, size, false);
  if (n >= 0) {
    *written = static_cast<size_t>(n);
    return 1;
  }
  if (sys::is_transient(sys::last_error())) BIO_set_retry_write(bio);
  return 0;
}

int bio_read(BIO* bio, char* data, size_t size, size_t* read) {
  auto* socket = static_cast<SocketBio*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  if (socket->past_deadline()) {
    BIO_set_retry_read(bio);
    return 0;
  }
  ssize_t n = sys::receive(socket->fd, data, size);
  if (n > 0 && socket->first_size < sizeof socket->first) [[unlikely]] {
    size_t take = std::min(sizeof socket->first - socket->first_size, static_cast<size_t>(n));
    std::memcpy(socket->first + socket->first_size, data, take);
    socket->first_size = static_cast<uint8_t>(socket->first_size + take);
  }
  if (n > 0) {
    *read = static_cast<size_t>(n);
    return 1;
  }
  if (n < 0 && sys::is_transient(sys::last_error())) BIO_set_retry_read(bio);
  return 0;
}

long bio_ctrl(BIO*, int command, long, void*) { return command == BIO_CTRL_FLUSH ? 1 : 0; }

int bio_destroy(BIO* bio) {
  delete static_cast<SocketBio*>(BIO_get_data(bio));
  BIO_set_data(bio, nullptr);
  return 1;
}

BIO_METHOD* socket_bio_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "callwire socket");
    BIO_meth_set_write_ex(m, bio_write);
    BIO_meth_set_read_ex(m, bio_read);
    BIO_meth_set_ctrl(m, bio_ctrl);
    BIO_meth_set_destroy(m, bio_destroy);
    return m;
  }();
  return method;
}

IoResult plain_result(ssize_t n, std::string& error, const char* what, IoStatus would_block) {
  if (n > 0) return {static_cast<size_t>(n), IoStatus::Ok};
  if (n == 0) return {0, IoStatus::Eof};
  const int err = sys::last_error();
  if (sys::is_transient(err)) return {0, would_block};
  error = errno_message(what, err);
  return {0, IoStatus::Error};
}

}  // namespace

Stream::Stream(Stream&& other) noexcept
    : fd_(std::move(other.fd_)),
      ssl_(std::exchange(other.ssl_, nullptr)),
      error_(std::move(other.error_)),
      peer_name_(std::move(other.peer_name_)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (ssl_) SSL_free(ssl_);
    fd_ = std::move(other.fd_);
    ssl_ = std::exchange(other.ssl_, nullptr);
    error_ = std::move(other.error_);
    peer_name_ = std::move(other.peer_name_);
  }
  return *this;
}

std::string Stream::verified_peer_subject() const {
  if (!ssl_ || SSL_get_verify_result(ssl_) != X509_V_OK) return {};
  X509* cert = SSL_get0_peer_certificate(ssl_);
  if (!cert) return {};
  BIO* bio = BIO_new(BIO_s_mem());
  if (!bio) return {};
  std::string out;
  if (X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253) >= 0) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    if (n > 0) out.assign(data, static_cast<size_t>(n));
  }
  BIO_free(bio);
  return out;
}

Stream::~Stream() {
  if (ssl_) SSL_free(ssl_);
}

bool Stream::start_tls(TlsContext& context, bool server, const std::string& host) {
  ERR_clear_error();
  ssl_ = SSL_new(context.get());
  BIO* bio = ssl_ ? BIO_new(socket_bio_method()) : nullptr;
  if (!bio) {
    error_ = take_openssl_errors("cannot create a TLS session");
    return false;
  }
  auto* socket = new (std::nothrow) SocketBio{fd_.get()};
  if (!socket) {
    BIO_free(bio);
    error_ = "cannot create a TLS session: out of memory";
    return false;
  }
  BIO_set_data(bio, socket);
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl_, bio, bio);
  if (server) {
    SSL_set_accept_state(ssl_);
  } else {
    SSL_set_connect_state(ssl_);
    if (!host.empty()) {
      // An IP literal is checked against the certificate's IP addresses and never sent as
      // SNI (RFC 6066 allows names only); a name is sent, and checked against its DNS names.
      unsigned char ip[16];
      bool literal =
          inet_pton(AF_INET, host.c_str(), ip) == 1 || inet_pton(AF_INET6, host.c_str(), ip) == 1;
      bool ok = literal || SSL_set_tlsext_host_name(ssl_, host.c_str()) == 1;
      if (ok && context.verifies()) {
        X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
        ok = literal ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) == 1
                     : SSL_set1_host(ssl_, host.c_str()) == 1;
        // "*.example.com" matches one label, never "a.b.example.com" or a partial "w*.example".
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      }
      if (!ok) {
        error_ = "TLS: cannot verify the name " + host + ": " +
                 take_openssl_errors("not a valid host name");
        return false;
      }
      peer_name_ = host;
    }
  }
  return true;
}

IoResult Stream::tls_result(int rc, size_t n, const char* what) noexcept {
  if (rc == 1) return {n, IoStatus::Ok};
  int err = SSL_get_error(ssl_, rc);
  switch (err) {
    case SSL_ERROR_WANT_READ:
      return {0, IoStatus::WantRead};
    case SSL_ERROR_WANT_WRITE:
      return {0, IoStatus::WantWrite};
    case SSL_ERROR_ZERO_RETURN:
      return {0, IoStatus::Eof};
    case SSL_ERROR_SYSCALL: {
      const int system_error = sys::last_error();
      if (system_error == 0) return {0, IoStatus::Eof};
      error_ = errno_message(what, system_error);
      ERR_clear_error();
      return {0, IoStatus::Error};
    }
    default: {
      long verify = SSL_get_verify_result(ssl_);
      error_ = std::string("TLS: ") + take_openssl_errors("protocol error");
      if (first_bytes() == "HTTP/")  // a plain HTTP server's answer to a ClientHello
        error_ += " (the server answered in plain HTTP: it does not speak TLS; use http://)";
      if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH)
        error_ += std::string(" (") + X509_verify_cert_error_string(verify) +
                  ": the certificate is not for " + peer_name_ + ")";
      else if (verify != X509_V_OK)
        error_ += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
      return {0, IoStatus::Error};
    }
  }
}

IoResult Stream::read(char* data, size_t size) noexcept {
  if (!ssl_)
    return plain_result(sys::receive(fd_.get(), data, size), error_, "recv", IoStatus::WantRead);
  size_t n = 0;
  sys::clear_error();
  int rc = SSL_read_ex(ssl_, data, size, &n);  // before tls_result reads n
  return tls_result(rc, n, "recv");
}

IoResult Stream::write(const char* data, size_t size) noexcept {
  if (!ssl_)
    return plain_result(send_nosignal(fd_.get(), data, size, false), error_, "send",
                        IoStatus::WantWrite);
  size_t n = 0;
  sys::clear_error();
  int rc = SSL_write_ex(ssl_, data, size, &n);  // before tls_result reads n
  return tls_result(rc, n, "send");
}

bool Stream::handshake_done() const noexcept { return ssl_ && SSL_is_init_finished(ssl_); }

bool Stream::has_buffered_input() const noexcept { return ssl_ && SSL_pending(ssl_) > 0; }

std::string_view Stream::first_bytes() const noexcept {
  if (!ssl_) return {};
  const auto* socket = static_cast<const SocketBio*>(BIO_get_data(SSL_get_rbio(ssl_)));
  return socket ? std::string_view(socket->first, socket->first_size) : std::string_view();
}

void Stream::set_blocking_deadline(
    std::optional<std::chrono::steady_clock::time_point> deadline) noexcept {
  if (!ssl_) return;
  if (auto* socket = static_cast<SocketBio*>(BIO_get_data(SSL_get_rbio(ssl_))))
    socket->deadline = deadline.value_or(SocketBio::Clock::time_point::max());
}

void Stream::shutdown() noexcept {
  if (ssl_ && SSL_is_init_finished(ssl_)) {
    SSL_shutdown(ssl_);
    ERR_clear_error();
  }
}

void Stream::close_sending() noexcept {
  shutdown();
  if (fd_.get() >= 0) ::shutdown(fd_.get(), sys::kShutdownWrite);
}

}  // namespace callwire::net
