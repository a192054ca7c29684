// Base64Ahead (src/xml/decode_ahead.hpp): a large answer's blob decoded as the answer arrives,
// and the typed read that takes those bytes. Whatever arrives, in whatever pieces, the read
// must give exactly what a read of the whole document gives, errors and their offsets too.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "callwire/base64.hpp"
#include "callwire/convert.hpp"
#include "xml/reader_internals.hpp"

namespace callwire::xml {
namespace {

constexpr std::string_view kHead =
    "<?xml version=\"1.0\"?><methodResponse><params><param><value><base64>";
constexpr std::string_view kTail = "</base64></value></param></params></methodResponse>";

std::vector<uint8_t> random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

std::string document_of(std::string_view text) {
  return std::string(kHead) + std::string(text) + std::string(kTail);
}

struct BytesSink final : ValueSink {
  std::vector<uint8_t> bytes;
  Status read(ValueReader& r) override { return read_value(r, bytes); }
};

// Feeds `document` to `ahead` in pieces of `piece` bytes, as a client's reads would.
void arrive_in_pieces(Base64Ahead& ahead, std::string_view document, size_t piece) {
  for (size_t n = piece; n < document.size(); n += piece)
    ahead.arriving(document.substr(0, n), document.size());
}

// The typed read of `document`: with what `ahead` decoded, or without anything.
Result<std::vector<uint8_t>> typed_read(std::string_view document, DecodedAhead* decoded) {
  ReaderLimits limits;
  limits.max_string_size = 64 << 20;
  limits.max_document_size = 64 << 20;
  Reader reader(limits);
  MethodResponse response;
  BytesSink sink;
  Status sink_status;
  Status s = ReaderInternals::read_response(reader, document, response, sink, sink_status, decoded);
  if (!s) return s.error();
  if (!sink_status) return sink_status.error();
  return std::move(sink.bytes);
}

TEST(Base64Ahead, DecodesALargeBlobAsItArrivesAndTheReadTakesIt) {
  std::vector<uint8_t> blob = random_bytes(1 << 20, 1);
  std::string document = document_of(base64_encode(blob));
  Base64Ahead ahead;
  arrive_in_pieces(ahead, document, 100000);
  DecodedAhead* decoded = ahead.for_document(document);
  ASSERT_NE(decoded, nullptr);
  // Everything that had come before the last piece, in whole steps.
  EXPECT_GT(decoded->text_length, document.size() - 2 * 100000 - 65536);
  EXPECT_EQ(decoded->text, document.data() + kHead.size());
  Result<std::vector<uint8_t>> got = typed_read(document, decoded);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, blob);
}

TEST(Base64Ahead, EveryPieceSizeAndBlobLengthGivesTheSameBytes) {
  for (size_t size : {size_t{300000}, size_t{300001}, size_t{300002}, size_t{1000003}}) {
    std::vector<uint8_t> blob = random_bytes(size, unsigned(size));
    std::string document = document_of(base64_encode(blob));
    for (size_t piece : {size_t{1000}, size_t{65537}, size_t{262144}, document.size() - 1}) {
      Base64Ahead ahead;
      arrive_in_pieces(ahead, document, piece);
      Result<std::vector<uint8_t>> got = typed_read(document, ahead.for_document(document));
      ASSERT_TRUE(got) << size << " in pieces of " << piece << ": " << got.error().message;
      EXPECT_EQ(*got, blob) << size << " in pieces of " << piece;
    }
  }
}

TEST(Base64Ahead, StopsAtWhiteSpaceAndLeavesTheRestToTheRead) {
  // Python and xmlrpc-c wrap base64 in lines of 76: the first line is all that can go ahead,
  // and less than a step, so nothing does; the read decodes it all.
  std::vector<uint8_t> blob = random_bytes(400000, 2);
  std::string text = base64_encode(blob), wrapped;
  for (size_t i = 0; i < text.size(); i += 76) wrapped += text.substr(i, 76) + "\n";
  std::string document = document_of(wrapped);
  Base64Ahead ahead;
  arrive_in_pieces(ahead, document, 70000);
  EXPECT_EQ(ahead.for_document(document), nullptr);
  Result<std::vector<uint8_t>> got = typed_read(document, nullptr);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, blob);

  // A break after the first steps: those steps go ahead, the read takes the rest.
  std::string late = text.substr(0, 200000) + "\n" + text.substr(200000);
  document = document_of(late);
  Base64Ahead later;
  arrive_in_pieces(later, document, 70000);
  DecodedAhead* decoded = later.for_document(document);
  ASSERT_NE(decoded, nullptr);
  EXPECT_LE(decoded->text_length, 200000u);
  got = typed_read(document, decoded);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, blob);
}

TEST(Base64Ahead, ABadCharacterAfterTheDecodedPartIsReportedWhereItIs) {
  std::vector<uint8_t> blob = random_bytes(600000, 3);
  std::string text = base64_encode(blob);
  text[700000] = '*';
  std::string document = document_of(text);
  Result<std::vector<uint8_t>> whole = typed_read(document, nullptr);
  ASSERT_FALSE(whole);
  Base64Ahead ahead;
  arrive_in_pieces(ahead, document, 100000);
  DecodedAhead* decoded = ahead.for_document(document);
  ASSERT_NE(decoded, nullptr);
  EXPECT_GT(decoded->text_length, 0u);
  Result<std::vector<uint8_t>> got = typed_read(document, decoded);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().message, whole.error().message);
  EXPECT_NE(got.error().message.find("at offset 700000"), std::string::npos) << got.error().message;
}

TEST(Base64Ahead, AReferenceInTheTextTakesTheCheckedPathWithTheBytesDecodedAhead) {
  // "&#65;" is 'A', legal XML in the text: the fast read gives up on it and the checked one
  // reads the element again, from text the lexer decoded.
  std::vector<uint8_t> blob = random_bytes(500000, 4);
  std::string text = base64_encode(blob);
  text.replace(600000, 1, "&#" + std::to_string(int(text[600000])) + ";");
  std::string document = document_of(text);
  Base64Ahead ahead;
  arrive_in_pieces(ahead, document, 100000);
  DecodedAhead* decoded = ahead.for_document(document);
  ASSERT_NE(decoded, nullptr);
  Result<std::vector<uint8_t>> got = typed_read(document, decoded);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, blob);
}

TEST(Base64Ahead, SmallAnswersAndOtherDocumentsAreLeftToTheRead) {
  std::vector<uint8_t> blob = random_bytes(1000, 5);
  std::string small = document_of(base64_encode(blob));
  Base64Ahead ahead;
  arrive_in_pieces(ahead, small, 100);
  EXPECT_EQ(ahead.for_document(small), nullptr);

  std::string strings =
      "<?xml version=\"1.0\"?><methodResponse><params><param><value><array><data>";
  while (strings.size() < 500000) strings += "<value><string>abcdefgh</string></value>";
  strings += "</data></array></value></param></params></methodResponse>";
  ahead.reset();
  arrive_in_pieces(ahead, strings, 100000);
  EXPECT_EQ(ahead.for_document(strings), nullptr);
}

TEST(Base64Ahead, ResetForgetsTheLastDocument) {
  std::vector<uint8_t> first = random_bytes(500000, 6), second = random_bytes(500000, 7);
  std::string a = document_of(base64_encode(first)), b = document_of(base64_encode(second));
  ASSERT_EQ(a.size(), b.size());
  Base64Ahead ahead;
  arrive_in_pieces(ahead, a, 100000);
  ahead.reset();
  // The second document arrives in one piece after the reset: nothing of the first is offered.
  EXPECT_EQ(ahead.for_document(b), nullptr);
  arrive_in_pieces(ahead, b, 100000);
  Result<std::vector<uint8_t>> got = typed_read(b, ahead.for_document(b));
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, second);
}

}  // namespace
}  // namespace callwire::xml
