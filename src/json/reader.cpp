// The JSON-RPC reader's public face (callwire/json.hpp) over its walk (reader_impl.hpp).
#include "json/reader_impl.hpp"

namespace callwire::json {

Reader::Reader(JsonLimits limits) : impl_(std::make_unique<ReaderImpl>(limits)) {}
Reader::~Reader() = default;
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;

const JsonLimits& Reader::limits() const noexcept { return impl_->limits; }

Status Reader::read_request(std::string_view document, Request& out) {
  if (document.size() > impl_->limits.max_document_size) {
    out.calls.clear();
    impl_->start(document);  // reports the limit before the copy
    return impl_->hard;
  }
  return read_request_padded(impl_->pad(document), out);
}

Status Reader::read_request_padded(std::string_view document, Request& out) {
  ReaderImpl& r = *impl_;
  if (!r.start(document) || !r.document(out) || !r.finish()) {
    out.calls.clear();
    out.batch = false;
    return std::move(r.hard);
  }
  return {};
}

Status Reader::read_response(std::string_view document, Responses& out) {
  if (document.size() > impl_->limits.max_document_size) {
    out.responses.clear();
    out.batch = false;
    impl_->start(document);  // reports the limit before the copy
    return std::move(impl_->hard);
  }
  return read_response_padded(impl_->pad(document), out);
}

Status Reader::read_response_padded(std::string_view document, Responses& out) {
  ReaderImpl& r = *impl_;
  if (!r.start(document) || !r.response_document(out) || !r.finish()) {
    out.responses.clear();
    out.batch = false;
    return std::move(r.hard);
  }
  return {};
}

Status Reader::read_response(std::string_view document, Response& response, ValueSink& sink,
                             Status& sink_status) {
  if (document.size() > impl_->limits.max_document_size) {
    impl_->start(document);  // reports the limit before the copy
    return std::move(impl_->hard);
  }
  return read_response_padded(impl_->pad(document), response, sink, sink_status);
}

Status Reader::read_response_padded(std::string_view document, Response& response, ValueSink& sink,
                                    Status& sink_status) {
  ReaderImpl& r = *impl_;
  sink_status = Status();
  r.result_sink = &sink;
  r.sink_status = &sink_status;
  bool ok = r.start(document) && r.single_response(response) && r.finish();
  r.result_sink = nullptr;
  r.sink_status = nullptr;
  if (!ok) return std::move(r.hard);
  return {};
}

Result<Value> Reader::read_value(std::string_view document) {
  ReaderImpl& r = *impl_;
  if (document.size() > r.limits.max_document_size) {
    r.start(document);
    return std::move(r.hard);
  }
  Value out;
  if (!r.start(r.pad(document)) || !r.root(out)) return std::move(r.hard);
  if (r.soft.code != Errc::Ok) return std::move(r.soft);
  return out;
}

}  // namespace callwire::json
