// The frame writer (src/ws/frame_writer.hpp): RFC 6455's example bytes, the three length
// forms at their edges, close frames and their reasons, and frames read back by FrameReader in
// both roles.

#include "ws/frame_writer.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ws/frame_reader.hpp"
#include "ws_test_util.hpp"

namespace callwire::ws {
namespace {

using test::bytes;
using test::read_pieces;
using test::read_whole;
using test::Seen;

constexpr MaskKey kRfcKey = {0x37, 0xfa, 0x21, 0x3d};

std::string written(Opcode op, std::string_view payload, bool fin, const Masking& mask) {
  Buffer out;
  append_frame(out, op, payload, fin, mask);
  return std::string(out.view());
}

std::string patterned(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = char(i * 13 + 1);
  return s;
}

TEST(FrameWriter, RfcExamples) {
  EXPECT_EQ(written(Opcode::Text, "Hello", true, std::nullopt),
            bytes({0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}));
  EXPECT_EQ(written(Opcode::Text, "Hello", true, kRfcKey),
            bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
  EXPECT_EQ(written(Opcode::Text, "Hel", false, std::nullopt) +
                written(Opcode::Continuation, "lo", true, std::nullopt),
            bytes({0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f}));
  Buffer out;
  append_ping(out, "Hello", std::nullopt);
  append_pong(out, "Hello", kRfcKey);
  EXPECT_EQ(out.view(), bytes({0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x8a, 0x85, 0x37, 0xfa,
                               0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
  EXPECT_EQ(written(Opcode::Binary, patterned(256), true, std::nullopt).substr(0, 4),
            bytes({0x82, 0x7E, 0x01, 0x00}));
  EXPECT_EQ(written(Opcode::Binary, patterned(65536), true, std::nullopt).substr(0, 10),
            bytes({0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00}));
}

TEST(FrameWriter, LengthsInTheirMinimalForm) {
  struct Case {
    size_t size;
    size_t header;
  };
  for (Case c : {Case{0, 2}, {1, 2}, {125, 2}, {126, 4}, {65535, 4}, {65536, 10}, {100000, 10}}) {
    EXPECT_EQ(written(Opcode::Binary, patterned(c.size), true, std::nullopt).size(),
              c.header + c.size)
        << c.size;
    EXPECT_EQ(written(Opcode::Binary, patterned(c.size), true, kRfcKey).size(),
              c.header + 4 + c.size)
        << c.size;
  }
}

TEST(FrameWriter, AppendsAfterWhatIsThere) {
  Buffer out;
  out.append("head");
  append_frame(out, Opcode::Text, "x", true, std::nullopt);
  EXPECT_EQ(out.view(), "head" + bytes({0x81, 0x01, 'x'}));
}

TEST(FrameWriter, RoundTripsInBothRolesAtTheLengthEdges) {
  for (size_t size : {0, 1, 7, 8, 9, 125, 126, 127, 65535, 65536, 70001}) {
    const std::string payload = patterned(size);
    for (Role reader_role : {Role::Server, Role::Client}) {
      // A server reads what a client writes (masked), and the other way round.
      const Masking mask =
          reader_role == Role::Server ? Masking(MaskKey{0x01, 0x80, 0xfe, 0x7f}) : std::nullopt;
      const std::string frame = written(Opcode::Binary, payload, true, mask);
      EXPECT_EQ(read_whole(reader_role, frame), (std::vector<Seen>{{EventKind::Binary, payload}}))
          << size;
      EXPECT_EQ(read_pieces(reader_role, frame, 4093),
                (std::vector<Seen>{{EventKind::Binary, payload}}))
          << size;
      // The same payload in three fragments with a ping between them.
      Buffer out;
      const size_t a = size / 3, b = 2 * size / 3;
      append_frame(out, Opcode::Binary, std::string_view(payload).substr(0, a), false, mask);
      append_ping(out, "between", mask);
      append_frame(out, Opcode::Continuation, std::string_view(payload).substr(a, b - a), false,
                   mask);
      append_frame(out, Opcode::Continuation, std::string_view(payload).substr(b), true, mask);
      EXPECT_EQ(read_whole(reader_role, out.view()),
                (std::vector<Seen>{{EventKind::Ping, "between"}, {EventKind::Binary, payload}}))
          << size;
    }
  }
}

TEST(FrameWriter, CloseCarriesCodeAndReason) {
  Buffer out;
  append_close(out, kCloseNormal, "bye", std::nullopt);
  EXPECT_EQ(out.view(), bytes({0x88, 0x05, 0x03, 0xe8, 'b', 'y', 'e'}));
  EXPECT_EQ(read_whole(Role::Client, out.view()),
            (std::vector<Seen>{{EventKind::Close, "bye", kCloseNormal}}));
  out.clear();
  append_close(out, 4000, "", kRfcKey);
  EXPECT_EQ(read_whole(Role::Server, out.view()),
            (std::vector<Seen>{{EventKind::Close, "", 4000}}));
}

TEST(FrameWriter, CloseWithNoStatusHasNoPayload) {
  Buffer out;
  append_close(out, kCloseNoStatus, "ignored", std::nullopt);
  EXPECT_EQ(out.view(), bytes({0x88, 0x00}));
}

TEST(FrameWriter, CloseReasonIsCutAtAUtf8Boundary) {
  // 122 ASCII bytes, then U+20AC (3 bytes): 125 in all, over the 123 a reason can hold.
  const std::string reason = std::string(122, 'r') + "\xe2\x82\xac";
  Buffer out;
  append_close(out, kCloseGoingAway, reason, std::nullopt);
  EXPECT_EQ(out.size(), 2u + 2 + 122);
  EXPECT_EQ(read_whole(Role::Client, out.view()),
            (std::vector<Seen>{{EventKind::Close, std::string(122, 'r'), kCloseGoingAway}}));
  // Exactly 123 bytes fit whole.
  const std::string fits = std::string(120, 'r') + "\xe2\x82\xac";
  out.clear();
  append_close(out, kCloseGoingAway, fits, std::nullopt);
  EXPECT_EQ(read_whole(Role::Client, out.view()),
            (std::vector<Seen>{{EventKind::Close, fits, kCloseGoingAway}}));
  EXPECT_EQ(truncate_utf8("ab\xf0\x9f\x98\x80", 5), "ab");
  EXPECT_EQ(truncate_utf8("ab\xf0\x9f\x98\x80", 6), "ab\xf0\x9f\x98\x80");
  EXPECT_EQ(truncate_utf8("abc", 2), "ab");
}

TEST(FrameWriter, PingAndPongPayloadsAreCutTo125Bytes) {
  Buffer out;
  append_ping(out, patterned(200), std::nullopt);
  EXPECT_EQ(read_whole(Role::Client, out.view()),
            (std::vector<Seen>{{EventKind::Ping, patterned(125)}}));
  out.clear();
  append_pong(out, patterned(126), kRfcKey);
  EXPECT_EQ(read_whole(Role::Server, out.view()),
            (std::vector<Seen>{{EventKind::Pong, patterned(125)}}));
}

// The server writes an answer's header into a gap before a payload already in place: the same
// bytes append_frame writes, at every length boundary.
TEST(FrameWriter, AnUnmaskedHeaderInPlaceIsAppendFramesHeader) {
  for (size_t n : {0, 1, 125, 126, 65535, 65536, 70001}) {
    const std::string payload(n, 'a');
    Buffer framed;
    append_frame(framed, Opcode::Binary, payload, true, std::nullopt);
    const size_t header = unmasked_header_size(n);
    EXPECT_EQ(header + n, framed.size()) << n;
    std::string in_place(header, '\0');
    write_unmasked_header(in_place.data(), Opcode::Binary, n);
    EXPECT_EQ(in_place, framed.view().substr(0, header)) << n;
  }
}

}  // namespace
}  // namespace callwire::ws
