#include "dispatch/signature.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "base/base64.hpp"

namespace callwire::detail {

namespace {

constexpr int64_t kMaxExactDouble = int64_t{1} << 53;  // every integer up to it is a double

// Whether `v` fits `slot`, converting it when `convert` (only once its signature matched).
// A string that stands for bytes (text_types): decoded when `convert`, checked otherwise.
// The two text readers stay out of line: inlined, their stack frame made every call of
// fits() save and restore six registers, XML-RPC's calls included.
[[gnu::noinline]] bool fits_base64_text(Value& v, bool convert) {
  std::string_view text = v.as_string();
  std::vector<unsigned char> bytes(base64::max_decoded_size(text.size()));
  size_t error_at = 0;
  long n = base64::decode(text, bytes.data(), error_at);
  if (n < 0) return false;
  if (convert) v = Value::bytes(bytes.data(), size_t(n));
  return true;
}

[[gnu::noinline]] bool fits_datetime_text(Value& v, bool convert) {
  Result<DateTime> t = DateTime::parse(v.as_string());
  if (!t) return false;
  if (convert) v = Value(*t);
  return true;
}

bool fits(Slot slot, Value& v, bool convert, bool text_types) {
  switch (slot) {
    case Slot::Any:
      return true;
    case Slot::Int:
      if (v.is_int()) return true;
      if (v.is_i8()) {
        int64_t n = v.as_i8();
        if (n < INT32_MIN || n > INT32_MAX) return false;
        if (convert) v = Value(static_cast<int32_t>(n));
        return true;
      }
      return false;
    case Slot::I8:
      return v.is_integer();
    case Slot::Double:
      if (v.is_double()) return true;
      if (v.is_integer()) {
        int64_t n = v.as_i8();
        if (n < -kMaxExactDouble || n > kMaxExactDouble) return false;
        if (convert) v = Value(static_cast<double>(n));
        return true;
      }
      return false;
    case Slot::Boolean:
      return v.is_bool();
    case Slot::String:
      return v.is_string();
    case Slot::DateTime:
      if (text_types && v.is_string()) return fits_datetime_text(v, convert);
      return v.is_datetime();
    case Slot::Base64:
      if (text_types && v.is_string()) return fits_base64_text(v, convert);
      return v.is_bytes();
    case Slot::Array:
      return v.is_array();
    case Slot::Struct:
      return v.is_struct();
    case Slot::Nil:
      return v.is_nil();
  }
  return false;
}

// True when `v` is what the slot names as it is, with nothing to convert: the usual call, which
// then needs no second pass over its parameters to convert them.
bool fits_as_it_is(Slot slot, const Value& v) noexcept {
  static constexpr Type kSlotType[] = {Type::Int,    Type::I8,       Type::Boolean, Type::Double,
                                       Type::String, Type::DateTime, Type::Bytes,   Type::Array,
                                       Type::Struct, Type::Nil};
  static_assert(std::size(kSlotType) == size_t(Slot::Any));
  if (slot == Slot::Any) return true;
  return v.type() == kSlotType[size_t(slot)] || (slot == Slot::I8 && v.is_int());
}

// "string", or "i8 out of the int range" when the type is right but the value is not.
std::string describe(const Value& v, Slot wanted) {
  std::string got = type_name(v.type());
  if (v.is_i8() && wanted == Slot::Int) got += " out of the int range";
  if (v.is_integer() && wanted == Slot::Double) got += " beyond 2^53 (not exact as a double)";
  return got;
}

std::string parameter_count(size_t n) {
  if (n == 0) return "no parameters";
  return std::to_string(n) + (n == 1 ? " parameter" : " parameters");
}

}  // namespace

bool parse_slot(std::string_view name, Slot& slot) noexcept {
  static constexpr struct {
    std::string_view name;
    Slot slot;
  } kNames[] = {
      {"int", Slot::Int},
      {"i4", Slot::Int},
      {"i8", Slot::I8},
      {"boolean", Slot::Boolean},
      {"double", Slot::Double},
      {"string", Slot::String},
      {"dateTime.iso8601", Slot::DateTime},
      {"base64", Slot::Base64},
      {"array", Slot::Array},
      {"struct", Slot::Struct},
      {"nil", Slot::Nil},
      {"undef", Slot::Any},
      {"any", Slot::Any},
  };
  for (const auto& entry : kNames) {
    if (entry.name == name) {
      slot = entry.slot;
      return true;
    }
  }
  return false;
}

const char* slot_name(Slot slot) noexcept {
  switch (slot) {
    case Slot::Int:
      return "int";
    case Slot::I8:
      return "i8";
    case Slot::Boolean:
      return "boolean";
    case Slot::Double:
      return "double";
    case Slot::String:
      return "string";
    case Slot::DateTime:
      return "dateTime.iso8601";
    case Slot::Base64:
      return "base64";
    case Slot::Array:
      return "array";
    case Slot::Struct:
      return "struct";
    case Slot::Nil:
      return "nil";
    case Slot::Any:
      return "any";
  }
  return "any";
}

Result<std::vector<Signature>> parse_signatures(
    std::string_view method, const std::vector<std::vector<std::string>>& names) {
  std::vector<Signature> out;
  out.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const std::vector<std::string>& sig = names[i];
    std::string where = "method '" + std::string(method) + "', signature " + std::to_string(i + 1);
    if (sig.empty()) return Error(Errc::InvalidArgument, where + ": no return type");
    Signature params;
    params.reserve(sig.size() - 1);
    for (size_t j = 0; j < sig.size(); ++j) {
      Slot slot;
      if (!parse_slot(sig[j], slot))
        return Error(Errc::InvalidArgument, where + ": unknown type name '" + sig[j] + "'");
      if (j > 0) params.push_back(slot);
    }
    out.push_back(std::move(params));
  }
  return out;
}

bool check_params(std::string_view method, const std::vector<Signature>& signatures, Params params,
                  std::string& message, bool text_types) {
  auto fits = [text_types](Slot slot, Value& v, bool convert) {
    return detail::fits(slot, v, convert, text_types);
  };
  // The usual case: one signature, or the first of several, takes the parameters.
  for (const Signature& sig : signatures) {
    if (sig.size() != params.size()) continue;
    size_t i = 0;
    while (i < sig.size() && fits_as_it_is(sig[i], params[i])) ++i;
    if (i == sig.size()) return true;
    while (i < sig.size() && fits(sig[i], params[i], false)) ++i;
    if (i < sig.size()) continue;
    for (size_t k = 0; k < sig.size(); ++k) fits(sig[k], params[k], true);
    return true;
  }

  // None does: say what was closest. Among the signatures of the right length, the ones
  // that got furthest name what that parameter should have been.
  size_t furthest = 0;
  bool any_of_length = false;
  for (const Signature& sig : signatures) {
    if (sig.size() != params.size()) continue;
    size_t i = 0;
    while (fits(sig[i], params[i], false)) ++i;  // stops: this signature does not match
    if (!any_of_length || i > furthest) furthest = i;
    any_of_length = true;
  }
  if (!any_of_length) {
    std::vector<size_t> counts;
    for (const Signature& sig : signatures) counts.push_back(sig.size());
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    message = std::string(method) + " takes ";
    for (size_t k = 0; k < counts.size(); ++k) {
      if (k > 0) message += k + 1 == counts.size() ? " or " : ", ";
      message += k + 1 == counts.size() ? parameter_count(counts[k]) : std::to_string(counts[k]);
    }
    message += ", got " + std::to_string(params.size());
    return false;
  }
  std::vector<Slot> expected;
  for (const Signature& sig : signatures) {
    if (sig.size() != params.size()) continue;
    size_t i = 0;
    while (fits(sig[i], params[i], false)) ++i;
    if (i == furthest && std::find(expected.begin(), expected.end(), sig[i]) == expected.end())
      expected.push_back(sig[i]);
  }
  message = std::string(method) + ": parameter " + std::to_string(furthest + 1) + " must be ";
  for (size_t k = 0; k < expected.size(); ++k) {
    if (k > 0) message += k + 1 == expected.size() ? " or " : ", ";
    message += slot_name(expected[k]);
  }
  message += ", got " + describe(params[furthest], expected.front());
  return false;
}

}  // namespace callwire::detail
