// callwire: the messages every protocol carries: a call, a response, a fault.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "callwire/value.hpp"

namespace callwire {

/// The wire protocol of a call: XML-RPC or JSON-RPC 2.0. A client speaks one
/// (ClientOptions::protocol); a callwire server answers both on one port, by the request's
/// Content-Type.
enum class Protocol : uint8_t { XmlRpc, JsonRpc };

/// How requests and answers travel on a connection handed over (Server::adopt_connection,
/// Server::serve_connection, Client::adopt), as URL schemes choose it for the others: HTTP/1.1
/// ("HOST:PORT", "http://"), SCGI ("scgi://"), xmlrpc-c's packet stream ("pstream://",
/// docs/pstream.md) or newline-delimited JSON-RPC ("jsonl://", docs/json-rpc.md).
enum class ConnectionFraming : uint8_t { Http, Scgi, Pstream, JsonLines };

/// The oldest TLS version a client or server accepts (ClientOptions::tls_min_version,
/// ServerOptions::tls_min_version). Older versions are never offered; a value other than these
/// two is refused with InvalidArgument.
enum class TlsVersion : uint8_t { Tls1_2 = 12, Tls1_3 = 13 };

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
