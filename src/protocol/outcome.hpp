// Internal: the seam between the transports and the protocols: a protocol adapter's one
// call, and what it reports back to the transport.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/answer_progress.hpp"
#include "callwire/buffer.hpp"

namespace callwire {
class CallContext;
}

namespace callwire::detail {

/// What a handle() did, for logs, metrics and the transport's answer.
struct DispatchOutcome {
  /// The method as called (empty when the body could not be read; the first of a batch);
  /// valid until the next handle().
  std::string_view method;
  bool is_fault = false;   ///< the answer is a fault (in a batch: the first request's is)
  int32_t fault_code = 0;  ///< its code, when is_fault
  bool no_answer = false;  ///< nothing was appended: every request was a notification
  /// The answer failed after part of it was sent (AnswerProgress::started): what is in `out`
  /// is an unfinished document, for the transport to cut short; is_fault and fault_code say
  /// why it failed.
  bool cut_short = false;
};

/// A protocol's adapter over the dispatch core (XmlRpcDispatcher, JsonRpcDispatcher): one
/// request document in, its whole answer appended to `out`. A new protocol is one more
/// adapter and one more Protocol value (docs/architecture.md).
class ProtocolAdapter {
 public:
  virtual ~ProtocolAdapter() = default;
  /// Answers the request in `body`. `readable_after`: how many readable bytes follow the body
  /// in memory (a transport's Buffer::room_after); an adapter may read in place with enough.
  /// `progress`: the transport can send a long answer while it is written (an adapter that
  /// cannot may ignore it). Never throws except std::bad_alloc, and then `out` is as it was
  /// (or cut short, when part of it was sent).
  virtual DispatchOutcome handle(std::string_view body, CallContext& ctx, Buffer& out,
                                 size_t readable_after, AnswerProgress* progress) = 0;
};

}  // namespace callwire::detail
