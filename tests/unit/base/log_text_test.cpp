// Text a peer chose, made safe for a log line (base/log_text.hpp): every byte that could end
// a line, split a field or reach a terminal as a control is written \xHH; the rest is kept.
#include "base/log_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace callwire::base {
namespace {

using namespace std::string_literals;

std::string escaped(std::string_view s, LogField kind = LogField::Word) {
  std::string storage;
  return std::string(log_text(s, storage, kind));
}

TEST(LogText, KeepsTheUsualNamesAddressesAndUsers) {
  for (std::string_view s : {"sample.add", "system.multicall", "127.0.0.1:40312",
                             "[2001:db8::1%eth0]:8080", "unix", "ann", "a_b-c/d:e", ""}) {
    EXPECT_TRUE(log_text_kept(s, LogField::Word)) << s;
    std::string storage;
    EXPECT_EQ(log_text(s, storage, LogField::Word).data(), s.data()) << "copied: " << s;
  }
}

TEST(LogText, EscapesWhatCouldForgeALineOrDriveATerminal) {
  EXPECT_EQ(escaped("a\nb"), "a\\x0Ab");
  EXPECT_EQ(escaped("a\r\n1.2.3.4 forged 200"), "a\\x0D\\x0A1.2.3.4\\x20forged\\x20200");
  EXPECT_EQ(escaped("\x1b[2J\x1b]0;title\x07"), "\\x1B[2J\\x1B]0;title\\x07");
  EXPECT_EQ(escaped("nul\0tab\tdel\x7f"s), "nul\\x00tab\\x09del\\x7F");
  // A backslash is escaped too, so a `\x` in a log is always an escape and never forged.
  EXPECT_EQ(escaped("a\\x0Ab\"c"), "a\\x5Cx0Ab\\x22c");
  // Bytes from 0x80: C1 controls (U+009B is CSI), text that is not UTF-8, and UTF-8 as well.
  EXPECT_EQ(escaped(std::string("\xc2\x9b") + "31m"), "\\xC2\\x9B31m");
  EXPECT_EQ(escaped("\x9b\xff\xc3"), "\\x9B\\xFF\\xC3");
  EXPECT_EQ(escaped("m\xc3\xa9todo"), "m\\xC3\\xA9todo");
}

TEST(LogText, TextKeepsItsSpaces) {
  EXPECT_EQ(escaped("TLS handshake failed: no shared cipher", LogField::Text),
            "TLS handshake failed: no shared cipher");
  EXPECT_EQ(escaped("one\ntwo \x1b", LogField::Text), "one\\x0Atwo \\x1B");
  EXPECT_EQ(escaped("one two", LogField::Word), "one\\x20two");
}

TEST(LogText, EveryByteComesOutPrintableAndOnOneLine) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += char(c);
  for (LogField kind : {LogField::Word, LogField::Text}) {
    std::string out = escaped(all, kind);
    for (char c : out) {
      auto u = static_cast<unsigned char>(c);
      EXPECT_TRUE(u >= 0x20 && u < 0x7f) << int(u);
      if (kind == LogField::Word) {
        EXPECT_NE(c, ' ');
      }
    }
  }
}

}  // namespace
}  // namespace callwire::base
