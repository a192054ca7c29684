// Internal: WebSocket (RFC 6455) frames, the words both directions share: roles, opcodes,
// close codes and the limits the RFC fixes. The module src/ws/ is I/O-free: FrameReader turns
// any split of the received bytes into messages and control frames, the frame writer appends
// frames to a Buffer, and the handshake helpers compute the header values of the HTTP upgrade.
// The server's and the client's connections put it on sockets.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace callwire::ws {

/// Which end of the connection this is. A client masks every frame it sends and a server masks
/// none (RFC 6455 §5.1), so a reader refuses frames masked the wrong way for its role.
enum class Role { Server, Client };

/// The frame opcodes RFC 6455 §5.2 defines; 3-7 and 11-15 are reserved and refused.
enum class Opcode : uint8_t {
  Continuation = 0x0,
  Text = 0x1,
  Binary = 0x2,
  Close = 0x8,
  Ping = 0x9,
  Pong = 0xA,
};

/// Control frames (Close, Ping, Pong) are never fragmented and carry at most 125 bytes.
inline constexpr size_t kMaxControlPayload = 125;
/// The most a close reason can hold: a control frame's payload less the 2-byte code.
inline constexpr size_t kMaxCloseReason = kMaxControlPayload - 2;

/// A client's masking key: 4 bytes the caller draws from a strong random source for each frame
/// (RFC 6455 §5.3); the module has no random number generator.
using MaskKey = std::array<uint8_t, 4>;

// Close codes (RFC 6455 §7.4.1, and the IANA registry for 1012-1014).
inline constexpr uint16_t kCloseNormal = 1000;
inline constexpr uint16_t kCloseGoingAway = 1001;
inline constexpr uint16_t kCloseProtocolError = 1002;
inline constexpr uint16_t kCloseUnsupportedData = 1003;
/// Reported when a Close frame carries no code; never sent on the wire.
inline constexpr uint16_t kCloseNoStatus = 1005;
/// Reported when the connection ended without a Close frame; never sent on the wire.
inline constexpr uint16_t kCloseAbnormal = 1006;
/// A text message or close reason that is not UTF-8.
inline constexpr uint16_t kCloseInvalidPayload = 1007;
inline constexpr uint16_t kClosePolicyViolation = 1008;
inline constexpr uint16_t kCloseMessageTooBig = 1009;
inline constexpr uint16_t kCloseMandatoryExtension = 1010;
inline constexpr uint16_t kCloseInternalError = 1011;

/// Whether `code` may appear in a Close frame on the wire (RFC 6455 §7.4): 1000-1003,
/// 1007-1011, the registered 1012-1014, and 3000-4999 (libraries' and applications' own).
/// 1004, 1005, 1006 and 1015 are reserved for reports, and the rest are unassigned.
constexpr bool is_valid_close_code(uint16_t code) noexcept {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
         (code >= 3000 && code <= 4999);
}

/// Whether `opcode` is a control frame's (Close, Ping, Pong and the reserved 11-15).
constexpr bool is_control(Opcode opcode) noexcept { return (uint8_t(opcode) & 0x8) != 0; }

}  // namespace callwire::ws
