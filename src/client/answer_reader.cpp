#include "client/answer_reader.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "base/ascii.hpp"
#include "xml/reader_internals.hpp"

namespace callwire::detail {

namespace {

// Sets the call's outcome; returns `keep` (read()'s result: whether the connection is reusable).
template <class T>
bool give(Result<Value>& result, T&& outcome, bool keep) {
  result = std::forward<T>(outcome);
  return keep;
}

// What the reader refused: over one of this client's own limits, which says which and how to
// raise it, or not `protocol` at all.
Error unreadable_answer(const Error& read, const char* protocol) {
  if (read.code == Errc::LimitExceeded)
    return Error(Errc::BadResponse,
                 "the response exceeds this client's limits: " + read.message +
                     " (they follow ClientOptions::max_response_size unless set lower)");
  return Error(Errc::BadResponse,
               std::string("the response is not ") + protocol + ": " + read.message);
}

// ---- XML-RPC ----

// A methodResponse read as the call's outcome: its result, its fault (Errc::Fault), or
// BadResponse when it was not one.
Result<Value> xml_outcome(Result<MethodResponse> parsed) {
  if (!parsed) return unreadable_answer(parsed.error(), "XML-RPC");
  if (parsed->is_fault)
    return Error(Errc::Fault, parsed->fault.code, std::move(parsed->fault.string));
  return std::move(parsed->result);
}

class XmlRpcAnswers final : public AnswerReader {
 public:
  explicit XmlRpcAnswers(const xml::ReaderLimits& limits) : reader_(limits) {}
  bool reads_error_statuses() const noexcept override { return false; }
  // A typed call's large blob is decoded as it comes (xml/decode_ahead.hpp).
  void body_arriving(std::string_view so_far, uint64_t length) override {
    if (result_sink_) ahead_.arriving(so_far, length);
  }
  void answer_begins() noexcept override { ahead_.reset(); }
  bool read(const http::Response&, std::string_view body, size_t, Result<Value>& result) override {
    if (!result_sink_) return give(result, xml_answer(reader_, body), true);
    read_into_sink(body, ahead_.for_document(body), nullptr, result);
    return true;
  }
  bool reads_while_arriving() const noexcept override { return !ahead_.decoding(); }
  void read_while_arriving(std::string_view body, xml::DocumentSource& source,
                           Result<Value>& result) override {
    if (result_sink_) return read_into_sink(body, nullptr, &source, result);
    result = xml_outcome(xml::ReaderInternals::read_response(reader_, body, &source));
  }

 private:
  void read_into_sink(std::string_view body, xml::DecodedAhead* ahead, xml::DocumentSource* source,
                      Result<Value>& result) {
    Status sink_status;
    Status read = xml::ReaderInternals::read_response(reader_, body, sunk_response_, *result_sink_,
                                                      sink_status, ahead, source);
    ahead_.reset();
    if (!read) {
      result = unreadable_answer(read.error(), "XML-RPC");
    } else if (sunk_response_.is_fault) {
      Fault& fault = sunk_response_.fault;
      result = Error(Errc::Fault, fault.code, std::move(fault.string));
    } else if (!sink_status) {
      result = sink_status.error();
    } else {
      result = Value();
    }
  }

  xml::Reader reader_;
  xml::Base64Ahead ahead_;
  MethodResponse sunk_response_;  // the envelope of an answer read into the sink
};

// ---- JSON-RPC ----

// A JSON-RPC answer's error, with its "data" kept in the Error (taken from `r`).
Error error_of(json::Response& r) {
  Error e = std::move(r.error);
  // The spec's short message ("Invalid Request") with a server's account of the mistake as
  // its data: the account goes into the message too, so that printing it says what was wrong.
  if (r.data && r.data->is_string() && e.message == json::standard_message(e.fault_code))
    e.message += ": " + std::string(r.data->as_string());
  if (r.data) e.data = std::make_shared<const Value>(std::move(*r.data));
  return e;
}

class JsonRpcAnswers final : public AnswerReader {
 public:
  explicit JsonRpcAnswers(const json::JsonLimits& limits) : limits_(limits) {}
  bool reads_error_statuses() const noexcept override { return true; }
  bool awaits_answer() const noexcept override { return calls_ != 0; }
  bool reads_in_place() const noexcept override { return true; }
  void expect_json(uint64_t first_id, size_t calls, bool batch) noexcept override {
    first_id_ = first_id;
    calls_ = calls;
    batch_ = batch;
  }
  bool read(const http::Response& response, std::string_view body, size_t readable_after,
            Result<Value>& result) override;

 private:
  // Matches a batch's answers to its calls by id.
  bool read_batch(Result<Value>& result);

  json::JsonLimits limits_;
  std::unique_ptr<json::Reader> reader_;  // made at the first answer
  json::Responses answer_;
  uint64_t first_id_ = 0;
  size_t calls_ = 0;
  bool batch_ = false;
};

bool JsonRpcAnswers::read(const http::Response& response, std::string_view body,
                          size_t readable_after, Result<Value>& result) {
  const bool success_status = response.status == 200 || response.status == 204;
  const bool notification = calls_ == 0;
  if (body.empty()) {
    if (!success_status) return give(result, http_status_error(response), true);
    if (notification) return give(result, Value(), true);
    return give(result,
                Error(Errc::BadResponse, "HTTP " + std::to_string(response.status) +
                                             " without a body: no JSON-RPC response"),
                true);
  }
  if (!reader_) reader_ = std::make_unique<json::Reader>(limits_);
  // A body with the reader's padding after it in one of the connection's buffers is read in
  // place rather than copied (a whole megabyte photo, say).
  const bool padded = readable_after >= json::kPadding;
  // A typed call's result goes straight into its sink (a single call's answer only).
  const bool sunk = result_sink_ && !batch_ && !notification;
  Status sink_status;
  Status read;
  if (sunk) {
    answer_.batch = false;
    answer_.responses.resize(1);
    json::Response& single = answer_.responses[0];
    read = padded ? reader_->read_response_padded(body, single, *result_sink_, sink_status)
                  : reader_->read_response(body, single, *result_sink_, sink_status);
  } else {
    read = padded ? reader_->read_response_padded(body, answer_)
                  : reader_->read_response(body, answer_);
  }
  if (!read) {
    if (!success_status) return give(result, http_status_error(response), true);
    if (notification)
      return give(result, Value(), true);  // whatever it says, it is no error object
    return give(result, unreadable_answer(read.error(), "JSON-RPC"), true);
  }
  std::vector<json::Response>& answers = answer_.responses;
  if (notification) {
    // No answer is due; a server that could not read the notification may still say so.
    for (json::Response& r : answers)
      if (r.is_fault()) return give(result, error_of(r), true);
    return give(result, Value(), true);
  }
  if (batch_) return read_batch(result);
  if (answer_.batch)
    return give(result, Error(Errc::BadResponse, "a batch answer to a single call"), false);
  json::Response& r = answers[0];
  // An error with id null: the server could not read the call, the only one on this
  // connection.
  if (r.id != std::to_string(first_id_) && !(r.is_fault() && r.id == json::kNullId))
    return give(result,
                Error(Errc::BadResponse, "the answer's id " + r.id.substr(0, 40) +
                                             " is not the call's id " + std::to_string(first_id_)),
                false);
  if (!r.ok()) return give(result, error_of(r), true);
  if (!sink_status) return give(result, sink_status.error(), true);
  return give(result, std::move(r.result), true);
}

bool JsonRpcAnswers::read_batch(Result<Value>& result) {
  batch_results_.assign(calls_,
                        Error(Errc::BadResponse, "the batch's answer has none for this call"));
  std::vector<bool> answered(calls_, false);
  std::optional<Error> unread;  // an error with id null: for every call left unanswered
  for (json::Response& r : answer_.responses) {
    if (r.id == json::kNullId && r.is_fault()) {
      if (!unread) unread = error_of(r);
      continue;
    }
    // Ours are decimal integers from first_id_ on: the index is the id's offset.
    uint64_t id = 0;
    auto [end, ec] = std::from_chars(r.id.data(), r.id.data() + r.id.size(), id);
    size_t index = id - first_id_;
    if (ec != std::errc() || end != r.id.data() + r.id.size() || id < first_id_ ||
        index >= calls_ || r.id != std::to_string(id) || answered[index]) {
      batch_results_.clear();
      return give(result,
                  Error(Errc::BadResponse, "the batch's answer has id " + r.id.substr(0, 40) +
                                               (ec == std::errc() && index < calls_
                                                    ? " twice"
                                                    : ", which no call of the batch has")),
                  false);
    }
    answered[index] = true;
    batch_results_[index] = r.ok() ? Result<Value>(std::move(r.result)) : error_of(r);
  }
  if (unread)
    for (size_t i = 0; i < calls_; ++i)
      if (!answered[i]) batch_results_[i] = *unread;
  return give(result, Value(), true);
}

// The server's own words on an error: the first line of a text/plain body, less the status
// it repeats ("404 Not Found: nothing is served at /x; ..." gives what follows the colon);
// empty when it says no more than the status.
std::string_view server_words(const http::Response& response) {
  if (!http::iequals(response.content_type.substr(0, 10), "text/plain")) return {};
  std::string_view line = response.body.substr(
      0, std::min(response.body.find('\n'), std::min<size_t>(response.body.size(), 300)));
  const std::string status = std::to_string(response.status);
  if (line.starts_with(status)) {
    line.remove_prefix(status.size());
    if (line.starts_with(' ') && line.substr(1).starts_with(response.reason))
      line.remove_prefix(1 + response.reason.size());
    if (line.starts_with(':')) line.remove_prefix(1);
    while (line.starts_with(' ')) line.remove_prefix(1);
  }
  return line;
}

}  // namespace

Error http_status_error(const http::Response& response) {
  std::string message = "HTTP " + std::to_string(response.status);
  // Appended piece by piece: `" " + std::string(...)` set off GCC 12's false -Wrestrict at -O3.
  if (!response.reason.empty()) {
    message += ' ';
    message += response.reason;
  }
  if (std::string_view words = server_words(response); !words.empty()) {
    message += ": ";
    message += words;
  }
  Error e(Errc::HttpStatus, message);
  e.http_status = response.status;
  e.http_head = std::make_shared<const HttpHead>(head_of(response));
  return e;
}

HttpHead head_of(const http::Response& response) {
  HttpHead head;
  head.status = response.status;
  head.reason = response.reason;
  head.fields.reserve(response.headers.size());
  for (const http::Header& h : response.headers) head.fields.emplace_back(h.name, h.value);
  return head;
}

Result<Value> xml_answer(xml::Reader& reader, std::string_view body) {
  return xml_outcome(reader.read_response(body));
}

std::unique_ptr<AnswerReader> make_answer_reader(Protocol protocol,
                                                 const xml::ReaderLimits& xml_limits,
                                                 const json::JsonLimits& json_limits) {
  if (protocol == Protocol::JsonRpc) return std::make_unique<JsonRpcAnswers>(json_limits);
  return std::make_unique<XmlRpcAnswers>(xml_limits);
}

}  // namespace callwire::detail
