#include "json/result_writer.hpp"

namespace callwire::json {

using Slot = detail::ValueShape::Slot;

Status ResultWriter::finish() {
  if (shape_.complete()) {
    if (call_ && id_.empty()) {
      w_.raw("}");
    } else {
      w_.id_and_close(id_);
    }
    if (batch_) ++batch_->count_;
    return {};
  }
  discard();
  if (shape_.violated()) return shape_.violation();
  return w_.error();
}

bool ResultWriter::start_value() {
  switch (shape_.before_value()) {
    case Slot::Refused:
      return false;
    case Slot::Root:
      if (batch_) batch_->separate();
      w_.raw(kVersion);
      if (!call_) {
        w_.raw("\"result\":");
        return true;
      }
      w_.raw("\"method\":");
      if (!w_.string(call_->method)) {
        shape_.syntax_failed();
        return false;
      }
      w_.raw(",\"params\":");
      return true;
    case Slot::Later:
      w_.put(',');
      return true;
    case Slot::First:
      return true;
  }
  return false;
}

template <class Write>
void ResultWriter::scalar(Write write) {
  if (!start_value()) return;
  if (!write()) return shape_.syntax_failed();
  shape_.after_value();
}

void ResultWriter::nil() {
  scalar([&] {
    w_.raw("null");
    return true;
  });
}

void ResultWriter::boolean(bool b) {
  scalar([&] {
    w_.raw(b ? "true" : "false");
    return true;
  });
}

void ResultWriter::int32(int32_t n) {
  scalar([&] {
    w_.integer(n);
    return true;
  });
}

void ResultWriter::int64(int64_t n) {
  scalar([&] {
    w_.integer(n);
    return true;
  });
}

void ResultWriter::bytes(std::span<const uint8_t> b) {
  scalar([&] {
    w_.bytes(b);
    return true;
  });
}

void ResultWriter::real(double d) {
  scalar([&] { return w_.real(d); });
}

void ResultWriter::string(std::string_view s) {
  scalar([&] { return w_.string(s); });
}

void ResultWriter::datetime(const DateTime& dt) {
  scalar([&] { return w_.datetime(dt); });
}

void ResultWriter::value(const Value& v) {
  scalar([&] { return w_.value(v); });
}

void ResultWriter::begin_array() {
  if (!start_value()) return;
  w_.put('[');
  shape_.opened_array();
}

void ResultWriter::end_array() {
  if (!shape_.close_array()) return;
  w_.put(']');
  shape_.after_value();
}

void ResultWriter::begin_struct() {
  if (!start_value()) return;
  w_.put('{');
  shape_.opened_struct();
}

void ResultWriter::member(std::string_view name) {
  Slot slot = shape_.member();
  if (slot == Slot::Refused) return;
  if (slot == Slot::Later) w_.put(',');
  if (!w_.string(name)) return shape_.syntax_failed();
  w_.put(':');
}

void ResultWriter::end_struct() {
  if (!shape_.close_struct()) return;
  w_.put('}');
  shape_.after_value();
}

}  // namespace callwire::json
