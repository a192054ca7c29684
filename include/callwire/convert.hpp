// callwire: conversions between C++ types and Values, for typed binding and calling.
//
// One customisation point, `callwire::Convert<T>`. A specialisation provides
//   static constexpr std::string_view type_name;        // the XML-RPC type, for signatures
//   static Value to_value(const T&);                    // for results and call arguments
//   static Result<T> from_value(const Value&);          // for parameters and call results
// (either of the two functions may be left out: `const char*` only goes out, a view only comes
// in). `nullable = true` marks a type that also takes nil (std::optional). Optionally, beside
// to_value, the fast path
//   static void write(ValueWriter&, const T&);          // callwire/value_writer.hpp
// writes the same value piece by piece straight into the message (a typed handler's result):
// no Value tree is built. Every type below has one; write_value() uses it where there is one
// and to_value where not, so a user type's write may simply call write_value for its members.
// The same for reading, beside from_value:
//   static Status read(ValueReader&, T&);               // callwire/value_reader.hpp
// reads the value straight out of the message into T (a typed call's result): strings,
// blobs, arrays and maps have one; read_value() uses it where there is one and from_value on
// the value read whole where not (scalars, which cost no allocation either way). A user
// struct's read is one call of read_struct() with a field() for each member. It must accept
// exactly what from_value accepts, with the same errors.
//
// from_value never throws for a Value of the wrong type: it returns Errc::TypeMismatch with a
// message of the form "must be int, got string", prefixed with the path to the offending part
// for containers ("[2] must be int, got string" for the third element, ".x must be int, got
// string" for a struct member). Server::bind and Client::call put the parameter or method in
// front. to_value throws callwire::Exception with Errc::Unrepresentable for a value XML-RPC
// cannot carry (an unsigned 64-bit number above INT64_MAX, a time outside years 0..9999).
//
// Ownership: a view type (std::string_view, std::span<const uint8_t>) read by from_value
// points into the Value and lives as long as it; bind offers them as parameters (they live for
// the handler's call), Client::call refuses them as results. Thread-safety: stateless.
//
// A user struct: declare it in one line with CALLWIRE_STRUCT (callwire/struct.hpp), which
// gives all of the above. Any other user type: specialise Convert in namespace callwire, e.g.
//   template <> struct callwire::Convert<Point> {
//     static constexpr std::string_view type_name = "struct";
//     static Value to_value(const Point& p) { return Value::structure({{"x", p.x}, {"y", p.y}}); }
//     static Result<Point> from_value(const Value& v) {
//       if (!v.is_struct()) return type_error(type_name, v);
//       auto x = member_as<int>(v, "x");
//       if (!x) return x.error();
//       auto y = member_as<int>(v, "y");
//       if (!y) return y.error();
//       return Point{*x, *y};
//     }
//   };
// and its fast path, beside to_value (it must write the same value):
//     static void write(ValueWriter& w, const Point& p) {
//       w.begin_struct();
//       w.member("x"); w.int32(p.x);
//       w.member("y"); w.int32(p.y);
//       w.end_struct();
//     }
#pragma once

#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "callwire/error.hpp"
#include "callwire/value.hpp"
#include "callwire/value_reader.hpp"
#include "callwire/value_writer.hpp"

namespace callwire {

/// The customisation point; see the top of this header. Not defined for unsupported types.
template <class T>
struct Convert;

/// T can be read from a Value (a parameter, a call's result).
template <class T>
concept FromValue = requires(const Value& v) {
  { Convert<T>::type_name } -> std::convertible_to<std::string_view>;
  { Convert<T>::from_value(v) } -> std::same_as<Result<T>>;
};

/// T can be written as a Value (a result, a call's argument).
template <class T>
concept ToValue = requires(const T& t) {
  { Convert<T>::type_name } -> std::convertible_to<std::string_view>;
  { Convert<T>::to_value(t) } -> std::same_as<Value>;
};

/// T has the reading fast path: Convert<T>::read.
template <class T>
concept Readable = requires(ValueReader& r, T& t) {
  { Convert<T>::read(r, t) } -> std::same_as<Status>;
};

/// T has the fast path: Convert<T>::write.
template <class T>
concept Writable = requires(ValueWriter& w, const T& t) {
  { Convert<T>::write(w, t) } -> std::same_as<void>;
};

/// Writes `t` into `w`: with Convert<T>::write where there is one, else as
/// Convert<T>::to_value(t). Throws what they throw (Errc::Unrepresentable).
template <ToValue T>
void write_value(ValueWriter& w, const T& t) {
  if constexpr (Writable<T>) {
    Convert<T>::write(w, t);
  } else {
    w.value(Convert<T>::to_value(t));
  }
}

/// True for the types whose from_value returns a view into the Value.
template <class T>
inline constexpr bool is_view_v = false;
template <>
inline constexpr bool is_view_v<std::string_view> = true;
template <>
inline constexpr bool is_view_v<std::span<const uint8_t>> = true;

/// The TypeMismatch error "must be <expected>, got <the type of got>".
inline Error type_error(std::string_view expected, const Value& got) {
  std::string m = "must be ";
  m += expected;
  m += ", got ";
  m += type_name(got.type());
  return Error(Errc::TypeMismatch, std::move(m));
}

/// The same for a value not (yet) read whole: only its type is known.
inline Error type_error(std::string_view expected, Type got) {
  std::string m = "must be ";
  m += expected;
  m += ", got ";
  m += type_name(got);
  return Error(Errc::TypeMismatch, std::move(m));
}

namespace detail {
// Puts a path segment ("[2]", ".x", "parameter 1") in front of a from_value message.
inline std::string join_path(std::string head, const std::string& message) {
  if (!message.empty() && message[0] != '[' && message[0] != '.') head += ' ';
  head += message;
  return head;
}
// The value before `r` is of type `wanted` (read nothing), or "must be <name>, got ...".
inline Status expect_type(ValueReader& r, Type wanted, std::string_view name) {
  Result<Type> type = r.peek();
  if (!type) return type.error();
  if (*type != wanted) return type_error(name, *type);
  return {};
}
// What a reader's call that did not fit the value returned (InvalidArgument, nothing read)
// becomes: the type error from_value gives, "must be <name>, got ...". Calling first and
// asking the type only on a refusal spends one call on the reader per value rather than two.
inline Status explain_refusal(ValueReader& r, Status s, Type wanted, std::string_view name) {
  if (s || s.error().code != Errc::InvalidArgument) return s;
  if (Status type = expect_type(r, wanted, name); !type) return type;
  return s;
}
// Whether the value before `r` is a string standing for bytes or a time (JSON-RPC).
inline bool text_stands_in(ValueReader& r) {
  if (!r.strings_stand_for_bytes_and_times()) return false;
  Result<Type> type = r.peek();
  return type && *type == Type::String;
}
// A dateTime into `out`: read whole, or parsed from its ISO 8601 text where strings stand for
// times. Errors: as from_value's for a dateTime.
inline Status read_datetime(ValueReader& r, Value& out) {
  if (!text_stands_in(r)) return r.read(out);
  std::string text;
  if (Status s = r.read_string(text); !s) return s;
  Result<DateTime> dt = DateTime::parse(text);
  if (!dt)
    return Error(Errc::TypeMismatch,
                 "must be dateTime.iso8601, got a string that is not "
                 "ISO 8601");
  out = Value(*dt);
  return {};
}
// A dateTime read as read_datetime reads it, then converted to T by C::from_value.
template <class C, class T>
Status read_datetime_as(ValueReader& r, T& out) {
  Value v;
  if (Status s = read_datetime(r, v); !s) return s;
  Result<T> t = C::from_value(v);
  if (!t) return t.error();
  out = std::move(*t);
  return {};
}
// A vector of T for one typed read at a time on this thread, its capacity kept from one read
// to the next (up to kKeep bytes). get() is null while another read on this thread holds it.
// The destructor empties it, so no element outlives the read.
template <class T>
class ScratchVector {
 public:
  ScratchVector() {
    State& state = this_thread();
    if (!state.in_use) {
      state.in_use = true;
      items_ = &state.items;
    }
  }
  ~ScratchVector() {
    if (items_ == nullptr) return;
    items_->clear();
    if (items_->capacity() * sizeof(T) > kKeep) std::vector<T>().swap(*items_);
    this_thread().in_use = false;
  }
  ScratchVector(const ScratchVector&) = delete;
  ScratchVector& operator=(const ScratchVector&) = delete;
  std::vector<T>* get() const { return items_; }

 private:
  static constexpr size_t kKeep = 64 * 1024;
  struct State {
    std::vector<T> items;
    bool in_use = false;
  };
  static State& this_thread() {
    thread_local State state;
    return state;
  }
  std::vector<T>* items_ = nullptr;
};
inline Error prefix_error(std::string head, const Error& e) {
  return Error(e.code, e.fault_code, join_path(std::move(head), e.message));
}
// "[i]", built by append for the same reason as member_path below.
inline std::string index_path(size_t i) {
  std::string path = "[";
  path += std::to_string(i);
  path += ']';
  return path;
}
// ".name", built by append: g++ 12 at -O3 warns falsely (-Wrestrict, GCC bug 105329) on
// "." + std::string(name) wherever it is inlined, which is every user's Convert.
inline std::string member_path(std::string_view name, std::string_view tail = {}) {
  std::string path;
  path.reserve(1 + name.size() + tail.size());
  path += '.';
  path += name;
  path += tail;
  return path;
}
}  // namespace detail

/// Member `name` of struct `s` converted to T. Errors: ".name is missing" (Errc::NotFound),
/// or the conversion's error with ".name" in front.
template <FromValue T>
Result<T> member_as(const Value& s, std::string_view name) {
  const Value* v = s.find(name);
  if (v == nullptr) return Error(Errc::NotFound, detail::member_path(name, " is missing"));
  Result<T> r = Convert<T>::from_value(*v);
  if (!r) return detail::prefix_error(detail::member_path(name), r.error());
  return r;
}

/// Reads the value before `r` into `out`: with Convert<T>::read where there is one, else as
/// Convert<T>::from_value of the value read whole. Errors: as from_value's, or the reader's.
template <FromValue T>
Status read_value(ValueReader& r, T& out) {
  static_assert(!is_view_v<T>, "read_value: a view would point into a value that is gone");
  if constexpr (Readable<T>) {
    return Convert<T>::read(r, out);
  } else {
    Value v;
    if (Status s = r.read(v); !s) return s;
    Result<T> t = Convert<T>::from_value(v);
    if (!t) return t.error();
    out = std::move(*t);
    return {};
  }
}

/// One member for read_struct: its name and where its value goes.
template <class T>
struct Field {
  std::string_view name;
  T* target;
};
template <class T>
Field<T> field(std::string_view name, T& target) {
  return {name, &target};
}

namespace detail {
template <class T>
bool read_field(ValueReader& r, std::string_view name, Field<T>& f, bool& seen, Status& status) {
  if (name != f.name) return false;
  seen = true;
  status = read_value(r, *f.target);
  if (!status) status = prefix_error(member_path(f.name), status.error());
  return true;
}
}  // namespace detail

/// Reads a struct member by member into the fields given, in whatever order the members come:
///   return read_struct(r, field("x", p.x), field("y", p.y));
/// Members not asked for are skipped; of a repeated name the last counts, as in a Value.
/// Errors: "must be struct, got int", ".x is missing" (Errc::NotFound), or a member's error
/// with ".x" in front: those of from_value with member_as, though where several members are
/// wrong, the first in the message is reported rather than the first asked for (and a
/// repeated member is checked each time it comes).
template <class... Ts>
Status read_struct(ValueReader& r, Field<Ts>... fields) {
  if (Status s = detail::explain_refusal(r, r.enter_struct(), Type::Struct, "struct"); !s) return s;
  bool seen[sizeof...(Ts) + 1] = {};  // + 1: no zero-length array for a struct of no fields
  std::string_view name;
  for (;;) {
    Result<bool> more = r.next_member(name);
    if (!more) return more.error();
    if (!*more) break;
    Status status;
    size_t index = 0;
    (detail::read_field(r, name, fields, seen[index++], status) || ...);
    if (!status) return status;
  }
  size_t index = 0;
  std::string_view missing;
  ((missing.empty() && !seen[index] ? (void)(missing = fields.name) : (void)0, ++index), ...);
  if (!missing.empty()) return Error(Errc::NotFound, detail::member_path(missing, " is missing"));
  return {};
}

// ---- scalars

template <>
struct Convert<bool> {
  static constexpr std::string_view type_name = "boolean";
  static Value to_value(bool b) { return Value(b); }
  static void write(ValueWriter& w, bool b) { w.boolean(b); }
  static Result<bool> from_value(const Value& v) {
    if (auto b = v.try_as_bool()) return *b;
    return type_error(type_name, v);
  }
};

/// Integers of every width except bool and the character types. Types whose whole range fits
/// in 32 bits are "int", wider ones (uint32_t, int64_t, ...) "i8". Reading accepts an int or
/// an i8 whose value fits the C++ type, else "must be int in 0..255, got int 300".
template <std::integral T>
requires(!std::same_as<T, bool> && !std::same_as<T, char> && !std::same_as<T, wchar_t> &&
         !std::same_as<T, char8_t> && !std::same_as<T, char16_t> &&
         !std::same_as<T, char32_t>) struct Convert<T> {
  static constexpr bool fits_int = std::in_range<int32_t>(std::numeric_limits<T>::min()) &&
                                   std::in_range<int32_t>(std::numeric_limits<T>::max());
  static constexpr std::string_view type_name = fits_int ? "int" : "i8";

  static Value to_value(T n) { return Value(n); }
  static void write(ValueWriter& w, T n) {
    if constexpr (fits_int) {
      w.int32(static_cast<int32_t>(n));
    } else {
      w.int64(Value(n).as_i8());  // Value's constructor refuses a uint64 above INT64_MAX
    }
  }
  static Result<T> from_value(const Value& v) {
    std::optional<int64_t> n = v.try_as_i8();
    if (!n) return type_error(type_name, v);
    if (std::in_range<T>(*n)) return static_cast<T>(*n);
    std::string m = "must be ";
    m += type_name;
    if constexpr (std::same_as<T, int32_t>) {
      m += ", got i8 out of the int range";
    } else {
      m += " in " + std::to_string(std::numeric_limits<T>::min()) + ".." +
           std::to_string(std::numeric_limits<T>::max()) + ", got " +
           callwire::type_name(v.type()) + " " + std::to_string(*n);
    }
    return Error(Errc::TypeMismatch, std::move(m));
  }
};

/// An enum as its number: as its underlying integer type converts (a `char`-based enum as a
/// signed or unsigned char would). Reading takes any number in that type's range, named or
/// not, as a C++ cast would.
template <class T>
requires std::is_enum_v<T>
struct Convert<T> {
  using Underlying = std::underlying_type_t<T>;
  using Number =
      std::conditional_t<std::is_same_v<Underlying, char>,
                         std::conditional_t<std::is_signed_v<char>, signed char, unsigned char>,
                         Underlying>;
  static constexpr std::string_view type_name = Convert<Number>::type_name;

  static Value to_value(T e) { return Convert<Number>::to_value(static_cast<Number>(e)); }
  static void write(ValueWriter& w, T e) { Convert<Number>::write(w, static_cast<Number>(e)); }
  static Result<T> from_value(const Value& v) {
    Result<Number> n = Convert<Number>::from_value(v);
    if (!n) return n.error();
    return static_cast<T>(*n);
  }
};

/// double takes a double, or an int or i8 of magnitude at most 2^53 (exactly representable),
/// as the dispatcher does for a "double" slot.
template <>
struct Convert<double> {
  static constexpr std::string_view type_name = "double";
  static Value to_value(double d) { return Value(d); }
  static void write(ValueWriter& w, double d) { w.real(d); }
  static Result<double> from_value(const Value& v) {
    if (auto d = v.try_as_double()) return *d;
    if (auto n = v.try_as_i8()) {
      constexpr int64_t kExact = int64_t{1} << 53;
      if (*n >= -kExact && *n <= kExact) return static_cast<double>(*n);
      return Error(
          Errc::TypeMismatch,
          "must be double, got " + std::string(callwire::type_name(v.type())) + " beyond 2^53");
    }
    return type_error(type_name, v);
  }
};

/// float: as double, and a finite double beyond the float range is refused.
template <>
struct Convert<float> {
  static constexpr std::string_view type_name = "double";
  static Value to_value(float f) { return Value(f); }
  static void write(ValueWriter& w, float f) { w.real(f); }
  static Result<float> from_value(const Value& v) {
    Result<double> d = Convert<double>::from_value(v);
    if (!d) return d.error();
    if (std::isfinite(*d) && std::fabs(*d) > static_cast<double>(std::numeric_limits<float>::max()))
      return Error(Errc::TypeMismatch,
                   "must be double in the float range, got double " + std::to_string(*d));
    return static_cast<float>(*d);
  }
};

template <>
struct Convert<std::string> {
  static constexpr std::string_view type_name = "string";
  static Value to_value(const std::string& s) { return Value(s); }
  static void write(ValueWriter& w, const std::string& s) { w.string(s); }
  static Result<std::string> from_value(const Value& v) {
    if (auto s = v.try_as_string()) return std::string(*s);
    return type_error(type_name, v);
  }
  static Status read(ValueReader& r, std::string& out) {
    return detail::explain_refusal(r, r.read_string(out), Type::String, type_name);
  }
};

/// A view into the Value's text (see the ownership note at the top).
template <>
struct Convert<std::string_view> {
  static constexpr std::string_view type_name = "string";
  static Value to_value(std::string_view s) { return Value(s); }
  static void write(ValueWriter& w, std::string_view s) { w.string(s); }
  static Result<std::string_view> from_value(const Value& v) {
    if (auto s = v.try_as_string()) return *s;
    return type_error(type_name, v);
  }
};

/// Results and arguments only: a C string (copied into the Value; null is refused).
template <>
struct Convert<const char*> {
  static constexpr std::string_view type_name = "string";
  static Value to_value(const char* s) {
    if (s == nullptr) throw Exception(Error(Errc::InvalidArgument, "a null const char* string"));
    return Value(s);
  }
  static void write(ValueWriter& w, const char* s) {
    if (s == nullptr) throw Exception(Error(Errc::InvalidArgument, "a null const char* string"));
    w.string(s);
  }
};
template <>
struct Convert<char*> : Convert<const char*> {};

/// nil.
template <>
struct Convert<std::nullptr_t> {
  static constexpr std::string_view type_name = "nil";
  static Value to_value(std::nullptr_t) { return Value(); }
  static void write(ValueWriter& w, std::nullptr_t) { w.nil(); }
  static Result<std::nullptr_t> from_value(const Value& v) {
    if (v.is_nil()) return nullptr;
    return type_error(type_name, v);
  }
};

/// Any Value, unchanged: "any" in signatures (the dispatcher passes anything).
template <>
struct Convert<Value> {
  static constexpr std::string_view type_name = "any";
  static Value to_value(const Value& v) { return v; }
  static void write(ValueWriter& w, const Value& v) { w.value(v); }
  static Result<Value> from_value(const Value& v) { return v; }
  static Status read(ValueReader& r, Value& out) { return r.read(out); }
};

/// Bytes: base64 on the wire.
template <>
struct Convert<std::vector<uint8_t>> {
  static constexpr std::string_view type_name = "base64";
  static Value to_value(const std::vector<uint8_t>& b) { return Value::bytes(b); }
  static void write(ValueWriter& w, const std::vector<uint8_t>& b) { w.bytes(b); }
  static Result<std::vector<uint8_t>> from_value(const Value& v) {
    if (!v.is_bytes()) return type_error(type_name, v);
    std::span<const uint8_t> b = v.as_bytes();
    return std::vector<uint8_t>(b.begin(), b.end());
  }
  static Status read(ValueReader& r, std::vector<uint8_t>& out) {
    if (!detail::text_stands_in(r)) {
      if (Status s = detail::expect_type(r, Type::Bytes, type_name); !s) return s;
    }
    return r.read_bytes(out);
  }
};

/// A view of the Value's bytes (see the ownership note at the top).
template <>
struct Convert<std::span<const uint8_t>> {
  static constexpr std::string_view type_name = "base64";
  static Value to_value(std::span<const uint8_t> b) { return Value::bytes(b); }
  static void write(ValueWriter& w, std::span<const uint8_t> b) { w.bytes(b); }
  static Result<std::span<const uint8_t>> from_value(const Value& v) {
    if (!v.is_bytes()) return type_error(type_name, v);
    return v.as_bytes();
  }
};

template <>
struct Convert<DateTime> {
  static constexpr std::string_view type_name = "dateTime.iso8601";
  static Value to_value(const DateTime& dt) { return Value(dt); }
  static void write(ValueWriter& w, const DateTime& dt) { w.datetime(dt); }
  static Result<DateTime> from_value(const Value& v) {
    if (!v.is_datetime()) return type_error(type_name, v);
    return v.as_datetime();
  }
  static Status read(ValueReader& r, DateTime& out) {
    return detail::read_datetime_as<Convert>(r, out);
  }
};

/// A system_clock time point. Written in UTC (`Z`) with 0, 3, 6 or 9 fraction digits, the
/// fewest that hold it exactly. Read: a dateTime without a zone is taken as UTC; one with an
/// offset is converted; a leap second (:60) counts as the next minute's :00; a time outside the
/// time_point's range (years 1678..2261 for nanoseconds) is refused.
template <class Duration>
struct Convert<std::chrono::time_point<std::chrono::system_clock, Duration>> {
  using TimePoint = std::chrono::time_point<std::chrono::system_clock, Duration>;
  static constexpr std::string_view type_name = "dateTime.iso8601";

  static Value to_value(const TimePoint& tp) {
    using namespace std::chrono;
    auto day = floor<days>(tp);
    year_month_day ymd{day};
    int y = static_cast<int>(ymd.year());
    if (y < 0 || y > 9999)
      throw Exception(Error(Errc::Unrepresentable, "a time outside the years 0..9999"));
    hh_mm_ss<nanoseconds> hms{floor<nanoseconds>(tp - day)};
    DateTime dt;
    dt.year = static_cast<uint16_t>(y);
    dt.month = static_cast<uint8_t>(static_cast<unsigned>(ymd.month()));
    dt.day = static_cast<uint8_t>(static_cast<unsigned>(ymd.day()));
    dt.hour = static_cast<uint8_t>(hms.hours().count());
    dt.minute = static_cast<uint8_t>(hms.minutes().count());
    dt.second = static_cast<uint8_t>(hms.seconds().count());
    auto ns = static_cast<uint32_t>(hms.subseconds().count());
    dt.nanosecond = ns;
    dt.fraction_digits = ns == 0 ? 0 : ns % 1000000 == 0 ? 3 : ns % 1000 == 0 ? 6 : 9;
    dt.zone = DateTime::Zone::Utc;
    return Value(dt);
  }
  static void write(ValueWriter& w, const TimePoint& tp) { w.value(to_value(tp)); }

  static Result<TimePoint> from_value(const Value& v) {
    using namespace std::chrono;
    if (!v.is_datetime()) return type_error(type_name, v);
    DateTime dt = v.as_datetime();
    sys_days day{year_month_day{year{dt.year}, month{dt.month}, std::chrono::day{dt.day}}};
    seconds s = day.time_since_epoch() + hours{dt.hour} + minutes{dt.minute} + seconds{dt.second};
    if (dt.zone == DateTime::Zone::Offset) s -= minutes{dt.offset_minutes};
    // Whole seconds never overflow; check them against the target's range before converting.
    if (s < ceil<seconds>(TimePoint::min().time_since_epoch()) + seconds{1} ||
        s > floor<seconds>(TimePoint::max().time_since_epoch()) - seconds{1})
      return Error(Errc::TypeMismatch,
                   "must be dateTime.iso8601 within the time_point range, "
                   "got " +
                       dt.to_string());
    return TimePoint(duration_cast<Duration>(s) +
                     duration_cast<Duration>(nanoseconds{dt.nanosecond}));
  }
  static Status read(ValueReader& r, TimePoint& out) {
    return detail::read_datetime_as<Convert>(r, out);
  }
};

// ---- containers

/// std::optional<T>: T, or nil for an empty optional. Signatures list both T and nil.
template <class T>
struct Convert<std::optional<T>> {
  static constexpr std::string_view type_name = Convert<T>::type_name;
  static constexpr bool nullable = true;
  static Value to_value(const std::optional<T>& o) {
    return o ? Convert<T>::to_value(*o) : Value();
  }
  static void write(ValueWriter& w, const std::optional<T>& o) {
    if (o)
      write_value(w, *o);
    else
      w.nil();
  }
  static Result<std::optional<T>> from_value(const Value& v) {
    if (v.is_nil()) return std::optional<T>();
    Result<T> r = Convert<T>::from_value(v);
    if (!r) return r.error();
    return std::optional<T>(std::move(*r));
  }
  static Status read(ValueReader& r, std::optional<T>& out) requires std::default_initializable<T> {
    Result<Type> type = r.peek();
    if (!type) return type.error();
    if (*type == Type::Nil) {
      out.reset();
      Value nil;
      return r.read(nil);
    }
    return read_value(r, out.emplace());
  }
};

/// An array of T. Element errors name the element from 0: "[2] must be int, got string".
template <class T, class A>
struct Convert<std::vector<T, A>> {
  static constexpr std::string_view type_name = "array";
  static Value to_value(const std::vector<T, A>& items) {
    Value a = Value::array();
    a.reserve(items.size());
    for (const auto& item : items) a.push_back(Convert<T>::to_value(item));
    return a;
  }
  static void write(ValueWriter& w, const std::vector<T, A>& items) {
    w.begin_array();
    for (const auto& item : items) write_value(w, item);
    w.end_array();
  }
  static Result<std::vector<T, A>> from_value(const Value& v) {
    if (!v.is_array()) return type_error(type_name, v);
    std::vector<T, A> out;
    out.reserve(v.size());
    size_t i = 0;
    for (const Value& item : v.as_array()) {
      Result<T> r = Convert<T>::from_value(item);
      if (!r) return detail::prefix_error(detail::index_path(i), r.error());
      out.push_back(std::move(*r));
      ++i;
    }
    return out;
  }
  static Status read(ValueReader& r,
                     std::vector<T, A>& out) requires std::default_initializable<T> {
    if (Status s = detail::explain_refusal(r, r.enter_array(), Type::Array, type_name); !s)
      return s;
    if constexpr (std::is_same_v<std::vector<T, A>, std::vector<std::string>>) {
      // Strings in one call to the reader; an element it left (an escaped text, not a string)
      // read on its own, then on in one call again.
      out.clear();
      for (;;) {
        Result<bool> ended = r.read_string_elements(out);
        if (!ended) return ended.error();
        if (*ended) return {};
        const size_t i = out.size();
        if (Status s = read_value(r, out.emplace_back()); !s)
          return detail::prefix_error(detail::index_path(i), s.error());
      }
    }
    // The document does not say how many elements come. Growing `out` as they come would
    // allocate log2(n) + 1 blocks and move every element each time; the elements go into a
    // scratch vector this thread keeps instead, and `out` is allocated once, to size.
    if constexpr (std::is_nothrow_move_constructible_v<T>) {
      detail::ScratchVector<T> scratch;
      if (std::vector<T>* items = scratch.get()) {
        if (Status s = read_elements(r, *items); !s) return s;
        out.assign(std::make_move_iterator(items->begin()), std::make_move_iterator(items->end()));
        return {};
      }
    }
    // The scratch is in use further up (a recursive type), or a move may throw: grow `out`.
    out.clear();
    return read_elements(r, out);
  }

 private:
  template <class Vector>
  static Status read_elements(ValueReader& r, Vector& items) {
    for (size_t i = 0;; ++i) {
      Result<bool> more = r.next_element();
      if (!more) return more.error();
      if (!*more) return {};
      if (Status s = read_value(r, items.emplace_back()); !s)
        return detail::prefix_error(detail::index_path(i), s.error());
    }
  }
};

namespace detail {
template <class Map>
struct ConvertStringMap {
  using Mapped = typename Map::mapped_type;
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const Map& map) {
    Value s = Value::structure();
    s.reserve(map.size());
    for (const auto& [name, item] : map) s.set(name, Convert<Mapped>::to_value(item));
    return s;
  }
  static void write(ValueWriter& w, const Map& map) {
    w.begin_struct();
    for (const auto& [name, item] : map) {
      w.member(name);
      write_value(w, item);
    }
    w.end_struct();
  }
  static Result<Map> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    Map out;
    for (const Member& m : v.members()) {
      Result<Mapped> r = Convert<Mapped>::from_value(m.value());
      if (!r) return prefix_error(member_path(m.name()), r.error());
      out.emplace(std::string(m.name()), std::move(*r));
    }
    return out;
  }
  static Status read(ValueReader& r, Map& out) requires std::default_initializable<Mapped> {
    if (Status s = detail::explain_refusal(r, r.enter_struct(), Type::Struct, type_name); !s)
      return s;
    out.clear();
    std::string_view name;
    for (;;) {
      Result<bool> more = r.next_member(name);
      if (!more) return more.error();
      if (!*more) return {};
      // A repeated name: the last value counts, as in a Value.
      auto it = out.try_emplace(std::string(name)).first;
      if (Status s = read_value(r, it->second); !s)
        return prefix_error(member_path(it->first), s.error());
    }
  }
};
}  // namespace detail

/// A struct whose members all have type T. Member errors name it: ".x must be int, got string".
template <class T, class C, class A>
struct Convert<std::map<std::string, T, C, A>>
    : detail::ConvertStringMap<std::map<std::string, T, C, A>> {};
template <class T, class H, class E, class A>
struct Convert<std::unordered_map<std::string, T, H, E, A>>
    : detail::ConvertStringMap<std::unordered_map<std::string, T, H, E, A>> {};

/// An array of exactly sizeof...(Ts) elements of the given types.
template <class... Ts>
struct Convert<std::tuple<Ts...>> {
  static constexpr std::string_view type_name = "array";
  static Value to_value(const std::tuple<Ts...>& t) {
    Value a = Value::array();
    a.reserve(sizeof...(Ts));
    std::apply([&](const Ts&... item) { (a.push_back(Convert<Ts>::to_value(item)), ...); }, t);
    return a;
  }
  static void write(ValueWriter& w, const std::tuple<Ts...>& t) {
    w.begin_array();
    std::apply([&](const Ts&... item) { (write_value(w, item), ...); }, t);
    w.end_array();
  }
  static Result<std::tuple<Ts...>> from_value(const Value& v) {
    if (!v.is_array() || v.size() != sizeof...(Ts)) {
      std::string got = type_name_of(v);
      if (v.is_array()) got += " of " + std::to_string(v.size());
      return Error(Errc::TypeMismatch,
                   "must be array of " + std::to_string(sizeof...(Ts)) + ", got " + got);
    }
    return read(v, std::index_sequence_for<Ts...>{});
  }

 private:
  static std::string type_name_of(const Value& v) { return callwire::type_name(v.type()); }
  template <size_t... I>
  static Result<std::tuple<Ts...>> read(const Value& v, std::index_sequence<I...>) {
    std::tuple<Result<Ts>...> items{Convert<Ts>::from_value(v[I])...};
    std::optional<Error> error;
    ((error || std::get<I>(items).ok() ||
      (error = detail::prefix_error(detail::index_path(I), std::get<I>(items).error()), true)),
     ...);
    if (error) return *std::move(error);
    return std::tuple<Ts...>(std::move(*std::get<I>(items))...);
  }
};

}  // namespace callwire
