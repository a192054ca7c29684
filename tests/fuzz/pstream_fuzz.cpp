// libFuzzer driver: the packet-stream (pstream) Decoder and encoders.
//
// Input: one byte of flags (bits 0-1 choose the packet cap: 64 KiB, 0, 3 or 16 bytes), one
// byte whose low 3 bits count the split bytes that follow (0: feed byte by byte), those split
// bytes (chunk lengths, used in turn; 0 counts as 1), then the stream. For any input: decoding
// never crashes or reads outside the input (every copy is exactly sized); the stream decoded
// whole and fed in the chosen chunks the way a connection feeds it (unconsumed bytes kept and
// moved, new ones appended) gives the same packets and the same error (code and message);
// streams of up to 512 bytes fed byte by byte too; an error is BadResponse, LimitExceeded or
// ConnectionClosed and says "pstream:"; no packet is over the cap; a payload that points into
// the input holds no ESC; what decode leaves unconsumed is at most a partial word, or the
// payload so far plus one (so at most cap + 3 bytes); the packets encoded again (appended and
// in place, the same bytes) decode to the same packets. Any violation prints what differs and
// traps.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "pstream/pstream.hpp"

namespace {

using callwire::Buffer;
using callwire::Errc;
using callwire::Error;
using callwire::Result;
using callwire::Status;
using namespace callwire::pstream;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "\n*** pstream_fuzz: %s\n", what);
  std::fflush(stderr);
  __builtin_trap();
}

struct Outcome {
  std::vector<std::string> packets;
  Errc code = Errc::Ok;
  std::string message;
  bool operator==(const Outcome&) const = default;
};

bool inside(std::string_view v, std::string_view whole) {
  auto b = reinterpret_cast<uintptr_t>(whole.data());
  auto p = reinterpret_cast<uintptr_t>(v.data());
  return !v.empty() && p >= b && p + v.size() <= b + whole.size();
}

Outcome ended(Outcome o, const Error& e) {
  if (e.code != Errc::BadResponse && e.code != Errc::LimitExceeded &&
      e.code != Errc::ConnectionClosed)
    fail("an unexpected error code");
  if (e.message.rfind("pstream: ", 0) != 0) fail("an error message without its prefix");
  o.code = e.code;
  o.message = e.message;
  return o;
}

// Fed in chunks of the lengths `chunks` gives in turn (empty: all at once), as a connection
// feeds it.
Outcome decode(std::string_view stream, size_t max, std::string_view chunks) {
  Decoder decoder(max);
  Outcome o;
  std::string in;
  size_t from = 0, turn = 0;
  do {
    size_t len = stream.size() - from;
    if (!chunks.empty()) {
      size_t want = static_cast<unsigned char>(chunks[turn++ % chunks.size()]);
      if (want == 0) want = 1;
      if (want < len) len = want;
    }
    in.append(stream.substr(from, len));
    from += len;
    size_t done = 0;
    for (;;) {
      std::string_view rest = std::string_view(in).substr(done);
      auto exact = std::make_unique<char[]>(rest.size() ? rest.size() : 1);
      if (!rest.empty()) std::memcpy(exact.get(), rest.data(), rest.size());
      std::string_view view(exact.get(), rest.size());
      Result<Decoded> r = decoder.decode(view);
      if (!r) return ended(std::move(o), r.error());
      if (r->consumed > view.size()) fail("consumed more than the input");
      if (r->packet) {
        if (r->payload.size() > max) fail("a packet over the cap");
        if (inside(r->payload, view) && r->payload.find(kEsc) != std::string_view::npos)
          fail("a view into the input that holds an ESC");
        o.packets.emplace_back(r->payload);
      } else {
        size_t left = view.size() - r->consumed;
        if (left > (decoder.in_packet() ? max + 3 : 3)) fail("too much left unconsumed");
      }
      done += r->consumed;
      if (!r->packet) break;
    }
    in.erase(0, done);
    std::string moved(in);  // the storage moves between calls
    in.swap(moved);
  } while (from < stream.size());
  if (Status s = decoder.finish(in); !s) return ended(std::move(o), s.error());
  return o;
}

std::string encode(const std::vector<std::string>& packets, bool in_place) {
  Buffer out;
  for (const std::string& p : packets) {
    if (in_place) {
      PacketMark mark = begin_packet(out);
      out.append(p);
      end_packet(out, mark);
    } else {
      append_packet(out, p);
    }
  }
  return std::string(out.view());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static constexpr size_t kCaps[] = {64 * 1024, 0, 3, 16};
  const size_t max = kCaps[data[0] & 3];
  const size_t nsplits = data[1] & 7;
  if (size < 2 + nsplits) return 0;
  const char* bytes = reinterpret_cast<const char*>(data);
  std::string_view splits(bytes + 2, nsplits);
  std::string_view stream(bytes + 2 + nsplits, size - 2 - nsplits);
  static const std::string kByteByByte(1, '\1');

  Outcome whole = decode(stream, max, {});
  Outcome split = decode(stream, max, nsplits ? splits : std::string_view(kByteByByte));
  if (!(split == whole)) fail("split decoding differs from whole");
  if (nsplits && stream.size() <= 512 && !(decode(stream, max, kByteByByte) == whole))
    fail("byte-by-byte decoding differs from whole");

  const std::string again = encode(whole.packets, false);
  if (encode(whole.packets, true) != again) fail("in-place encoding differs from append_packet");
  Outcome round = decode(again, max, {});
  if (!(round == Outcome{whole.packets, Errc::Ok, {}}))
    fail("encode(decode(x)) does not round-trip");
  return 0;
}
