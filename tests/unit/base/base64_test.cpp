#include "base/base64.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "callwire/base64.hpp"

namespace callwire {
namespace {

std::string encode(std::string_view in) {
  std::string out(base64::encoded_size(in.size()), '\0');
  base64::encode(reinterpret_cast<const unsigned char*>(in.data()), in.size(), out.data());
  return out;
}

// The decoded text, or "ERR@offset".
std::string decode(std::string_view text) {
  std::string out(base64::max_decoded_size(text.size()), '\0');
  size_t error_at = 0;
  long n = base64::decode(text, reinterpret_cast<unsigned char*>(out.data()), error_at);
  if (n < 0) return "ERR@" + std::to_string(error_at);
  out.resize(size_t(n));
  return out;
}

// Runs `check` once with each vector path this machine has (AVX-512 VBMI, AVX2, none), so
// every path is tested wherever the widest one runs.
template <class Check>
void on_every_path(Check check) {
  const base64::Simd widest = base64::simd_level();
  for (base64::Simd cap : {base64::Simd::Avx512Vbmi, base64::Simd::Avx2, base64::Simd::Scalar}) {
    if (cap > widest) continue;
    SCOPED_TRACE(cap == base64::Simd::Scalar ? "scalar"
                 : cap == base64::Simd::Avx2 ? "avx2"
                                             : "avx512vbmi");
    base64::Simd before = base64::cap_simd_for_testing(cap);
    check();
    base64::cap_simd_for_testing(before);
  }
}

TEST(Base64, Rfc4648Vectors) {
  const char* plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char* coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(encode(plain[i]), coded[i]);
    EXPECT_EQ(decode(coded[i]), plain[i]);
  }
}

TEST(Base64, WhitespaceAnywhereIsIgnored) {
  // Python breaks lines every 76 characters.
  EXPECT_EQ(decode("Zm9v\nYmFy\n"), "foobar");
  EXPECT_EQ(decode(" Z m 9 v\r\n\tYmE = "), "fooba");
  EXPECT_EQ(decode("\n"), "");
}

TEST(Base64, MissingPaddingIsTolerated) {
  EXPECT_EQ(decode("Zg"), "f");
  EXPECT_EQ(decode("Zm8"), "fo");
  EXPECT_EQ(decode("Zg="), "f");
}

TEST(Base64, Errors) {
  EXPECT_EQ(decode("Z"), "ERR@1");         // one character cannot make a byte
  EXPECT_EQ(decode("Zm9v!"), "ERR@4");     // outside the alphabet
  EXPECT_EQ(decode("Zg==Zg=="), "ERR@4");  // data after padding
  EXPECT_EQ(decode("Z==="), "ERR@1");      // padding too early
  EXPECT_EQ(decode("=Zg="), "ERR@0");
  EXPECT_EQ(decode("Zm9v-_"), "ERR@4");  // URL-safe alphabet is not base64
}

TEST(Base64, RandomRoundTrips) {
  on_every_path([] {
    std::mt19937 rng(7);
    for (int round = 0; round < 300; ++round) {
      std::string data(rng() % 300, '\0');
      for (char& c : data) c = char(rng());
      std::string coded = encode(data);
      EXPECT_EQ(decode(coded), data);
      // Line breaks every 76 characters, as Python writes them.
      std::string wrapped;
      for (size_t i = 0; i < coded.size(); i += 76) wrapped += coded.substr(i, 76) + "\n";
      EXPECT_EQ(decode(wrapped), data);
    }
  });
}

// A plain, obviously correct encoder: the wide (AVX2) paths must agree with it byte for byte.
std::string reference_encode(std::string_view in) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t x = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) x |= uint32_t(uint8_t(in[i + 1])) << 8;
    if (i + 2 < in.size()) x |= uint8_t(in[i + 2]);
    out += alphabet[x >> 18];
    out += alphabet[(x >> 12) & 63];
    out += i + 1 < in.size() ? alphabet[(x >> 6) & 63] : '=';
    out += i + 2 < in.size() ? alphabet[x & 63] : '=';
  }
  return out;
}

TEST(Base64, EveryLengthAgreesWithAPlainEncoder) {
  on_every_path([] {
    std::mt19937 rng(11);
    for (size_t n = 0; n <= 400; ++n) {
      std::string data(n, '\0');
      for (char& c : data) c = char(rng());
      std::string coded = encode(data);
      ASSERT_EQ(coded, reference_encode(data)) << n;
      ASSERT_EQ(decode(coded), data) << n;
    }
    std::string big(1 << 20, '\0');  // a blob: the wide loops run for a long stretch
    for (char& c : big) c = char(rng());
    std::string coded = encode(big);
    EXPECT_EQ(coded, reference_encode(big));
    EXPECT_EQ(decode(coded), big);
    // Every sextet value at every position of a 32-character block.
    std::string all = reference_encode(std::string(
        "\x00\x10\x83\x10\x51\x87\x20\x92\x8b\x30\xd3\x8f\x41\x14\x93\x51\x55\x97\x61\x96"
        "\x9b\x71\xd7\x9f\x82\x18\xa3\x92\x59\xa7\xa2\x9a\xab\xb2\xdb\xaf\xc3\x1c\xb3\xd3"
        "\x5d\xb7\xe3\x9e\xbb\xf3\xdf\xbf",
        48));
    EXPECT_EQ(all, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
    for (size_t shift = 0; shift < 64; shift += 4) {
      std::string rotated = all.substr(shift) + all.substr(0, shift);
      EXPECT_EQ(encode(decode(rotated)), rotated) << shift;
    }
  });
}

TEST(Base64, EveryBadByteAtEveryPositionOfAWideBlock) {
  on_every_path([] {
    std::string good = reference_encode(std::string(144, 'q'));  // 192: 3 blocks of 64, 6 of 32
    for (int c = 0; c < 256; ++c) {
      unsigned char u = static_cast<unsigned char>(c);
      bool alphabet = std::isalnum(u) || u == '+' || u == '/';
      bool space = u == ' ' || u == '\t' || u == '\r' || u == '\n';
      if (alphabet || space || u == '=') continue;
      for (size_t at = 0; at < good.size(); at += 5) {
        std::string bad = good;
        bad[at] = char(u);
        ASSERT_EQ(decode(bad), "ERR@" + std::to_string(at)) << c << " at " << at;
      }
    }
    // Whitespace inside a wide block is skipped, wherever it falls.
    for (size_t at = 0; at <= good.size(); ++at) {
      std::string spaced = good;
      spaced.insert(at, "\r\n");
      ASSERT_EQ(decode(spaced), std::string(144, 'q')) << at;
    }
  });
}

// check() is decode without the bytes: the same length, or the same error at the same offset.
// Texts longer than its pieces (4096 characters), with white space where pieces end, padding
// and bad bytes at every kind of place, and long runs of white space.
TEST(Base64, CheckAgreesWithDecode) {
  on_every_path([] {
    std::mt19937 rng(29);
    auto expect_agreement = [](const std::string& text) {
      size_t error_at = 0;
      long n = base64::check(text, error_at);
      std::string decoded = decode(text);
      if (decoded.starts_with("ERR@"))
        ASSERT_EQ("ERR@" + std::to_string(error_at), decoded) << n << " of " << text.size();
      else
        ASSERT_EQ(n, long(decoded.size())) << text.size();
    };
    for (int round = 0; round < 60; ++round) {
      std::string data(rng() % 20000, '\0');
      for (char& c : data) c = char(rng());
      std::string coded = encode(data);
      expect_agreement(coded);
      std::string wrapped;  // Python's lines of 76, or a random width
      const size_t width = round % 2 ? 76 : 1 + rng() % 300;
      for (size_t i = 0; i < coded.size(); i += width) wrapped += coded.substr(i, width) + "\r\n";
      expect_agreement(wrapped);
      if (coded.empty()) continue;
      const char kinds[] = {'!', '=', '-', '\0', ' ', '\x80'};
      for (int k = 0; k < 4; ++k) {  // a bad byte, padding or white space anywhere
        std::string bad = k % 2 ? wrapped : coded;
        bad[rng() % bad.size()] = kinds[rng() % sizeof kinds];
        expect_agreement(bad);
      }
      expect_agreement(coded.substr(0, coded.size() - 1 - rng() % 3));  // ends mid-quantum
      expect_agreement(coded + std::string(5000 + rng() % 5000, '\n'));
      expect_agreement(std::string(rng() % 9000, ' ') + coded);
    }
    size_t error_at = 0;
    EXPECT_EQ(base64::check(encode(std::string(9000, 'x')), error_at), 9000);
    EXPECT_EQ(base64::check("Zm9v" + std::string(5000, '\n') + "Zm9v", error_at), 6);
    EXPECT_EQ(base64::check(encode(std::string(9000, 'x')) + "Zg", error_at), 9001);
    EXPECT_EQ(base64::check(std::string(12000, 'A') + "!", error_at), -1);
    EXPECT_EQ(error_at, 12000u);
  });
}

// The public API (callwire/base64.hpp) over the same code.
TEST(Base64, PublicEncodeAndDecode) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 1000; ++i) bytes.push_back(uint8_t(i * 7));
  std::string text = base64_encode(bytes);
  EXPECT_EQ(text.size(), 1336u);
  EXPECT_EQ(base64_decode(text).value(), bytes);
  EXPECT_EQ(base64_encode(std::vector<uint8_t>{'f', 'o', 'o', 'b'}), "Zm9vYg==");
  EXPECT_EQ(base64_decode("Zm9v\r\nYg").value(), (std::vector<uint8_t>{'f', 'o', 'o', 'b'}));
  EXPECT_TRUE(base64_decode("").value().empty());
  Result<std::vector<uint8_t>> bad = base64_decode("Zm9v!");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Errc::InvalidArgument);
  EXPECT_NE(bad.error().message.find("offset 4"), std::string::npos);
  EXPECT_NE(base64_decode("Zm9vY").error().message.find("group of four"), std::string::npos);
}

}  // namespace
}  // namespace callwire
