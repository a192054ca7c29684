// Internal: the seam through which a long answer is sent while it is still being written. The
// protocol's writer appends the answer to one Buffer; each time the buffer passes `next` bytes
// it tells the transport, which may send what is written so far (HTTP/1.1: as chunks) and sets
// the next mark. Without one, an answer is sent once it is whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "base/base64.hpp"
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
  /// The answer in `out` will end at `end` bytes, and nothing it does not know yet can change
  /// that (the rest is one blob and its closing tags): the transport may send it from now on,
  /// with its length, as it is written, grew() told after each step. False: it is written
  /// whole (or goes on as it started).
  virtual bool will_end_at(Buffer& out, size_t end) = 0;

  /// The size of the buffer at which grew() is next called.
  size_t next = std::numeric_limits<size_t>::max();
};

/// Bytes of a long blob encoded between two reports: 768 KiB of text. Against 1 MiB, blobs of
/// 1 and 4 MiB came 8% sooner and 16 MiB within the spread; slices of 384 KiB of text or less
/// woke the client more often than the overlap paid for (bench/RESULTS.md).
inline constexpr size_t kBase64Slice = 3 * 192 * 1024;

/// Appends the base64 of `bytes` to `out`. When the blob is the last value of an answer that
/// may leave while it is written (`progress` not null, `tail` the bytes that close the answer
/// after the blob's text) and `progress` takes the answer's length ahead, a long blob is
/// encoded a slice at a time with `between()` (the writer's report) after each but the last:
/// its first part is on its way, with a Content-Length, while the rest is encoded. False when
/// `between` is (the answer cannot be sent).
template <class Between>
bool encode_base64_reporting(Buffer& out, AnswerProgress* progress, std::span<const uint8_t> bytes,
                             size_t tail, Between between) {
  const uint8_t* p = bytes.data();
  size_t left = bytes.size();
  if (progress != nullptr && left > kBase64Slice) {
    const size_t end = out.size() + base64::encoded_size(left) + tail;
    out.reserve(end);  // nothing moves while it is sent
    if (progress->will_end_at(out, end)) {
      for (; left > kBase64Slice; p += kBase64Slice, left -= kBase64Slice) {
        constexpr size_t kText = base64::encoded_size(kBase64Slice);
        base64::encode(p, kBase64Slice, out.prepare(kText));
        out.commit(kText);
        if (!between()) return false;
      }
    }
  }
  const size_t n = base64::encoded_size(left);
  base64::encode(p, left, out.prepare(n));
  out.commit(n);
  return true;
}

}  // namespace callwire::detail
