// Packet-stream framing: packets encoded (appended and in place) and decoded back, payloads
// with 0x1B anywhere; every stream split at every byte offset and fed byte by byte gives the
// same packets and the same error; NOP between and inside packets; every protocol error; the
// size cap at and one over the limit; pipelined packets; payloads yielded without a copy.
#include "pstream/pstream.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace callwire::pstream {
namespace {

using namespace std::string_literals;

// The control words spelled out, for readable expectations.
const std::string PKT(kPacketStart), END(kPacketEnd), ESCW(kEscapedEsc), NOP(kNop);
const std::string E = "\x1b";

std::string packet(std::string_view payload) {
  Buffer out;
  append_packet(out, payload);
  return std::string(out.view());
}

std::string packet_in_place(std::string_view payload) {
  Buffer out;
  PacketMark mark = begin_packet(out);
  out.append(payload);
  end_packet(out, mark);
  return std::string(out.view());
}

// Everything a stream decoded to: its packets in order, and how it ended (finish's status, or
// the first error of decode).
struct Outcome {
  std::vector<std::string> packets;
  Errc code = Errc::Ok;
  std::string message;
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << o.packets.size() << " packets {";
  for (const std::string& p : o.packets) os << testing::PrintToString(p) << ",";
  return os << "} " << int(o.code) << " " << o.message;
}

// As a connection does: each chunk appended to its input (which may move), the decoder called
// until no packet comes, the consumed bytes dropped, finish at the end.
Outcome decode_chunks(std::string_view stream, const std::vector<size_t>& cuts, size_t max) {
  Decoder decoder(max);
  Outcome o;
  std::string in;
  size_t from = 0;
  auto fail = [&o](const Error& e) {
    o.code = e.code;
    o.message = e.message;
    return o;
  };
  std::vector<size_t> ends = cuts;
  ends.push_back(stream.size());
  for (size_t to : ends) {
    in.append(stream.substr(from, to - from));
    in.shrink_to_fit();  // the storage moves between calls
    from = to;
    size_t done = 0;
    for (;;) {
      // An exactly sized copy: ASan reports any read past its end.
      std::string_view rest = std::string_view(in).substr(done);
      auto exact = std::make_unique<char[]>(rest.size() + 1);
      std::memcpy(exact.get(), rest.data(), rest.size());
      Result<Decoded> r = decoder.decode({exact.get(), rest.size()});
      if (!r) return fail(r.error());
      EXPECT_LE(r->consumed, rest.size());
      if (r->packet) o.packets.emplace_back(r->payload);
      done += r->consumed;
      if (!r->packet) break;
    }
    in.erase(0, done);
  }
  if (Status s = decoder.finish(in); !s) return fail(s.error());
  return o;
}

Outcome decode_whole(std::string_view stream, size_t max = 1 << 20) {
  return decode_chunks(stream, {}, max);
}

// Whole, split in two at every offset, and byte by byte: all the same; returns it.
Outcome decode_everywhere(std::string_view stream, size_t max = 1 << 20) {
  Outcome whole = decode_whole(stream, max);
  for (size_t cut = 0; cut <= stream.size(); ++cut)
    EXPECT_EQ(decode_chunks(stream, {cut}, max), whole) << "split at " << cut;
  std::vector<size_t> every;
  for (size_t i = 1; i < stream.size(); ++i) every.push_back(i);
  EXPECT_EQ(decode_chunks(stream, every, max), whole) << "byte by byte";
  return whole;
}

Outcome packets(std::vector<std::string> p) { return Outcome{std::move(p), Errc::Ok, {}}; }

// ---- encoding ----

TEST(Encode, WritesTheWordsAndEscapesEveryEsc) {
  EXPECT_EQ(packet(""), PKT + END);
  EXPECT_EQ(packet("<x/>"), PKT + "<x/>" + END);
  EXPECT_EQ(packet("a" + E + "b"), PKT + "a" + ESCW + "b" + END);
  EXPECT_EQ(packet(E), PKT + ESCW + END);
  EXPECT_EQ(packet(E + E + "x" + E), PKT + ESCW + ESCW + "x" + ESCW + END);
  // Control words inside the payload are only data: their ESC is escaped.
  EXPECT_EQ(packet(END), PKT + ESCW + "END" + END);
  EXPECT_EQ(PKT, "\x1bPKT"s);
  EXPECT_EQ(END,
            "\x1b"
            "END"s);
  EXPECT_EQ(ESCW,
            "\x1b"
            "ESC"s);
  EXPECT_EQ(NOP, "\x1bNOP"s);
}

TEST(Encode, AppendsAfterWhatIsThere) {
  Buffer out;
  out.append("before");
  append_packet(out, "p");
  append_nop(out);
  EXPECT_EQ(std::string(out.view()), "before" + PKT + "p" + END + NOP);
}

std::vector<std::string> sample_payloads() {
  std::vector<std::string> v = {"",
                                "a",
                                E,
                                E + E,
                                E + "abc",
                                "abc" + E,
                                E + "abc" + E,
                                PKT + END + NOP + ESCW,
                                "<?xml version=\"1.0\"?><methodCall><methodName>a</methodName>"
                                "</methodCall>"};
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(char(c));
  v.push_back(all);
  std::mt19937 rng(7);
  for (size_t size : {1000u, 70000u, 1u << 20}) {
    std::string big(size, 'x');
    for (char& c : big) c = rng() % 64 == 0 ? '\x1b' : char('a' + rng() % 26);
    v.push_back(big);
    v.push_back(std::string(size, '\x1b'));
  }
  return v;
}

TEST(Encode, InPlaceWritesTheSameBytes) {
  for (const std::string& payload : sample_payloads())
    EXPECT_EQ(packet_in_place(payload), packet(payload)) << payload.size() << " bytes";
}

TEST(Encode, InPlaceKeepsWhatCameBeforeAndGrowsOnlyForEscapes) {
  Buffer out;
  append_packet(out, "first" + E);
  const std::string first(out.view());
  PacketMark mark = begin_packet(out);
  EXPECT_EQ(mark.payload_offset, first.size() + 4);
  out.append("x" + E + "y");
  end_packet(out, mark);
  EXPECT_EQ(std::string(out.view()), first + PKT + "x" + ESCW + "y" + END);

  Buffer plain;
  plain.reserve(64);
  PacketMark m = begin_packet(plain);
  plain.append("<methodResponse/>");
  const char* storage = plain.data();
  end_packet(plain, m);
  EXPECT_EQ(plain.data(), storage);  // no escape: nothing moved
  EXPECT_EQ(std::string(plain.view()), PKT + "<methodResponse/>" + END);
}

TEST(RoundTrip, EveryPayloadComesBackWhole) {
  for (const std::string& payload : sample_payloads()) {
    Outcome o = decode_whole(packet(payload), 2 << 20);
    ASSERT_EQ(o, packets({payload})) << payload.size() << " bytes";
    // A large one byte by byte would take long; a few splits stand for it.
    if (payload.size() > 1000) {
      std::string s = packet(payload);
      EXPECT_EQ(decode_chunks(s, {1, 5, s.size() / 2, s.size() - 3}, 2 << 20), o);
    }
  }
}

TEST(RoundTrip, SmallPayloadsSplitEverywhere) {
  for (const std::string& payload : sample_payloads()) {
    if (payload.size() > 256) continue;
    EXPECT_EQ(decode_everywhere(packet(payload)), packets({payload}));
  }
}

// ---- decoding ----

TEST(Decode, EmptyStreamAndNopsAloneAreNoPackets) {
  EXPECT_EQ(decode_everywhere(""), packets({}));
  EXPECT_EQ(decode_everywhere(NOP + NOP), packets({}));
}

TEST(Decode, NopBetweenAndInsidePacketsIsIgnored) {
  std::string stream = NOP + PKT + NOP + "ab" + NOP + "c" + ESCW + NOP + END + NOP + NOP + PKT +
                       END + NOP + PKT + "d" + NOP + END;
  EXPECT_EQ(decode_everywhere(stream), packets({"abc" + E, "", "d"}));
}

TEST(Decode, PipelinedPacketsComeOnePerCallInOrder) {
  std::string stream = packet("one") + packet("two" + E) + NOP + packet("") + packet("four");
  Decoder d(100);
  std::string_view in = stream;
  std::vector<std::string> got;
  for (;;) {
    Result<Decoded> r = d.decode(in);
    ASSERT_TRUE(r) << r.error().message;
    if (r->packet) got.emplace_back(r->payload);
    in.remove_prefix(r->consumed);
    if (!r->packet) break;
  }
  EXPECT_EQ(got, (std::vector<std::string>{"one", "two" + E, "", "four"}));
  EXPECT_TRUE(in.empty());
  EXPECT_TRUE(d.finish(in));
  EXPECT_EQ(decode_everywhere(stream), packets(got));
}

TEST(Decode, APlainPayloadIsAViewIntoTheInput) {
  std::string stream = packet("plain") + packet("esc" + E) + PKT + "no" + NOP + "p" + END;
  Decoder d(100);
  std::string_view in = stream;
  Result<Decoded> r = d.decode(in);
  ASSERT_TRUE(r && r->packet);
  EXPECT_EQ(r->payload, "plain");
  EXPECT_EQ(r->payload.data(), stream.data() + 4);  // no copy
  EXPECT_EQ(r->consumed, 13u);
  in.remove_prefix(r->consumed);
  for (std::string expected : {"esc" + E, "nop"s}) {
    r = d.decode(in);
    ASSERT_TRUE(r && r->packet);
    EXPECT_EQ(r->payload, expected);
    EXPECT_FALSE(r->payload.data() >= stream.data() &&
                 r->payload.data() < stream.data() + stream.size());  // a copy
    in.remove_prefix(r->consumed);
  }
}

TEST(Decode, APlainPayloadArrivingInPiecesStaysInTheCallersInput) {
  // The connection keeps what was not consumed and appends what arrives.
  std::string stream = packet("hello world");
  std::string in;
  Decoder d(100);
  for (size_t i = 0; i < stream.size(); ++i) {
    in.push_back(stream[i]);
    Result<Decoded> r = d.decode(in);
    ASSERT_TRUE(r);
    if (i + 1 < stream.size()) {
      EXPECT_FALSE(r->packet);
      EXPECT_TRUE(d.in_packet() || i < 3);
      in.erase(0, r->consumed);
    } else {
      ASSERT_TRUE(r->packet);
      EXPECT_EQ(r->payload, "hello world");
      EXPECT_EQ(r->payload.data(), in.data());  // the payload bytes were never consumed
      EXPECT_EQ(r->consumed, in.size());
    }
  }
}

struct Refusal {
  const char* name;
  std::string stream;
  Errc code;
  std::string message;
};

TEST(Decode, EveryProtocolErrorWithItsCodeAndOffset) {
  const std::vector<Refusal> refusals = {
      {"data before a packet", "x" + PKT + END, Errc::BadResponse,
       "pstream: byte 'x' at stream offset 0 outside a packet (expected ESC PKT)"},
      {"data between packets", packet("a") + "\n", Errc::BadResponse,
       "pstream: byte 0x0a at stream offset 9 outside a packet (expected ESC PKT)"},
      {"END outside", NOP + END, Errc::BadResponse,
       "pstream: ESC END at stream offset 4 outside a packet"},
      {"ESC outside", ESCW, Errc::BadResponse,
       "pstream: ESC ESC at stream offset 0 outside a packet"},
      {"PKT inside", PKT + "a" + PKT + END, Errc::BadResponse,
       "pstream: ESC PKT at stream offset 5 inside the packet begun at stream offset 0"},
      {"unknown word outside", E + "PKX", Errc::BadResponse,
       "pstream: unknown control word ESC 'P' 'K' 'X' at stream offset 0"},
      {"lower case word", E + "pkt", Errc::BadResponse,
       "pstream: unknown control word ESC 'p' at stream offset 0"},
      {"unknown word inside", PKT + "ab" + E + "EOF" + END, Errc::BadResponse,
       "pstream: unknown control word ESC 'E' 'O' at stream offset 6"},
      {"two ESC inside", PKT + E + E + "ESC" + END, Errc::BadResponse,
       "pstream: unknown control word ESC ESC at stream offset 4"},
      {"EOF inside a packet", PKT + "abc", Errc::ConnectionClosed,
       "pstream: the stream ended inside the packet begun at stream offset 0"},
      {"EOF inside an escaped packet", NOP + PKT + "a" + ESCW + "b", Errc::ConnectionClosed,
       "pstream: the stream ended inside the packet begun at stream offset 4"},
      {"EOF inside a packet's word", PKT + "abc" + E + "EN", Errc::ConnectionClosed,
       "pstream: the stream ended inside the packet begun at stream offset 0"},
      {"EOF inside a word", packet("a") + E + "PK", Errc::ConnectionClosed,
       "pstream: the stream ended inside a control word at stream offset 9"},
      {"EOF after ESC", E, Errc::ConnectionClosed,
       "pstream: the stream ended inside a control word at stream offset 0"},
  };
  for (const Refusal& r : refusals) {
    Outcome o = decode_everywhere(r.stream);
    EXPECT_EQ(o.code, r.code) << r.name;
    EXPECT_EQ(o.message, r.message) << r.name;
  }
  // The packets before the fault still came out.
  EXPECT_EQ(decode_everywhere(packet("a") + packet("b") + "?").packets,
            (std::vector<std::string>{"a", "b"}));
}

TEST(Decode, ABadWordIsRefusedBeforeItsFourBytesArrive) {
  Decoder d(100);
  Result<Decoded> r = d.decode(E + "X");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::BadResponse);
  Decoder partial(100);
  r = partial.decode(E + "NO");  // may still become NOP
  ASSERT_TRUE(r);
  EXPECT_EQ(r->consumed, 0u);
}

TEST(Decode, ErrorsAreStickyUntilReset) {
  Decoder d(100);
  ASSERT_FALSE(d.decode("junk"));
  EXPECT_TRUE(d.failed());
  Result<Decoded> again = d.decode(packet("fine"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message,
            "pstream: byte 'j' at stream offset 0 outside a packet (expected ESC PKT)");
  EXPECT_FALSE(d.finish(""));
  d.reset();
  EXPECT_FALSE(d.failed());
  const std::string fine = packet("fine");  // the payload is a view into it
  Result<Decoded> r = d.decode(fine);
  ASSERT_TRUE(r && r->packet);
  EXPECT_EQ(r->payload, "fine");
  EXPECT_TRUE(d.finish(""));
}

TEST(Decode, FinishWithAWholePacketLeftIsTheCallersMistake) {
  Decoder d(100);
  Status s = d.finish(packet("x"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::InvalidArgument);
}

TEST(Decode, FewerBytesThanItLeftIsTheCallersMistake) {
  Decoder d(100);
  Result<Decoded> r = d.decode(PKT + "abcdef");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->consumed, 4u);
  r = d.decode("abc");  // "def" went missing
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
}

// ---- the size cap ----

TEST(Limit, ExactlyAtTheLimitPassesOneOverFails) {
  const size_t max = 8;
  const std::string at(max, 'a'), over(max + 1, 'a');
  EXPECT_EQ(decode_everywhere(packet(at), max), packets({at}));
  Outcome o = decode_everywhere(packet(over), max);
  EXPECT_TRUE(o.packets.empty());
  EXPECT_EQ(o.code, Errc::LimitExceeded);
  EXPECT_EQ(o.message,
            "pstream: the packet begun at stream offset 0 is over the limit of 8 payload bytes");
  // Escapes count as the one byte they stand for; NOPs count for nothing.
  const std::string esc_at = "aaa" + E + "aaa" + E, esc_over = esc_at + E;
  EXPECT_EQ(decode_everywhere(packet(esc_at) + NOP, max), packets({esc_at}));
  EXPECT_EQ(decode_everywhere(PKT + "aaaa" + NOP + "aaaa" + END, max), packets({"aaaaaaaa"}));
  EXPECT_EQ(decode_everywhere(packet(esc_over), max).code, Errc::LimitExceeded);
  EXPECT_EQ(decode_everywhere(PKT + "aaaa" + NOP + "aaaaa" + END, max).code, Errc::LimitExceeded);
  // A zero cap allows empty packets only.
  EXPECT_EQ(decode_everywhere(packet("") + packet(""), 0), packets({"", ""}));
  EXPECT_EQ(decode_everywhere(packet(E), 0).code, Errc::LimitExceeded);
}

TEST(Limit, IsReachedBeforeThePacketEnds) {
  Decoder d(1000);
  Result<Decoded> r = d.decode(PKT + std::string(1000, 'x'));
  ASSERT_TRUE(r);  // at the limit, maybe the end comes next
  EXPECT_FALSE(r->packet);
  r = d.decode(std::string(1001, 'x'));  // the same bytes again, one more
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::LimitExceeded);

  Decoder escaped(1000);
  ASSERT_TRUE(escaped.decode(PKT + ESCW));
  r = escaped.decode(std::string(1000, 'x'));  // 1001 payload bytes, no END in sight
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::LimitExceeded);
}

TEST(Limit, IsPerPacket) {
  std::string stream;
  for (int i = 0; i < 5; ++i) stream += packet(std::string(8, char('a' + i)) + E);
  Outcome o = decode_whole(stream, 9);
  EXPECT_EQ(o.code, Errc::Ok);
  EXPECT_EQ(o.packets.size(), 5u);
}

// A long mixed stream, split at every offset.
TEST(Decode, AMixedStreamSplitEverywhere) {
  std::string stream;
  std::vector<std::string> expected;
  for (const std::string& p : {"<methodCall/>"s, ""s, E, "a" + E + "b", E + E, PKT + END}) {
    stream += NOP + packet(p);
    expected.push_back(p);
  }
  {
    Buffer out;
    PacketMark m = begin_packet(out);
    out.append("in" + E + "place");
    end_packet(out, m);
    stream += std::string(out.view());
    expected.push_back("in" + E + "place");
  }
  EXPECT_EQ(decode_everywhere(stream), packets(expected));
}

}  // namespace
}  // namespace callwire::pstream
