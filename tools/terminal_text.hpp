// Text a peer chose (a fault's message, a server's error), made safe to print on a terminal.
#pragma once

#include <string>
#include <string_view>

namespace callwire::tool {

/// `text` with every control character written as a visible escape, so a server cannot move
/// the cursor, rewrite the screen, set the window title or forge lines of the command's
/// output: `\n`, `\r`, `\t`, `\e` (ESC), `\x07` and the like for the other C0 bytes and DEL, and
/// `\u0080`..`\u009f` for the C1 controls in UTF-8 (which some terminals obey). Other bytes,
/// printable ASCII and UTF-8 alike, pass as they are; so do backslashes (the result is for a
/// person to read, not to be parsed back). Thread-safety: none needed (a pure function).
/// Throws std::bad_alloc only.
std::string terminal_text(std::string_view text);

}  // namespace callwire::tool
