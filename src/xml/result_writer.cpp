#include "xml/result_writer.hpp"

namespace callwire::xml {

Status ResultWriter::finish() {
  if (!failed_ && !complete_) fail(used_ ? "the result was left unfinished" : "no result was written");
  if (failed_) {
    discard();
    return w_.take_error();
  }
  w_.raw("</param></params></methodResponse>");
  return {};
}

void ResultWriter::fail(const char* message) {
  if (!failed_) w_.fail(std::string("ValueWriter: ") + message, Errc::InvalidArgument);
  failed_ = true;
}

bool ResultWriter::before_value() {
  if (failed_) return false;
  if (open_.empty()) {
    if (complete_) {
      fail("a second value after the result");
      return false;
    }
    used_ = true;
    w_.root_start("methodResponse");
    w_.raw("<params><param>");
    return true;
  }
  if (open_.back() == 'm') {
    fail("a value in a struct without member() first");
    return false;
  }
  return true;
}

void ResultWriter::after_value() {
  if (open_.empty()) {
    complete_ = true;
  } else if (open_.back() == 'v') {
    w_.raw("</member>");
    open_.back() = 'm';
  }
}

void ResultWriter::scalar(const Value& v) {
  if (!before_value()) return;
  if (!w_.value(v)) {
    failed_ = true;
    return;
  }
  after_value();
}

void ResultWriter::nil() { scalar(Value()); }
void ResultWriter::boolean(bool b) { scalar(Value(b)); }
void ResultWriter::int32(int32_t n) { scalar(Value(n)); }
void ResultWriter::int64(int64_t n) { scalar(Value::i8(n)); }
void ResultWriter::real(double d) { scalar(Value(d)); }
void ResultWriter::datetime(const DateTime& dt) { scalar(Value(dt)); }
void ResultWriter::value(const Value& v) { scalar(v); }

void ResultWriter::string(std::string_view s) {
  if (!before_value()) return;
  w_.raw("<value><string>");
  if (!w_.text(s)) {
    failed_ = true;
    return;
  }
  w_.raw("</string></value>");
  after_value();
}

void ResultWriter::bytes(std::span<const uint8_t> b) {
  if (!before_value()) return;
  w_.bytes(b);
  after_value();
}

void ResultWriter::begin_array() {
  if (!before_value()) return;
  w_.raw("<value><array><data>");
  open_.push_back('a');
}

void ResultWriter::end_array() {
  if (failed_) return;
  if (open_.empty() || open_.back() != 'a') return fail("end_array() without begin_array()");
  w_.raw("</data></array></value>");
  open_.pop_back();
  after_value();
}

void ResultWriter::begin_struct() {
  if (!before_value()) return;
  w_.raw("<value><struct>");
  open_.push_back('m');
}

void ResultWriter::member(std::string_view name) {
  if (failed_) return;
  if (open_.empty() || open_.back() == 'a') return fail("member() outside a struct");
  if (open_.back() == 'v') return fail("member() before the previous member's value");
  w_.raw("<member><name>");
  if (!w_.text(name)) {
    failed_ = true;
    return;
  }
  w_.raw("</name>");
  open_.back() = 'v';
}

void ResultWriter::end_struct() {
  if (failed_) return;
  if (open_.empty() || open_.back() == 'a') return fail("end_struct() without begin_struct()");
  if (open_.back() == 'v') return fail("end_struct() with the last member's value missing");
  w_.raw("</struct></value>");
  open_.pop_back();
  after_value();
}

}  // namespace callwire::xml
