// callwire: the JSON form of XML-RPC documents, printed by `callwire decode` and read by
// `callwire encode`. A public interface: docs/json-form.md describes it; keep it stable.
#pragma once

#include <string>
#include <string_view>

#include "callwire/error.hpp"
#include "callwire/message.hpp"
#include "callwire/value.hpp"

// Every function here is thread-safe (no shared state) and borrows its arguments for the call.
namespace callwire::json_form {

/// One value in the JSON form (see docs/json-form.md). Never fails: every Value has a form.
/// Compact: no white space. Lossy only for what no XML-RPC document can hold: bytes that are not
/// UTF-8 in a string become U+FFFD, a NaN or infinite double becomes a string.
std::string to_json(const Value& value);
/// A call `{"methodName": M, "params": [...]}`, a response `{"result": V}`, or a fault
/// `{"fault": {"faultCode": N, "faultString": S}}`.
std::string to_json(const Message& message);

/// How the writers lay out their text. Compact (the default of the overloads above) has no
/// whitespace at all; Pretty puts each array element and struct member on its own line, indented
/// by two spaces, and keeps a tagged scalar such as `{"$i8": 5}` on one line.
enum class Style { Compact, Pretty };
std::string to_json(const Value& value, Style style);
std::string to_json(const Message& message, Style style);

/// Reads a value in the JSON form. Errc::InvalidArgument with a message on bad input that says
/// what and where; its fault_code is -32700 when the text is not JSON, -32600 when it is JSON but
/// not the form. Never throws for bad input.
Result<Value> value_from_json(std::string_view json);
/// Reads a call, a response or a fault in the JSON form.
Result<Message> message_from_json(std::string_view json);

}  // namespace callwire::json_form
