// Internal: comparison of a parsed name against a literal, for the XML and JSON readers'
// element names, member names and atoms. A leaf utility.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "callwire/export.hpp"

namespace callwire::base {

/// Whether `text` is the literal: its size, then its bytes, in a compare the compiler always
/// inlines. string_view's == is left to the inliner, whose choice moves with unrelated code (a
/// change in the XML pull reader once made two of a call's checks calls, and one in the JSON
/// reader cost a JSON-RPC call 100 instructions).
template <size_t N>
CALLWIRE_ALWAYS_INLINE bool is_literal(std::string_view text, const char (&literal)[N]) {
  return text.size() == N - 1 && std::memcmp(text.data(), literal, N - 1) == 0;
}

}  // namespace callwire::base
