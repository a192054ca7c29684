// Internal: a decoded string into the std::string a typed read fills.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace callwire {

/// `out` = `text`. Into a new block when it needs one, by constructing the string: the shorter
/// way there, where assign's general replace checks for overlap and copies in three steps. A
/// typed read does this for every string it reads, most of them into empty strings.
inline void assign_text(std::string& out, std::string_view text) {
  if (text.size() > out.capacity()) {
    out = std::string(text);
  } else {  // append copies straight in, where assign's replace checks for overlap first
    out.clear();
    out.append(text.data(), text.size());
  }
}

/// Room in `out` for `more` strings, `out` grown at most once: to size the first time, and at
/// least doubled when it grows again, so that appending round after round (an array whose
/// strings come in runs, read_string_elements) stays linear.
inline void reserve_more(std::vector<std::string>& out, size_t more) {
  const size_t needed = out.size() + more;
  if (needed > out.capacity())
    out.reserve(out.empty() ? needed : std::max(needed, 2 * out.capacity()));
}

/// Texts on their way into `out`, gathered on the stack and appended a batch at a time: for a
/// reader's loop over an array's strings, where a push onto a vector per text was a call each.
/// The texts must stay valid until flush().
class TextBatch {
 public:
  explicit TextBatch(std::vector<std::string>& out) noexcept : out_(out) {}
  TextBatch(const TextBatch&) = delete;
  TextBatch& operator=(const TextBatch&) = delete;

  void add(std::string_view text) {
    if (size_ == kSize) flush();
    texts_[size_++] = {text.data(), text.size()};
  }
  /// Appends what was added since the last flush.
  void flush() {
    reserve_more(out_, size_);
    for (size_t i = 0; i < size_; ++i) out_.emplace_back(texts_[i].data, texts_[i].size);
    size_ = 0;
  }

 private:
  static constexpr size_t kSize = 64;  // most arrays of strings fit: `out` grows once
  // Not string_view: its constructor would zero the whole batch on every call.
  struct Text {
    const char* data;
    size_t size;
  };
  std::vector<std::string>& out_;
  size_t size_ = 0;
  Text texts_[kSize];
};

}  // namespace callwire
