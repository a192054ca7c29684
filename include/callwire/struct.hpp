// callwire: a user struct as an XML-RPC struct, declared in one line.
//
//   struct Item { std::string sku; int qty = 0; double price = 0; };
//   struct Order { int id = 0; std::vector<Item> items; std::optional<std::string> note; };
//   CALLWIRE_STRUCT(Item, sku, qty, price);
//   CALLWIRE_STRUCT(Order, id, items, note);
//
// gives Convert<Order> (callwire/convert.hpp) both ways on every path: to and from a Value, the
// typed read straight out of an XML-RPC or JSON-RPC answer (call<Order>) and the typed write
// straight into one (a bound handler returning Order). The member names are the keys.
//
// - Where: in the namespace of the type (found by argument-dependent lookup, as
//   nlohmann/json's NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE is). CALLWIRE_STRUCT_INTRUSIVE(Order,
//   ...) does the same inside the class, for private members.
// - Members: any type with a Convert (nested structs, std::vector, std::map<std::string, T>,
//   std::optional, bytes, times, enums as integers), owning (no std::string_view); up to 64 of
//   them. The struct needs a default constructor; a member of a base class may be listed too.
// - Reading: members arrive in any order; unknown members are skipped; a std::optional member
//   may be absent or nil (it is then empty); any other absent member is an error naming its
//   path, as every conversion's error does: "get_order: result.items[3].price is missing",
//   "get_order: result.items[3].price must be double, got string". Of a repeated member the
//   last counts.
// - Writing: the members in the order listed; an empty std::optional member is left out.
// - Introspection: a bound method's system.methodHelp spells the struct out,
//   "Order {id: int, items: [Item {sku: string, qty: int, price: double}], note?: string}".
//
// Thread-safety: stateless. A hand-written Convert<T> specialisation, where one exists, wins.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "callwire/convert.hpp"
#include "callwire/detail/shape.hpp"
#include "callwire/value_reader.hpp"

namespace callwire {

/// One member of a declared struct: its key and where it lives in S.
template <class S, class M>
struct StructMember {
  using Struct = S;
  using Type = M;
  std::string_view name;
  M S::*pointer;
};

/// What CALLWIRE_STRUCT declares: the struct's C++ name (for introspection) and its members.
template <class S, class... Ms>
struct StructDescription {
  using Struct = S;
  std::string_view name;
  std::tuple<StructMember<S, Ms>...> members;
};

template <class S, class M>
constexpr StructMember<S, M> struct_member(std::string_view name, M S::*pointer) {
  return {name, pointer};
}

template <class S, class... Ms>
constexpr StructDescription<S, Ms...> describe_struct(std::string_view name,
                                                      StructMember<S, Ms>... members) {
  return {name, {members...}};
}

namespace detail {

// Only argument-dependent lookup finds the macros' functions: this one is never chosen.
void callwire_struct_description() = delete;

template <class T>
concept DeclaredStruct = std::is_class_v<T> && requires(const T* p) {
  // The description found must be T's own, not a base class's (a pointer to a derived class
  // converts to one to its base).
  requires std::is_same_v<typename decltype(callwire_struct_description(p))::Struct, T>;
};

template <class T>
constexpr auto description_of() {
  return callwire_struct_description(static_cast<const T*>(nullptr));
}

template <class M>
inline constexpr bool is_optional_v = false;
template <class M>
inline constexpr bool is_optional_v<std::optional<M>> = true;

}  // namespace detail

/// A struct declared with CALLWIRE_STRUCT (or CALLWIRE_STRUCT_INTRUSIVE).
template <detail::DeclaredStruct T>
struct Convert<T> {
  static constexpr auto description = detail::description_of<T>();
  static constexpr size_t size = std::tuple_size_v<decltype(description.members)>;
  static constexpr std::string_view type_name = "struct";
  static_assert(std::is_default_constructible_v<T>,
                "CALLWIRE_STRUCT: the struct needs a default constructor (it is read into one)");

  static Value to_value(const T& t) {
    Value s = Value::structure();
    s.reserve(size);
    std::apply([&](const auto&... m) { (set_member(s, m, t), ...); }, description.members);
    return s;
  }
  static void write(ValueWriter& w, const T& t) {
    w.begin_struct();
    std::apply([&](const auto&... m) { (write_member(w, m, t), ...); }, description.members);
    w.end_struct();
  }
  // Through the same reading as read(), so both accept the same and say the same.
  static Result<T> from_value(const Value& v) {
    T out{};
    TreeReader reader(v);
    if (Status s = read(reader, out); !s) return s.error();
    return out;
  }
  static Status read(ValueReader& r, T& out) {
    if (Status s = detail::explain_refusal(r, r.enter_struct(), Type::Struct, type_name); !s)
      return s;
    std::array<bool, size + 1> seen{};  // + 1: no zero-length array for a struct of no members
    size_t expected = 0;                // members mostly come in the order they were written
    std::string_view name;
    for (;;) {
      Result<bool> more = r.next_member(name);
      if (!more) return more.error();
      if (!*more) break;
      size_t index = find_member(name, expected);
      if (index == size) continue;  // not ours: skipped at the next next_member()
      expected = index + 1;
      seen[index] = true;
      if (Status s = read_member(r, out, index); !s) return s;
    }
    return settle_absent(out, seen, std::make_index_sequence<size>{});
  }
  static void append_shape(detail::ShapeText& out) {
    out.text += description.name;
    if (!out.first_time(description.name)) return;
    out.text += " {";
    bool first = true;
    std::apply([&](const auto&... m) { (append_member_shape(out, m, first), ...); },
               description.members);
    out.text += '}';
  }

 private:
  static constexpr std::array<std::string_view, size> names =
      std::apply([](const auto&... m) { return std::array<std::string_view, size>{m.name...}; },
                 description.members);

  static size_t find_member(std::string_view name, size_t expected) {
    return find_member(name, expected, std::make_index_sequence<size>{});
  }
  // The expected member first, then each in turn; every compare is against a name whose
  // size is known at compile time, which the compiler turns into a load or two and a compare
  // (a loop over the bytes cost a typed read about 2%).
  template <size_t... I>
  static size_t find_member(std::string_view name, size_t expected, std::index_sequence<I...>) {
    if (((expected == I && is_name<I>(name)) || ...)) return expected;
    size_t found = size;
    ((is_name<I>(name) && (found = I, true)) || ...);
    return found;
  }
  template <size_t I>
  CALLWIRE_ALWAYS_INLINE static bool is_name(std::string_view name) {
    constexpr std::string_view kName = names[I];
    if (name.size() != kName.size()) return false;
    if constexpr (kName.empty()) {
      return true;
    } else {
      return std::memcmp(name.data(), kName.data(), kName.size()) == 0;
    }
  }

  // Member `index`, I its first candidate: a chain of compares the compiler folds, each member's
  // read returning its Status straight back (no Status assigned along the way).
  template <size_t I = 0>
  static Status read_member(ValueReader& r, T& out, size_t index) {
    if constexpr (I < size) {
      if (index == I) return read_one<I>(r, out);
      return read_member<I + 1>(r, out, index);
    } else {
      return {};
    }
  }
  template <size_t I>
  static Status read_one(ValueReader& r, T& out) {
    const auto& m = std::get<I>(description.members);
    Status s = read_value(r, out.*m.pointer);
    if (!s) return detail::prefix_error(detail::member_path(m.name), s.error());
    return s;
  }

  // An absent optional member is empty; any other absent member is the error (the first
  // listed, when several are).
  template <size_t... I>
  static Status settle_absent(T& out, const std::array<bool, size + 1>& seen,
                              std::index_sequence<I...>) {
    std::string_view missing;
    (settle_one<I>(out, seen[I], missing), ...);
    if (missing.empty()) return {};
    return Error(Errc::NotFound, detail::member_path(missing, " is missing"));
  }
  template <size_t I>
  static void settle_one(T& out, bool seen, std::string_view& missing) {
    if (seen) return;
    const auto& m = std::get<I>(description.members);
    using M = typename std::remove_cvref_t<decltype(m)>::Type;
    if constexpr (detail::is_optional_v<M>) {
      (out.*m.pointer).reset();
    } else if (missing.empty()) {
      missing = m.name;
    }
  }

  template <class M>
  static void set_member(Value& s, const StructMember<T, M>& m, const T& t) {
    if constexpr (detail::is_optional_v<M>) {
      if (!(t.*m.pointer)) return;
    }
    s.set(m.name, Convert<M>::to_value(t.*m.pointer));
  }
  template <class M>
  static void write_member(ValueWriter& w, const StructMember<T, M>& m, const T& t) {
    if constexpr (detail::is_optional_v<M>) {
      if (!(t.*m.pointer)) return;
    }
    w.member(m.name);
    write_value(w, t.*m.pointer);
  }
  template <class M>
  static void append_member_shape(detail::ShapeText& out, const StructMember<T, M>& m,
                                  bool& first) {
    if (!first) out.text += ", ";
    first = false;
    out.text += m.name;
    if constexpr (detail::is_optional_v<M>) {
      out.text += "?: ";
      detail::append_shape<typename M::value_type>(out);
    } else {
      out.text += ": ";
      detail::append_shape<M>(out);
    }
  }
};

}  // namespace callwire

// ---- the macros: CALLWIRE_DETAIL_FOR_EACH(F, a, b, c) is F(a) F(b) F(c), for up to 64
// arguments (each CALLWIRE_DETAIL_EXPAND level rescans its text four times over; every rescan
// takes one more step).
#define CALLWIRE_DETAIL_PARENS ()
#define CALLWIRE_DETAIL_EXPAND(...) \
  CALLWIRE_DETAIL_EXPAND3(          \
      CALLWIRE_DETAIL_EXPAND3(CALLWIRE_DETAIL_EXPAND3(CALLWIRE_DETAIL_EXPAND3(__VA_ARGS__))))
#define CALLWIRE_DETAIL_EXPAND3(...) \
  CALLWIRE_DETAIL_EXPAND2(           \
      CALLWIRE_DETAIL_EXPAND2(CALLWIRE_DETAIL_EXPAND2(CALLWIRE_DETAIL_EXPAND2(__VA_ARGS__))))
#define CALLWIRE_DETAIL_EXPAND2(...) \
  CALLWIRE_DETAIL_EXPAND1(           \
      CALLWIRE_DETAIL_EXPAND1(CALLWIRE_DETAIL_EXPAND1(CALLWIRE_DETAIL_EXPAND1(__VA_ARGS__))))
#define CALLWIRE_DETAIL_EXPAND1(...) __VA_ARGS__
#define CALLWIRE_DETAIL_FOR_EACH(F, ...) \
  __VA_OPT__(CALLWIRE_DETAIL_EXPAND(CALLWIRE_DETAIL_FOR_EACH_STEP(F, __VA_ARGS__)))
#define CALLWIRE_DETAIL_FOR_EACH_STEP(F, first, ...) \
  F(first) __VA_OPT__(CALLWIRE_DETAIL_FOR_EACH_AGAIN CALLWIRE_DETAIL_PARENS(F, __VA_ARGS__))
#define CALLWIRE_DETAIL_FOR_EACH_AGAIN() CALLWIRE_DETAIL_FOR_EACH_STEP

// ", member("id", &Self::id)": the member's declared type, so that a base class's member
// (a pointer to a member of the base) converts to a pointer to a member of Self.
#define CALLWIRE_DETAIL_MEMBER(member)                                               \
  , ::callwire::struct_member<CallwireSelf, decltype(CallwireSelf::member)>(#member, \
                                                                            &CallwireSelf::member)

#define CALLWIRE_DETAIL_DESCRIPTION(Type, ...)                                \
  callwire_struct_description(const Type*) {                                  \
    using CallwireSelf = Type;                                                \
    return ::callwire::describe_struct<CallwireSelf>(                         \
        #Type CALLWIRE_DETAIL_FOR_EACH(CALLWIRE_DETAIL_MEMBER, __VA_ARGS__)); \
  }                                                                           \
  static_assert(true, "")

/// Declares struct Type's members (at namespace scope, in Type's namespace):
/// CALLWIRE_STRUCT(Order, id, items, note);
#define CALLWIRE_STRUCT(Type, ...) \
  [[maybe_unused]] constexpr auto CALLWIRE_DETAIL_DESCRIPTION(Type, __VA_ARGS__)

/// The same inside the class (private members allowed): CALLWIRE_STRUCT_INTRUSIVE(Order, id);
#define CALLWIRE_STRUCT_INTRUSIVE(Type, ...) \
  friend constexpr auto CALLWIRE_DETAIL_DESCRIPTION(Type, __VA_ARGS__)
