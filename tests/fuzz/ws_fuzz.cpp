// libFuzzer driver: the WebSocket FrameReader and frame writer (src/ws), as the server's and
// the client's connections will use them.
//
// Input: one byte of flags (bits 0-1 choose the limits: the defaults, a 16-byte frame and
// 40-byte message, 1 and 1, or a 3000-byte frame and 100-byte message), one byte whose low 3
// bits count the split bytes that follow (0: one byte at a time), those split bytes (chunk
// lengths, used in turn; 0 counts as 1), then the stream. For any input, in both roles: the
// reader never reads outside its input (each piece is an exactly sized copy); fed whole, in
// the chosen chunks and byte by byte, it gives the same events, errors' messages included; it
// gives the events a plain model of RFC 6455 gives for the whole stream (the same kinds,
// payloads and close codes; the model checks UTF-8 with base/utf8.hpp's decoder, not the
// reader's automaton); a NeedMore consumes its whole input and an Error none; nothing comes
// after a Close or an Error; the reader's storage stays within its message limit; and the
// events up to the first Error, written back by the writer in the peer's role (messages cut
// into fragments the split bytes choose, a Ping between the first two), read back the same.
// Any violation prints what differs and traps.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/utf8.hpp"
#include "ws/frame_reader.hpp"
#include "ws/frame_writer.hpp"

namespace {

using namespace callwire;
using namespace callwire::ws;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "\n*** ws_fuzz: %s\n", what);
  std::fflush(stderr);
  __builtin_trap();
}

struct Seen {
  EventKind kind;
  std::string payload;
  uint16_t code = 0;
  std::string error;
  bool operator==(const Seen&) const = default;
};

// Without the error's text, which the model does not spell.
std::vector<Seen> without_messages(std::vector<Seen> events) {
  for (Seen& s : events) s.error.clear();
  return events;
}

// --- The model: RFC 6455's rules, read from the whole stream in one pass. -----------------

// Whether a 1-3 byte `tail` can begin a UTF-8 sequence: some continuation makes it whole.
bool completable(std::string_view tail) {
  for (int second = 0x80; second <= 0xBF; ++second) {
    unsigned char buf[4] = {0x80, 0x80, 0x80, 0x80};
    std::memcpy(buf, tail.data(), tail.size());
    if (tail.size() == 1) buf[1] = static_cast<unsigned char>(second);
    uint32_t cp;
    if (base::decode_utf8(buf, buf + 4, cp) > tail.size()) return true;
    if (tail.size() > 1) break;  // only the second byte's range varies by lead
  }
  return false;
}

// Checks `text` from `checked` on; advances `checked` past the whole code points. False when
// what follows them cannot begin one.
bool utf8_prefix_ok(std::string_view text, size_t& checked) {
  size_t i = checked;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  while (i < text.size()) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    uint32_t cp;
    size_t n = base::decode_utf8(p + i, p + text.size(), cp);
    if (n == 0) {
      if (text.size() - i >= 4 || !completable(text.substr(i))) return false;
      break;
    }
    i += n;
  }
  checked = i;
  return true;
}

bool utf8_whole(std::string_view text) {
  size_t checked = 0;
  return utf8_prefix_ok(text, checked) && checked == text.size();
}

std::vector<Seen> model(std::string_view s, Role role, const ReaderLimits& limits) {
  std::vector<Seen> out;
  auto error = [&](uint16_t code) {
    out.push_back({EventKind::Error, "", code, ""});
    return out;
  };
  size_t pos = 0;
  bool in_message = false, text = false;
  std::string message;
  size_t checked = 0;
  for (;;) {
    if (s.size() - pos < 2) return out;
    const unsigned b0 = static_cast<unsigned char>(s[pos]);
    const unsigned b1 = static_cast<unsigned char>(s[pos + 1]);
    const bool fin = b0 & 0x80, masked = b1 & 0x80;
    const unsigned op = b0 & 0x0F, len7 = b1 & 0x7F;
    const bool control = op >= 8;
    if (b0 & 0x70) return error(1002);
    if (!(op <= 2 || (op >= 8 && op <= 10))) return error(1002);
    if (control && !fin) return error(1002);
    if (op == 0 && !in_message) return error(1002);
    if ((op == 1 || op == 2) && in_message) return error(1002);
    if (masked != (role == Role::Server)) return error(1002);
    const size_t length_bytes = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
    const size_t header = 2 + length_bytes + (masked ? 4 : 0);
    if (s.size() - pos < header) return out;
    uint64_t len = length_bytes ? 0 : len7;
    for (size_t i = 0; i < length_bytes; ++i)
      len = len << 8 | static_cast<unsigned char>(s[pos + 2 + i]);
    if (len >> 63) return error(1002);
    if (control && len > 125) return error(1002);
    if (!control) {
      const uint64_t so_far = op == 0 ? message.size() : 0;
      if (so_far + len > limits.max_message_size) return error(1009);
      if (len > limits.max_frame_payload) return error(1009);
      if (op != 0) {
        message.clear();
        checked = 0;
        text = op == 1;
        in_message = true;
      }
    }
    const size_t avail = size_t(std::min<uint64_t>(len, s.size() - pos - header));
    std::string payload(s.substr(pos + header, avail));
    if (masked)
      for (size_t i = 0; i < avail; ++i) payload[i] ^= s[pos + 2 + length_bytes + i % 4];
    if (!control) {
      message += payload;
      if (text && !utf8_prefix_ok(message, checked)) return error(1007);
    }
    if (avail < len) return out;
    pos += header + avail;
    if (op == 8) {
      if (len == 1) return error(1002);
      if (len == 0) {
        out.push_back({EventKind::Close, "", 1005});
        return out;
      }
      const unsigned code =
          static_cast<unsigned char>(payload[0]) << 8 | static_cast<unsigned char>(payload[1]);
      const bool valid = (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
                         (code >= 3000 && code <= 4999);
      if (!valid) return error(1002);
      if (!utf8_whole(payload.substr(2))) return error(1007);
      out.push_back({EventKind::Close, payload.substr(2), uint16_t(code)});
      return out;
    }
    if (control) {
      out.push_back({op == 9 ? EventKind::Ping : EventKind::Pong, payload});
      continue;
    }
    if (!fin) continue;
    in_message = false;
    if (text && checked != message.size()) return error(1007);
    out.push_back({text ? EventKind::Text : EventKind::Binary, message});
  }
}

// --- The reader, fed as a connection feeds it. ---------------------------------------------

void check_event(const Event& e, std::string_view in, const ReaderLimits& limits) {
  if (e.consumed > in.size()) fail("consumed more than the input");
  switch (e.kind) {
    case EventKind::NeedMore:
      if (e.consumed != in.size()) fail("NeedMore left input unconsumed");
      break;
    case EventKind::Error:
      if (e.consumed != 0) fail("an Error consumed input");
      if (e.code != kCloseProtocolError && e.code != kCloseInvalidPayload &&
          e.code != kCloseMessageTooBig)
        fail("an Error with an unexpected close code");
      if (e.error.empty()) fail("an Error without a message");
      break;
    case EventKind::Text:
      if (!utf8_whole(e.payload)) fail("a Text message that is not UTF-8");
      [[fallthrough]];
    case EventKind::Binary:
      if (e.payload.size() > limits.max_message_size) fail("a message over the limit");
      break;
    case EventKind::Ping:
    case EventKind::Pong:
      if (e.payload.size() > kMaxControlPayload) fail("a control payload over 125 bytes");
      break;
    case EventKind::Close:
      if (e.code != kCloseNoStatus && !is_valid_close_code(e.code)) fail("a bad close code");
      if (e.payload.size() > kMaxCloseReason) fail("a close reason over 123 bytes");
      if (!utf8_whole(e.payload)) fail("a close reason that is not UTF-8");
      break;
  }
  if (e.payload.data() >= in.data() && e.payload.data() < in.data() + in.size())
    fail("a payload pointing into the input");
}

// Fed in chunks of the lengths `chunks` gives in turn (empty: the whole stream at once; a
// single 1: byte by byte); events up to the first Close or Error.
std::vector<Seen> read(std::string_view stream, Role role, const ReaderLimits& limits,
                       std::string_view chunks, bool whole) {
  FrameReader reader(role, limits);
  std::vector<Seen> out;
  size_t from = 0, turn = 0;
  bool done = false;
  for (bool first = true; !done && (from < stream.size() || first); first = false) {
    size_t len = stream.size() - from;
    if (!whole) {
      size_t want = chunks.empty() ? 1 : static_cast<unsigned char>(chunks[turn++ % chunks.size()]);
      len = std::min(want == 0 ? 1 : want, len);
    }
    auto piece = std::make_unique<char[]>(len ? len : 1);
    if (len) std::memcpy(piece.get(), stream.data() + from, len);
    from += len;
    std::string_view in(piece.get(), len);
    for (;;) {
      Event e = reader.next(in);
      check_event(e, in, limits);
      if (reader.storage_bytes() > 2 * limits.max_message_size + (64 << 10))
        fail("storage beyond the message limit");
      in.remove_prefix(e.consumed);
      if (e.kind == EventKind::NeedMore) break;
      out.push_back({e.kind, std::string(e.payload), e.code, std::string(e.error)});
      if (e.kind == EventKind::Close || e.kind == EventKind::Error) {
        if (e.kind == EventKind::Close && !reader.closed()) fail("Close without closed()");
        if (e.kind == EventKind::Error && !reader.failed()) fail("Error without failed()");
        // Nothing more comes: input after a Close is swallowed, an Error repeats.
        Event after = reader.next(std::string_view("\x81\x00", 2));
        if (e.kind == EventKind::Close &&
            (after.kind != EventKind::NeedMore || after.consumed != 2))
          fail("an event after a Close");
        if (e.kind == EventKind::Error &&
            (after.kind != EventKind::Error || after.code != e.code || after.error != e.error))
          fail("an Error that did not stick");
        done = true;
        break;
      }
    }
  }
  return out;
}

// --- Round trip: the events written back by the peer, read again. ---------------------------

std::vector<Seen> round_trip(const std::vector<Seen>& events, Role role, const ReaderLimits& limits,
                             std::string_view chunks, std::vector<Seen>& expected) {
  Buffer out;
  uint8_t key_byte = 0x3c;
  auto mask = [&]() -> Masking {
    if (role == Role::Client) return std::nullopt;  // a server's frames are unmasked
    key_byte = uint8_t(key_byte * 29 + 7);
    return MaskKey{key_byte, uint8_t(key_byte ^ 0xff), uint8_t(key_byte + 1), 0x80};
  };
  size_t turn = 0;
  for (const Seen& s : events) {
    switch (s.kind) {
      case EventKind::Text:
      case EventKind::Binary: {
        const Opcode first = s.kind == EventKind::Text ? Opcode::Text : Opcode::Binary;
        std::string_view rest = s.payload;
        bool started = false;
        do {
          size_t want = chunks.empty() ? rest.size()
                                       : static_cast<unsigned char>(chunks[turn++ % chunks.size()]);
          want = std::min<uint64_t>(std::max<size_t>(want, 1), limits.max_frame_payload);
          const size_t n = std::min(want, rest.size());
          const bool fin = n == rest.size();
          append_frame(out, started ? Opcode::Continuation : first, rest.substr(0, n), fin, mask());
          if (!started && !fin) {
            append_ping(out, "between", mask());
            expected.push_back({EventKind::Ping, "between"});
          }
          started = true;
          rest.remove_prefix(n);
          if (fin) break;
        } while (true);
        expected.push_back(s);
        break;
      }
      case EventKind::Ping:
        append_ping(out, s.payload, mask());
        expected.push_back(s);
        break;
      case EventKind::Pong:
        append_pong(out, s.payload, mask());
        expected.push_back(s);
        break;
      case EventKind::Close:
        append_close(out, s.code, s.payload, mask());
        expected.push_back(s);
        break;
      default:
        break;
    }
  }
  return read(out.view(), role, limits, {}, true);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const ReaderLimits kLimits[] = {{}, {16, 40}, {1, 1}, {3000, 100}};
  const ReaderLimits limits = kLimits[data[0] & 3];
  const size_t splits = data[1] & 7;
  if (size < 2 + splits) return 0;
  std::string_view chunks(reinterpret_cast<const char*>(data) + 2, splits);
  std::string_view stream(reinterpret_cast<const char*>(data) + 2 + splits, size - 2 - splits);
  for (Role role : {Role::Server, Role::Client}) {
    const std::vector<Seen> whole = read(stream, role, limits, {}, true);
    if (without_messages(whole) != model(stream, role, limits))
      fail("the reader differs from the model");
    if (read(stream, role, limits, chunks, false) != whole)
      fail("chunked reading differs from whole");
    if (stream.size() <= 512 && read(stream, role, limits, {}, false) != whole)
      fail("byte-by-byte reading differs from whole");
    std::vector<Seen> expected;
    std::vector<Seen> again = round_trip(whole, role, limits, chunks, expected);
    if (again != expected) fail("written back, the events read differently");
  }
  return 0;
}
