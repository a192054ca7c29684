// ValueReader over a Value tree (TreeReader), and the destructors of the reader interfaces.
#include "callwire/value_reader.hpp"

#include "base/assign_text.hpp"
#include "base/base64.hpp"

namespace callwire {

ValueReader::~ValueReader() = default;
ValueSink::~ValueSink() = default;

Result<bool> ValueReader::read_string_elements(std::vector<std::string>&) {
  Result<bool> more = next_element();
  if (!more) return more.error();
  return !*more;
}

Status bytes_from_text(std::string_view text, std::vector<uint8_t>& out) {
  out.resize(base64::max_decoded_size(text.size()));
  size_t error_at = 0;
  long n = base64::decode(text, out.data(), error_at);
  if (n < 0) {
    out.clear();
    return Error(Errc::TypeMismatch, "must be base64, got a string that is not base64 (at byte " +
                                         std::to_string(error_at) + ")");
  }
  out.resize(size_t(n));
  return {};
}

TreeReader::TreeReader(const Value& value, bool strings_for_bytes_and_times) noexcept
    : current_(&value), text_types_(strings_for_bytes_and_times) {}
TreeReader::~TreeReader() = default;

Status TreeReader::misuse(const char* what) const {
  std::string m = what;
  if (current_) {
    m += ", the value is ";
    m += type_name(current_->type());
  } else {
    m += ", no value is before the reader";
  }
  return Error(Errc::InvalidArgument, std::move(m));
}

Result<Type> TreeReader::peek() {
  if (!current_) return misuse("peek()").error();
  return current_->type();
}

Status TreeReader::read(Value& out) {
  if (!current_) return misuse("read()");
  out = *current_;
  current_ = nullptr;
  return {};
}

Status TreeReader::read_string(std::string& out) {
  if (!current_ || !current_->is_string()) return misuse("read_string() needs a string");
  out.assign(current_->as_string());
  current_ = nullptr;
  return {};
}

Status TreeReader::read_bytes(std::vector<uint8_t>& out) {
  if (current_ && current_->is_string() && text_types_) {
    Status s = bytes_from_text(current_->as_string(), out);
    current_ = nullptr;
    return s;
  }
  if (!current_ || !current_->is_bytes()) return misuse("read_bytes() needs base64");
  std::span<const uint8_t> b = current_->as_bytes();
  out.assign(b.begin(), b.end());
  current_ = nullptr;
  return {};
}

Status TreeReader::enter_array() {
  if (!current_ || !current_->is_array()) return misuse("enter_array() needs an array");
  frames_.push_back({current_, 0});
  current_ = nullptr;
  return {};
}

Result<bool> TreeReader::next_element() {
  if (frames_.empty() || !frames_.back().container->is_array())
    return Error(Errc::InvalidArgument, "next_element() outside an array");
  Frame& f = frames_.back();
  std::span<const Value> items = f.container->as_array();
  if (f.next == items.size()) {
    frames_.pop_back();
    current_ = nullptr;
    return false;
  }
  current_ = &items[f.next++];
  return true;
}

Result<bool> TreeReader::read_string_elements(std::vector<std::string>& out) {
  if (frames_.empty() || !frames_.back().container->is_array())
    return Error(Errc::InvalidArgument, "read_string_elements() outside an array");
  Frame& f = frames_.back();
  std::span<const Value> items = f.container->as_array();
  size_t strings = f.next;
  while (strings < items.size() && items[strings].is_string()) ++strings;
  reserve_more(out, strings - f.next);
  for (; f.next < strings; ++f.next) out.emplace_back(items[f.next].as_string());
  return ValueReader::read_string_elements(out);  // the step past what stopped the run
}

Status TreeReader::enter_struct() {
  if (!current_ || !current_->is_struct()) return misuse("enter_struct() needs a struct");
  frames_.push_back({current_, 0});
  current_ = nullptr;
  return {};
}

Result<bool> TreeReader::next_member(std::string_view& name) {
  if (frames_.empty() || !frames_.back().container->is_struct())
    return Error(Errc::InvalidArgument, "next_member() outside a struct");
  Frame& f = frames_.back();
  std::span<const Member> members = f.container->members();
  if (f.next == members.size()) {
    frames_.pop_back();
    current_ = nullptr;
    return false;
  }
  const Member& m = members[f.next++];
  name = m.name();
  current_ = &m.value();
  return true;
}

}  // namespace callwire
