#include "jsonl/line_scanner.hpp"

#include <cstring>

namespace callwire::jsonl {

bool is_blank(std::string_view text) noexcept {
  for (char c : text)
    if (c != ' ' && c != '\t') return false;
  return true;
}

Found LineScanner::next(std::string_view input) noexcept {
  for (;;) {
    const void* lf = std::memchr(input.data() + scanned_, '\n', input.size() - scanned_);
    if (!lf) {
      scanned_ = input.size();
      return {input.size() - start_ > max_line_ ? Scan::TooLong : Scan::Incomplete, {}, 0};
    }
    const size_t end = size_t(static_cast<const char*>(lf) - input.data());
    if (end - start_ > max_line_) return {Scan::TooLong, {}, 0};
    const std::string_view line = without_cr(input.substr(start_, end - start_));
    scanned_ = end + 1;
    if (is_blank(line)) {
      start_ = end + 1;
      saw_blank_ = true;
      continue;
    }
    return {Scan::Line, line, end + 1};
  }
}

size_t LineScanner::take_done() noexcept {
  const size_t done = start_;
  start_ = 0;
  scanned_ -= done;
  return done;
}

void LineScanner::reset() noexcept {
  start_ = scanned_ = 0;
  saw_blank_ = false;
}

}  // namespace callwire::jsonl
