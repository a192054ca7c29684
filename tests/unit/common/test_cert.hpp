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

/// What make_test_cert writes, beyond its common name.
struct CertSpec {
  std::string subject_alt_names = "DNS:localhost,IP:127.0.0.1";
  long valid_from = -3600;           ///< seconds from now
  long valid_to = 3600 * 24;         ///< seconds from now (negative: expired)
  bool ca = true;                    ///< CA:TRUE (a self-signed certificate is its own CA)
  const TestCert* issuer = nullptr;  ///< signs it; null: self-signed
  std::string key_password;          ///< non-empty: the key file is encrypted (AES-256) with it
};

/// Writes a fresh key and certificate (CN `common_name`; by default SAN DNS:localhost and
/// IP:127.0.0.1, valid for a day, its own CA) into `dir`.
inline TestCert make_test_cert(const std::filesystem::path& dir,
                               const std::string& common_name = "localhost",
                               const CertSpec& spec = {}) {
  TestCert out;
  out.cert_file = (dir / "cert.pem").string();
  out.key_file = (dir / "key.pem").string();
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* x = X509_new();
  X509* issuer = nullptr;
  EVP_PKEY* issuer_key = nullptr;
  if (spec.issuer) {
    if (std::FILE* f = std::fopen(spec.issuer->cert_file.c_str(), "r")) {
      issuer = PEM_read_X509(f, nullptr, nullptr, nullptr);
      std::fclose(f);
    }
    if (std::FILE* f = std::fopen(spec.issuer->key_file.c_str(), "r")) {
      issuer_key = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
      std::fclose(f);
    }
  }
  if (!key || !x || (spec.issuer && (!issuer || !issuer_key))) {
    X509_free(issuer);
    EVP_PKEY_free(issuer_key);
    X509_free(x);
    EVP_PKEY_free(key);
    return out;
  }
  X509_set_version(x, 2);
  static long serial = 1;
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
  X509_gmtime_adj(X509_getm_notBefore(x), spec.valid_from);
  X509_gmtime_adj(X509_getm_notAfter(x), spec.valid_to);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer : x, x, nullptr, nullptr, 0);
  if (!spec.subject_alt_names.empty()) {
    if (X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name,
                                                  spec.subject_alt_names.c_str())) {
      X509_add_ext(x, ext, -1);
      X509_EXTENSION_free(ext);
    }
  }
  if (X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_basic_constraints,
                                                spec.ca ? "critical,CA:TRUE" : "CA:FALSE")) {
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256());
  std::FILE* f = std::fopen(out.cert_file.c_str(), "w");
  std::FILE* k = std::fopen(out.key_file.c_str(), "w");
  if (f && k) {
    out.ok =
        PEM_write_X509(f, x) == 1 &&
        PEM_write_PrivateKey(k, key, spec.key_password.empty() ? nullptr : EVP_aes_256_cbc(),
                             reinterpret_cast<const unsigned char*>(spec.key_password.data()),
                             static_cast<int>(spec.key_password.size()), nullptr, nullptr) == 1;
  }
  if (f) std::fclose(f);
  if (k) std::fclose(k);
  X509_free(issuer);
  EVP_PKEY_free(issuer_key);
  X509_free(x);
  EVP_PKEY_free(key);
  return out;
}

/// Copies the certificate `cert_file` into `dir` as OpenSSL's hashed directories name it
/// ("<subject hash>.0"), which is what `openssl rehash` does. False when it cannot.
inline bool add_to_hashed_dir(const std::string& cert_file, const std::filesystem::path& dir) {
  std::FILE* f = std::fopen(cert_file.c_str(), "r");
  if (!f) return false;
  X509* x = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (!x) return false;
  char name[16];
  std::snprintf(name, sizeof name, "%08lx.0", X509_subject_name_hash(x));
  X509_free(x);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return std::filesystem::copy_file(cert_file, dir / name,
                                    std::filesystem::copy_options::overwrite_existing, ec);
}

}  // namespace callwire::testing
