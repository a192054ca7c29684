#include "xml/result_writer.hpp"

namespace callwire::xml {

using Slot = detail::ValueShape::Slot;

Status ResultWriter::finish() {
  if (shape_.complete()) {
    w_.raw(kResponseEnd);
    return {};
  }
  discard();
  if (shape_.violated()) return shape_.violation();
  return w_.take_error();
}

bool ResultWriter::start_value() {
  Slot slot = shape_.before_value();
  if (slot == Slot::Root) {
    w_.root_start("methodResponse");
    w_.raw("<params><param>");
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
  if (!start_value()) return;
  if (!w_.bytes(b, root)) return shape_.syntax_failed();
  end_value();
}

void ResultWriter::begin_array() {
  if (!start_value()) return;
  w_.raw("<value><array><data>");
  shape_.opened_array();
}

void ResultWriter::end_array() {
  if (!shape_.close_array()) return;
  w_.raw("</data></array></value>");
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
