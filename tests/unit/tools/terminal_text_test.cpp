// A peer's text made safe for the terminal (tools/terminal_text.*): every control character
// becomes a visible escape; everything else passes as it is.
#include "terminal_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace callwire::tool {
namespace {

TEST(TerminalText, PrintableTextPassesAsItIs) {
  EXPECT_EQ(terminal_text(""), "");
  EXPECT_EQ(terminal_text("Too many parameters."), "Too many parameters.");
  EXPECT_EQ(terminal_text("C:\\path \"quoted\" ~"), "C:\\path \"quoted\" ~");
  EXPECT_EQ(terminal_text("t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(terminal_text("\xc2\xa0\xc2\xbf"), "\xc2\xa0\xc2\xbf");  // U+00A0, U+00BF: no controls
}

TEST(TerminalText, ControlCharactersBecomeEscapes) {
  EXPECT_EQ(terminal_text("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(terminal_text("\x1b]0;title\x07\x1b[2J"), "\\e]0;title\\x07\\e[2J");
  EXPECT_EQ(terminal_text(std::string("\0\x01\x1f\x7f", 4)), "\\x00\\x01\\x1f\\x7f");
  // The C1 controls in UTF-8 (CSI is U+009B), and a lone C2 at the end.
  EXPECT_EQ(terminal_text("\xc2\x9b"
                          "1m\xc2\x80\xc2\x9f"),
            "\\u009b1m\\u0080\\u009f");
  EXPECT_EQ(terminal_text("end\xc2"), "end\xc2");
}

}  // namespace
}  // namespace callwire::tool
