// FrameReader (src/ws/frame_reader.hpp): RFC 6455's examples in every split, each refusal
// with its close code, control frames inside fragmented messages, UTF-8 across fragments, the
// limits checked before the payload arrives, and what the reader does after a Close or Error.

#include "ws/frame_reader.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ws_test_util.hpp"

namespace callwire::ws {
namespace {

using test::binary;
using test::bytes;
using test::error;
using test::expect_any_split;
using test::read_pieces;
using test::read_whole;
using test::Seen;
using test::text;

// RFC 6455 §5.7's examples.
const std::string kUnmaskedHello = bytes({0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f});
const std::string kMaskedHello =
    bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58});
const std::string kFragmentedHello = bytes({0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f});
const std::string kUnmaskedPing = bytes({0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f});
const std::string kMaskedPong =
    bytes({0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58});

std::string patterned(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = char(i * 7 + 3);
  return s;
}

// A client's frame: masked with a fixed key, the length in its minimal form.
std::string masked_frame(int first_byte, std::string_view payload) {
  static constexpr unsigned char kKey[4] = {0xa1, 0x02, 0xf3, 0x54};
  std::string f(1, char(first_byte));
  if (payload.size() <= 125) {
    f.push_back(char(0x80 | payload.size()));
  } else if (payload.size() <= 0xffff) {
    f += bytes({0x80 | 126, int(payload.size() >> 8), int(payload.size() & 0xff)});
  } else {
    f.push_back(char(0x80 | 127));
    for (int shift = 56; shift >= 0; shift -= 8)
      f.push_back(char(uint64_t(payload.size()) >> shift));
  }
  f.append(reinterpret_cast<const char*>(kKey), 4);
  for (size_t i = 0; i < payload.size(); ++i) f.push_back(char(payload[i] ^ char(kKey[i % 4])));
  return f;
}

// A server's frame: unmasked.
std::string plain_frame(int first_byte, std::string_view payload) {
  std::string f(1, char(first_byte));
  if (payload.size() <= 125) {
    f.push_back(char(payload.size()));
  } else if (payload.size() <= 0xffff) {
    f += bytes({126, int(payload.size() >> 8), int(payload.size() & 0xff)});
  } else {
    f.push_back(char(127));
    for (int shift = 56; shift >= 0; shift -= 8)
      f.push_back(char(uint64_t(payload.size()) >> shift));
  }
  return f.append(payload);
}

TEST(FrameReader, RfcUnmaskedTextFromAServer) {
  expect_any_split(Role::Client, kUnmaskedHello, {text("Hello")});
}

TEST(FrameReader, RfcMaskedTextFromAClient) {
  expect_any_split(Role::Server, kMaskedHello, {text("Hello")});
}

TEST(FrameReader, RfcFragmentedText) {
  expect_any_split(Role::Client, kFragmentedHello, {text("Hello")});
}

TEST(FrameReader, RfcPingAndPong) {
  expect_any_split(Role::Client, kUnmaskedPing, {{EventKind::Ping, "Hello"}});
  expect_any_split(Role::Server, kMaskedPong, {{EventKind::Pong, "Hello"}});
}

TEST(FrameReader, Rfc256ByteBinaryHas16BitLength) {
  const std::string payload = patterned(256);
  const std::string frame = bytes({0x82, 0x7E, 0x01, 0x00}) + payload;
  expect_any_split(Role::Client, frame, {binary(payload)});
  expect_any_split(Role::Server, masked_frame(0x82, payload), {binary(payload)});
}

TEST(FrameReader, Rfc64KiBBinaryHas64BitLength) {
  const std::string payload = patterned(65536);
  const std::string frame =
      bytes({0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00}) + payload;
  expect_any_split(Role::Client, frame, {binary(payload)});
  expect_any_split(Role::Server, masked_frame(0x82, payload), {binary(payload)});
}

TEST(FrameReader, SeveralFramesInOneInputComeOneEventAtATime) {
  const std::string stream = kMaskedHello + masked_frame(0x89, "p") + masked_frame(0x82, "") +
                             masked_frame(0x88, bytes({0x03, 0xe8}) + "bye");
  FrameReader reader(Role::Server);
  std::string_view in = stream;
  Event e = reader.next(in);
  EXPECT_EQ(e.kind, EventKind::Text);
  EXPECT_EQ(e.consumed, kMaskedHello.size());
  in.remove_prefix(e.consumed);
  e = reader.next(in);
  EXPECT_EQ(e.kind, EventKind::Ping);
  EXPECT_EQ(e.payload, "p");
  in.remove_prefix(e.consumed);
  e = reader.next(in);
  EXPECT_EQ(e.kind, EventKind::Binary);
  EXPECT_EQ(e.payload, "");
  in.remove_prefix(e.consumed);
  e = reader.next(in);
  EXPECT_EQ(e.kind, EventKind::Close);
  EXPECT_EQ(e.code, kCloseNormal);
  EXPECT_EQ(e.payload, "bye");
  EXPECT_EQ(e.consumed, in.size());
}

TEST(FrameReader, ControlFramesBetweenFragmentsLeaveTheMessageWhole) {
  const std::string stream = masked_frame(0x01, "Hel") + masked_frame(0x89, "ping!") +
                             masked_frame(0x00, "") + masked_frame(0x8A, "") +
                             masked_frame(0x80, "lo") + masked_frame(0x02, "bin") +
                             masked_frame(0x89, "") + masked_frame(0x80, "ary");
  expect_any_split(Role::Server, stream,
                   {{EventKind::Ping, "ping!"},
                    {EventKind::Pong, ""},
                    text("Hello"),
                    {EventKind::Ping, ""},
                    binary("binary")});
}

TEST(FrameReader, CloseInsideAFragmentedMessageEndsIt) {
  const std::string stream = masked_frame(0x01, "Hel") + masked_frame(0x88, bytes({0x03, 0xe9}));
  expect_any_split(Role::Server, stream, {{EventKind::Close, "", kCloseGoingAway}});
}

TEST(FrameReader, EmptyMessagesAndFragments) {
  const std::string stream = plain_frame(0x81, "") + plain_frame(0x01, "") + plain_frame(0x00, "") +
                             plain_frame(0x80, "") + plain_frame(0x02, "") + plain_frame(0x80, "x");
  expect_any_split(Role::Client, stream, {text(""), text(""), binary("x")});
}

TEST(FrameReader, NonMinimalLengthIsAccepted) {
  const std::string stream = bytes({0x82, 126, 0, 5}) + "abcde" +
                             bytes({0x81, 127, 0, 0, 0, 0, 0, 0, 0, 2}) + "hi" +
                             bytes({0x89, 126, 0, 3}) + "png";
  expect_any_split(Role::Client, stream, {binary("abcde"), text("hi"), {EventKind::Ping, "png"}});
}

TEST(FrameReader, MaskingPhaseCarriesAcrossPieces) {
  // 1000 bytes under one key, cut at offsets that are not multiples of 4 or 8.
  const std::string payload = patterned(1000);
  const std::string frame = masked_frame(0x82, payload);
  for (size_t piece : {1, 3, 5, 9, 13, 127})
    EXPECT_EQ(read_pieces(Role::Server, frame, piece), std::vector<Seen>{binary(payload)}) << piece;
}

// Closing frames.

TEST(FrameReader, CloseWithoutCodeIsNoStatus) {
  expect_any_split(Role::Server, masked_frame(0x88, ""), {{EventKind::Close, "", kCloseNoStatus}});
}

TEST(FrameReader, CloseCarriesCodeAndReason) {
  expect_any_split(Role::Client, plain_frame(0x88, bytes({0x0b, 0xb8}) + "caf\xc3\xa9"),
                   {{EventKind::Close, "caf\xc3\xa9", 3000}});
}

TEST(FrameReader, CloseCodesAcceptedAndRefused) {
  for (int code :
       {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4000, 4999})
    EXPECT_EQ(read_whole(Role::Client, plain_frame(0x88, bytes({code >> 8, code & 0xff}))),
              (std::vector<Seen>{{EventKind::Close, "", uint16_t(code)}}))
        << code;
  for (int code : {0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65535})
    EXPECT_EQ(read_whole(Role::Client, plain_frame(0x88, bytes({code >> 8, code & 0xff}))),
              (std::vector<Seen>{
                  error(kCloseProtocolError, "invalid close code " + std::to_string(code))}))
        << code;
}

TEST(FrameReader, CloseWithOneByteIsAProtocolError) {
  expect_any_split(Role::Client, plain_frame(0x88, "\x03"),
                   {error(kCloseProtocolError, "close frame with a 1-byte payload (a code is 2)")});
}

TEST(FrameReader, CloseReasonMustBeUtf8) {
  expect_any_split(Role::Client, plain_frame(0x88, bytes({0x03, 0xe8, 'a', 0xff})),
                   {error(kCloseInvalidPayload, "invalid UTF-8 in a close reason")});
  expect_any_split(Role::Client, plain_frame(0x88, bytes({0x03, 0xe8, 0xe2, 0x82})),
                   {error(kCloseInvalidPayload, "invalid UTF-8 in a close reason")});
}

TEST(FrameReader, InputAfterCloseIsConsumedAndIgnored) {
  FrameReader reader(Role::Client);
  const std::string stream = plain_frame(0x88, "") + plain_frame(0x81, "late");
  Event e = reader.next(stream);
  EXPECT_EQ(e.kind, EventKind::Close);
  EXPECT_EQ(e.consumed, 2u);
  EXPECT_TRUE(reader.closed());
  e = reader.next(std::string_view(stream).substr(2));
  EXPECT_EQ(e.kind, EventKind::NeedMore);
  EXPECT_EQ(e.consumed, stream.size() - 2);
  e = reader.next("\xff\xff");  // not even a frame
  EXPECT_EQ(e.kind, EventKind::NeedMore);
  EXPECT_EQ(e.consumed, 2u);
}

// Refusals, each with its close code.

TEST(FrameReader, UnmaskedFrameFromAClient) {
  expect_any_split(Role::Server, kUnmaskedHello,
                   {error(kCloseProtocolError, "unmasked frame from a client")});
}

TEST(FrameReader, MaskedFrameFromAServer) {
  expect_any_split(Role::Client, kMaskedHello,
                   {error(kCloseProtocolError, "masked frame from a server")});
}

TEST(FrameReader, ReservedBits) {
  for (int rsv : {0x40, 0x20, 0x10, 0x70})
    expect_any_split(Role::Client, plain_frame(0x81 | rsv, "x"),
                     {error(kCloseProtocolError, "reserved bits set without an extension")});
}

TEST(FrameReader, UnknownOpcodes) {
  for (int op : {3, 4, 5, 6, 7, 11, 12, 13, 14, 15})
    EXPECT_EQ(
        read_whole(Role::Client, plain_frame(0x80 | op, "x")),
        (std::vector<Seen>{error(kCloseProtocolError, "unknown opcode " + std::to_string(op))}))
        << op;
}

TEST(FrameReader, FragmentedControlFrame) {
  for (int op : {0x08, 0x09, 0x0A})
    expect_any_split(Role::Client, plain_frame(op, ""),
                     {error(kCloseProtocolError, "control frame fragmented")});
}

TEST(FrameReader, ControlFrameOver125Bytes) {
  expect_any_split(Role::Client, plain_frame(0x89, patterned(126)),
                   {error(kCloseProtocolError, "control frame of 126 bytes (at most 125)")});
  // Refused from its header, whatever it says it will send.
  EXPECT_EQ(read_whole(Role::Client, bytes({0x8A, 127, 0, 0, 0, 1, 0, 0, 0, 0})),
            (std::vector<Seen>{
                error(kCloseProtocolError, "control frame of 4294967296 bytes (at most 125)")}));
  expect_any_split(Role::Client, plain_frame(0x89, patterned(125)),
                   {{EventKind::Ping, patterned(125)}});
}

TEST(FrameReader, ContinuationWithoutAMessage) {
  expect_any_split(
      Role::Client, plain_frame(0x80, "x"),
      {error(kCloseProtocolError, "continuation frame without a message to continue")});
  // Nor after a message that ended.
  expect_any_split(
      Role::Client, plain_frame(0x81, "a") + plain_frame(0x00, "b"),
      {text("a"), error(kCloseProtocolError, "continuation frame without a message to continue")});
}

TEST(FrameReader, NewDataFrameInsideAFragmentedMessage) {
  for (int first : {0x81, 0x82, 0x01, 0x02})
    expect_any_split(
        Role::Client, plain_frame(0x01, "a") + plain_frame(first, "b"),
        {error(kCloseProtocolError, "new data frame in the middle of a fragmented message")});
}

TEST(FrameReader, SixtyFourBitLengthWithTheHighBit) {
  expect_any_split(Role::Client, bytes({0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1}),
                   {error(kCloseProtocolError, "64-bit length with the high bit set")});
}

// Limits: refused from the header, before the payload arrives.

TEST(FrameReader, FrameOverTheMessageLimitIsRefusedFromItsHeader) {
  FrameReader reader(Role::Server);
  // 17,000,000 bytes announced; only the header is sent.
  const std::string header = bytes({0x82, 0xFF, 0, 0, 0, 0, 0x01, 0x03, 0x66, 0x40, 1, 2, 3, 4});
  Event e = reader.next(header);
  EXPECT_EQ(e.kind, EventKind::Error);
  EXPECT_EQ(e.code, kCloseMessageTooBig);
  EXPECT_EQ(e.error, "frame of 17000000 bytes exceeds max_message_size (16777216 bytes)");
  EXPECT_EQ(reader.storage_bytes(), 0u);
}

TEST(FrameReader, FrameOverTheFrameLimit) {
  ReaderLimits limits;
  limits.max_frame_payload = 4;
  expect_any_split(Role::Client, plain_frame(0x82, "abcd") + plain_frame(0x82, "abcde"),
                   {binary("abcd"), error(kCloseMessageTooBig,
                                          "frame of 5 bytes exceeds max_frame_payload (4 bytes)")},
                   limits);
  // Refused with the header alone.
  FrameReader reader(Role::Client, limits);
  EXPECT_EQ(reader.next(bytes({0x82, 100})).kind, EventKind::Error);
}

TEST(FrameReader, MessageOverTheLimitAcrossFragments) {
  ReaderLimits limits;
  limits.max_message_size = 10;
  expect_any_split(
      Role::Client,
      plain_frame(0x02, "123456") + plain_frame(0x89, "ping") + plain_frame(0x80, "789012"),
      {{EventKind::Ping, "ping"},
       error(kCloseMessageTooBig, "message of 12 bytes exceeds max_message_size (10 bytes)")},
      limits);
  // Exactly the limit is fine.
  expect_any_split(Role::Client, plain_frame(0x02, "123456") + plain_frame(0x80, "7890"),
                   {binary("1234567890")}, limits);
  // Control frames do not count against it.
  limits.max_message_size = 0;
  expect_any_split(Role::Client, plain_frame(0x89, "12345") + plain_frame(0x81, ""),
                   {{EventKind::Ping, "12345"}, text("")}, limits);
}

TEST(FrameReader, StorageGrowsWithWhatArrivesNotWithWhatIsAnnounced) {
  FrameReader reader(Role::Client);
  Event e = reader.next(bytes({0x82, 127, 0, 0, 0, 0, 0, 0xf0, 0, 0}) + "abc");  // 15 MiB
  EXPECT_EQ(e.kind, EventKind::NeedMore);
  EXPECT_LT(reader.storage_bytes(), size_t{64} << 10);
}

// UTF-8.

TEST(FrameReader, Utf8SplitAcrossFragments) {
  // U+20AC (E2 82 AC) split in three; U+1F600 (F0 9F 98 80) cannot span two messages.
  const std::string stream = plain_frame(0x01, "\xe2") + plain_frame(0x00, "\x82") +
                             plain_frame(0x80, "\xac") + plain_frame(0x01, "\xf0\x9f") +
                             plain_frame(0x80, "") + plain_frame(0x81, "\x98\x80");
  expect_any_split(Role::Client, stream,
                   {text("\xe2\x82\xac"),
                    error(kCloseInvalidPayload, "text message ends inside a UTF-8 sequence")});
  const std::string good = plain_frame(0x01, "a\xf0") + plain_frame(0x00, "\x9f\x98") +
                           plain_frame(0x89, "x") + plain_frame(0x80, "\x80z");
  expect_any_split(Role::Client, good, {{EventKind::Ping, "x"}, text("a\xf0\x9f\x98\x80z")});
}

TEST(FrameReader, InvalidUtf8IsRefused) {
  for (std::string bad : {
           std::string("\xc0\x80"),          // overlong NUL
           std::string("\xc1\xbf"),          // overlong 2-byte
           std::string("\xe0\x80\x80"),      // overlong 3-byte
           std::string("\xe0\x9f\xbf"),      // overlong 3-byte, the largest
           std::string("\xf0\x8f\xbf\xbf"),  // overlong 4-byte
           std::string("\xed\xa0\x80"),      // surrogate U+D800
           std::string("\xed\xbf\xbf"),      // surrogate U+DFFF
           std::string("\xf4\x90\x80\x80"),  // above U+10FFFF
           std::string("\xf5\x80\x80\x80"),  // no such lead
           std::string("\xff"),
           std::string("\x80"),  // a stray continuation
           std::string("a\xc3z"),
       }) {
    EXPECT_EQ(read_whole(Role::Client, plain_frame(0x81, bad)),
              (std::vector<Seen>{error(kCloseInvalidPayload, "invalid UTF-8 in a text message")}))
        << testing::PrintToString(bad);
    // Binary messages are not checked.
    EXPECT_EQ(read_whole(Role::Client, plain_frame(0x82, bad)), std::vector<Seen>{binary(bad)});
  }
  for (std::string good : {std::string("\xed\x9f\xbf"), std::string("\xee\x80\x80"),
                           std::string("\xf4\x8f\xbf\xbf"), std::string("\xc2\x80"),
                           std::string("\xef\xbf\xbf"), std::string("plain ascii text, long")})
    EXPECT_EQ(read_whole(Role::Client, plain_frame(0x81, good)), std::vector<Seen>{text(good)})
        << testing::PrintToString(good);
}

TEST(FrameReader, TextEndingInsideASequence) {
  expect_any_split(Role::Client, plain_frame(0x81, "ok\xe2\x82"),
                   {error(kCloseInvalidPayload, "text message ends inside a UTF-8 sequence")});
}

TEST(FrameReader, InvalidUtf8FailsBeforeTheRestArrives) {
  FrameReader reader(Role::Server);
  // A 1000-byte text frame whose first byte cannot be UTF-8; only 2 payload bytes sent.
  std::string frame = masked_frame(0x81, "\xff" + std::string(999, 'a'));
  Event e = reader.next(std::string_view(frame).substr(0, 10));
  EXPECT_EQ(e.kind, EventKind::Error);
  EXPECT_EQ(e.code, kCloseInvalidPayload);
}

// What comes after an Error.

TEST(FrameReader, ErrorIsSticky) {
  FrameReader reader(Role::Server);
  Event e = reader.next(kUnmaskedHello);
  EXPECT_EQ(e.kind, EventKind::Error);
  EXPECT_EQ(e.consumed, 0u);
  EXPECT_TRUE(reader.failed());
  e = reader.next(kMaskedHello);
  EXPECT_EQ(e.kind, EventKind::Error);
  EXPECT_EQ(e.consumed, 0u);
  EXPECT_EQ(e.code, kCloseProtocolError);
  EXPECT_EQ(e.error, "unmasked frame from a client");
}

// Handing the message on.

TEST(FrameReader, TakeMessageMovesTheStorageOut) {
  FrameReader reader(Role::Client);
  const std::string payload = patterned(5000);
  const std::string stream = plain_frame(0x82, payload) + plain_frame(0x81, "next");
  std::string_view in = stream;
  Event e = reader.next(in);
  ASSERT_EQ(e.kind, EventKind::Binary);
  const char* where = e.payload.data();
  Buffer taken = reader.take_message();
  EXPECT_EQ(taken.data(), where);  // the same bytes, not a copy
  EXPECT_EQ(taken.view(), payload);
  EXPECT_EQ(reader.take_message().size(), 0u);  // once only
  in.remove_prefix(e.consumed);
  e = reader.next(in);
  EXPECT_EQ(e.kind, EventKind::Text);
  EXPECT_EQ(e.payload, "next");
  EXPECT_EQ(taken.view(), payload);
}

TEST(FrameReader, ReleaseStorageBetweenMessagesOnly) {
  FrameReader reader(Role::Client);
  Event e = reader.next(plain_frame(0x82, patterned(3000)));
  ASSERT_EQ(e.kind, EventKind::Binary);
  EXPECT_GE(reader.storage_bytes(), 3000u);
  reader.release_storage();
  EXPECT_EQ(reader.storage_bytes(), 0u);
  e = reader.next(plain_frame(0x02, "abc"));
  EXPECT_TRUE(reader.in_message());
  reader.release_storage();  // a no-op: the message is half read
  e = reader.next(plain_frame(0x80, "def"));
  EXPECT_EQ(e.kind, EventKind::Binary);
  EXPECT_EQ(e.payload, "abcdef");
}

}  // namespace
}  // namespace callwire::ws
