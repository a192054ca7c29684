// Internal: a decoded string into the std::string a typed read fills.
#pragma once

#include <algorithm>
#include <span>
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

/// A string for each of `texts` appended to `out`, which grows as reserve_more() says.
inline void append_texts(std::vector<std::string>& out, std::span<const std::string_view> texts) {
  reserve_more(out, texts.size());
  for (std::string_view text : texts) out.emplace_back(text);
}

}  // namespace callwire
