// callwire: the shape of a C++ type as introspection shows it, e.g.
//   Order {id: int, items: [Item {sku: string, qty: int, price: double}], note?: string}
// No stability promise; system.methodHelp of a bound method shows these (registry.hpp).
//
// A struct declared with CALLWIRE_STRUCT is spelled out the first time it appears in a text and
// named after that (so a recursive type ends); arrays are [T], string-keyed maps {string: T},
// tuples [A, B], optionals "T or nil", every other type its Convert<T>::type_name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "callwire/convert.hpp"

namespace callwire::detail {

/// The text being built and the structs already spelled out in it.
struct ShapeText {
  std::string text;
  std::vector<std::string_view> spelled;

  /// True the first time `name` is met: the caller spells its members out then.
  bool first_time(std::string_view name) {
    for (std::string_view s : spelled)
      if (s == name) return false;
    spelled.push_back(name);
    return true;
  }
};

template <class T>
void append_shape(ShapeText& out);

template <class T>
struct ShapeOf {
  static void append(ShapeText& out) {
    if constexpr (requires { Convert<T>::append_shape(out); }) {
      Convert<T>::append_shape(out);
    } else {
      out.text += Convert<T>::type_name;
    }
  }
};
template <class T, class A>
requires(!std::is_same_v<T, uint8_t>)  // bytes: base64, not an array
    struct ShapeOf<std::vector<T, A>> {
  static void append(ShapeText& out) {
    out.text += '[';
    append_shape<T>(out);
    out.text += ']';
  }
};
template <class T>
struct ShapeOf<std::optional<T>> {
  static void append(ShapeText& out) {
    append_shape<T>(out);
    out.text += " or nil";
  }
};
template <class Map>
struct ShapeOfStringMap {
  static void append(ShapeText& out) {
    out.text += "{string: ";
    append_shape<typename Map::mapped_type>(out);
    out.text += '}';
  }
};
template <class T, class C, class A>
struct ShapeOf<std::map<std::string, T, C, A>> : ShapeOfStringMap<std::map<std::string, T, C, A>> {
};
template <class T, class H, class E, class A>
struct ShapeOf<std::unordered_map<std::string, T, H, E, A>>
    : ShapeOfStringMap<std::unordered_map<std::string, T, H, E, A>> {};
template <class... Ts>
struct ShapeOf<std::tuple<Ts...>> {
  static void append(ShapeText& out) {
    out.text += '[';
    bool first = true;
    ((out.text += first ? "" : ", ", first = false, append_shape<Ts>(out)), ...);
    out.text += ']';
  }
};

template <class T>
void append_shape(ShapeText& out) {
  ShapeOf<std::remove_cvref_t<T>>::append(out);
}

/// Whether a shape says more than the signatures' type names: a struct's members or an array's
/// element type.
inline bool shape_is_detailed(std::string_view shape) {
  return shape.find_first_of("[{") != std::string_view::npos;
}

}  // namespace callwire::detail
