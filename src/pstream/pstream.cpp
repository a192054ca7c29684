#include "pstream/pstream.hpp"

#include <cassert>
#include <cstring>
#include <string>

namespace callwire::pstream {

namespace {

constexpr size_t kWordSize = 4;

enum class Word { Pkt, End, Esc, Nop, Partial, Unknown };

// The control word at p[0] == ESC, of which n bytes have arrived. Partial: they may still
// become one. Unknown: `seen` is the count of bytes up to and including the first that no
// word has there, so the fault reads the same however the stream was split.
Word classify(const char* p, size_t n, size_t& seen) noexcept {
  static constexpr std::string_view kWords[] = {kPacketStart, kPacketEnd, kEscapedEsc, kNop};
  const size_t m = n < kWordSize ? n : kWordSize;
  size_t longest = 0;
  for (size_t w = 0; w < 4; ++w) {
    size_t k = 0;
    while (k < m && p[k] == kWords[w][k]) ++k;
    if (k == m) return m == kWordSize ? Word(w) : Word::Partial;
    if (k > longest) longest = k;
  }
  seen = longest + 1;
  return Word::Unknown;
}

// Bytes for a message: ESC, printable ASCII quoted, the rest in hex.
std::string describe(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    if (c == 0x1b) {
      out += "ESC";
    } else if (c >= 0x20 && c < 0x7f) {
      out += '\'';
      out += char(c);
      out += '\'';
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "0x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

void append_escaped(Buffer& out, const char* p, const char* end) {
  while (p != end) {
    const char* esc = static_cast<const char*>(std::memchr(p, kEsc, size_t(end - p)));
    if (!esc) {
      out.append(p, size_t(end - p));
      return;
    }
    out.append(p, size_t(esc - p));
    out.append(kEscapedEsc);
    p = esc + 1;
  }
}

}  // namespace

void append_packet(Buffer& out, std::string_view payload) {
  // Room for the common case (XML has no 0x1B at all) at once; each escape adds 3 bytes.
  out.reserve(out.size() + payload.size() + kPacketStart.size() + kPacketEnd.size());
  out.append(kPacketStart);
  append_escaped(out, payload.data(), payload.data() + payload.size());
  out.append(kPacketEnd);
}

void append_nop(Buffer& out) { out.append(kNop); }

PacketMark begin_packet(Buffer& out) {
  out.append(kPacketStart);
  return PacketMark{out.size()};
}

void end_packet(Buffer& out, PacketMark mark) {
  const size_t begin = mark.payload_offset, size = out.size();
  assert(begin >= kPacketStart.size() && begin <= size);
  size_t escapes = 0;
  for (const char *p = out.data() + begin, *end = out.data() + size;
       (p = static_cast<const char*>(std::memchr(p, kEsc, size_t(end - p)))); ++p)
    ++escapes;
  const size_t grow = 3 * escapes;
  out.prepare(grow + kPacketEnd.size());  // the only allocation; throws before any change
  // From the back, so that nothing is overwritten before it has moved: each run after an
  // ESC moves right by 3 bytes for every ESC before it.
  char* base = out.data();
  size_t src = size, dst = size + grow;
  for (size_t left = escapes; left; --left) {
    // The last ESC before src (memrchr is glibc's, not everyone's).
    const size_t at = begin + std::string_view(base + begin, src - begin).rfind(kEsc);
    const size_t run = src - at - 1;
    dst -= run;
    std::memmove(base + dst, base + at + 1, run);
    dst -= kEscapedEsc.size();
    std::memcpy(base + dst, kEscapedEsc.data(), kEscapedEsc.size());
    src = at;
  }
  out.commit(grow);
  out.append(kPacketEnd);
}

Error Decoder::fail(Errc code, std::string message) {
  state_ = State::Failed;
  error_ = Error(code, "pstream: " + std::move(message));
  return error_;
}

void Decoder::reset() noexcept {
  state_ = State::Outside;
  scanned_ = 0;
  offset_ = packet_offset_ = 0;
  copy_.clear();
  error_ = Error();
}

Result<Decoded> Decoder::decode(std::string_view input) {
  if (state_ == State::Failed) return error_;
  const char* p = input.data();
  const size_t n = input.size();
  size_t pos = 0;
  size_t view_start = 0;  // View: where the payload begins in `input`
  if (state_ == State::View) {
    if (scanned_ > n)
      return fail(Errc::InvalidArgument,
                  "decode() was given fewer bytes than it had left unconsumed");
    pos = scanned_;
  }
  auto need_more = [this](size_t consumed) {
    offset_ += consumed;
    return Decoded{consumed, false, {}};
  };
  auto at = [this](size_t pos) { return " at stream offset " + std::to_string(offset_ + pos); };
  auto over_limit = [this] {
    return fail(Errc::LimitExceeded, "the packet begun at stream offset " +
                                         std::to_string(packet_offset_) + " is over the limit of " +
                                         std::to_string(max_) + " payload bytes");
  };
  size_t seen = 0;
  for (;;) {
    if (state_ == State::Outside) {
      if (pos == n) return need_more(pos);
      if (p[pos] != kEsc)
        return fail(Errc::BadResponse, "byte " + describe(input.substr(pos, 1)) + at(pos) +
                                           " outside a packet (expected ESC PKT)");
      switch (classify(p + pos, n - pos, seen)) {
        case Word::Partial:
          return need_more(pos);
        case Word::Nop:
          pos += kWordSize;
          continue;
        case Word::Pkt:
          packet_offset_ = offset_ + pos;
          pos += kWordSize;
          view_start = pos;
          copy_.clear();
          state_ = State::View;
          continue;
        case Word::End:
          return fail(Errc::BadResponse, "ESC END" + at(pos) + " outside a packet");
        case Word::Esc:
          return fail(Errc::BadResponse, "ESC ESC" + at(pos) + " outside a packet");
        case Word::Unknown:
          return fail(Errc::BadResponse,
                      "unknown control word " + describe(input.substr(pos, seen)) + at(pos));
      }
    }

    // In a packet: the run of payload bytes up to the next ESC or the input's end.
    const char* esc = static_cast<const char*>(std::memchr(p + pos, kEsc, n - pos));
    const size_t run_end = esc ? size_t(esc - p) : n;
    const size_t payload =
        state_ == State::View ? run_end - view_start : copy_.size() + (run_end - pos);
    if (payload > max_) return over_limit();
    if (state_ == State::Copy) copy_.append(p + pos, run_end - pos);
    pos = run_end;
    const Word word = esc ? classify(p + pos, n - pos, seen) : Word::Partial;
    switch (word) {
      case Word::Partial:
        if (state_ == State::Copy) return need_more(pos);
        scanned_ = pos - view_start;  // the payload so far stays in the caller's input
        return need_more(view_start);
      case Word::End: {
        std::string_view bytes =
            state_ == State::View ? input.substr(view_start, pos - view_start) : copy_.view();
        pos += kWordSize;
        state_ = State::Outside;
        scanned_ = 0;
        offset_ += pos;
        return Decoded{pos, true, bytes};
      }
      case Word::Esc:
      case Word::Nop:
        if (state_ == State::View) {
          copy_.append(p + view_start, pos - view_start);
          state_ = State::Copy;
        }
        if (word == Word::Esc) {
          if (copy_.size() == max_) return over_limit();
          copy_.push_back(kEsc);
        }
        pos += kWordSize;
        continue;
      case Word::Pkt:
        return fail(Errc::BadResponse, "ESC PKT" + at(pos) +
                                           " inside the packet begun at stream offset " +
                                           std::to_string(packet_offset_));
      case Word::Unknown:
        return fail(Errc::BadResponse,
                    "unknown control word " + describe(input.substr(pos, seen)) + at(pos));
    }
  }
}

Status Decoder::finish(std::string_view rest) {
  Result<Decoded> r = decode(rest);
  if (!r) return r.error();
  if (r->packet)
    return Error(Errc::InvalidArgument,
                 "pstream: finish() was given a whole packet still to decode");
  if (in_packet())
    return fail(Errc::ConnectionClosed,
                "the stream ended inside the packet begun at stream offset " +
                    std::to_string(packet_offset_));
  if (r->consumed < rest.size())
    return fail(Errc::ConnectionClosed, "the stream ended inside a control word at stream offset " +
                                            std::to_string(offset_));
  return Status();
}

}  // namespace callwire::pstream
