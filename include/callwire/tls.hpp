// callwire: the TLS settings a server and a client share (ServerOptions::tls,
// ClientOptions::tls). What only one side sets stays in that side's options.
#pragma once

#include <string>

#include "callwire/framing.hpp"

namespace callwire {

/// One side's TLS: its own certificate, the CAs that verify its peer, and what it may
/// negotiate. The same struct on both sides: ServerOptions::tls and ClientOptions::tls.
/// Plain data, copied into the options; the files are read when the server starts (or
/// Server::reload_tls) and when the client is created. Errors name the field as
/// "tls.<field>": TlsError for a file that cannot be read (OpenSSL's reason with it), a wrong
/// key_password or a key that does not match; InvalidArgument for a min_version, ciphers or
/// ciphersuites that cannot be used.
struct TlsOptions {
  /// This side's certificate (PEM, with its chain) and private key; both or neither. A server
  /// with them speaks TLS (1.2 or later) on its TCP listeners (https://, wss://); without,
  /// it speaks no TLS and the rest is not read. A client shows them to servers that ask for
  /// a certificate (mutual TLS).
  std::string cert_file;
  std::string key_file;
  /// Decrypts an encrypted key_file; empty: the key is not encrypted. Read once, when the key
  /// is loaded; only a wiped copy is kept while it is.
  std::string key_password;
  /// The CAs that verify the peer's certificate: a PEM file of them, and a directory of PEM
  /// files named by their subject hashes as `openssl rehash` (c_rehash) makes it; either or
  /// both (both: either's CAs). The directory is checked to be readable when the settings are
  /// read (TlsError otherwise); its files are read when a certificate is verified, so CAs
  /// added later count without a restart.
  ///
  /// Client: the CAs the server's chain must lead to; both empty: the system's store.
  /// Server: set, every TLS client is asked for a certificate verified against them (mutual
  /// TLS), and one without is refused in the handshake unless
  /// ServerOptions::client_cert_optional; a handler reads the verified subject from
  /// CallContext::tls_subject(). A refused certificate (untrusted, expired) is reported to
  /// ServerOptions::error_log with OpenSSL's reason.
  std::string ca_file;
  std::string ca_dir;
  /// The oldest TLS version offered or accepted: 1.2 (the default) or 1.3 (InvalidArgument for
  /// another). A peer that offers only older ones fails the handshake ("unsupported protocol").
  TlsVersion min_version = TlsVersion::Tls1_2;
  /// OpenSSL cipher list for TLS 1.2 ("ECDHE+AESGCM:ECDHE+CHACHA20"; `openssl ciphers -v`
  /// shows what one selects); empty: OpenSSL's default.
  std::string ciphers;
  /// TLS 1.3 suites ("TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"); empty: OpenSSL's
  /// default. For both lists, an entry that selects nothing is refused (InvalidArgument naming
  /// it) rather than dropped in silence; a peer with no cipher in common fails the handshake
  /// ("no shared cipher").
  std::string ciphersuites;
};

}  // namespace callwire
