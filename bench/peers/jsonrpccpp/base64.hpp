// Base64 (RFC 4648, with padding) for the JSON-RPC peer: JSON has no bytes, so the photo
// travels as base64 text, as it does in XML-RPC. C++14 (see common/paper.hpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace peers {

inline std::string base64_encode(const std::vector<uint8_t>& bytes) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = uint32_t{bytes[i]} << 16 | uint32_t{bytes[i + 1]} << 8 | bytes[i + 2];
    out += kDigits[n >> 18];
    out += kDigits[(n >> 12) & 63];
    out += kDigits[(n >> 6) & 63];
    out += kDigits[n & 63];
  }
  if (i < bytes.size()) {
    bool two = i + 1 < bytes.size();
    uint32_t n = uint32_t{bytes[i]} << 16 | (two ? uint32_t{bytes[i + 1]} << 8 : 0);
    out += kDigits[n >> 18];
    out += kDigits[(n >> 12) & 63];
    out += two ? kDigits[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

inline std::vector<uint8_t> base64_decode(const std::string& text) {
  auto digit = [](char c) -> uint32_t {
    if (c >= 'A' && c <= 'Z') return static_cast<uint32_t>(c - 'A');
    if (c >= 'a' && c <= 'z') return static_cast<uint32_t>(c - 'a' + 26);
    if (c >= '0' && c <= '9') return static_cast<uint32_t>(c - '0' + 52);
    if (c == '+') return 62;
    if (c == '/') return 63;
    throw std::runtime_error("not base64");
  };
  if (text.size() % 4 != 0) throw std::runtime_error("base64 length not a multiple of 4");
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t n = digit(text[i]) << 18 | digit(text[i + 1]) << 12;
    out.push_back(static_cast<uint8_t>(n >> 16));
    if (text[i + 2] == '=') break;
    n |= digit(text[i + 2]) << 6;
    out.push_back(static_cast<uint8_t>(n >> 8));
    if (text[i + 3] == '=') break;
    n |= digit(text[i + 3]);
    out.push_back(static_cast<uint8_t>(n));
  }
  return out;
}

}  // namespace peers
