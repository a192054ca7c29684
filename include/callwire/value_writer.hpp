// callwire: writing one value piece by piece, straight into the message being built.
//
// The fast path beside Value: a Convert<T> may offer `static void write(ValueWriter&, const
// T&)` (callwire/convert.hpp), and a typed handler's result (Server::bind) is then written
// into the response as it is walked, with no Value tree in between: no allocation per string
// or container, no copy of a blob before it is encoded.
//
// A ValueWriter takes exactly one value: a scalar, or begin_array() then the elements then
// end_array(), or begin_struct() then member(name) and its value for each member then
// end_struct(), nested as deep as needed. The protocol (XML-RPC or JSON-RPC: a server writes
// both answers this way) is the writer's business, not the caller's.
//
// Errors: a value the protocol cannot carry (a NaN, a string that is not UTF-8, an invalid
// dateTime) or a sequence that is not one value (end_array() with no array open, two values
// for one member) puts the writer in a failed state: the rest is ignored, and whoever owns the
// writer answers with an error instead of the value (for a server, fault -32603 naming the
// cause). Thread-safety: one thread at a time. Ownership: the writer is lent for one value.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "callwire/export.hpp"
#include "callwire/value.hpp"

namespace callwire {

class CALLWIRE_API ValueWriter {
 public:
  virtual ~ValueWriter();

  virtual void nil() = 0;
  virtual void boolean(bool b) = 0;
  /// An `int`.
  virtual void int32(int32_t n) = 0;
  /// An `i8`.
  virtual void int64(int64_t n) = 0;
  virtual void real(double d) = 0;
  virtual void string(std::string_view s) = 0;
  virtual void datetime(const DateTime& dt) = 0;
  /// `base64`.
  virtual void bytes(std::span<const uint8_t> b) = 0;
  /// A whole Value, whatever it holds.
  virtual void value(const Value& v) = 0;

  virtual void begin_array() = 0;
  virtual void end_array() = 0;
  virtual void begin_struct() = 0;
  /// The next member's name; its value follows.
  virtual void member(std::string_view name) = 0;
  virtual void end_struct() = 0;

 protected:
  ValueWriter() = default;
  ValueWriter(const ValueWriter&) = default;
  ValueWriter& operator=(const ValueWriter&) = default;
};

}  // namespace callwire
