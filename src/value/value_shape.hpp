// Internal: ValueShape, the check that the pieces given to a ValueWriter make exactly one value
// (callwire/value_writer.hpp's contract). Protocol-neutral: each protocol's result writer
// (xml::ResultWriter, json::ResultWriter) owns one, asks it where each piece goes, and writes
// its own syntax for that place.
#pragma once

#include <cstdint>
#include <string>

#include "callwire/error.hpp"

namespace callwire::detail {

/// What is open, and whether the pieces so far are (the start of) one value. After a failure
/// (a piece out of place, or one the writer's syntax could not carry) every piece is refused.
/// Thread-safety: one thread. Allocates nothing for up to 15 levels of nesting.
class ValueShape {
 public:
  /// Where a value or a member goes. Refused: skip the piece. Root: the first piece of the
  /// result (the writer starts its document). First: nothing precedes it in its container (an
  /// array's first element, a struct's first member, a member's value). Later: it follows a
  /// sibling (an element or member after another: where a separator goes).
  enum class Slot : uint8_t { Refused, Root, First, Later };

  /// Before a value (a scalar, or begin_array()/begin_struct()).
  Slot before_value();
  /// After a whole value (a scalar written, or a container closed). Returns true when it was a
  /// member's value (XML closes the member).
  bool after_value();
  /// After before_value() allowed a begin_array() or begin_struct().
  void opened_array() { open_.push_back('a'); }
  void opened_struct() { open_.push_back('s'); }
  /// member(name): First or Later when a struct awaits a member, else Refused.
  Slot member();
  /// end_array()/end_struct(): true when it closes the innermost container (the writer then
  /// writes the end and calls after_value()), else false.
  bool close_array();
  bool close_struct();

  /// The writer could not write a piece (a NaN, a string that is not UTF-8).
  void syntax_failed() noexcept { failed_ = true; }
  /// At the end: true when exactly one whole value was written without failure; else false
  /// (and, when nothing had failed yet, the missing or unfinished value is the violation).
  bool complete();

  /// The first piece was written (the writer's document was started).
  bool used() const noexcept { return used_; }
  /// How many containers are open: 1 inside the root array or struct.
  size_t depth() const noexcept { return open_.size(); }
  /// The failure was the pieces' (not the syntax's): violation() says why.
  bool violated() const noexcept { return violation_ != nullptr; }
  /// Errc::InvalidArgument, "ValueWriter: " and what was out of place.
  Error violation() const;

 private:
  void fail(const char* why);

  // Innermost last: 'a' an array with no element yet, 'A' one with elements, 's' a struct with
  // no member yet, 'S' one awaiting its next member or its end, 'v' one awaiting the value of
  // the member just named.
  std::string open_;
  const char* violation_ = nullptr;
  bool used_ = false;
  bool failed_ = false;
  bool complete_ = false;
};

}  // namespace callwire::detail
