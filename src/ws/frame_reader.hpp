// Internal: the reading side of a WebSocket connection (RFC 6455 §5): bytes in any split, out
// come whole messages (fragments reassembled, unmasked, text checked as UTF-8) and control
// frames, or the error to close with. I/O-free; one reader per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "callwire/buffer.hpp"
#include "ws/frame.hpp"
#include "ws/utf8_validator.hpp"

namespace callwire::ws {

/// A reader's limits. Both are checked from a frame's header, before its payload arrives, so a
/// peer cannot make the reader hold more than max_message_size bytes of a message.
struct ReaderLimits {
  /// The most payload one data frame may announce.
  uint64_t max_frame_payload = uint64_t{16} << 20;
  /// The most a message may hold, its fragments together.
  uint64_t max_message_size = uint64_t{16} << 20;
};

/// What FrameReader::next found.
enum class EventKind {
  NeedMore,  ///< every byte given is consumed and no event is complete: read more
  Text,      ///< a whole text message (valid UTF-8)
  Binary,    ///< a whole binary message
  Ping,      ///< answer with a Pong carrying the same payload
  Pong,
  Close,  ///< the peer's Close: answer with a Close (its code echoed, or kCloseNormal)
  Error,  ///< the peer broke the protocol: send a Close with `code`, then close
};

struct Event {
  EventKind kind = EventKind::NeedMore;
  /// Bytes at the front of the input the call used; the reader keeps what it needs of them,
  /// so they may be dropped at once. With NeedMore it is the whole input; with Error, 0.
  size_t consumed = 0;
  /// Text, Binary: the message. Ping, Pong: the payload (at most 125 bytes). Close: the reason
  /// (UTF-8, at most 123 bytes). Points into the reader's storage, never into the input; lives
  /// until the next call of next, take_message or release_storage.
  std::string_view payload;
  /// Close: the peer's code, kCloseNoStatus (1005) when it sent none. Error: the code to send
  /// (kCloseProtocolError, kCloseInvalidPayload, kCloseMessageTooBig, or kCloseInternalError
  /// when memory ran out).
  uint16_t code = 0;
  /// Error: what the peer did wrong, e.g. "unmasked frame from a client" (lives as long as
  /// the reader).
  std::string_view error;
};

/// Reads one direction of a WebSocket connection. Each call is given the bytes that arrived
/// since the last one (or the unconsumed rest of them) and returns at most one event, so a
/// connection calls it until NeedMore:
///
///     for (std::string_view in = received;;) {
///       Event e = reader.next(in);
///       in.remove_prefix(e.consumed);
///       if (e.kind == EventKind::NeedMore) break;  // all of `received` used: drop it
///       handle(e);                                   // before next(): e.payload is the reader's
///       if (e.kind == EventKind::Close || e.kind == EventKind::Error) break;
///     }
///
/// The reader copies what it consumes (unmasking as it goes) into its own storage: a data
/// frame's payload straight into the message being reassembled, a control frame's into a small
/// array of its own, so a Ping between two fragments does not disturb the message. The
/// caller's input is never kept or written to.
///
/// Refused (Error, code 1002 unless said): a frame masked the wrong way for the role; reserved
/// bits set (no extension is negotiated); a reserved opcode; a fragmented control frame or one
/// over 125 bytes; a continuation with no message begun, or a new data frame inside one; a
/// 64-bit length with its top bit set; a close frame with a 1-byte payload or a code that may
/// not be sent; a frame or message over the limits (1009); a text message or a close reason
/// that is not UTF-8 (1007, as soon as the first byte that cannot be UTF-8 arrives).
/// A length written in more bytes than needed (126 with a 16-bit 5) is accepted: RFC 6455
/// asks senders for the minimal form, but the frame is no less clear without it, and refusing
/// would only cost interoperability.
///
/// After an Error the reader is stuck: every later call returns the same Error and consumes
/// nothing. After a Close it is done: every later call consumes and ignores its input (a peer
/// may send nothing after its Close) and returns NeedMore; closed() tells.
///
/// Never throws: memory running out while a message grows is an Error with
/// kCloseInternalError. Ownership: owns its storage. Thread-safety: none (one connection's
/// thread at a time); distinct readers are independent.
class FrameReader {
 public:
  explicit FrameReader(Role role, ReaderLimits limits = {}) noexcept
      : role_(role), limits_(limits) {}

  /// Reads from `input` up to the end of the next event; see the class comment.
  Event next(std::string_view input) noexcept;

  /// Right after a Text or Binary event: the message's storage, moved out (the event's payload
  /// is its view()), so a large message is handed on without a copy. The reader starts the next
  /// message in new storage. Empty at any other time.
  Buffer take_message() noexcept;

  /// Bytes of storage the reader holds (for a connection's memory budget): the message buffer's
  /// capacity.
  size_t storage_bytes() const noexcept { return message_.capacity(); }
  /// Gives the message storage back between messages (a no-op inside a fragmented one, which
  /// still needs it). Invalidates the payload of a message event.
  void release_storage() noexcept;

  /// Whether a Close has been read (the reader ignores anything after it).
  bool closed() const noexcept { return stage_ == Stage::Closed; }
  /// Whether next() has returned an Error (and will again).
  bool failed() const noexcept { return stage_ == Stage::Failed; }
  /// Whether a fragmented message is begun and not yet whole.
  bool in_message() const noexcept { return in_message_; }
  /// Whether part of a frame or message has been read and the rest has not (a peer's
  /// unfinished request, for the connection's request clock).
  bool holds_partial() const noexcept {
    return in_message_ || header_size_ > 0 || stage_ == Stage::Payload;
  }
  /// The storage messages are reassembled in (its capacity is storage_bytes()).
  const Buffer& message_storage() const noexcept { return message_; }
  Role role() const noexcept { return role_; }
  const ReaderLimits& limits() const noexcept { return limits_; }

 private:
  enum class Stage { Header, Payload, Closed, Failed };

  // next() without its guard: only std::bad_alloc escapes it.
  Event read(std::string_view input);
  Event fail(uint16_t code, std::string message);
  Event failed_event() const noexcept;
  // Checks the first two header bytes; false after fail().
  bool check_first_bytes(Event& event);
  // Checks the whole header and sets up the frame's payload; false after fail().
  bool start_payload(Event& event);
  // The frame's payload is all in: true with the event it makes, false for a fragment.
  bool finish_frame(Event& event);

  Role role_;
  ReaderLimits limits_;
  Stage stage_ = Stage::Header;

  // The frame being read.
  unsigned char header_[14]{};
  size_t header_size_ = 0;  // bytes of header_ received
  size_t header_need_ = 2;  // its full size, once the first two bytes tell
  bool fin_ = false;
  Opcode opcode_ = Opcode::Continuation;
  bool masked_ = false;
  MaskKey key_{};
  uint64_t payload_size_ = 0;
  uint64_t payload_done_ = 0;

  // The message being reassembled.
  bool in_message_ = false;  // a data frame without FIN came, its final fragment has not
  bool delivered_ = false;   // message_ holds the message the last event handed out
  Opcode message_opcode_ = Opcode::Text;
  Buffer message_;
  detail::Utf8Validator utf8_;

  char control_[kMaxControlPayload]{};
  size_t control_size_ = 0;

  std::string error_;
  std::string_view error_view_;  // error_, or a literal when memory ran out
  uint16_t error_code_ = 0;
};

}  // namespace callwire::ws
