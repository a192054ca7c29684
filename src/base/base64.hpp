// Internal: base64 (RFC 4648 alphabet, padded) for bytes values and Basic authentication.
// A leaf utility (src/base depends on nothing else of ours). Stateless: thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace callwire::base64 {

/// The vector code in use, widest last.
enum class Simd { Scalar, Avx2, Avx512Vbmi };
/// What encode and decode use on this machine (the widest it runs, within the test cap).
Simd simd_level() noexcept;
/// Tests: use nothing wider than `cap`, to check each path on one machine; returns the cap it
/// replaces. Not for use while another thread encodes or decodes.
Simd cap_simd_for_testing(Simd cap) noexcept;

/// Characters needed to encode `n` bytes.
constexpr size_t encoded_size(size_t n) { return (n + 2) / 3 * 4; }
/// An upper bound of the bytes `n` characters decode to.
constexpr size_t max_decoded_size(size_t n) { return n / 4 * 3 + 3; }

/// Writes encoded_size(n) characters to `out`, on one line, with padding.
void encode(const unsigned char* in, size_t n, char* out) noexcept;

/// Decodes `text` into `out` (room for max_decoded_size(text.size())). Whitespace (space, tab,
/// CR, LF) anywhere is ignored, as Python's line breaks every 76 characters need; missing final
/// padding is tolerated. Returns the number of bytes, or -1 with `error_at` set to the offset of
/// the offending character (text.size() when the text ends mid-quantum).
long decode(std::string_view text, unsigned char* out, size_t& error_at) noexcept;

/// decode without keeping the bytes, for text nobody reads (a value a typed read skips): the
/// same result and error_at, decoded a few KB at a time into a small buffer and dropped.
long check(std::string_view text, size_t& error_at) noexcept;

}  // namespace callwire::base64
