// A JSON-RPC response's result read straight into a typed call's C++ type: a ValueReader over
// simdjson's On Demand iterators, driven by the ValueSink (Reader::read_response with a sink).
//
// The walk's rules are the Value path's (reader_impl.hpp): the same limits, counted the same
// way; what the sink leaves unread is walked all the same, so invalid JSON anywhere still fails
// the document; a number no Value holds, or a repeated member name, is a `soft` error of the
// response (and the sink's read of it fails).
#include <algorithm>
#include <cstdint>
#include <new>
#include <type_traits>

#include "base/assign_text.hpp"
#include "json/reader_impl.hpp"

namespace callwire::json {

namespace {

class ResultReader final : public ValueReader {
 public:
  ResultReader(ReaderImpl& walk, od::value& value) : walk_(walk), current_(&value) {}

  bool strings_stand_for_bytes_and_times() const noexcept override { return true; }

  Result<Type> peek() override {
    if (Status s = before_value("peek()"); !s) return s.error();
    od::json_type type;
    if (!current_type(type)) return walk_.hard;
    switch (type) {
      case od::json_type::array:
        return Type::Array;
      case od::json_type::object:
        return Type::Struct;
      case od::json_type::string:
        return Type::String;
      case od::json_type::boolean:
        return Type::Boolean;
      case od::json_type::null:
        return Type::Nil;
      case od::json_type::number:
        return number_type();
    }
    return syntax(simdjson::INCORRECT_TYPE).error();
  }

  Status read(Value& out) override {
    if (Status s = before_value("read()"); !s) return s;
    od::json_type type;
    if (!current_type(type)) return walk_.hard;
    has_current_ = false;
    if (!walk_.value(*current_, type, out)) return walk_.hard;
    if (walk_.soft.code != Errc::Ok) {  // kept: it is also the response's error
      out = Value();
      return walk_.soft;
    }
    return {};
  }

  Status read_string(std::string& out) override {
    std::string_view text;
    if (Status s = string_text("read_string() needs a string", text); !s) return s;
    assign_text(out, text);
    return {};
  }

  Status read_bytes(std::vector<uint8_t>& out) override {
    std::string_view text;
    if (Status s = string_text("read_bytes() needs a base64 string", text); !s) return s;
    return bytes_from_text(text, out);
  }

  Status enter_array() override {
    if (Status s = enter(od::json_type::array, "enter_array() needs an array"); !s) return s;
    Frame& f = frames_.back();
    if (auto e = current_->get_array().get(f.array)) return syntax(e);
    if (auto e = f.array.begin().get(f.elements)) return syntax(e);
    if (auto e = f.array.end().get(f.elements_end)) return syntax(e);
    return {};
  }

  Result<bool> next_element() override {
    if (failed()) return walk_.hard;
    if (frames_.empty() || frames_.back().is_struct)
      return Error(Errc::InvalidArgument, "next_element() outside an array");
    Frame& f = frames_.back();
    if (!leave_current()) return walk_.hard;
    if (f.started) ++f.elements;
    f.started = true;
    if (!(f.elements != f.elements_end)) return close();
    current_ = arrived_from(element_, f.elements);
    if (!current_) return syntax(element_.error()).error();
    type_known_ = false;
    if (!walk_.count_element()) return walk_.hard;
    has_current_ = true;
    return true;
  }

  // next_element()'s steps and read_string()'s in one loop; the texts (valid while the
  // document is read) gathered first so `out` grows once.
  Result<bool> read_string_elements(std::vector<std::string>& out) override {
    if (failed()) return walk_.hard;
    if (frames_.empty() || frames_.back().is_struct)
      return Error(Errc::InvalidArgument, "read_string_elements() outside an array");
    if (!leave_current()) return walk_.hard;
    Frame& f = frames_.back();
    TextBatch texts(out);
    bool ended = false;
    for (;;) {
      if (f.started) ++f.elements;
      f.started = true;
      if (!(f.elements != f.elements_end)) {
        ended = true;
        break;
      }
      current_ = arrived_from(element_, f.elements);
      if (!current_) return syntax(element_.error()).error();
      type_known_ = false;
      if (!walk_.count_element()) return walk_.hard;
      has_current_ = true;
      od::json_type type;
      if (!current_type(type)) return walk_.hard;
      if (type != od::json_type::string) break;  // before the reader, for the caller
      has_current_ = false;
      std::string_view text;
      if (!walk_.string_text(*current_, text)) return walk_.hard;
      texts.add(text);
    }
    texts.flush();
    if (ended) close();
    return ended;
  }

  Status enter_struct() override {
    if (Status s = enter(od::json_type::object, "enter_struct() needs a struct"); !s) return s;
    Frame& f = frames_.back();
    if (auto e = current_->get_object().get(f.object)) return syntax(e);
    if (auto e = f.object.begin().get(f.members)) return syntax(e);
    if (auto e = f.object.end().get(f.members_end)) return syntax(e);
    return {};
  }

  Result<bool> next_member(std::string_view& name) override {
    if (failed()) return walk_.hard;
    if (frames_.empty() || !frames_.back().is_struct)
      return Error(Errc::InvalidArgument, "next_member() outside a struct");
    Frame& f = frames_.back();
    if (!leave_current()) return walk_.hard;
    if (f.started) ++f.members;
    f.started = true;
    if (!(f.members != f.members_end)) {
      if (f.may_repeat && repeats_a_name(f.names_from)) {
        walk_.soft_error(Errc::InvalidRequest, kInvalidRequest, "an object repeats a member name");
        close();
        return walk_.soft;
      }
      return close();
    }
    od::field* field = arrived_from(member_, f.members);
    if (!field) return syntax(member_.error()).error();
    std::string_view key;  // a local: `name` would be stored and loaded back whole
    if (!walk_.key(*field, key) || !walk_.count_element() || !walk_.check_string(key))
      return walk_.hard;
    const uint64_t bit = uint64_t{1} << name_bit(key);
    if (f.name_bits & bit) f.may_repeat = true;  // perhaps: the names are compared at the end
    f.name_bits |= bit;
    names_.push_back(key);  // in the document or simdjson's string buffer: lives as long
    name = key;
    current_ = &field->value();
    type_known_ = false;
    has_current_ = true;
    return true;
  }

  // After the sink: walks whatever it left of the result (the value before the reader, then
  // the rest of every container still open), so that the whole document is checked.
  bool finish() {
    while (!failed() && !frames_.empty()) {
      std::string_view name;
      Result<bool> more = frames_.back().is_struct ? next_member(name) : next_element();
      if (!more && failed()) return false;
    }
    return !failed() && leave_current();
  }

 private:
  struct Frame {
    bool is_struct = false;
    bool started = false;     // the iterator stands on an element or member already given out
    size_t names_from = 0;    // this struct's member names in names_
    uint64_t name_bits = 0;   // a bit for each name's name_bit so far
    bool may_repeat = false;  // two names had the same bit: they may be one name twice
    od::array array;
    od::array_iterator elements, elements_end;
    od::object object;
    od::object_iterator members, members_end;
  };

  bool failed() const noexcept { return walk_.hard.code != Errc::Ok; }

  // The element or member an iterator gives, constructed where it is kept (the result of `*it`
  // initialises `slot` itself), or null on an error: ReaderImpl::in_place's reason (a third of
  // next_member's time went to three copies).
  template <class T, class Iterator>
  static T* arrived_from(simdjson::simdjson_result<T>& slot, Iterator& it) {
    static_assert(std::is_trivially_destructible_v<simdjson::simdjson_result<T>>);
    ::new (static_cast<void*>(&slot)) simdjson::simdjson_result<T>(*it);
    return ReaderImpl::in_place(slot);
  }

  // The JSON type of the value before the reader, asked of simdjson once per value (a typed
  // read peeks, then reads: two asks otherwise).
  bool current_type(od::json_type& type) {
    if (!type_known_) {
      if (auto e = current_->type().get(current_type_)) return walk_.syntax(e);
      type_known_ = true;
    }
    type = current_type_;
    return true;
  }

  Status syntax(simdjson::error_code e) {
    walk_.syntax(e);
    return walk_.hard;
  }

  // Every read that needs a value before the reader: the document's error first, then misuse.
  // The test inline (every value passes it), the refusal out of line.
  [[gnu::always_inline]] Status before_value(const char* what) const {
    if (failed() || !has_current_) [[unlikely]]
      return no_value(what);
    return {};
  }
  [[gnu::noinline]] Status no_value(const char* what) const {
    if (failed()) return walk_.hard;
    return Error(Errc::InvalidArgument, std::string(what) + ", no value is before the reader");
  }

  Result<Type> number_type() {
    int64_t n = 0;
    bool fits = false;
    std::string_view text = ReaderImpl::raw_token(*current_);
    switch (scan_number(text, n, fits)) {
      case Number::Invalid:
        break;
      case Number::Integer:
        // Beyond 64 bits: read() reports it, as the Value path does.
        if (!fits) return Type::I8;
        return n >= INT32_MIN && n <= INT32_MAX ? Type::Int : Type::I8;
      case Number::Float:
        return Type::Double;
    }
    return syntax(simdjson::NUMBER_ERROR).error();
  }

  [[gnu::always_inline]] Status string_text(const char* misuse, std::string_view& text) {
    if (Status s = before_value(misuse); !s) return s;
    od::json_type type;
    if (!current_type(type)) return walk_.hard;
    if (type != od::json_type::string) return Error(Errc::InvalidArgument, misuse);
    has_current_ = false;
    if (!walk_.string_text(*current_, text)) return walk_.hard;
    return {};
  }

  // A new frame for the container before the reader, within the depth limit.
  Status enter(od::json_type wanted, const char* misuse) {
    if (Status s = before_value(misuse); !s) return s;
    od::json_type type;
    if (!current_type(type)) return walk_.hard;
    if (type != wanted) return Error(Errc::InvalidArgument, misuse);
    if (!walk_.go_deeper()) return walk_.hard;
    has_current_ = false;
    Frame& f = frames_.emplace_back();
    f.is_struct = wanted == od::json_type::object;
    f.names_from = names_.size();
    return {};
  }

  // The value before the reader, walked when it was left unread.
  bool leave_current() {
    if (!has_current_) return true;
    has_current_ = false;
    return walk_.skip(*current_);
  }

  bool close() {
    names_.resize(frames_.back().names_from);
    frames_.pop_back();
    --walk_.depth;
    return false;
  }

  // One of 64 bits for a member name, from its size and its first and last bytes: the names
  // of a struct compared only when two of them share one (the compares of every pair were 2%
  // of a typed read). A crafted document that makes them all share one pays the compares.
  static unsigned name_bit(std::string_view name) noexcept {
    if (name.empty()) return 0;
    return (unsigned(name.size()) * 7 + static_cast<unsigned char>(name.front()) +
            static_cast<unsigned char>(name.back()) * 3) &
           63;
  }

  // Whether the names from `from` on repeat one: a Value's struct refuses that, so this does.
  bool repeats_a_name(size_t from) {
    std::span<std::string_view> names(names_.data() + from, names_.size() - from);
    if (names.size() <= 16) {
      for (size_t i = 1; i < names.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (names[i] == names[j]) return true;
      return false;
    }
    std::sort(names.begin(), names.end());  // no hashing: no flooding
    return std::adjacent_find(names.begin(), names.end()) != names.end();
  }

  ReaderImpl& walk_;
  od::value* current_;  // the value before the reader: the result's, or in element_ or member_
  simdjson::simdjson_result<od::value> element_;  // the array element given out last
  simdjson::simdjson_result<od::field> member_;   // the struct member given out last
  bool has_current_ = true;
  bool type_known_ = false;  // current_type_ is current_'s
  od::json_type current_type_{};
  std::vector<Frame> frames_;
  std::vector<std::string_view> names_;  // the member names of the structs open
};

}  // namespace

bool ReaderImpl::sink_result(od::value& v) {
  ResultReader reader(*this, v);
  Status read = result_sink->read(reader);
  if (hard.code != Errc::Ok) return false;
  if (!reader.finish()) return false;
  *sink_status = std::move(read);
  return true;
}

}  // namespace callwire::json
