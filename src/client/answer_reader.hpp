// Internal: the client's protocol adapters, the client's side of what src/protocol is to the
// server. An answer's body (as received, inflated) becomes the call's outcome: XML-RPC's
// methodResponse or JSON-RPC's response objects, batches matched to their calls by id,
// typed results read straight into their sinks. ClientConnection carries bytes and hands the
// answer here; it never asks which protocol it is.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/error.hpp"
#include "callwire/json.hpp"
#include "callwire/value.hpp"
#include "callwire/xml.hpp"
#include "http/response_parser.hpp"
#include "xml/lexer.hpp"

namespace callwire::detail {

/// An answer's status as the call's error: HttpStatus, with the server's own words from a
/// text/plain body ("HTTP 413 Content Too Large: the body exceeds ...") and the head kept.
Error http_status_error(const http::Response& response);

/// The answer's head as the public HttpHead (CallOptions::response_head).
HttpHead head_of(const http::Response& response);

/// An XML-RPC answer's body as a call's outcome: its result, its fault (Errc::Fault), or
/// BadResponse when it is not a methodResponse.
Result<Value> xml_answer(xml::Reader& reader, std::string_view body);

/// One connection's reader of answers in one protocol. Not thread-safe: one per connection.
class AnswerReader {
 public:
  virtual ~AnswerReader() = default;
  /// Whether an answer with a status other than 200 is read for its body (a JSON-RPC server
  /// may send its error object with a 500, and a notification's answer is a 204); otherwise
  /// such an answer is http_status_error, unread.
  virtual bool reads_error_statuses() const noexcept = 0;
  /// Whether the request awaits an answer at all: not a JSON-RPC notification (or a batch of
  /// them), which a framing that answers notifications with nothing leaves unanswered.
  virtual bool awaits_answer() const noexcept { return true; }
  /// Whether read() uses `readable_after` (JSON is read in place when there is room; the XML
  /// reader copies nothing): when not, the connection need not work it out.
  virtual bool reads_in_place() const noexcept { return false; }
  /// Sets `result` to the call's outcome from `body`, the answer's (inflated) body (into the
  /// caller's own Result: no move on the way); `readable_after`: how many readable bytes follow
  /// it in memory (enough, and JSON is read in place). Returns false when the connection is out
  /// of step with the server (an answer to no call of its): it must be dropped.
  virtual bool read(const http::Response& response, std::string_view body, size_t readable_after,
                    Result<Value>& result) = 0;

  /// Part of the answer's body while the rest is still due (`length` bytes in all; the same
  /// bytes as at the last call and more): work read() would do may start on it.
  virtual void body_arriving(std::string_view /*so_far*/, uint64_t /*length*/) {}
  /// A new answer is awaited: what body_arriving saw of another is forgotten.
  virtual void answer_begins() noexcept {}

  /// Whether read_while_arriving reads the answer under way (whose first bytes body_arriving
  /// saw) better than read() once it has all come: a large XML-RPC answer, unless its blob is
  /// being decoded as it comes already.
  virtual bool reads_while_arriving() const noexcept { return false; }
  /// Sets `result` to the call's outcome from `body` (the whole body's storage, of which
  /// `source` says how much has come, and waits for more). An error of the source's is the
  /// source's to report, whatever `result` says.
  virtual void read_while_arriving(std::string_view /*body*/, xml::DocumentSource& /*source*/,
                                   Result<Value>& /*result*/) {}

  /// JSON-RPC: what the next answer must be (ClientConnection::expect_json). XML-RPC: unused.
  virtual void expect_json(uint64_t, size_t, bool) noexcept {}
  /// The typed call's sink (null: none); its result is read into it, not into a Value.
  void set_result_sink(ValueSink* sink) noexcept { result_sink_ = sink; }
  /// After a JSON-RPC batch: one result per call, in request order.
  std::vector<Result<Value>>& batch_results() noexcept { return batch_results_; }

 protected:
  ValueSink* result_sink_ = nullptr;
  std::vector<Result<Value>> batch_results_;
};

/// The reader for `protocol`, with the client's reader limits.
std::unique_ptr<AnswerReader> make_answer_reader(Protocol protocol,
                                                 const xml::ReaderLimits& xml_limits,
                                                 const json::JsonLimits& json_limits);

}  // namespace callwire::detail
