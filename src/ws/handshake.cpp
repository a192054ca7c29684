#include "ws/handshake.hpp"

#include <openssl/evp.h>

#include <algorithm>

#include "base/ascii.hpp"
#include "base/base64.hpp"

namespace callwire::ws {

namespace {

constexpr std::string_view kAcceptGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr size_t kKeyBytes = 16;
constexpr size_t kKeyChars = base64::encoded_size(kKeyBytes);  // 24

std::string base64_of(const unsigned char* bytes, size_t n) {
  std::string text(base64::encoded_size(n), '\0');
  base64::encode(bytes, n, text.data());
  return text;
}

// Calls `f` with each element of a comma-separated list, trimmed, skipping empty ones; stops
// when `f` returns true, and returns whether it did.
template <typename F>
bool any_element(std::string_view list, F f) {
  for (;;) {
    const size_t comma = list.find(',');
    const std::string_view element = base::trim_ows(list.substr(0, comma));
    if (!element.empty() && f(element)) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace

std::string accept_key(std::string_view client_key) {
  std::string input;
  input.reserve(client_key.size() + kAcceptGuid.size());
  input.append(client_key).append(kAcceptGuid);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  // SHA-1 cannot fail on memory we hand it; a failure would mean OpenSSL has no SHA-1 at all
  // (a FIPS provider without it), which leaves an empty digest and a key no client accepts.
  if (EVP_Digest(input.data(), input.size(), digest, &size, EVP_sha1(), nullptr) != 1) size = 0;
  return base64_of(digest, size);
}

bool is_valid_client_key(std::string_view key) noexcept {
  if (key.size() != kKeyChars) return false;
  unsigned char bytes[base64::max_decoded_size(kKeyChars)];
  size_t error_at = 0;
  if (base64::decode(key, bytes, error_at) != long(kKeyBytes)) return false;
  // decode skips white space and ignores stray low bits; the canonical form has neither.
  char again[kKeyChars];
  base64::encode(bytes, kKeyBytes, again);
  return key == std::string_view(again, kKeyChars);
}

std::string make_client_key(std::span<const uint8_t, 16> nonce) {
  return base64_of(nonce.data(), nonce.size());
}

std::optional<std::string_view> choose_subprotocol(std::string_view offered,
                                                   std::span<const std::string_view> supported) {
  for (std::string_view mine : supported)
    if (any_element(offered, [&](std::string_view name) { return name == mine; })) return mine;
  return std::nullopt;
}

bool header_has_token(std::string_view value, std::string_view token) noexcept {
  return any_element(value, [&](std::string_view e) { return base::iequals(e, token); });
}

}  // namespace callwire::ws
