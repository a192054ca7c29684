// callwire: the XML-RPC reader and writer. Bytes in, values out, and back; no I/O.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "callwire/export.hpp"
#include "callwire/message.hpp"
#include "callwire/value.hpp"
#include "callwire/value_reader.hpp"

namespace callwire {

/// How i8 and nil are written in a server's answers (ServerOptions::dialect,
/// DispatcherOptions::dialect): Auto follows each request; xml::Dialect is what the writers take.
enum class OutputDialect : uint8_t {
  Auto,    ///< the dialect the request used (Apache when it used `ex:` types or came from
           ///< Apache XML-RPC's client), else I8
  I8,      ///< `<i8>`, `<nil/>`
  Apache,  ///< `<ex:i8>`, `<ex:nil/>` with the namespace declared (Apache XML-RPC needs it)
};

}  // namespace callwire

namespace callwire::xml {

/// Limits on what one Reader accepts. Exceeding one is Errc::LimitExceeded (fault -32600),
/// reported before the memory is spent.
struct ReaderLimits {
  static constexpr uint32_t kMaxDepth = 1000;

  size_t max_document_size = size_t{32} << 20;  ///< bytes of XML
  /// Arrays and structs nested in one value. At most kMaxDepth: a setting above is lowered to
  /// it, since copying, comparing and destroying a Value recurse once per level.
  uint32_t max_depth = 64;
  size_t max_elements = size_t{1} << 20;      ///< start tags in one document
  size_t max_string_size = size_t{16} << 20;  ///< bytes of one string, name or base64 text

  /// These limits for messages of at most `max_message` bytes (a server's max_body, a
  /// client's max_response_size), so that one knob decides how big a message may be: a
  /// document limit left at its default becomes `max_message` (one set lower stays), and a
  /// string limit left at its default follows the document's (a string cannot be longer).
  ReaderLimits following(size_t max_message) const noexcept {
    const ReaderLimits defaults;
    ReaderLimits out = *this;
    out.max_document_size = max_document_size == defaults.max_document_size
                                ? max_message
                                : std::min(max_document_size, max_message);
    if (max_string_size == defaults.max_string_size) out.max_string_size = out.max_document_size;
    return out;
  }
};

/// Reads XML-RPC documents (methodCall, methodResponse) straight into values, with no DOM.
///
/// Accepts strict XML 1.0 in UTF-8, US-ASCII or ISO-8859-1 (transcoded); refuses a DOCTYPE
/// outright. Lenient where real peers are: see docs/xml-reader.md.
///
/// Ownership: the document is borrowed for the call only; results own their values.
/// Thread-safety: a Reader keeps scratch space between calls: use one per thread.
/// Errors: every failure is an Error whose fault_code is the interop code (-32700 not well
/// formed, -32701 unsupported encoding, -32702 invalid character, -32600 not XML-RPC or a limit)
/// and whose message says where (line:column) and what. Never throws for bad input.
class CALLWIRE_API Reader {
 public:
  explicit Reader(ReaderLimits limits = {});
  ~Reader();
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;

  /// The limits given at construction (max_depth lowered to kMaxDepth if it was above).
  const ReaderLimits& limits() const noexcept;

  /// A `<methodCall>` document.
  Result<MethodCall> read_call(std::string_view document);
  /// The same into `call`, reusing its storage (a server reads call after call into one).
  /// On an error `call` holds unspecified (valid) contents.
  Status read_call(std::string_view document, MethodCall& call);
  /// A `<methodResponse>` document: params or fault.
  Result<MethodResponse> read_response(std::string_view document);
  /// A `<methodResponse>` document whose result goes to `sink` as it is read, with no Value
  /// tree built (a typed call's result decoded straight into its C++ type): `response` says
  /// whether it was a fault (then `response.fault` holds it) and its result stays nil. The
  /// returned status is the document's; the sink's goes in `sink_status`, and when the sink
  /// fails the rest of the document is not read.
  Status read_response(std::string_view document, MethodResponse& response, ValueSink& sink,
                       Status& sink_status);
  /// Either kind.
  Result<Message> read(std::string_view document);

  // What the last document read looked like, for a server that answers in the dialect it was
  // spoken to (both describe as much as was read when the read failed). Free: recorded only
  // on paths the usual documents do not take.

  /// Whether it named a type with a namespace prefix (Apache's `<ex:i8>`, `<ex:nil/>`).
  bool last_used_prefixed_types() const noexcept;
  /// Whether it declared Apache's extensions namespace
  /// (`http://ws.apache.org/xmlrpc/namespaces/extensions`) on any element.
  bool last_declared_apache_extensions() const noexcept;

 private:
  friend struct ReaderInternals;  // callwire's client's own entry points (not public API)
  std::unique_ptr<struct ReaderImpl> impl_;
};

/// How integers above 32 bits and nil are written. Both are read whatever is chosen.
enum class Dialect : uint8_t {
  I8,      ///< `<i8>`, `<nil/>` (xmlrpc-c, Python, rtorrent)
  Apache,  ///< `<ex:i8>`, `<ex:nil/>` with xmlns:ex declared on the root (Apache XML-RPC)
};

/// How the writers below write. A plain struct.
struct WriterOptions {
  Dialect dialect = Dialect::I8;
};

// The writers append one complete document to `out`. On error (Errc::Unrepresentable: a NaN or
// infinite double, a string that is not UTF-8 or holds a character XML forbids, an invalid
// dateTime) `out` is left as it was. Thread-safe (no shared state); values are borrowed.

/// `<methodCall>`: `params` are the parameters in order.
CALLWIRE_API Status write_call(Buffer& out, std::string_view method_name,
                               std::span<const Value> params, const WriterOptions& options = {});
/// `<methodResponse>` with one result.
CALLWIRE_API Status write_response(Buffer& out, const Value& result,
                                   const WriterOptions& options = {});
/// `<methodResponse>` with a fault.
CALLWIRE_API Status write_fault(Buffer& out, const Fault& fault, const WriterOptions& options = {});
/// A call, a response or a fault, whichever `message` holds.
CALLWIRE_API Status write_message(Buffer& out, const Message& message,
                                  const WriterOptions& options = {});

}  // namespace callwire::xml
