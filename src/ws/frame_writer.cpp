#include "ws/frame_writer.hpp"

#include <cstring>

#include "ws/masking.hpp"

namespace callwire::ws {

namespace {

// The header up to its masking key: the FIN bit and opcode, then the length, minimal.
char* put_header(char* p, Opcode opcode, uint64_t size, bool fin, bool masked) noexcept {
  *p++ = char((fin ? 0x80 : 0) | uint8_t(opcode));
  const char mask_bit = masked ? char(0x80) : 0;
  if (size <= 125) {
    *p++ = char(mask_bit | char(size));
  } else if (size <= 0xFFFF) {
    *p++ = char(mask_bit | 126);
    *p++ = char(size >> 8);
    *p++ = char(size);
  } else {
    *p++ = char(mask_bit | 127);
    for (int shift = 56; shift >= 0; shift -= 8) *p++ = char(size >> shift);
  }
  return p;
}

}  // namespace

size_t unmasked_header_size(uint64_t payload_size) noexcept {
  return payload_size <= 125 ? 2 : payload_size <= 0xFFFF ? 4 : 10;
}

void write_unmasked_header(char* dst, Opcode opcode, uint64_t payload_size) noexcept {
  put_header(dst, opcode, payload_size, true, false);
}

void append_masked_header(Buffer& out, Opcode opcode, uint64_t payload_size, const MaskKey& mask) {
  char* const start = out.prepare(kMaxFrameHeader);
  char* p = put_header(start, opcode, payload_size, true, true);
  std::memcpy(p, mask.data(), 4);
  out.commit(size_t(p + 4 - start));
}

void mask_in_place(char* payload, size_t size, const MaskKey& mask) noexcept {
  detail::copy_masked(payload, payload, size, mask, 0);
}

void append_frame(Buffer& out, Opcode opcode, std::string_view payload, bool fin,
                  const Masking& mask) {
  const uint64_t size = payload.size();
  char* p = out.prepare(kMaxFrameHeader + payload.size());
  char* const start = p;
  p = put_header(p, opcode, size, fin, mask.has_value());
  if (mask) {
    std::memcpy(p, mask->data(), 4);
    p += 4;
    detail::copy_masked(p, payload.data(), payload.size(), *mask, 0);
  } else if (!payload.empty()) {
    std::memcpy(p, payload.data(), payload.size());
  }
  p += payload.size();
  out.commit(size_t(p - start));
}

std::string_view truncate_utf8(std::string_view reason, size_t max) noexcept {
  if (reason.size() <= max) return reason;
  size_t cut = max;
  // reason[cut] is the first byte dropped; while it continues a sequence, that sequence's
  // start is dropped too.
  while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80) --cut;
  return reason.substr(0, cut);
}

void append_close(Buffer& out, uint16_t code, std::string_view reason, const Masking& mask) {
  if (code == kCloseNoStatus) {
    append_frame(out, Opcode::Close, {}, true, mask);
    return;
  }
  char payload[kMaxControlPayload];
  payload[0] = char(code >> 8);
  payload[1] = char(code);
  reason = truncate_utf8(reason, kMaxCloseReason);
  if (!reason.empty()) std::memcpy(payload + 2, reason.data(), reason.size());
  append_frame(out, Opcode::Close, std::string_view(payload, 2 + reason.size()), true, mask);
}

void append_ping(Buffer& out, std::string_view payload, const Masking& mask) {
  append_frame(out, Opcode::Ping, payload.substr(0, kMaxControlPayload), true, mask);
}

void append_pong(Buffer& out, std::string_view payload, const Masking& mask) {
  append_frame(out, Opcode::Pong, payload.substr(0, kMaxControlPayload), true, mask);
}

}  // namespace callwire::ws
