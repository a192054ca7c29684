// Internal: xmlrpc-c's packet stream ("pstream"), XML-RPC without HTTP over one long-lived
// stream connection. ESC is the byte 0x1B; a control word is ESC and three ASCII capitals:
// `ESC PKT` starts a packet, `ESC END` ends it, `ESC ESC` inside a packet stands for one 0x1B
// payload byte, `ESC NOP` means nothing (a liveness probe, allowed anywhere). One packet
// carries one whole <methodCall> or <methodResponse>; there is no length prefix. See
// docs/pstream.md.
//
// I/O-free, both directions: the encoder appends packets to a Buffer; the Decoder turns any
// split of the byte stream into whole payloads. The server and the client put it on sockets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"

namespace callwire::pstream {

inline constexpr char kEsc = '\x1b';
inline constexpr std::string_view kPacketStart =
    "\x1b"
    "PKT";  ///< ESC PKT
inline constexpr std::string_view kPacketEnd =
    "\x1b"
    "END";  ///< ESC END
inline constexpr std::string_view kEscapedEsc =
    "\x1b"
    "ESC";  ///< ESC ESC: one 0x1B of payload
inline constexpr std::string_view kNop =
    "\x1b"
    "NOP";  ///< ESC NOP: nothing

/// Appends one packet: ESC PKT, `payload` with every 0x1B written as ESC ESC, ESC END.
/// `payload` is borrowed for the call and must not lie inside `out`. Any payload can be
/// framed (no limit is checked here; the reader's Decoder has one). Thread-safety: none on
/// `out`. Throws std::bad_alloc when `out` cannot grow.
void append_packet(Buffer& out, std::string_view payload);

/// Appends one ESC NOP word (a liveness probe; the peer's decoder ignores it anywhere).
/// Thread-safety: none on `out`. Throws std::bad_alloc when `out` cannot grow.
void append_nop(Buffer& out);

/// Where a packet being written in place began: see begin_packet.
struct PacketMark {
  size_t payload_offset = 0;  ///< where the payload starts in the Buffer
};

/// Appends ESC PKT and returns the mark of the payload that follows it: write the payload
/// straight into `out` (a writer appends it), then call end_packet(out, mark). Nothing else may
/// truncate `out` below the mark in between. Throws std::bad_alloc when `out` cannot grow.
PacketMark begin_packet(Buffer& out);

/// Ends the packet begun at `mark`: escapes in place the bytes written since it (the buffer
/// grows by 3 bytes per 0x1B in them, and only then) and appends ESC END. A mark past
/// `out.size()` or before ESC PKT is a caller's error (checked only by assert). Throws
/// std::bad_alloc when `out` cannot grow; `out` is then unchanged.
void end_packet(Buffer& out, PacketMark mark);

/// What one Decoder::decode call did.
struct Decoded {
  /// Bytes at the front of the input that are done with: drop them before the next call (and
  /// only after using `payload`, which may point into them).
  size_t consumed = 0;
  /// Whether a whole packet was decoded; then `payload` is its payload (perhaps empty).
  bool packet = false;
  /// The payload, unescaped. Lives until the next decode, finish or reset call on the
  /// decoder, and no longer than the input's bytes stay where they are: when the packet has no
  /// escape and no NOP inside (the usual case) it points into the input, however the packet
  /// arrived; else into the decoder's own storage.
  std::string_view payload;
};

/// The reading side of a packet stream: one per connection and direction. Incremental and
/// I/O-free. Each call is given the bytes not yet consumed, from the first of them, followed
/// by whatever has arrived since; the same bytes may have moved in memory. It decodes up to
/// one packet per call, so a connection that read several pipelined packets calls it until
/// no packet comes:
///
///     for (;;) {
///       Result<Decoded> r = decoder.decode(in.view().substr(done));
///       if (!r) return close_with(r.error());
///       if (r->packet) handle(r->payload);  // before `in` changes: it may point into it
///       done += r->consumed;
///       if (!r->packet) break;              // every whole packet is out; read more
///     }
///     // drop in[0, done); at the end of the stream: decoder.finish(in.view().substr(done))
///
/// The unconsumed bytes it leaves are at most a partial control word outside a packet, or a
/// packet's payload so far (at most max_packet_bytes, when it has no escape) plus a partial
/// word: the decoder re-examines none of them, whatever the split.
///
/// Errors are sticky: once decode or finish has failed, every later call returns the same
/// Error until reset(). Messages start "pstream:" and name the stream offset of the fault.
/// Ownership: owns its storage; holds no pointer into any input between calls. Thread-safety:
/// none (one connection's thread at a time); distinct decoders are independent.
class Decoder {
 public:
  /// `max_packet_bytes`: the most payload bytes (unescaped) one packet may have.
  explicit Decoder(size_t max_packet_bytes) noexcept : max_(max_packet_bytes) {}

  /// Decodes from `input` (see the class comment for what it must hold) up to the end of the
  /// next whole packet. Returns how much it consumed and the packet, if one was complete;
  /// without one, it has examined every byte it was given (all but a partial control word,
  /// and an unfinished packet's payload when it has no escape, are consumed). Errors: BadResponse
  /// for a byte other than ESC outside a packet, ESC END or ESC ESC outside a packet, ESC PKT
  /// inside one, or ESC followed by anything but PKT, END, ESC, NOP (as soon as the bytes seen
  /// cannot begin one); LimitExceeded as soon as a packet's payload passes max_packet_bytes, before
  /// the rest of it arrives; InvalidArgument when `input` is shorter than what the last call left
  /// unconsumed (a caller's mistake). Throws std::bad_alloc when its storage cannot grow.
  Result<Decoded> decode(std::string_view input);

  /// The stream has ended; `rest` is what decode left unconsumed (empty when it took it all).
  /// Ok when the stream ended between packets. Errors: ConnectionClosed when it ended inside
  /// a packet or inside a control word (as the client reports a truncated HTTP answer);
  /// InvalidArgument when `rest` still holds a whole packet (call decode until none comes);
  /// any error decode reports on `rest`; the sticky error of an earlier call.
  Status finish(std::string_view rest);

  /// Back to the start of a stream, the error forgotten; keeps its storage.
  void reset() noexcept;

  /// Whether the bytes consumed so far end inside a packet.
  bool in_packet() const noexcept { return state_ == State::View || state_ == State::Copy; }
  /// Whether the packet being decoded is copied into the decoder's own storage (it held an
  /// escape or a NOP): every further payload byte consumed then grows that storage.
  bool copying() const noexcept { return state_ == State::Copy; }
  /// The decoder's storage (a budget counts its capacity: see copying()). Lives as long as
  /// the decoder; release_storage() empties it.
  const Buffer& storage() const noexcept { return copy_; }
  /// Gives the storage back, between packets only (a no-op inside one, which still needs it).
  void release_storage() noexcept {
    if (state_ != State::Copy) copy_ = Buffer();
  }
  /// Whether decode or finish has failed (and will fail again until reset).
  bool failed() const noexcept { return state_ == State::Failed; }
  size_t max_packet_bytes() const noexcept { return max_; }

 private:
  // Outside: between packets. View: in a packet with no escape or NOP yet; its payload stays
  // in the caller's input (from offset 0, `scanned_` bytes of it examined). Copy: in a packet
  // whose payload so far is in `copy_`, consumed from the input as it comes.
  enum class State { Outside, View, Copy, Failed };

  Error fail(Errc code, std::string message);

  size_t max_;
  State state_ = State::Outside;
  size_t scanned_ = 0;          // View: payload bytes at the input's front already examined
  uint64_t offset_ = 0;         // stream offset of the input's first byte
  uint64_t packet_offset_ = 0;  // stream offset of the current packet's ESC PKT
  Buffer copy_;
  Error error_;
};

}  // namespace callwire::pstream
