// Internal: method signatures as the dispatcher checks them. The type names of
// MethodInfo::signatures are parsed once, when the method is added, into slots; a call's
// parameters are matched against them before the handler runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "callwire/registry.hpp"

namespace callwire::detail {

/// What one position of a signature takes.
enum class Slot : uint8_t {
  Int,       ///< "int", "i4": an int, or an i8 in the 32-bit range (converted to int)
  I8,        ///< "i8": an int or an i8 (left as it is: Value::as_i8 widens an int)
  Boolean,   ///< "boolean"
  Double,    ///< "double": a double, or an int/i8 of magnitude <= 2^53 (converted to double)
  String,    ///< "string"
  DateTime,  ///< "dateTime.iso8601"
  Base64,    ///< "base64"
  Array,     ///< "array"
  Struct,    ///< "struct"
  Nil,       ///< "nil"
  Any,       ///< "undef", "any": anything
};

/// The slot a type name stands for; false when the name is not one of the above.
bool parse_slot(std::string_view type_name, Slot& slot) noexcept;
/// The canonical name of a slot ("int", "dateTime.iso8601", "any"). Static storage.
const char* slot_name(Slot slot) noexcept;

/// The parameter slots of one signature (its return type is documentation only).
using Signature = std::vector<Slot>;

/// Parses `info.signatures` of method `method`. InvalidArgument for a signature without a
/// return type or with an unknown type name.
Result<std::vector<Signature>> parse_signatures(std::string_view method,
                                                const std::vector<std::vector<std::string>>& names);

/// Matches `params` against `signatures` (not empty), in order: the first that takes them
/// wins, and its conversions are applied in place. When none does, returns false and sets
/// `message` to what was wrong ("m: parameter 2 must be int, got string",
/// "m takes 2 parameters, got 3"). Allocates only for the message. `text_types`: a string
/// fits a base64 slot when it is base64 (decoded into bytes) and a dateTime slot when it is
/// ISO 8601 (read into a dateTime), for protocols with no such types (JSON).
bool check_params(std::string_view method, const std::vector<Signature>& signatures, Params params,
                  std::string& message, bool text_types = false);

}  // namespace callwire::detail
