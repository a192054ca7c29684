// callwire: the messages every protocol carries: a call, a response, a fault.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "callwire/framing.hpp"  // Protocol, ConnectionFraming, TlsVersion
#include "callwire/value.hpp"

namespace callwire {

/// A method call: a name and its parameters. `params` is always an array.
struct MethodCall {
  std::string method_name;
  Value params = Value::array();

  bool operator==(const MethodCall&) const = default;
};

/// A fault: the code and string a server answers with instead of a result.
struct Fault {
  int32_t code = 0;
  std::string string;
  /// More about it, for JSON-RPC: the error object's "data" (any value). XML-RPC's fault has
  /// no room for it: an XML-RPC answer leaves it out.
  std::optional<Value> data;

  bool operator==(const Fault&) const = default;
};

/// A method response: a result, or a fault.
struct MethodResponse {
  bool is_fault = false;
  Value result;  ///< meaningful when !is_fault
  Fault fault;   ///< meaningful when is_fault

  bool operator==(const MethodResponse&) const = default;
};

/// Either kind of document, for tools that read whatever they are given.
struct Message {
  enum class Kind : uint8_t { Call, Response };
  Kind kind = Kind::Call;
  MethodCall call;          ///< when kind == Call
  MethodResponse response;  ///< when kind == Response
};

}  // namespace callwire
