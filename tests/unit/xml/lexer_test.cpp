// The lexer on its own: zero-copy text, decoding into scratch, and every document split at every
// byte (a truncated document is always an error, never a crash or a different success).
#include "xml/lexer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "callwire/xml.hpp"

namespace callwire::xml {
namespace {

TEST(Lexer, PlainTextPointsIntoTheDocument) {
  std::string scratch;
  Lexer lexer(scratch);
  std::string doc = "<a>plain text</a>";
  ASSERT_TRUE(lexer.start(doc, 100, false));
  Token t;
  ASSERT_TRUE(lexer.next(t));
  EXPECT_EQ(t.kind, TokenKind::StartTag);
  EXPECT_EQ(t.name, "a");
  ASSERT_TRUE(lexer.next(t));
  EXPECT_EQ(t.kind, TokenKind::Text);
  EXPECT_EQ(t.text, "plain text");
  EXPECT_EQ(t.text.data(), doc.data() + 3);  // no copy
  ASSERT_TRUE(lexer.next(t));
  EXPECT_EQ(t.kind, TokenKind::EndTag);
  ASSERT_TRUE(lexer.next(t));
  EXPECT_EQ(t.kind, TokenKind::EndOfDocument);
}

TEST(Lexer, DecodedTextUsesScratch) {
  std::string scratch;
  Lexer lexer(scratch);
  std::string doc = "<a>x&amp;y<!--c--><![CDATA[z]]>\r\n</a>";
  ASSERT_TRUE(lexer.start(doc, 100, false));
  Token t;
  ASSERT_TRUE(lexer.next(t));
  ASSERT_TRUE(lexer.next(t));
  EXPECT_EQ(t.text, "x&yz\n");
}

// The bytes the caller vouches for (a blob's text decoded as it arrived) are not searched
// again: the `<` that ends the text is looked for after them, and past the end is the end.
TEST(Lexer, UncheckedTextSearchesOnlyAfterWhatIsKnownPlain) {
  std::string scratch;
  Lexer lexer(scratch);
  std::string doc = "<a>ab<cd</a>";  // a `<` no real caller would vouch for, to see it skipped
  for (size_t known : {size_t{0}, size_t{2}, size_t{3}, size_t{5}, size_t{6}, size_t{1000}}) {
    ASSERT_TRUE(lexer.start(doc, 100, false));
    Token t;
    ASSERT_TRUE(lexer.next(t));
    std::string_view text;
    // From the start or from the `<` of `<cd`: no end tag there. Past `</a>`: no `<` at all.
    const bool found = known == 3 || known == 5;
    EXPECT_EQ(lexer.try_unchecked_text(text, known), found) << known;
    if (found) EXPECT_EQ(text, "ab<cd") << known;
  }
}

TEST(Lexer, LongTextAcrossTheVectorPath) {
  std::string body;
  for (int i = 0; i < 1000; ++i) body += "abcdefghijklmnopqrstuvwxyz\t\n0123456789 ";
  std::string scratch;
  Lexer lexer(scratch);
  for (size_t k = 0; k < 40; ++k) {
    // A bad byte at every position modulo 16 is found.
    std::string doc = "<a>" + body.substr(0, 100 + k) + "\x01" + body + "</a>";
    ASSERT_TRUE(lexer.start(doc, 100, false));
    Token t;
    ASSERT_TRUE(lexer.next(t));
    EXPECT_FALSE(lexer.next(t));
    EXPECT_EQ(lexer.error_code(), Errc::InvalidCharacter);
    EXPECT_EQ(lexer.error_offset(), 3 + 100 + k);
  }
}

TEST(Lexer, EveryTruncationIsAnError) {
  const std::string doc =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><!-- c --><methodCall a='1'><methodName>m&amp;"
      "</methodName><params><param><value><struct><member><name>k</name><value><![CDATA[x]]>"
      "</value></member></struct></value></param><param><value><base64>SGk=</base64></value>"
      "</param></params></methodCall>";
  Reader reader;
  ASSERT_TRUE(reader.read(doc));
  for (size_t n = 0; n < doc.size(); ++n) {
    // A copy of exactly n bytes, so ASan sees any read past the end.
    std::vector<char> prefix(doc.begin(), doc.begin() + long(n));
    auto r = reader.read(std::string_view(prefix.data(), n));
    EXPECT_FALSE(r) << n;
  }
}

}  // namespace
}  // namespace callwire::xml

namespace callwire::xml {
namespace {

// scan_until's three paths (16 bytes, 8 bytes, one byte) against the plain definition.
TEST(Scan, AgreesWithTheDefinitionAtEveryLengthAndPosition) {
  auto naive = [](const unsigned char* p, const unsigned char* end) {
    for (; p < end; ++p)
      if (*p == '<' || *p == '&' || *p == '>' || *p >= 0x80 ||
          (*p < 0x20 && *p != '\t' && *p != '\n'))
        return p;
    return end;
  };
  const unsigned char specials[] = {'<',  '&', '>', 0x80, 0xFF, 0x00, 0x1F, '\r', '\t',
                                    '\n', ' ', 'a', ';',  '?',  '=',  '|',  '~'};
  for (size_t len = 0; len <= 40; ++len) {
    for (size_t at = 0; at < len; ++at) {
      for (unsigned char c : specials) {
        std::vector<unsigned char> text(len, 'x');
        text[at] = c;
        const unsigned char* b = text.data();
        const unsigned char* found = scan_until<'<', '&', '>'>(b, b + len);
        ASSERT_EQ(found, naive(b, b + len)) << "len " << len << " at " << at << " byte " << int(c);
      }
    }
  }
}

}  // namespace
}  // namespace callwire::xml
