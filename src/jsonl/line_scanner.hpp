// Internal: newline-delimited JSON-RPC ("JSON lines"), the framing of jsonl:// and
// jsonl+unix:. Each message is one line ending in LF (CRLF taken too); blank lines are
// keep-alives and carry nothing. The JSON writer escapes newlines inside strings, so a
// document written by it is always one line.
//
// I/O-free: the scanner finds the next line in whatever part of the stream has arrived. The
// server's JsonLinesFraming reads requests with it, the client's answer parser answers.
#pragma once

#include <cstddef>
#include <string_view>

namespace callwire::jsonl {

/// What LineScanner::next found.
enum class Scan { Incomplete, Line, TooLong };

struct Found {
  Scan scan = Scan::Incomplete;
  std::string_view line;  ///< Line: the message, without its LF or CRLF (a view into the input)
  size_t end = 0;         ///< Line: the input's bytes up to and including the line's LF
};

/// Finds the next non-blank line of a stream fed in pieces. The caller keeps the bytes that
/// have arrived and not been dropped, and passes them all to next() each time; after an
/// Incomplete, it may drop take_done() bytes from the front (the blank lines), and passes
/// the input from after them next time. A long line arriving in pieces is searched once. Not
/// thread-safe; never throws.
class LineScanner {
 public:
  /// `max_line`: the longest line taken, in bytes before its LF; a longer one is TooLong as
  /// soon as it is known to be (a line that never ends holds at most max_line + 1 bytes).
  explicit LineScanner(size_t max_line) noexcept : max_line_(max_line) {}

  Found next(std::string_view input) noexcept;
  /// The bytes at the front of the input that are done with (blank lines) since the last
  /// call; the next call's input starts after them.
  size_t take_done() noexcept;
  /// A blank line has come since reset(): the peer was there.
  bool saw_blank() const noexcept { return saw_blank_; }
  /// Ready for the next message, in a new input.
  void reset() noexcept;
  size_t max_line() const noexcept { return max_line_; }

 private:
  size_t max_line_;
  size_t start_ = 0;    // where the next line begins (blank lines before it are done with)
  size_t scanned_ = 0;  // bytes searched for a LF
  bool saw_blank_ = false;
};

/// `text` without a CR at its end (a CRLF line's CR).
inline std::string_view without_cr(std::string_view text) noexcept {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

/// True when `text` holds only spaces and tabs (a blank line).
bool is_blank(std::string_view text) noexcept;

}  // namespace callwire::jsonl
