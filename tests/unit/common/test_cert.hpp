// A self-signed certificate for 127.0.0.1 and "localhost", written to PEM files for the TLS
// tests (made at run time: no key material in the tree).
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace callwire::testing {

struct TestCert {
  std::string cert_file;
  std::string key_file;
  bool ok = false;
};

/// Writes a fresh key and certificate (CN `common_name`, SAN `san`: by default DNS:localhost
/// and IP:127.0.0.1; its own CA) into `dir`.
inline TestCert make_test_cert(const std::filesystem::path& dir,
                               const std::string& common_name = "localhost",
                               const std::string& san = "DNS:localhost,IP:127.0.0.1") {
  TestCert out;
  out.cert_file = (dir / "cert.pem").string();
  out.key_file = (dir / "key.pem").string();
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* x = X509_new();
  if (!key || !x) return out;
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600 * 24);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(x, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  if (X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san.c_str())) {
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_EXTENSION* ext =
          X509V3_EXT_conf_nid(nullptr, &ctx, NID_basic_constraints, "critical,CA:TRUE")) {
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(x, key, EVP_sha256());
  std::FILE* f = std::fopen(out.cert_file.c_str(), "w");
  std::FILE* k = std::fopen(out.key_file.c_str(), "w");
  if (f && k) {
    out.ok = PEM_write_X509(f, x) == 1 &&
             PEM_write_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
  }
  if (f) std::fclose(f);
  if (k) std::fclose(k);
  X509_free(x);
  EVP_PKEY_free(key);
  return out;
}

}  // namespace callwire::testing
