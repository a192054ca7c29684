// What both JSON fuzzers require of any document the reader accepts: it is JSON to simdjson's
// DOM parser too (a parser of its own, not the On Demand walk the reader uses), but for numbers
// no double or 64-bit integer holds, which that parser refuses with the whole document.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace fuzz {

// Empty when simdjson's DOM parser accepts `doc` (numbers apart); else why it refuses it.
inline std::string why_not_json(std::string_view doc) {
  static simdjson::dom::parser dom;
  simdjson::dom::element root;
  simdjson::error_code e = dom.parse(doc.data(), doc.size()).get(root);
  if (!e || e == simdjson::NUMBER_ERROR || e == simdjson::NUMBER_OUT_OF_RANGE) return {};
  return simdjson::error_message(e);
}

}  // namespace fuzz
