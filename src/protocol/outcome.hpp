// Internal: what a protocol adapter's handle() reports back to the transport.
#pragma once

#include <cstdint>
#include <string_view>

namespace callwire::detail {

/// What a handle() did, for logs, metrics and the transport's answer.
struct DispatchOutcome {
  /// The method as called (empty when the body could not be read; the first of a batch);
  /// valid until the next handle().
  std::string_view method;
  bool is_fault = false;   ///< the answer is a fault (in a batch: the first request's is)
  int32_t fault_code = 0;  ///< its code, when is_fault
  bool no_answer = false;  ///< nothing was appended: every request was a notification
};

}  // namespace callwire::detail
