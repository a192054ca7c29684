// Internal: a decoded string into the std::string a typed read fills.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace callwire
