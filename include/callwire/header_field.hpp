// callwire: one HTTP header field, as the server's transports read it and a handler sees it
// (CallContext::headers). Its own header so that the HTTP framing, below the dispatch layer,
// hands its fields to a call as they are, with no copy.
#pragma once

#include <string_view>

namespace callwire {

/// One HTTP header field of a request, as sent. Views into the request: valid as long as the
/// request they came from (for a handler: its call).
struct HeaderField {
  std::string_view name;   ///< as sent (compare case-insensitively)
  std::string_view value;  ///< without the white space around it
};

}  // namespace callwire
