// callwire: the JSON-RPC 2.0 codec. Bytes in, values out, and back; no I/O.
//
// Values (docs/json-rpc.md has the full table):
//
//   JSON                                     Value
//   null                                     nil
//   true, false                              bool
//   integer in [-2^31, 2^31)                 int
//   integer in [-2^63, 2^63), outside int    i8
//   integer beyond 64 bits                   refused: Errc::Unrepresentable, fault -32602
//   number with a fraction or an exponent    double (beyond a double's range: as above; too
//                                            small for one: zero)
//   string                                   string (JSON text is UTF-8; lone surrogates refused)
//   array                                    array
//   object                                   struct, members in document order; a repeated
//                                            name is refused: Errc::InvalidRequest, fault -32600
//
// Written back: nil, bool, int, i8 and strings as above; a double as the shortest text that
// reads back as the same double (std::to_chars), with ".0" added when that text has neither a
// fraction nor an exponent, so that a double stays a double (1.0 is `1.0`, not `1`); NaN and
// the infinities are refused (Errc::Unrepresentable); strings escape `"`, `\` and the C0
// controls (`\n`, `\t`, ... and `\u00XX`), and a string that is not valid UTF-8 is refused
// (Errc::Unrepresentable), as by the XML writer; bytes as a base64 string (RFC 4648, padded, one
// line); a dateTime as an ISO 8601 string `YYYY-MM-DDTHH:MM:SS[.f…][Z|±hh:mm]`; structs as
// objects in member order. Bytes and dateTime therefore read back as strings: the method's
// signature converts them.
//
// Errors use the shared table with the JSON-RPC codes as fault codes: invalid JSON (including
// invalid UTF-8) is Errc::NotWellFormed (-32700); JSON that is no JSON-RPC request is
// Errc::InvalidRequest (-32600: a document that is not a request of this protocol);
// a limit is Errc::LimitExceeded (-32600); a number no Value can hold is Errc::Unrepresentable
// (-32602, invalid params).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "callwire/export.hpp"
#include "callwire/value.hpp"

namespace callwire {
class ValueSink;
}

namespace callwire::json {

/// The bytes simdjson may read past the end of a document (it loads 64 bytes at a time). A
/// document given to Reader::read_request_padded must have this many readable bytes after it;
/// for a document at the end of a Buffer, `buffer.prepare(kPadding)` provides them.
inline constexpr size_t kPadding = 64;

/// The id a response carries when the request's id could not be read.
inline constexpr std::string_view kNullId = "null";

/// Limits on what one Reader accepts. Exceeding one is Errc::LimitExceeded (fault -32600) for the
/// whole document, reported before the memory is spent.
struct JsonLimits {
  static constexpr uint32_t kMaxDepth = 1000;

  size_t max_document_size = size_t{32} << 20;  ///< bytes of JSON
  /// Arrays and objects nested in one value: each of a request's params counts from itself as 1
  /// (`[[1]]` as a param is depth 2); the params array or object, the request object and the
  /// batch array around them do not count, as XML-RPC's <params> do not. At
  /// most kMaxDepth: a setting above is lowered to it, since copying, comparing, writing and
  /// destroying a Value recurse once per level.
  uint32_t max_depth = 64;
  size_t max_string_size = size_t{16} << 20;  ///< bytes of one string or member name, unescaped
  size_t max_batch_size = 1000;               ///< requests in one batch (ServerOptions'
                                              ///< max_multicall_calls has the same default)
  size_t max_elements = size_t{1} << 20;      ///< array elements and object members, all told

  /// As xml::ReaderLimits::following: a document limit left at its default becomes
  /// `max_message` (one set lower stays), and a string limit left at its default follows it.
  JsonLimits following(size_t max_message) const noexcept {
    const JsonLimits defaults;
    JsonLimits out = *this;
    out.max_document_size = max_document_size == defaults.max_document_size
                                ? max_message
                                : std::min(max_document_size, max_message);
    if (max_string_size == defaults.max_string_size) out.max_string_size = out.max_document_size;
    return out;
  }
};

/// One request of a document, decoded. A plain struct.
struct Call {
  /// The id exactly as it was written (`1`, `"abc"`, `null`, `1.5e3`: JSON text, to be written
  /// back as it is); empty for a notification. An invalid request (error.fault_code -32600)
  /// whose id could not be read has `null`, since it is answered even without an id.
  std::string id;
  std::string method;  ///< the method name (empty when `error` says it was missing)
  /// An array (positional params; also when "params" was absent: no params) or a struct (named
  /// params). Meaningful only when ok().
  Value params = Value::array();
  /// Ok, or why this request is refused: Errc::InvalidRequest or LimitExceeded with fault -32600
  /// (invalid request: no "jsonrpc": "2.0", a method that is not a string, params that are
  /// neither array nor object, an id that is not a number, string or null, a repeated member
  /// name), or Errc::Unrepresentable with fault -32602 (a number in the params no Value holds).
  Error error;

  bool is_notification() const noexcept { return id.empty(); }
  bool ok() const noexcept { return error.code == Errc::Ok; }
};

/// A request document, decoded: one call, or a batch of them.
struct Request {
  bool batch = false;       ///< the document was an array: answer with an array
  std::vector<Call> calls;  ///< in document order; one when !batch
};

/// One response of a document, decoded. A plain struct.
struct Response {
  /// The id exactly as it was written (`1`, `"abc"`, `null`: JSON text), as Call::id. A server
  /// answers `null` when it could not read the request's id.
  std::string id;
  Value result;  ///< meaningful when ok()
  /// Ok: a result. Errc::Fault: an error response (fault_code is its "code", message its
  /// "message"; its "data", if any, is `data`). Errc::Unrepresentable: the result or the data
  /// holds a number no Value holds (beyond 64 bits or a double's range); Errc::InvalidRequest:
  /// an object in them repeats a member name. Those two concern this response only: the
  /// others of a batch are read as usual.
  Error error;
  std::optional<Value> data;  ///< an error's "data" member; empty when it had none

  bool ok() const noexcept { return error.code == Errc::Ok; }
  bool is_fault() const noexcept { return error.code == Errc::Fault; }
};

/// A response document, decoded: one response, or a batch of them.
struct Responses {
  bool batch = false;               ///< the document was an array
  std::vector<Response> responses;  ///< in document order (a server may answer in any order)
};

/// Reads JSON-RPC 2.0 request documents (and plain JSON values) on simdjson, straight into
/// values, with limits.
///
/// Ownership: the document is borrowed for the call only; results own their values.
/// Thread-safety: a Reader keeps its parser and scratch space between calls: use one per thread.
/// Errors: never throws for bad input (std::bad_alloc only). A whole-document error is returned
/// as a Status, to be answered with one error response with id null: -32700 (invalid JSON),
/// -32600 (an empty batch `[]`, a document that is neither object nor array, a limit). A
/// request's own error is its Call::error, and the others of a batch are read as usual.
class CALLWIRE_API Reader {
 public:
  explicit Reader(JsonLimits limits = {});
  ~Reader();
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;

  /// The limits given at construction (max_depth lowered to kMaxDepth if it was above).
  const JsonLimits& limits() const noexcept;

  /// Reads a request document into `out`, reusing its storage. Copies the document into a
  /// padded buffer the Reader keeps (one memcpy, no allocation once it is large enough).
  /// On an error `out` holds no calls.
  Status read_request(std::string_view document, Request& out);
  /// The same without the copy: `document` must have kPadding readable bytes after its end
  /// (their contents do not matter).
  Status read_request_padded(std::string_view document, Request& out);

  /// Reads a response document (one response object, or a batch array of them) into `out`,
  /// reusing its storage; copies the document as read_request does. A response must be an
  /// object with "jsonrpc": "2.0", an "id" (a number, a string or null), and exactly one of
  /// "result" (any value) and "error" (an object with an integer "code" within 32 bits, a string
  /// "message" and an optional "data" of any value); other members are ignored. Limits as for
  /// requests (a result or data value counts from itself as depth 1; max_batch_size bounds the
  /// responses of a batch). On an error `out` holds no responses. Errors: NotWellFormed
  /// (invalid JSON), InvalidRequest (an empty batch, a document that is neither object nor
  /// array, or any response of it malformed as above: the message names which and why),
  /// LimitExceeded.
  Status read_response(std::string_view document, Responses& out);
  /// The same without the copy, as read_request_padded: `document` must have kPadding readable
  /// bytes after its end (their contents do not matter).
  Status read_response_padded(std::string_view document, Responses& out);

  /// A document of one response (not a batch) whose result goes to `sink` as it is read, with
  /// no Value tree built (a typed call's result decoded straight into its C++ type), as
  /// xml::Reader::read_response with a sink does: `response` gets the id, and the error of an
  /// error response (its result stays nil). The sink reads through a ValueReader on which
  /// strings stand for bytes and times (`strings_stand_for_bytes_and_times()`: JSON has
  /// neither): a base64 string reads as bytes, an ISO 8601 one as a dateTime. The returned
  /// status is the document's, as read_response's (a batch is InvalidRequest); the sink's own
  /// goes in `sink_status`. What the sink leaves unread of the result is still walked, so
  /// invalid JSON and the limits fail the document wherever they are; a number no Value holds
  /// or a repeated member name in a part the sink reads fails that read and is also
  /// `response.error`, as read_response reports it (in a part it skips, it spoils nothing).
  /// Copies the document as read_response does.
  Status read_response(std::string_view document, Response& response, ValueSink& sink,
                       Status& sink_status);
  /// The same without the copy: `document` must have kPadding readable bytes after its end.
  Status read_response_padded(std::string_view document, Response& response, ValueSink& sink,
                              Status& sink_status);

  /// One JSON value (any type at the root), mapped as described at the top of this header.
  Result<Value> read_value(std::string_view document);

 private:
  std::unique_ptr<struct ReaderImpl> impl_;
};

/// The spec's message for a standard code: "Parse error" (-32700), "Invalid Request" (-32600),
/// "Method not found" (-32601), "Invalid params" (-32602), "Internal error" (-32603), "Server
/// error" for the rest of -32099..-32000 and "Error" otherwise. Static storage.
CALLWIRE_API const char* standard_message(int32_t code) noexcept;

// The writers append to `out`. On error (Errc::Unrepresentable: a NaN or infinite double, a
// string that is not UTF-8, an invalid dateTime) `out` is left as it was. `id` is the request's
// id as its JSON text (Call::id); an empty id is written as null. Thread-safe (no shared state);
// values are borrowed.

/// One value as JSON (compact, no white space).
CALLWIRE_API Status write_value(Buffer& out, const Value& value);
/// `{"jsonrpc":"2.0","result":…,"id":…}`.
CALLWIRE_API Status write_result(Buffer& out, std::string_view id, const Value& result);
/// `{"jsonrpc":"2.0","error":{"code":…,"message":…[,"data":…]},"id":…}`; `data` may be null
/// (then no "data" member).
CALLWIRE_API Status write_error(Buffer& out, std::string_view id, int32_t code,
                                std::string_view message, const Value* data = nullptr);
/// A request: `{"jsonrpc":"2.0","method":…,"params":…,"id":…}`, without "id" when `id` is empty
/// (a notification). `params` must be an array or a struct (else Errc::InvalidArgument).
CALLWIRE_API Status write_call(Buffer& out, std::string_view id, std::string_view method,
                               const Value& params);

/// A request with positional params given as a span (the client's call path: no array to build).
/// Errors: as the writers above.
CALLWIRE_API Status write_call(Buffer& out, std::string_view id, std::string_view method,
                               std::span<const Value> params);

/// The answer to a batch: the responses written one by one into one array. Nothing at all is
/// written when no response was (every request a notification): the answer then has no body.
/// Ownership: `out` is borrowed for the BatchWriter's life. Errors: as the writers above; a
/// response that fails leaves nothing of itself in `out`, and the batch goes on.
class CALLWIRE_API BatchWriter {
 public:
  explicit BatchWriter(Buffer& out) noexcept : out_(out) {}

  Status result(std::string_view id, const Value& result);
  Status error(std::string_view id, int32_t code, std::string_view message,
               const Value* data = nullptr);
  /// Closes the array. Returns whether anything was written (false: no body to send).
  bool finish();
  /// Responses written so far.
  size_t count() const noexcept { return count_; }

 private:
  // The server's writer of a typed result (src/json/result_writer.hpp) writes an entry piece
  // by piece: it puts the separator before it and counts it once complete.
  friend class ResultWriter;

  void separate();
  // Counts an entry written, or takes back all of it from `mark` on.
  Status settle(size_t mark, Status written);

  Buffer& out_;
  size_t count_ = 0;
};

}  // namespace callwire::json
