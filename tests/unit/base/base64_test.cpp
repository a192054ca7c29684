#include "base/base64.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

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
  EXPECT_EQ(decode("Zm9v-_"), "ERR@4");    // URL-safe alphabet is not base64
}

TEST(Base64, RandomRoundTrips) {
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
}

}  // namespace
}  // namespace callwire
