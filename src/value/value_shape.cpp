#include "value/value_shape.hpp"

namespace callwire::detail {

void ValueShape::fail(const char* why) {
  if (!failed_) violation_ = why;
  failed_ = true;
}

Error ValueShape::violation() const {
  return Error(Errc::InvalidArgument, std::string("ValueWriter: ") + violation_);
}

ValueShape::Slot ValueShape::before_value() {
  if (failed_) return Slot::Refused;
  if (open_.empty()) {
    if (complete_) {
      fail("a second value after the result");
      return Slot::Refused;
    }
    used_ = true;
    return Slot::Root;
  }
  switch (open_.back()) {
    case 'a':
      open_.back() = 'A';
      return Slot::First;
    case 'A':
      return Slot::Later;
    case 'v':
      return Slot::First;
    default:  // 's' or 'S': a struct awaiting a name
      fail("a value in a struct without member() first");
      return Slot::Refused;
  }
}

bool ValueShape::after_value() {
  if (open_.empty()) {
    complete_ = true;
    return false;
  }
  if (open_.back() != 'v') return false;
  open_.back() = 'S';
  return true;
}

ValueShape::Slot ValueShape::member() {
  if (failed_) return Slot::Refused;
  const char top = open_.empty() ? 'a' : open_.back();
  if (top == 'a' || top == 'A') {
    fail("member() outside a struct");
    return Slot::Refused;
  }
  if (top == 'v') {
    fail("member() before the previous member's value");
    return Slot::Refused;
  }
  open_.back() = 'v';
  return top == 's' ? Slot::First : Slot::Later;
}

bool ValueShape::close_array() {
  if (failed_) return false;
  if (open_.empty() || (open_.back() != 'a' && open_.back() != 'A')) {
    fail("end_array() without begin_array()");
    return false;
  }
  open_.pop_back();
  return true;
}

bool ValueShape::close_struct() {
  if (failed_) return false;
  if (open_.empty() || open_.back() == 'a' || open_.back() == 'A') {
    fail("end_struct() without begin_struct()");
    return false;
  }
  if (open_.back() == 'v') {
    fail("end_struct() with the last member's value missing");
    return false;
  }
  open_.pop_back();
  return true;
}

bool ValueShape::complete() {
  if (!failed_ && !complete_)
    fail(used_ ? "the result was left unfinished" : "no result was written");
  return !failed_;
}

}  // namespace callwire::detail
