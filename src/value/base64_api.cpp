// The public face of src/base/base64 (callwire/base64.hpp).
#include "base/base64.hpp"
#include "callwire/base64.hpp"

namespace callwire {

std::string base64_encode(std::span<const uint8_t> bytes) {
  std::string out(base64::encoded_size(bytes.size()), '\0');
  base64::encode(bytes.data(), bytes.size(), out.data());
  return out;
}

Result<std::vector<uint8_t>> base64_decode(std::string_view text) {
  std::vector<uint8_t> out(base64::max_decoded_size(text.size()));
  size_t error_at = 0;
  long n = base64::decode(text, out.data(), error_at);
  if (n < 0)
    return Error(
        Errc::InvalidArgument,
        error_at < text.size()
            ? "invalid base64: unexpected character at offset " + std::to_string(error_at)
            : std::string("invalid base64: the text ends in the middle of a group of four"));
  out.resize(size_t(n));
  return out;
}

}  // namespace callwire
