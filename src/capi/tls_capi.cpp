// The C API's TLS options (callwire/c/tls.h): one mapping for servers and clients.
#include <cstring>

#include "capi/capi_internal.hpp"

namespace callwire::capi {

namespace {

constexpr size_t kTlsOptionsV1 = offsetof(cw_tls_options, ciphersuites) + sizeof(const char*);

}  // namespace

cw_status to_tls_options(const cw_tls_options* o, TlsOptions& out, cw_error* error) {
  if (!o) return CW_OK;
  if (!options_size_ok(o, kTlsOptionsV1))
    return set_error(error, Errc::InvalidArgument, "cw_tls_options: bad struct_size");
  if (o->cert_file) out.cert_file = o->cert_file;
  if (o->key_file) out.key_file = o->key_file;
  if (o->key_password) out.key_password = o->key_password;
  if (o->ca_file) out.ca_file = o->ca_file;
  if (o->ca_dir) out.ca_dir = o->ca_dir;
  // Passed on as given: the server's start and the client's creation refuse a version other
  // than 1.2 or 1.3. Read as bits: loading a value outside the enum's range as the enum is
  // undefined.
  int v = enum_bits(o->min_version);  // 0 (never valid) for any other, even past 255
  if (v != CW_TLS_DEFAULT) out.min_version = static_cast<TlsVersion>(v == 12 || v == 13 ? v : 0);
  if (o->ciphers) out.ciphers = o->ciphers;
  if (o->ciphersuites) out.ciphersuites = o->ciphersuites;
  return CW_OK;
}

}  // namespace callwire::capi

extern "C" {

void cw_tls_options_init(cw_tls_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

}  // extern "C"
