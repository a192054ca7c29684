// Internal: the seam through which a long answer is sent while it is still being written. The
// protocol's writer appends the answer to one Buffer; each time the buffer passes `next` bytes
// it tells the transport, which may send what is written so far (HTTP/1.1: as chunks) and sets
// the next mark. Without one, an answer is sent once it is whole.
#pragma once

#include <cstddef>
#include <limits>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"

namespace callwire::detail {

class AnswerProgress {
 public:
  virtual ~AnswerProgress() = default;
  /// The answer in `out` has reached `next` bytes (or more). An error stops the writer: the
  /// answer cannot be sent (it grew past what the transport may hold).
  virtual Status grew(Buffer& out) = 0;
  /// Part of the answer has gone to the peer: it can no longer be taken back and replaced by
  /// a fault, only cut short.
  virtual bool started() const noexcept = 0;

  /// The size of the buffer at which grew() is next called.
  size_t next = std::numeric_limits<size_t>::max();
};

}  // namespace callwire::detail
