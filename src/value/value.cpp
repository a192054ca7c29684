#include "callwire/value.hpp"

#include <cmath>
#include <cstdlib>
#include <new>
#include <string>

#include "callwire/value_writer.hpp"
#include "value/value_build.hpp"

namespace callwire {

ValueWriter::~ValueWriter() = default;

using detail::ArrayHeader;
using detail::StructHeader;

namespace {

[[noreturn]] void throw_error(Errc code, std::string message) {
  throw Exception(Error(code, std::move(message)));
}

[[noreturn]] void throw_type(Type expected, Type got) {
  throw_error(Errc::TypeMismatch,
              std::string("expected ") + type_name(expected) + ", got " + type_name(got));
}

Value* array_items(ArrayHeader* h) noexcept { return reinterpret_cast<Value*>(h + 1); }
Member* struct_members(StructHeader* h) noexcept { return reinterpret_cast<Member*>(h + 1); }
uint32_t* struct_index(StructHeader* h) noexcept {
  return reinterpret_cast<uint32_t*>(struct_members(h) + h->capacity);
}

uint32_t index_slots_for(uint32_t capacity) noexcept {
  if (capacity <= detail::kIndexThreshold) return 0;
  uint32_t slots = 16;
  while (slots < capacity * 2) slots *= 2;
  return slots;
}

size_t struct_block_size(uint32_t capacity) noexcept {
  return sizeof(StructHeader) + capacity * sizeof(Member) +
         index_slots_for(capacity) * sizeof(uint32_t);
}

// Finds `name` in a struct block: its position, or -1.
long struct_lookup(StructHeader* h, std::string_view name) noexcept {
  if (!h) return -1;
  Member* members = struct_members(h);
  if (h->index_slots == 0) {
    for (uint32_t i = 0; i < h->size; ++i)
      if (members[i].name() == name) return i;
    return -1;
  }
  uint32_t mask = h->index_slots - 1;
  uint32_t* index = struct_index(h);
  for (uint32_t slot = detail::hash_name(name) & mask;; slot = (slot + 1) & mask) {
    uint32_t entry = index[slot];
    if (entry == 0) return -1;
    if (members[entry - 1].name() == name) return entry - 1;
  }
}

void index_insert(StructHeader* h, uint32_t position) noexcept {
  uint32_t mask = h->index_slots - 1;
  uint32_t* index = struct_index(h);
  uint32_t slot = detail::hash_name(struct_members(h)[position].name()) & mask;
  while (index[slot] != 0) slot = (slot + 1) & mask;
  index[slot] = position + 1;
}

void rebuild_index(StructHeader* h) noexcept {
  h->index_slots = index_slots_for(h->capacity);
  if (h->index_slots == 0) return;
  std::memset(struct_index(h), 0, h->index_slots * sizeof(uint32_t));
  for (uint32_t i = 0; i < h->size; ++i) index_insert(h, i);
}

StructHeader* new_struct_block(uint32_t capacity) {
  auto* h = static_cast<StructHeader*>(detail::value_alloc(struct_block_size(capacity)));
  h->size = 0;
  h->capacity = capacity;
  h->index_slots = index_slots_for(capacity);
  h->unused = 0;
  if (h->index_slots) std::memset(struct_index(h), 0, h->index_slots * sizeof(uint32_t));
  return h;
}

// An empty array or struct: no block until the first element.
void make_empty_container(unsigned char* raw, Type type) {
  raw[0] = static_cast<unsigned char>(type);
  void* null = nullptr;
  std::memcpy(raw + 8, &null, sizeof null);
}

uint32_t checked_capacity(size_t n) {
  if (n > UINT32_MAX / 2) throw std::bad_alloc();
  return static_cast<uint32_t>(n);
}

}  // namespace

const char* type_name(Type type) noexcept {
  switch (type) {
    case Type::Nil:
      return "nil";
    case Type::Boolean:
      return "boolean";
    case Type::Int:
      return "int";
    case Type::I8:
      return "i8";
    case Type::Double:
      return "double";
    case Type::String:
      return "string";
    case Type::DateTime:
      return "dateTime.iso8601";
    case Type::Bytes:
      return "base64";
    case Type::Array:
      return "array";
    case Type::Struct:
      return "struct";
  }
  return "unknown";
}

// ---- construction and lifetime ----

void Value::throw_unrepresentable_integer() {
  throw_error(Errc::Unrepresentable, "integer above INT64_MAX cannot be an i8");
}

namespace {
template <class Word>
[[gnu::always_inline]] inline uint64_t load_at(const char* p) noexcept {
  Word w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// The first `n` bytes at `p` (n <= 8) as the low bytes of a word, the rest zero: overlapping
// loads within the n bytes, no call and no byte loop.
[[gnu::always_inline]] inline uint64_t load_short(const char* p, size_t n) noexcept {
  if (n >= 8) return load_at<uint64_t>(p);
  if (n >= 4) return load_at<uint32_t>(p) | load_at<uint32_t>(p + n - 4) << (8 * (n - 4));
  if (n == 0) return 0;
  return load_at<uint8_t>(p) | load_at<uint8_t>(p + n / 2) << (8 * (n / 2)) |
         load_at<uint8_t>(p + n - 1) << (8 * (n - 1));
}

// A text too long for the Value itself, in a block.
[[gnu::noinline]] void set_block_text(Value& out, Type type, const char* data, size_t size) {
  char* dst = ValueAccess::make_block_text(out, type, size);
  std::memcpy(dst, data, size);
}
}  // namespace

void Value::set_text(Type type, const char* data, size_t size) {
  if (size <= detail::kInlineTextMax) {
    // Most texts of a decoded document (member names, short strings) are this short: the 16
    // bytes are built in two words and stored once, where make_text and memcpy cost two calls.
    // The unused bytes stay zero, as make_text leaves them.
    // Bytes 0-5 of the text go after the type and length (a longer load's bytes 6 and 7 fall
    // off the shift), bytes 6-13 into the second word.
    const uint64_t head = load_short(data, size < 8 ? size : 8);
    uint64_t tail = 0;
    if (size >= 8)
      tail = load_short(data + size - 8, 8) >> (8 * (14 - size));
    else if (size > 6)
      tail = load_short(data + 6, size - 6);
    const uint64_t first =
        uint64_t(static_cast<unsigned char>(type)) | uint64_t(size + 1) << 8 | head << 16;
    std::memcpy(raw_, &first, 8);
    std::memcpy(raw_ + 8, &tail, 8);
    return;
  }
  set_block_text(*this, type, data, size);  // a tail call: this stays a leaf, with no frame
}

char* ValueAccess::make_text(Value& out, Type type, size_t size) {
  out.raw_[0] = static_cast<unsigned char>(type);
  if (size <= detail::kInlineTextMax) {
    // Unused inline bytes are zero, so equal short texts have equal raw bytes (make_struct).
    std::memset(out.raw_ + 1, 0, sizeof out.raw_ - 1);
    out.raw_[1] = static_cast<unsigned char>(size + 1);
    return reinterpret_cast<char*>(out.raw_ + 2);
  }
  return make_block_text(out, type, size);
}

char* ValueAccess::make_block_text(Value& out, Type type, size_t size) {
  out.raw_[0] = static_cast<unsigned char>(Type::Nil);  // stays nil if the allocation throws
  const size_t block_size = sizeof(size_t) + size + 1;  // + 1: the NUL after the text
  const bool mapped = detail::value_text_mapped(block_size);
  char* block = static_cast<char*>(mapped ? detail::value_map_text(block_size)
                                          : detail::value_alloc(block_size));
  std::memcpy(block, &size, sizeof size);
  out.raw_[0] = static_cast<unsigned char>(type);
  out.raw_[1] = 0;
  out.raw_[2] = mapped ? 1 : 0;
  std::memcpy(out.raw_ + 8, &block, sizeof block);
  char* text = block + sizeof(size_t);
  text[size] = '\0';
  return text;
}

uint64_t detail::struct_index_probes(const Value& v) noexcept {
  if (v.type() != Type::Struct) return 0;
  auto* h = static_cast<StructHeader*>(ValueAccess::pointer(v));
  if (!h || h->index_slots == 0) return 0;
  uint32_t mask = h->index_slots - 1;
  const uint32_t* index = struct_index(h);
  uint64_t probes = 0;
  for (uint32_t slot = 0; slot < h->index_slots; ++slot) {
    if (index[slot] == 0) continue;
    uint32_t home = detail::hash_name(struct_members(h)[index[slot] - 1].name()) & mask;
    probes += ((slot - home) & mask) + 1;  // its distance from its home slot, plus the hit
  }
  return probes;
}

void ValueAccess::make_array(Value& out, Value* items, size_t count) {
  make_empty_container(out.raw_, Type::Array);
  if (count == 0) return;
  uint32_t cap = checked_capacity(count);
  out.raw_[0] = static_cast<unsigned char>(Type::Nil);
  auto* h =
      static_cast<ArrayHeader*>(detail::value_alloc(sizeof(ArrayHeader) + cap * sizeof(Value)));
  h->size = cap;
  h->capacity = cap;
  std::memcpy(static_cast<void*>(array_items(h)), items, count * sizeof(Value));
  for (size_t i = 0; i < count; ++i) items[i].raw_[0] = static_cast<unsigned char>(Type::Nil);
  out.raw_[0] = static_cast<unsigned char>(Type::Array);
  std::memcpy(out.raw_ + 8, &h, sizeof h);
}

void ValueAccess::make_struct(Value& out, Value* pairs, size_t count) {
  make_empty_container(out.raw_, Type::Struct);
  if (count == 0) return;
  out.raw_[0] = static_cast<unsigned char>(Type::Nil);
  StructHeader* h = new_struct_block(checked_capacity(count));
  Member* members = struct_members(h);
  // A bit per short name seen, from a hash of its 16 raw bytes: a name whose bit is not set
  // yet is new, which one test says for most members, where comparing it with every member
  // before it was half of building a small struct.
  uint64_t seen = 0;
  for (size_t i = 0; i < count; ++i) {
    Value& name = pairs[2 * i];
    Value& value = pairs[2 * i + 1];
    long existing = -1;
    if (h->index_slots == 0 && name.raw_[1] != 0) {
      uint64_t w0, w1;
      std::memcpy(&w0, name.raw_, 8);
      std::memcpy(&w1, name.raw_ + 8, 8);
      const uint64_t bit = uint64_t{1}
                           << (((w0 ^ (w1 * 0x9e3779b97f4a7c15ull)) * 0xbf58476d1ce4e5b9ull) >> 58);
      // Short names (most of them): compare the 16 raw bytes, zero-padded by make_text.
      if (seen & bit) {
        for (uint32_t k = 0; k < h->size; ++k)
          if (std::memcmp(members[k].name_.raw_, name.raw_, sizeof name.raw_) == 0) {
            existing = k;
            break;
          }
      }
      seen |= bit;
    } else {
      existing = struct_lookup(h, name.text_view());
    }
    if (existing >= 0) {  // a repeated name: first position, last value
      members[existing].value_ = std::move(value);
      name = Value();
      continue;
    }
    Member* m = members + h->size;
    std::memcpy(static_cast<void*>(m), pairs + 2 * i, 2 * sizeof(Value));
    name.raw_[0] = value.raw_[0] = static_cast<unsigned char>(Type::Nil);
    if (h->index_slots) index_insert(h, h->size);
    ++h->size;
  }
  out.raw_[0] = static_cast<unsigned char>(Type::Struct);
  std::memcpy(out.raw_ + 8, &h, sizeof h);
}

Value Value::bytes(const void* data, size_t size) {
  Value v;
  v.set_text(Type::Bytes, static_cast<const char*>(data), size);
  return v;
}

Value Value::array(std::initializer_list<Value> items) {
  Value v;
  make_empty_container(v.raw_, Type::Array);
  v.reserve(items.size());
  for (const Value& item : items) v.push_back(item);
  return v;
}

Value Value::structure(std::initializer_list<std::pair<std::string_view, Value>> members) {
  Value v;
  make_empty_container(v.raw_, Type::Struct);
  v.reserve(members.size());
  for (const auto& [name, value] : members) v.set(name, value);
  return v;
}

Value::Value(const Value& other) {
  raw_[0] = static_cast<unsigned char>(Type::Nil);
  switch (other.type()) {
    case Type::String:
    case Type::Bytes:
      if (other.raw_[1] == 0) {
        std::string_view t = other.text_view();
        set_text(other.type(), t.data(), t.size());
        return;
      }
      break;
    case Type::Array: {
      auto* src = static_cast<ArrayHeader*>(ValueAccess::pointer(other));
      if (src && src->size) {
        auto* h = static_cast<ArrayHeader*>(
            detail::value_alloc(sizeof(ArrayHeader) + src->size * sizeof(Value)));
        h->capacity = src->size;
        h->size = 0;
        try {
          for (; h->size < src->size; ++h->size)
            new (array_items(h) + h->size) Value(array_items(src)[h->size]);
        } catch (...) {
          for (uint32_t i = 0; i < h->size; ++i) array_items(h)[i].~Value();
          detail::value_free(h);
          throw;
        }
        raw_[0] = static_cast<unsigned char>(Type::Array);
        std::memcpy(raw_ + 8, &h, sizeof h);
        return;
      }
      break;
    }
    case Type::Struct: {
      auto* src = static_cast<StructHeader*>(ValueAccess::pointer(other));
      if (src && src->size) {
        StructHeader* h = new_struct_block(src->size);
        try {
          for (; h->size < src->size; ++h->size) {
            Member* m = struct_members(h) + h->size;
            new (&m->name_) Value(struct_members(src)[h->size].name_);
            try {
              new (&m->value_) Value(struct_members(src)[h->size].value_);
            } catch (...) {
              m->name_.~Value();
              throw;
            }
          }
        } catch (...) {
          for (uint32_t i = 0; i < h->size; ++i) struct_members(h)[i].~Member();
          detail::value_free(h);
          throw;
        }
        rebuild_index(h);
        raw_[0] = static_cast<unsigned char>(Type::Struct);
        std::memcpy(raw_ + 8, &h, sizeof h);
        return;
      }
      break;
    }
    default:
      break;
  }
  std::memcpy(raw_, other.raw_, sizeof raw_);  // inline payloads, empty containers
}

Value& Value::operator=(const Value& other) {
  if (this != &other) {
    Value copy(other);
    swap(copy);
  }
  return *this;
}

void Value::release_slow() noexcept {
  void* p = ValueAccess::pointer(*this);
  switch (type()) {
    case Type::String:
    case Type::Bytes:
      if (raw_[1] == 0) {
        if (raw_[2])
          detail::value_unmap_text(p);
        else
          detail::value_free(p);
      }
      break;
    case Type::Array:
      if (auto* h = static_cast<ArrayHeader*>(p)) {
        Value* items = array_items(h);
        for (uint32_t i = 0; i < h->size; ++i) items[i].release();
        detail::value_free(h);
      }
      break;
    case Type::Struct:
      if (auto* h = static_cast<StructHeader*>(p)) {
        Member* members = struct_members(h);
        for (uint32_t i = 0; i < h->size; ++i) {
          members[i].name_.release();
          members[i].value_.release();
        }
        detail::value_free(h);
      }
      break;
    default:
      break;
  }
  raw_[0] = static_cast<unsigned char>(Type::Nil);
}

// ---- scalar accessors ----

bool Value::as_bool() const {
  if (!is_bool()) throw_type(Type::Boolean, type());
  return raw_[4] != 0;
}

int32_t Value::as_int() const {
  if (!is_int()) throw_type(Type::Int, type());
  return ValueAccess::load<int32_t>(*this, 4);
}

int64_t Value::as_i8() const {
  if (is_int()) return ValueAccess::load<int32_t>(*this, 4);
  if (!is_i8()) throw_type(Type::I8, type());
  return ValueAccess::load<int64_t>(*this, 8);
}

double Value::as_double() const {
  if (!is_double()) throw_type(Type::Double, type());
  return ValueAccess::load<double>(*this, 8);
}

std::string_view Value::as_string() const {
  if (!is_string()) throw_type(Type::String, type());
  return text_view();
}

std::span<const uint8_t> Value::as_bytes() const {
  if (!is_bytes()) throw_type(Type::Bytes, type());
  std::string_view t = text_view();
  return {reinterpret_cast<const uint8_t*>(t.data()), t.size()};
}

std::optional<bool> Value::try_as_bool() const noexcept {
  if (!is_bool()) return std::nullopt;
  return raw_[4] != 0;
}
std::optional<int32_t> Value::try_as_int() const noexcept {
  if (!is_int()) return std::nullopt;
  return ValueAccess::load<int32_t>(*this, 4);
}
std::optional<int64_t> Value::try_as_i8() const noexcept {
  if (is_int()) return ValueAccess::load<int32_t>(*this, 4);
  if (!is_i8()) return std::nullopt;
  return ValueAccess::load<int64_t>(*this, 8);
}
std::optional<double> Value::try_as_double() const noexcept {
  if (!is_double()) return std::nullopt;
  return ValueAccess::load<double>(*this, 8);
}
std::optional<std::string_view> Value::try_as_string() const noexcept {
  if (!is_string()) return std::nullopt;
  return text_view();
}

// ---- arrays ----

std::span<const Value> Value::as_array() const {
  if (!is_array()) throw_type(Type::Array, type());
  auto* h = static_cast<ArrayHeader*>(ValueAccess::pointer(*this));
  if (!h) return {};
  return {array_items(h), h->size};
}

std::span<Value> Value::as_array() {
  if (!is_array()) throw_type(Type::Array, type());
  auto* h = static_cast<ArrayHeader*>(ValueAccess::pointer(*this));
  if (!h) return {};
  return {array_items(h), h->size};
}

size_t Value::size() const {
  if (is_array()) {
    auto* h = static_cast<ArrayHeader*>(ValueAccess::pointer(*this));
    return h ? h->size : 0;
  }
  if (is_struct()) {
    auto* h = static_cast<StructHeader*>(ValueAccess::pointer(*this));
    return h ? h->size : 0;
  }
  throw_error(Errc::TypeMismatch,
              std::string("expected array or struct, got ") + type_name(type()));
}

const Value& Value::operator[](size_t index) const {
  std::span<const Value> items = as_array();
  if (index >= items.size())
    throw_error(Errc::NotFound, "index " + std::to_string(index) + " out of range (size " +
                                    std::to_string(items.size()) + ")");
  return items[index];
}

Value& Value::operator[](size_t index) {
  return const_cast<Value&>(static_cast<const Value&>(*this)[index]);
}

void Value::reserve(size_t n) {
  if (is_nil()) *this = Value::array();
  if (is_array()) {
    auto* h = static_cast<ArrayHeader*>(ValueAccess::pointer(*this));
    if (h && h->capacity >= n) return;
    if (n == 0) return;
    uint32_t cap = checked_capacity(n);
    auto* grown = static_cast<ArrayHeader*>(
        detail::value_realloc(h, sizeof(ArrayHeader) + cap * sizeof(Value)));
    if (!h) grown->size = 0;
    grown->capacity = cap;
    std::memcpy(raw_ + 8, &grown, sizeof grown);
    return;
  }
  if (is_struct()) {
    auto* h = static_cast<StructHeader*>(ValueAccess::pointer(*this));
    if (h && h->capacity >= n) return;
    if (n == 0) return;
    uint32_t cap = checked_capacity(n);
    auto* grown = static_cast<StructHeader*>(detail::value_realloc(h, struct_block_size(cap)));
    if (!h) grown->size = 0;
    grown->capacity = cap;
    grown->unused = 0;
    rebuild_index(grown);
    std::memcpy(raw_ + 8, &grown, sizeof grown);
    return;
  }
  throw_error(Errc::TypeMismatch,
              std::string("expected array or struct, got ") + type_name(type()));
}

void Value::push_back(Value item) {
  if (is_nil()) *this = Value::array();
  if (!is_array()) throw_type(Type::Array, type());
  auto* h = static_cast<ArrayHeader*>(ValueAccess::pointer(*this));
  if (!h || h->size == h->capacity) {
    reserve(h ? size_t{h->capacity} * 2 : 4);
    h = static_cast<ArrayHeader*>(ValueAccess::pointer(*this));
  }
  new (array_items(h) + h->size) Value(std::move(item));
  ++h->size;
}

// ---- structs ----

std::span<const Member> Value::members() const {
  if (!is_struct()) throw_type(Type::Struct, type());
  auto* h = static_cast<StructHeader*>(ValueAccess::pointer(*this));
  if (!h) return {};
  return {struct_members(h), h->size};
}

std::span<Member> Value::members() {
  if (!is_struct()) throw_type(Type::Struct, type());
  auto* h = static_cast<StructHeader*>(ValueAccess::pointer(*this));
  if (!h) return {};
  return {struct_members(h), h->size};
}

const Value* Value::find(std::string_view name) const noexcept {
  if (!is_struct()) return nullptr;
  auto* h = static_cast<StructHeader*>(ValueAccess::pointer(*this));
  long i = struct_lookup(h, name);
  return i < 0 ? nullptr : &struct_members(h)[i].value_;
}

Value* Value::find(std::string_view name) noexcept {
  return const_cast<Value*>(static_cast<const Value&>(*this).find(name));
}

const Value& Value::operator[](std::string_view name) const {
  if (!is_struct()) throw_type(Type::Struct, type());
  const Value* v = find(name);
  if (!v) throw_error(Errc::NotFound, "no member named '" + std::string(name) + "'");
  return *v;
}

Value& Value::set(std::string_view name, Value value) {
  if (is_nil()) *this = Value::structure();
  if (!is_struct()) throw_type(Type::Struct, type());
  if (Value* existing = find(name)) {
    *existing = std::move(value);
    return *existing;
  }
  Value name_value(name);
  auto* h = static_cast<StructHeader*>(ValueAccess::pointer(*this));
  if (!h || h->size == h->capacity) {
    reserve(h ? size_t{h->capacity} * 2 : 4);
    h = static_cast<StructHeader*>(ValueAccess::pointer(*this));
  }
  Member* m = struct_members(h) + h->size;
  new (&m->name_) Value(std::move(name_value));
  new (&m->value_) Value(std::move(value));
  if (h->index_slots) index_insert(h, h->size);
  ++h->size;
  return m->value_;
}

bool Value::erase(std::string_view name) {
  if (!is_struct()) throw_type(Type::Struct, type());
  auto* h = static_cast<StructHeader*>(ValueAccess::pointer(*this));
  long i = struct_lookup(h, name);
  if (i < 0) return false;
  Member* members = struct_members(h);
  members[i].~Member();
  std::memmove(static_cast<void*>(members + i), members + i + 1,
               (h->size - i - 1) * sizeof(Member));
  --h->size;
  rebuild_index(h);
  return true;
}

// ---- equality ----

bool Value::operator==(const Value& other) const noexcept {
  if (type() != other.type()) return false;
  switch (type()) {
    case Type::Nil:
      return true;
    case Type::Boolean:
      return raw_[4] == other.raw_[4];
    case Type::Int:
      return ValueAccess::load<int32_t>(*this, 4) == ValueAccess::load<int32_t>(other, 4);
    case Type::I8:
      return ValueAccess::load<int64_t>(*this, 8) == ValueAccess::load<int64_t>(other, 8);
    case Type::Double: {
      double a = ValueAccess::load<double>(*this, 8), b = ValueAccess::load<double>(other, 8);
      return a == b || (std::isnan(a) && std::isnan(b));
    }
    case Type::String:
    case Type::Bytes:
      return text_view() == other.text_view();
    case Type::DateTime:
      return as_datetime() == other.as_datetime();
    case Type::Array: {
      std::span<const Value> a = as_array(), b = other.as_array();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i])) return false;
      return true;
    }
    case Type::Struct: {
      std::span<const Member> a = members(), b = other.members();
      if (a.size() != b.size()) return false;
      for (const Member& m : a) {
        const Value* v = other.find(m.name());
        if (!v || !(*v == m.value())) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace callwire
