// callwire: the XML-RPC data model.
//
// A Value holds one of: nil, boolean, int (32-bit), i8 (64-bit), double, string (UTF-8),
// dateTime, bytes (base64), array, struct. It is a regular value type: moves are cheap (16 bytes
// copied, no allocation), copies are deep, `==` compares contents.
//
// Ownership: a Value owns everything it holds. Views returned by accessors (string_view, span,
// references to elements or members) stay valid until the Value is modified, moved from or
// destroyed.
// Thread-safety: as for std::string: concurrent reads of one Value are safe; a write needs
// exclusive access.
// Errors: typed accessors throw callwire::Exception with Errc::TypeMismatch when the Value holds
// another type, and Errc::NotFound for a missing index or member; each has a non-throwing twin
// (`is_*`, `try_as_*`, `find`). Allocation failure throws std::bad_alloc.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "callwire/error.hpp"
#include "callwire/export.hpp"

namespace callwire {

/// The type a Value holds.
enum class Type : uint8_t { Nil, Boolean, Int, I8, Double, String, DateTime, Bytes, Array, Struct };

/// The XML-RPC element name of a type: "nil", "boolean", "int", "i8", "double", "string",
/// "dateTime.iso8601", "base64", "array", "struct". Static storage.
CALLWIRE_API const char* type_name(Type type) noexcept;

/// An XML-RPC dateTime, kept as it was given: no time zone conversion, the fraction of a second
/// with the number of digits it was written with, and the UTC offset if there was one.
struct CALLWIRE_API DateTime {
  enum class Zone : uint8_t { None, Utc, Offset };  ///< none, `Z`, or `+hh:mm`/`-hh:mm`

  uint16_t year = 1970;         ///< 0..9999
  uint8_t month = 1;            ///< 1..12
  uint8_t day = 1;              ///< 1..days in the month
  uint8_t hour = 0;             ///< 0..23
  uint8_t minute = 0;           ///< 0..59
  uint8_t second = 0;           ///< 0..60 (60: a leap second)
  uint8_t fraction_digits = 0;  ///< 0..9: how many digits the fraction was written with
  uint32_t nanosecond = 0;      ///< the fraction of a second, < 1'000'000'000
  Zone zone = Zone::None;
  int16_t offset_minutes = 0;  ///< with Zone::Offset: -1439..1439 (east of UTC positive)

  bool operator==(const DateTime&) const = default;

  /// True when every field is in range (including the day for the month and leap years).
  bool valid() const noexcept;

  /// Reads the forms real peers send: `19980717T14:08:55`, `1998-07-17T14:08:55`,
  /// `20180222T130252`, with an optional fraction `.123456` and an optional zone `Z`, `+0000`,
  /// `+00:00` or `+00`. Errc::InvalidRequest with a message on anything else.
  static Result<DateTime> parse(std::string_view text);

  /// The canonical text: `YYYYMMDDTHH:MM:SS[.f…][Z|±hh:mm]`, the fraction with
  /// fraction_digits digits.
  std::string to_string() const;
  /// Writes the canonical text into `out` (at least 32 bytes); returns the length.
  size_t format(char* out) const noexcept;
};

class Member;

/// One XML-RPC value. See the top of this header for ownership, thread-safety and errors.
class CALLWIRE_API Value {
 public:
  /// Nil.
  Value() noexcept { raw_[0] = static_cast<unsigned char>(Type::Nil); }
  Value(std::nullptr_t) noexcept : Value() {}  // NOLINT: implicit by design
  Value(bool b) noexcept : Value() {           // NOLINT
    raw_[0] = static_cast<unsigned char>(Type::Boolean);
    raw_[4] = b ? 1 : 0;
  }
  /// Integers: types of up to 32 bits that fit in int32 make an `int`; wider ones (and uint32)
  /// make an `i8`. An unsigned 64-bit number above INT64_MAX throws Errc::Unrepresentable.
  template <std::integral T>
  requires(!std::same_as<T, bool>) Value(T n) : Value() {  // NOLINT
    if constexpr (sizeof(T) < 4 || (sizeof(T) == 4 && std::is_signed_v<T>)) {
      set_int32(static_cast<int32_t>(n));
    } else {
      if constexpr (std::is_unsigned_v<T> && sizeof(T) >= 8) {
        if (n > static_cast<T>(INT64_MAX)) throw_unrepresentable_integer();
      }
      set_int64(static_cast<int64_t>(n));
    }
  }
  Value(double d) noexcept : Value() {  // NOLINT
    raw_[0] = static_cast<unsigned char>(Type::Double);
    std::memcpy(raw_ + 8, &d, 8);
  }
  Value(float f) noexcept : Value(static_cast<double>(f)) {}                           // NOLINT
  Value(std::string_view s) : Value() { set_text(Type::String, s.data(), s.size()); }  // NOLINT
  Value(const char* s) : Value(std::string_view(s)) {}                                 // NOLINT
  Value(const std::string& s) : Value(std::string_view(s)) {}                          // NOLINT
  Value(const DateTime& dt) noexcept;                                                  // NOLINT

  /// An i8 whatever the magnitude.
  static Value i8(int64_t n) noexcept {
    Value v;
    v.set_int64(n);
    return v;
  }
  /// Bytes (base64 on the wire); copies `size` bytes from `data`.
  static Value bytes(const void* data, size_t size);
  static Value bytes(std::span<const uint8_t> data) { return bytes(data.data(), data.size()); }
  /// An array of the given elements.
  static Value array(std::initializer_list<Value> items = {});
  /// A struct with the given members, in order; a repeated name keeps its first position and
  /// its last value.
  static Value structure(std::initializer_list<std::pair<std::string_view, Value>> members = {});

  /// A deep copy; throws std::bad_alloc.
  Value(const Value& other);
  /// Takes `other`'s contents (16 bytes copied, no allocation) and leaves it nil.
  Value(Value&& other) noexcept {
    std::memcpy(raw_, other.raw_, sizeof raw_);
    other.raw_[0] = static_cast<unsigned char>(Type::Nil);
  }
  Value& operator=(const Value& other);
  Value& operator=(Value&& other) noexcept {
    if (this != &other) {
      release();
      std::memcpy(raw_, other.raw_, sizeof raw_);
      other.raw_[0] = static_cast<unsigned char>(Type::Nil);
    }
    return *this;
  }
  ~Value() { release(); }
  void swap(Value& other) noexcept {
    unsigned char tmp[16];
    std::memcpy(tmp, raw_, 16);
    std::memcpy(raw_, other.raw_, 16);
    std::memcpy(other.raw_, tmp, 16);
  }

  /// The type held, and one test per type; never throw.
  Type type() const noexcept { return static_cast<Type>(raw_[0]); }
  bool is_nil() const noexcept { return type() == Type::Nil; }
  bool is_bool() const noexcept { return type() == Type::Boolean; }
  bool is_int() const noexcept { return type() == Type::Int; }
  bool is_i8() const noexcept { return type() == Type::I8; }
  /// int or i8.
  bool is_integer() const noexcept { return type() == Type::Int || type() == Type::I8; }
  bool is_double() const noexcept { return type() == Type::Double; }
  bool is_string() const noexcept { return type() == Type::String; }
  bool is_datetime() const noexcept { return type() == Type::DateTime; }
  bool is_bytes() const noexcept { return type() == Type::Bytes; }
  bool is_array() const noexcept { return type() == Type::Array; }
  bool is_struct() const noexcept { return type() == Type::Struct; }

  // Typed accessors: throw Errc::TypeMismatch ("expected int, got string") on another type.
  bool as_bool() const;
  int32_t as_int() const;
  /// An int or an i8, widened to 64 bits.
  int64_t as_i8() const;
  double as_double() const;
  std::string_view as_string() const;
  DateTime as_datetime() const;
  std::span<const uint8_t> as_bytes() const;
  std::span<const Value> as_array() const;
  std::span<Value> as_array();
  std::span<const Member> members() const;
  std::span<Member> members();

  // Non-throwing twins: empty when the Value holds another type.
  std::optional<bool> try_as_bool() const noexcept;
  std::optional<int32_t> try_as_int() const noexcept;
  std::optional<int64_t> try_as_i8() const noexcept;
  std::optional<double> try_as_double() const noexcept;
  std::optional<std::string_view> try_as_string() const noexcept;

  /// Elements of an array or members of a struct; throws TypeMismatch for other types.
  size_t size() const;
  bool empty() const { return size() == 0; }

  /// The element at `index` of an array; throws TypeMismatch, or NotFound when out of range.
  const Value& operator[](size_t index) const;
  Value& operator[](size_t index);
  template <std::integral T>
  requires(!std::same_as<T, size_t> && !std::same_as<T, bool>) const Value& operator[](
      T index) const {
    return (*this)[static_cast<size_t>(index)];
  }
  template <std::integral T>
  requires(!std::same_as<T, size_t> && !std::same_as<T, bool>) Value& operator[](T index) {
    return (*this)[static_cast<size_t>(index)];
  }
  /// Appends to an array (a nil Value becomes an empty array first).
  void push_back(Value item);
  /// Reserves room for `n` elements (array) or members (struct).
  void reserve(size_t n);

  /// The member named `name`, or null; never throws. Fast for large structs (hashed).
  const Value* find(std::string_view name) const noexcept;
  Value* find(std::string_view name) noexcept;
  /// The member named `name`; throws TypeMismatch on a non-struct, NotFound when absent.
  const Value& operator[](std::string_view name) const;
  const Value& operator[](const char* name) const { return (*this)[std::string_view(name)]; }
  /// Sets member `name` (a nil Value becomes an empty struct first): replaces the value of an
  /// existing member in place, or appends a new one. Returns the stored value.
  Value& set(std::string_view name, Value value);
  /// Removes member `name`; returns whether it was there. Keeps the order of the others.
  bool erase(std::string_view name);

  /// Deep equality. Struct member order does not matter (the spec says it is insignificant);
  /// int and i8 are different types; doubles compare with ==, except that NaN equals NaN.
  bool operator==(const Value& other) const noexcept;

 private:
  friend class Member;
  friend struct ValueAccess;  // the codecs build values in place (src/value/value_build.hpp)

  void set_int32(int32_t n) noexcept {
    raw_[0] = static_cast<unsigned char>(Type::Int);
    std::memcpy(raw_ + 4, &n, 4);
  }
  void set_int64(int64_t n) noexcept {
    raw_[0] = static_cast<unsigned char>(Type::I8);
    std::memcpy(raw_ + 8, &n, 8);
  }
  void set_text(Type type, const char* data, size_t size);
  // The text of a string or bytes Value, unchecked.
  std::string_view text_view() const noexcept {
    if (raw_[1] != 0) return {reinterpret_cast<const char*>(raw_ + 2), size_t(raw_[1] - 1)};
    const char* block;
    std::memcpy(&block, raw_ + 8, sizeof block);
    size_t size;
    std::memcpy(&size, block, sizeof size);
    return {block + sizeof(size_t), size};
  }
  // Frees what the Value holds, if anything; the bytes are dropped or overwritten after.
  void release() noexcept {
    if (holds_storage()) release_slow();
  }
  // A container, or a text in a block. Most Values (numbers, dateTimes, member names, short
  // strings) hold none, and a call out for each of them cost a third of freeing a tree.
  bool holds_storage() const noexcept {
    const unsigned type = raw_[0];
    if (type < static_cast<unsigned>(Type::String)) return false;  // one test for the most
    if (type >= static_cast<unsigned>(Type::Array)) return true;
    return type != static_cast<unsigned>(Type::DateTime) && raw_[1] == 0;
  }
  void release_slow() noexcept;
  [[noreturn]] static void throw_unrepresentable_integer();

  // Layout: raw_[0] the Type. Text (string, bytes): raw_[1] is 0 for a heap block whose pointer
  // is at raw_+8 (raw_[2] set when it is a page mapping of its own), or length+1 for up to 13
  // bytes stored inline at raw_+2; a NUL always follows the text. int32 and boolean at
  // raw_+4; i8, double and container pointers at raw_+8; a DateTime packed into raw_+1..15.
  alignas(8) unsigned char raw_[16];
};

static_assert(sizeof(Value) == 16);

/// A struct member: a name and a value. Members live inside their struct Value and are only
/// reached through it (`members()`); the rules at the top of this header apply: the views stay
/// valid until the struct is modified, moved from or destroyed.
class CALLWIRE_API Member {
 public:
  std::string_view name() const noexcept { return name_.text_view(); }
  const Value& value() const noexcept { return value_; }
  Value& value() noexcept { return value_; }

 private:
  friend class Value;
  friend struct ValueAccess;
  Value name_;  // always a string
  Value value_;
};

}  // namespace callwire
