// libFuzzer driver: the JSON-lines LineScanner (src/jsonl), as the server's framing and the
// client's answer parser use it.
//
// Input: one byte of flags (bits 0-1 choose the longest line: 64 KiB, 0, 1 or 16 bytes), one
// byte whose low 3 bits count the split bytes that follow (0: one byte at a time), those split
// bytes (chunk lengths, used in turn; 0 counts as 1), then the stream. For any input: the
// scanner never reads outside the input (each call's input is an exactly sized copy); fed in
// the chosen chunks the way a connection feeds it (blank lines dropped after an incomplete
// scan, a line's bytes consumed after it is found), it finds exactly the lines a plain model
// finds (split at LF, CR before it dropped, blank lines skipped) and stops with TooLong where
// the model does; a line holds no LF, is not blank and is within the limit; and
// what a connection holds after dropping is never over the limit. Any violation prints what
// differs and traps.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jsonl/line_scanner.hpp"

namespace {

using namespace callwire::jsonl;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "\n*** jsonl_fuzz: %s\n", what);
  std::fflush(stderr);
  __builtin_trap();
}

struct Outcome {
  std::vector<std::string> lines;
  bool too_long = false;
  bool operator==(const Outcome&) const = default;
};

// The model: what the stream holds, read whole.
Outcome model(std::string_view stream, size_t max_line) {
  Outcome o;
  size_t start = 0;
  for (;;) {
    size_t lf = stream.find('\n', start);
    if (lf == std::string_view::npos) {
      o.too_long = stream.size() - start > max_line;
      return o;
    }
    if (lf - start > max_line) {
      o.too_long = true;
      return o;
    }
    std::string_view line = without_cr(stream.substr(start, lf - start));
    if (!is_blank(line)) o.lines.emplace_back(line);
    start = lf + 1;
  }
}

// Fed in chunks of the lengths `chunks` gives in turn, as a connection feeds it.
Outcome scan(std::string_view stream, size_t max_line, std::string_view chunks) {
  LineScanner scanner(max_line);
  Outcome o;
  std::string held;
  size_t from = 0, turn = 0;
  while (from < stream.size()) {
    size_t want = chunks.empty() ? 1 : static_cast<unsigned char>(chunks[turn++ % chunks.size()]);
    size_t len = std::min(want == 0 ? 1 : want, stream.size() - from);
    held.append(stream.substr(from, len));
    from += len;
    for (;;) {
      auto exact = std::make_unique<char[]>(held.size() ? held.size() : 1);
      if (!held.empty()) std::memcpy(exact.get(), held.data(), held.size());
      std::string_view view(exact.get(), held.size());
      Found found = scanner.next(view);
      if (found.scan == Scan::TooLong) {
        o.too_long = true;
        return o;
      }
      if (found.scan == Scan::Incomplete) {
        size_t done = scanner.take_done();
        if (done > held.size()) fail("dropped more than the input");
        held.erase(0, done);
        if (held.size() > max_line) fail("holds more than the longest line");
        break;
      }
      if (found.end > view.size()) fail("a line past the input");
      std::string_view line = found.line;
      if (line.find('\n') != std::string_view::npos) fail("a line with a LF in it");
      if (is_blank(line)) fail("a blank line found");
      if (line.size() > max_line) fail("a line over the limit");
      o.lines.emplace_back(line);
      held.erase(0, found.end);
      scanner.reset();
    }
  }
  // What is left without its LF: over the limit only if the model says so.
  o.too_long = held.size() > max_line;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static constexpr size_t kLimits[] = {64 << 10, 0, 1, 16};
  const size_t max_line = kLimits[data[0] & 3];
  const size_t splits = data[1] & 7;
  if (size < 2 + splits) return 0;
  std::string_view chunks(reinterpret_cast<const char*>(data) + 2, splits);
  std::string_view stream(reinterpret_cast<const char*>(data) + 2 + splits, size - 2 - splits);
  const Outcome expected = model(stream, max_line);
  if (scan(stream, max_line, chunks) != expected) fail("chunked scan differs from the model");
  if (stream.size() <= 512 && scan(stream, max_line, {}) != expected)
    fail("byte-by-byte scan differs from the model");
  return 0;
}
