// callwire: base64 as XML-RPC carries bytes (RFC 4648's alphabet, padded), for programs that
// move bytes in text of their own (JSON, logs, a command line): what xmlrpc-c offers as
// base64FromBytes and bytesFromBase64. The same vectorised code as the codec's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "callwire/export.hpp"

namespace callwire {

/// `bytes` as base64 on one line, padded. Throws std::bad_alloc only.
CALLWIRE_API std::string base64_encode(std::span<const uint8_t> bytes);

/// The bytes of base64 `text`. White space (space, tab, CR, LF) anywhere is ignored, as line
/// breaks every 76 characters need; missing final padding is tolerated. Errors:
/// InvalidArgument naming the offset of the first character that is not base64, or saying the
/// text ends in the middle of a group of four.
CALLWIRE_API Result<std::vector<uint8_t>> base64_decode(std::string_view text);

}  // namespace callwire
