#include "ws/frame_reader.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "ws/masking.hpp"

namespace callwire::ws {

namespace {

bool is_known_opcode(unsigned op) noexcept { return op <= 0x2 || (op >= 0x8 && op <= 0xA); }

std::string bytes_exceed(const char* what, uint64_t size, const char* limit_name, uint64_t limit) {
  return std::string(what) + " of " + std::to_string(size) + " bytes exceeds " + limit_name + " (" +
         std::to_string(limit) + " bytes)";
}

}  // namespace

Event FrameReader::fail(uint16_t code, std::string message) {
  error_ = std::move(message);
  error_view_ = error_;
  error_code_ = code;
  stage_ = Stage::Failed;
  return failed_event();
}

Event FrameReader::failed_event() const noexcept {
  Event e;
  e.kind = EventKind::Error;
  e.code = error_code_;
  e.error = error_view_;
  return e;
}

bool FrameReader::check_first_bytes(Event& event) {
  const unsigned b0 = header_[0], b1 = header_[1];
  const unsigned op = b0 & 0x0F;
  fin_ = (b0 & 0x80) != 0;
  masked_ = (b1 & 0x80) != 0;
  const unsigned len7 = b1 & 0x7F;
  if (b0 & 0x70) {
    event = fail(kCloseProtocolError, "reserved bits set without an extension");
    return false;
  }
  if (!is_known_opcode(op)) {
    event = fail(kCloseProtocolError, "unknown opcode " + std::to_string(op));
    return false;
  }
  opcode_ = Opcode(op);
  if (is_control(opcode_)) {
    if (!fin_) {
      event = fail(kCloseProtocolError, "control frame fragmented");
      return false;
    }
  } else if (opcode_ == Opcode::Continuation) {
    if (!in_message_) {
      event = fail(kCloseProtocolError, "continuation frame without a message to continue");
      return false;
    }
  } else if (in_message_) {
    event = fail(kCloseProtocolError, "new data frame in the middle of a fragmented message");
    return false;
  }
  if (role_ == Role::Server && !masked_) {
    event = fail(kCloseProtocolError, "unmasked frame from a client");
    return false;
  }
  if (role_ == Role::Client && masked_) {
    event = fail(kCloseProtocolError, "masked frame from a server");
    return false;
  }
  header_need_ = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + (masked_ ? 4 : 0);
  return true;
}

bool FrameReader::start_payload(Event& event) {
  const unsigned len7 = header_[1] & 0x7F;
  size_t at = 2;
  uint64_t size = len7;
  if (len7 == 126) {
    size = uint64_t(header_[2]) << 8 | header_[3];
    at = 4;
  } else if (len7 == 127) {
    size = 0;
    for (size_t i = 2; i < 10; ++i) size = size << 8 | header_[i];
    at = 10;
    if (size >> 63) {
      event = fail(kCloseProtocolError, "64-bit length with the high bit set");
      return false;
    }
  }
  if (masked_) std::memcpy(key_.data(), header_ + at, 4);
  if (is_control(opcode_)) {
    if (size > kMaxControlPayload) {
      event = fail(kCloseProtocolError,
                   "control frame of " + std::to_string(size) + " bytes (at most 125)");
      return false;
    }
    control_size_ = 0;
  } else {
    // The message limit first: it is the one users set, and names what was too big.
    const uint64_t so_far = opcode_ == Opcode::Continuation ? message_.size() : 0;
    if (size > limits_.max_message_size - std::min(so_far, limits_.max_message_size)) {
      event = fail(kCloseMessageTooBig,
                   so_far == 0
                       ? bytes_exceed("frame", size, "max_message_size", limits_.max_message_size)
                       : bytes_exceed("message", so_far + size, "max_message_size",
                                      limits_.max_message_size));
      return false;
    }
    if (size > limits_.max_frame_payload) {
      event = fail(kCloseMessageTooBig,
                   bytes_exceed("frame", size, "max_frame_payload", limits_.max_frame_payload));
      return false;
    }
    if (opcode_ != Opcode::Continuation) {  // a new message begins
      message_.clear();
      message_opcode_ = opcode_;
      utf8_.reset();
      in_message_ = true;
    }
  }
  payload_size_ = size;
  payload_done_ = 0;
  stage_ = Stage::Payload;
  return true;
}

bool FrameReader::finish_frame(Event& event) {
  stage_ = Stage::Header;
  header_size_ = 0;
  header_need_ = 2;
  const std::string_view control(control_, control_size_);
  switch (opcode_) {
    case Opcode::Ping:
      event.kind = EventKind::Ping;
      event.payload = control;
      return true;
    case Opcode::Pong:
      event.kind = EventKind::Pong;
      event.payload = control;
      return true;
    case Opcode::Close: {
      if (control.size() == 1) {
        event = fail(kCloseProtocolError, "close frame with a 1-byte payload (a code is 2)");
        return true;
      }
      uint16_t code = kCloseNoStatus;
      std::string_view reason;
      if (control.size() >= 2) {
        code = uint16_t(uint16_t(uint8_t(control[0])) << 8 | uint8_t(control[1]));
        if (!is_valid_close_code(code)) {
          event = fail(kCloseProtocolError, "invalid close code " + std::to_string(code));
          return true;
        }
        reason = control.substr(2);
        detail::Utf8Validator check;
        if (!check.feed(reinterpret_cast<const unsigned char*>(reason.data()), reason.size()) ||
            !check.complete()) {
          event = fail(kCloseInvalidPayload, "invalid UTF-8 in a close reason");
          return true;
        }
      }
      stage_ = Stage::Closed;
      event.kind = EventKind::Close;
      event.code = code;
      event.payload = reason;
      return true;
    }
    default:
      break;
  }
  if (!fin_) return false;  // more fragments to come
  in_message_ = false;
  if (message_opcode_ == Opcode::Text && !utf8_.complete()) {
    event = fail(kCloseInvalidPayload, "text message ends inside a UTF-8 sequence");
    return true;
  }
  delivered_ = true;
  event.kind = message_opcode_ == Opcode::Text ? EventKind::Text : EventKind::Binary;
  event.payload = message_.view();
  return true;
}

Event FrameReader::next(std::string_view input) noexcept {
  try {
    return read(input);
  } catch (const std::bad_alloc&) {
    // The message's storage, or an error's text, could not grow: the end of this connection,
    // not of the process. A literal, as there is no memory to spell out more.
    error_view_ = "out of memory";
    error_code_ = kCloseInternalError;
    stage_ = Stage::Failed;
    return failed_event();
  }
}

Event FrameReader::read(std::string_view input) {
  Event event;
  if (stage_ == Stage::Failed) return failed_event();
  if (stage_ == Stage::Closed) {
    event.consumed = input.size();
    return event;
  }
  if (delivered_) {
    message_.clear();
    delivered_ = false;
  }
  size_t used = 0;
  for (;;) {
    if (stage_ == Stage::Header) {
      // The header is small: gather it byte by byte until its size is known, then the rest.
      while (header_size_ < header_need_ && used < input.size()) {
        header_[header_size_++] = static_cast<unsigned char>(input[used++]);
        if (header_size_ == 2 && !check_first_bytes(event)) return event;
      }
      if (header_size_ < header_need_) break;
      if (!start_payload(event)) return event;
    }
    // Payload: straight from the input into the message or the control array, unmasked.
    const uint64_t left = payload_size_ - payload_done_;
    const size_t n = size_t(std::min<uint64_t>(left, input.size() - used));
    if (n > 0) {
      const char* src = input.data() + used;
      if (is_control(opcode_)) {
        char* dst = control_ + control_size_;
        if (masked_)
          detail::copy_masked(dst, src, n, key_, payload_done_);
        else
          std::memcpy(dst, src, n);
        control_size_ += n;
      } else {
        char* dst = message_.prepare(n);
        if (masked_)
          detail::copy_masked(dst, src, n, key_, payload_done_);
        else
          std::memcpy(dst, src, n);
        message_.commit(n);
        if (message_opcode_ == Opcode::Text &&
            !utf8_.feed(reinterpret_cast<const unsigned char*>(dst), n)) {
          event = fail(kCloseInvalidPayload, "invalid UTF-8 in a text message");
          return event;
        }
      }
      used += n;
      payload_done_ += n;
    }
    if (payload_done_ < payload_size_) break;
    if (finish_frame(event)) {
      if (event.kind != EventKind::Error) event.consumed = used;
      return event;
    }
  }
  event.consumed = used;
  return event;
}

Buffer FrameReader::take_message() noexcept {
  if (!delivered_) return Buffer();
  delivered_ = false;
  return std::move(message_);
}

void FrameReader::release_storage() noexcept {
  if (in_message_) return;
  message_ = Buffer();
  delivered_ = false;
}

}  // namespace callwire::ws
