#include "xml/result_writer.hpp"

namespace callwire::xml {

using Slot = detail::ValueShape::Slot;

Status ResultWriter::finish() {
  if (shape_.complete()) {
    if (!call_) w_.raw(kResponseEnd);  // a call's ends with its params' array
    return {};
  }
  discard();
  if (shape_.violated()) return shape_.violation();
  return w_.take_error();
}

bool ResultWriter::start_value(bool array) {
  Slot slot = shape_.before_value();
  if (slot == Slot::Root && call_) {
    if (!array || call_->method.empty()) {
      w_.fail(array ? "empty method name" : "a call's params must be an array",
              Errc::InvalidArgument);
      shape_.syntax_failed();
      return false;
    }
    w_.root_start("methodCall");
    w_.raw("<methodName>");
    if (!w_.text(call_->method)) {
      shape_.syntax_failed();
      return false;
    }
    w_.raw("</methodName><params>");
  } else if (slot == Slot::Root) {
    w_.root_start("methodResponse");
    w_.raw("<params><param>");
  } else if (slot != Slot::Refused && in_params()) {
    w_.raw("<param>");
  } else if (slot != Slot::Refused && !w_.between_values()) {
    // Told before each value inside the root, never after the last: an answer that is one
    // long value (a blob) is sent whole, with its length.
    shape_.syntax_failed();
    return false;
  }
  return slot != Slot::Refused;
}

void ResultWriter::end_value() {
  if (shape_.after_value()) w_.raw("</member>");
  if (in_params()) w_.raw("</param>");
}

void ResultWriter::scalar(const Value& v) {
  if (!start_value()) return;
  if (!w_.value(v)) return shape_.syntax_failed();
  end_value();
}

void ResultWriter::nil() { scalar(Value()); }
void ResultWriter::boolean(bool b) { scalar(Value(b)); }
void ResultWriter::int32(int32_t n) { scalar(Value(n)); }
void ResultWriter::int64(int64_t n) { scalar(Value::i8(n)); }
void ResultWriter::real(double d) { scalar(Value(d)); }
void ResultWriter::datetime(const DateTime& dt) { scalar(Value(dt)); }
void ResultWriter::value(const Value& v) { scalar(v); }

void ResultWriter::string(std::string_view s) {
  if (!start_value()) return;
  w_.raw("<value><string>");
  if (!w_.text(s)) return shape_.syntax_failed();
  w_.raw("</string></value>");
  end_value();
}

void ResultWriter::bytes(std::span<const uint8_t> b) {
  const bool root = !shape_.used();  // the answer's value: nothing but its end after it
  // (A call's root is its params' array: a blob in it is no answer's value.)
  if (!start_value()) return;
  if (!w_.bytes(b, root)) return shape_.syntax_failed();
  end_value();
}

void ResultWriter::begin_array() {
  const bool params = call_ && !shape_.used();
  if (!start_value(true)) return;
  if (!params) w_.raw("<value><array><data>");
  shape_.opened_array();
}

void ResultWriter::end_array() {
  const bool params = in_params();
  if (!shape_.close_array()) return;
  w_.raw(params ? std::string_view("</params></methodCall>") : "</data></array></value>");
  end_value();
}

void ResultWriter::begin_struct() {
  if (!start_value()) return;
  w_.raw("<value><struct>");
  shape_.opened_struct();
}

void ResultWriter::member(std::string_view name) {
  if (shape_.member() == Slot::Refused) return;
  w_.raw("<member><name>");
  if (!w_.text(name)) return shape_.syntax_failed();
  w_.raw("</name>");
}

void ResultWriter::end_struct() {
  if (!shape_.close_struct()) return;
  w_.raw("</struct></value>");
  end_value();
}

}  // namespace callwire::xml
