#include "base/keyed_hash.hpp"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <string>

namespace callwire::detail {
namespace {

SipKey reference_key() {  // bytes 00..0f, as in the paper's appendix
  unsigned char bytes[16];
  for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(i);
  SipKey key;
  std::memcpy(&key.k0, bytes, 8);
  std::memcpy(&key.k1, bytes + 8, 8);
  return key;
}

std::string counting(size_t n) {  // bytes 00, 01, 02, ...
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i);
  return s;
}

TEST(KeyedHash, SipHash24MatchesThePublishedVectors) {
  const SipKey k = reference_key();
  EXPECT_EQ(siphash_2_4(k, counting(0)), 0x726fdb47dd0e0e31ull);
  EXPECT_EQ(siphash_2_4(k, counting(1)), 0x74f839c593dc67fdull);
  EXPECT_EQ(siphash_2_4(k, counting(2)), 0x0d6c8009d9a94f5aull);
  EXPECT_EQ(siphash_2_4(k, counting(3)), 0x85676696d7fb7e2dull);
  EXPECT_EQ(siphash_2_4(k, counting(4)), 0xcf2794e0277187b7ull);
  EXPECT_EQ(siphash_2_4(k, counting(8)), 0x93f5f5799a932462ull);
  EXPECT_EQ(siphash_2_4(k, counting(15)), 0xa129ca6149be45e5ull);
}

// OpenSSL's SipHash MAC, with its round counts set: an independent implementation of both
// variants, at every length around the 8-byte block edges.
uint64_t openssl_siphash(const SipKey& key, std::string_view data, unsigned c, unsigned d) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "SIPHASH", nullptr);
  EVP_MAC_CTX* ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
  unsigned char key_bytes[16];
  std::memcpy(key_bytes, &key.k0, 8);
  std::memcpy(key_bytes + 8, &key.k1, 8);
  size_t size = 8;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
                         OSSL_PARAM_construct_uint(OSSL_MAC_PARAM_C_ROUNDS, &c),
                         OSSL_PARAM_construct_uint(OSSL_MAC_PARAM_D_ROUNDS, &d),
                         OSSL_PARAM_construct_end()};
  unsigned char out[8] = {};
  size_t out_size = 0;
  bool ok = ctx && EVP_MAC_init(ctx, key_bytes, sizeof key_bytes, params) &&
            EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(data.data()), data.size()) &&
            EVP_MAC_final(ctx, out, &out_size, sizeof out);
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
  EXPECT_TRUE(ok && out_size == 8);
  uint64_t r = 0;
  for (int i = 7; i >= 0; --i) r = (r << 8) | out[i];  // little-endian
  return r;
}

TEST(KeyedHash, BothVariantsMatchOpenSsl) {
  SipKey key{0x0123456789abcdefull, 0xfedcba9876543210ull};
  std::string text;
  for (size_t n = 0; n <= 40; ++n) {
    SCOPED_TRACE(n);
    EXPECT_EQ(siphash_2_4(key, text), openssl_siphash(key, text, 2, 4));
    EXPECT_EQ(siphash_1_3(key, text), openssl_siphash(key, text, 1, 3));
    text += static_cast<char>('a' + n * 7 % 26);
  }
}

TEST(KeyedHash, TheProcessKeyIsRandomAndStable) {
  const SipKey& key = process_hash_key();
  EXPECT_FALSE(key.k0 == 0 && key.k1 == 0);
  EXPECT_EQ(&key, &process_hash_key());
  EXPECT_EQ(keyed_hash("faultCode"), keyed_hash("faultCode"));
  EXPECT_EQ(keyed_hash("faultCode"), siphash_1_3(key, "faultCode"));
  EXPECT_NE(keyed_hash("faultCode"), siphash_1_3(SipKey{}, "faultCode"));
}

}  // namespace
}  // namespace callwire::detail
