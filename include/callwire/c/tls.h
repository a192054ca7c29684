/* callwire: the C API's TLS settings, which servers and clients share.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_TLS_H
#define CALLWIRE_C_TLS_H

/** @file callwire/c/tls.h
 *  cw_tls_options: one side's TLS, the same struct for a server (cw_server_options.tls) and
 *  a client (cw_client_options.tls). What only one side sets stays in that side's options
 *  (cw_server_options.client_cert_optional, cw_client_options.insecure_skip_verify). */

#include <stddef.h>

#include "callwire/c/common.h"
#include "callwire/c/framing.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One side's TLS: its own certificate, the CAs that verify its peer, and what it may
 *  negotiate. An options struct of its own (see "Options structs" in callwire/c/common.h):
 *  it begins with struct_size, zero in any other field means the default, and it grows
 *  without moving the server's or client's fields, which hold only a pointer to it. Borrowed
 *  for the call given the options that point to it (cw_server_new, cw_client_new,
 *  cw_client_new_group), which copies it. The files are read by cw_server_start (and
 *  cw_server_reload_tls) and when a client is made; errors from those name the field as
 *  "tls.<field>". */
typedef struct cw_tls_options {
  size_t struct_size;
  /** This side's certificate (PEM, with its chain) and private key; both or neither (else
   *  CW_INVALID_ARGUMENT). A server with them speaks TLS (1.2 or later) on its TCP
   *  listeners; a client shows them to servers that ask for a certificate (mutual TLS).
   *  CW_TLS_ERROR when they cannot be read or do not match. */
  const char* cert_file;
  const char* key_file;
  /** Decrypts an encrypted key_file; NULL: the key is not encrypted. A wrong one:
   *  CW_TLS_ERROR. */
  const char* key_password;
  /** The CAs that verify the peer's certificate: a PEM file of them, and a directory of PEM
   *  files named by subject hash (as `openssl rehash` makes it); either or both. A client
   *  checks the server's chain against them (both NULL: the system's store). A server that
   *  has them asks every TLS client for a certificate verified against them (mutual TLS;
   *  cw_call_tls_subject names it), and refuses one without unless
   *  cw_server_options.client_cert_optional. CW_TLS_ERROR when the file cannot be read or the
   *  directory is no readable directory. */
  const char* ca_file;
  const char* ca_dir;
  /** The oldest TLS version offered or accepted; default (0) TLS 1.2. Another value:
   *  CW_INVALID_ARGUMENT. */
  cw_tls_version min_version;
  /** OpenSSL cipher list for TLS 1.2 ("ECDHE+AESGCM"); NULL: OpenSSL's default. An entry that
   *  selects nothing: CW_INVALID_ARGUMENT. */
  const char* ciphers;
  /** TLS 1.3 suites ("TLS_AES_256_GCM_SHA384:..."); NULL: OpenSSL's default. As ciphers. */
  const char* ciphersuites;
} cw_tls_options;

/** Sets `options` to the defaults: zeroes it and sets struct_size. NULL: does nothing. */
CALLWIRE_API void cw_tls_options_init(cw_tls_options* options);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_TLS_H */
