// Internal: the writing side of a WebSocket connection (RFC 6455 §5): frames appended to a
// Buffer, the connection's output. A server's frames are unmasked; a client's are masked with
// a key the caller draws for each frame. Lengths are always written in their minimal form.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "callwire/buffer.hpp"
#include "ws/frame.hpp"

namespace callwire::ws {

/// The masking of a frame: none for a server's frames (std::nullopt), a fresh key of 4 random
/// bytes for each of a client's.
using Masking = std::optional<MaskKey>;

/// The most header bytes a frame has: 2, an 8-byte length, a 4-byte key.
inline constexpr size_t kMaxFrameHeader = 14;

/// Appends one frame: `opcode` (a data opcode, Continuation for the fragments after the first,
/// or a control one), `payload` (masked into `out` when `mask` is given) and FIN when `fin`
/// (false for every fragment but a message's last). Nothing is checked: a control frame's
/// payload must be at most 125 bytes and must not be fragmented, a Text payload should be
/// UTF-8 (append_close, append_ping and append_pong keep to the first rule themselves).
/// `payload` is borrowed for the call and must not lie inside `out`. Thread-safety: none on
/// `out`. Throws std::bad_alloc when `out` cannot grow.
void append_frame(Buffer& out, Opcode opcode, std::string_view payload, bool fin,
                  const Masking& mask);

/// A server's one-frame message written in place, its header in a gap before the payload (as
/// the server writes an HTTP head before a body it has already written): the header's size for
/// a payload of `payload_size` bytes (2, 4 or 10), and the header itself, with FIN and no
/// mask, written to dst[0, unmasked_header_size(payload_size)).
size_t unmasked_header_size(uint64_t payload_size) noexcept;
void write_unmasked_header(char* dst, Opcode opcode, uint64_t payload_size) noexcept;

/// A client's one-frame message written around a payload already in place (as the client
/// writes a request's head before its body): append_masked_header appends the header, FIN and
/// the mask bit set, the length `payload_size` and `mask`, its key last; mask_in_place then
/// masks the payload where it lies. Throws std::bad_alloc when `out` cannot grow.
void append_masked_header(Buffer& out, Opcode opcode, uint64_t payload_size, const MaskKey& mask);
void mask_in_place(char* payload, size_t size, const MaskKey& mask) noexcept;

/// Appends a Close frame with `code` and `reason`. kCloseNoStatus (1005) writes a Close with
/// no code and no reason (the RFC's way to close without a status); any other code is written
/// as given (is_valid_close_code says which a peer accepts). A reason longer than 123 bytes is
/// cut to fit, before a UTF-8 sequence it would split (so a UTF-8 reason stays UTF-8).
/// Throws std::bad_alloc when `out` cannot grow.
void append_close(Buffer& out, uint16_t code, std::string_view reason, const Masking& mask);

/// Appends a Ping carrying `payload`, of which at most the first 125 bytes are sent.
/// Throws std::bad_alloc when `out` cannot grow.
void append_ping(Buffer& out, std::string_view payload, const Masking& mask);

/// Appends a Pong carrying `payload` (a Ping's, echoed), of which at most the first 125 bytes
/// are sent. Throws std::bad_alloc when `out` cannot grow.
void append_pong(Buffer& out, std::string_view payload, const Masking& mask);

/// `reason` cut to at most `max` bytes at a UTF-8 boundary: a code point the cut would split
/// is dropped whole.
std::string_view truncate_utf8(std::string_view reason, size_t max) noexcept;

}  // namespace callwire::ws
