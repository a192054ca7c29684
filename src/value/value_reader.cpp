// ValueReader over a Value tree (TreeReader), and the destructors of the reader interfaces.
#include "callwire/value_reader.hpp"

namespace callwire {

ValueReader::~ValueReader() = default;
ValueSink::~ValueSink() = default;

TreeReader::TreeReader(const Value& value) noexcept : current_(&value) {}
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
