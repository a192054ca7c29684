#include "http/request_parser.hpp"

#include <cstring>

#include "http/syntax.hpp"

namespace callwire::http {
namespace {

constexpr int kMaxEmptyLinesBefore = 4;

using syntax::for_each_element;
using syntax::is_ows;
using syntax::is_tchar;
using syntax::is_value_char;
using syntax::trim_ows;

// `0`, `0.`, `0.0`, `0.00`, `0.000` (RFC 9110 qvalue) are zero; anything else counts as
// acceptance, which errs towards sending gzip only when the element names gzip.
bool qvalue_is_zero(std::string_view q) noexcept {
  if (q.empty() || q[0] != '0') return false;
  for (size_t i = 1; i < q.size(); ++i)
    if (!(q[i] == '0' || (i == 1 && q[i] == '.'))) return false;
  return true;
}

}  // namespace

bool accepts_gzip(std::string_view list) noexcept {
  bool yes = false;
  for_each_element(list, [&](std::string_view item) {
    size_t semi = item.find(';');
    std::string_view coding = trim_ows(item.substr(0, semi));
    if (!iequals(coding, "gzip") && !iequals(coding, "x-gzip")) return;
    bool zero = false;
    while (semi != std::string_view::npos) {
      item.remove_prefix(semi + 1);
      semi = item.find(';');
      std::string_view param = trim_ows(item.substr(0, semi));
      size_t eq = param.find('=');
      if (eq != std::string_view::npos && iequals(trim_ows(param.substr(0, eq)), "q"))
        zero = qvalue_is_zero(trim_ows(param.substr(eq + 1)));
    }
    if (!zero) yes = true;
  });
  return yes;
}

bool lists_trailers(std::string_view list) noexcept {
  bool yes = false;
  for_each_element(list, [&](std::string_view item) {
    if (iequals(trim_ows(item.substr(0, item.find(';'))), "trailers")) yes = true;
  });
  return yes;
}

std::string_view Request::find_header(std::string_view name) const noexcept {
  for (const Header& h : headers)
    if (iequals(h.name, name)) return h.value;
  return {};
}

RequestParser::RequestParser(RequestLimits limits) : limits_(limits) {
  fields_.reserve(limits_.max_headers);
  views_.reserve(limits_.max_headers);
}

void RequestParser::reset() noexcept {
  // Everything back to its initial value but the storage of the two vectors.
  fields_.clear();
  views_.clear();
  state_ = State::RequestLine;
  result_ = {};
  cur_ = {};
  chunked_ = ChunkedDecoder();
  empty_lines_ = 0;
  method_ = target_ = host_ = authorization_ = content_encoding_ = content_type_ = {};
  body_.reset();
  seen_host_ = seen_content_type_ = seen_authorization_ = false;
  expect_continue_ = false;
  body_start_ = 0;
  body_length_ = 0;
  request_ = {};
  head_views_base_ = nullptr;
}

ChunkedLimits RequestParser::chunked_limits() const noexcept {
  return {limits_.max_header_bytes, limits_.max_headers, limits_.max_body};
}

// A chunked body's failure as the status to answer with.
int RequestParser::chunked_status(ChunkedDecoder::Error error) noexcept {
  switch (error) {
    case ChunkedDecoder::Error::BodyTooLarge:
    case ChunkedDecoder::Error::FramingTooLarge:
      return 413;
    case ChunkedDecoder::Error::TrailersTooLarge:
    case ChunkedDecoder::Error::TooManyTrailers:
      return 431;
    default:
      return 400;  // a bad or overlong size line, no CRLF after the data, a bad trailer field
  }
}

ParseResult RequestParser::fail(int http_status) noexcept {
  state_ = State::Failed;
  result_ = {ParseStatus::Error, 0, http_status};
  return result_;
}

ParseResult RequestParser::parse(std::string_view input, Buffer& chunked_body) {
  if (state_ == State::Failed) return result_;
  // The caller broke the contract (the input shrank): refuse rather than read out of bounds.
  if (input.size() < cur_.scan || input.size() < cur_.pos ||
      (state_ == State::Done && input.size() < result_.consumed))
    return fail(400);
  if (state_ == State::Done) return complete(input, chunked_body);
  if (headers_complete()) set_head_views(input);  // the input may have moved

  for (;;) {
    size_t line_end = 0, next = 0;
    switch (state_) {
      case State::RequestLine:
      case State::Headers: {
        if (!cur_.next_line(input, line_end, next)) {
          // The line in progress already ends past the limit.
          if (input.size() >= limits_.max_header_bytes) return fail(431);
          return result_;
        }
        if (next > limits_.max_header_bytes) return fail(431);
        cur_.scanned += line_end - cur_.pos;
        int status = 0;
        if (state_ == State::RequestLine) {
          if (line_end == cur_.pos) {
            if (++empty_lines_ > kMaxEmptyLinesBefore) return fail(400);
          } else {
            status = on_request_line(input, cur_.pos, line_end);
            state_ = State::Headers;
          }
        } else if (line_end == cur_.pos) {
          cur_.pos = next;
          status = on_headers_done();
          if (status) return fail(status);
          if (state_ == State::Chunked) chunked_.begin(body_start_, chunked_body);
          set_head_views(input);
          continue;
        } else {
          status = on_header_line(input, cur_.pos, line_end);
        }
        if (status) return fail(status);
        cur_.pos = next;
        break;
      }
      case State::Body:
        if (input.size() - body_start_ < body_length_) return result_;
        cur_.pos = body_start_ + size_t(body_length_);
        state_ = State::Done;
        return complete(input, chunked_body);
      case State::Chunked:
        switch (chunked_.decode(input, cur_, chunked_body, chunked_limits())) {
          case ChunkedDecoder::Status::Incomplete:
            return result_;
          case ChunkedDecoder::Status::Error:
            return fail(chunked_status(chunked_.error()));
          case ChunkedDecoder::Status::Done:
            state_ = State::Done;
            return complete(input, chunked_body);
        }
        return result_;
      case State::Done:
      case State::Failed:
        return result_;
    }
  }
}

int RequestParser::on_request_line(std::string_view input, size_t begin, size_t end) noexcept {
  std::string_view line = input.substr(begin, end - begin);
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return 400;
  for (size_t i = 0; i < sp1; ++i)
    if (!is_tchar(static_cast<unsigned char>(line[i]))) return 400;
  size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) return 400;
  for (size_t i = sp1 + 1; i < sp2; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c < 0x21 || c > 0x7e) return 400;
  }
  std::string_view version = line.substr(sp2 + 1);
  if (version == "HTTP/1.1") {
    request_.version = HttpVersion::Http11;
  } else if (version == "HTTP/1.0") {
    request_.version = HttpVersion::Http10;
  } else {
    // HTTP-version = "HTTP/" DIGIT "." DIGIT, leniently any digits and dots: a version we do
    // not speak (0.9, 1.2, 2.0, 3) → 505; anything else is a malformed request line.
    if (version.size() <= 5 || version.substr(0, 5) != "HTTP/") return 400;
    for (char c : version.substr(5))
      if (!((c >= '0' && c <= '9') || c == '.')) return 400;
    return 505;
  }
  method_ = {begin, sp1};
  target_ = {begin + sp1 + 1, sp2 - sp1 - 1};
  return 0;
}

int RequestParser::check_field_line(std::string_view line, size_t& colon) noexcept {
  // obs-fold (a continuation line) and white space before the name are refused.
  return syntax::scan_field_line(line, colon) == syntax::FieldLineError::None ? 0 : 400;
}

int RequestParser::on_header_line(std::string_view input, size_t begin, size_t end) noexcept {
  if (fields_.size() >= limits_.max_headers) return 431;
  std::string_view line = input.substr(begin, end - begin);
  size_t colon = 0;
  if (int status = check_field_line(line, colon)) return status;
  std::string_view name = line.substr(0, colon);
  std::string_view raw = line.substr(colon + 1);
  std::string_view value = trim_ows(raw);
  size_t value_off = value.empty() ? begin + colon + 1 : size_t(value.data() - input.data());
  fields_.push_back({begin, colon, value_off, value.size()});
  Span span{value_off, value.size()};

  // The fields that matter have names of distinct lengths: the length picks the one name to
  // compare, so a field pays one compare however many names the parser knows.
  switch (name.size()) {
    case 14:
      if (!iequals(name, "content-length")) break;
      if (!body_.content_length(value)) return 400;  // repeated, or not a length
      request_.content_length = body_.length();
      break;
    case 17:
      if (!iequals(name, "transfer-encoding")) break;
      body_.transfer_encoding(value);
      break;
    case 4:
      if (!iequals(name, "host")) break;
      if (seen_host_) return 400;
      seen_host_ = true;
      host_ = span;
      break;
    case 10:
      if (!iequals(name, "connection")) break;
      body_.connection(value);
      break;
    case 6:
      if (!iequals(name, "expect")) break;
      if (iequals(value, "100-continue")) expect_continue_ = true;
      break;
    case 16:
      if (!iequals(name, "content-encoding")) break;
      if (!body_.content_encoding(value)) return 400;  // repeated
      content_encoding_ = span;
      request_.content_encoding_gzip = body_.gzip();
      break;
    case 2:
      if (!iequals(name, "te")) break;
      if (lists_trailers(value)) request_.accepts_trailers = true;
      break;
    case 15:
      if (!iequals(name, "accept-encoding")) break;
      if (accepts_gzip(value)) request_.accept_gzip = true;
      break;
    case 12:
      if (!iequals(name, "content-type")) break;
      // The first one, as find_header gives: a repeated Content-Type is not refused.
      if (!seen_content_type_) content_type_ = span;
      seen_content_type_ = true;
      break;
    case 13:
      if (!iequals(name, "authorization")) break;
      if (seen_authorization_) return 400;
      seen_authorization_ = true;
      authorization_ = span;
      break;
    default:
      break;
  }
  return 0;
}

int RequestParser::on_headers_done() noexcept {
  const bool http11 = request_.version == HttpVersion::Http11;
  if (http11 && !seen_host_) return 400;
  switch (body_.ruling(http11)) {
    case BodyRuling::LengthAndChunked:
    case BodyRuling::ChunkedBeforeHttp11:
      return 400;
    case BodyRuling::NotOnlyChunked:
      return 501;  // a coding this server does not implement
    case BodyRuling::Ok:
      break;
  }
  request_.keep_alive = body_.keep_alive(http11);
  request_.expect_continue = http11 && expect_continue_;
  request_.chunked = body_.chunked();
  body_start_ = request_.body_offset = cur_.pos;
  cur_.scan = cur_.pos;
  if (request_.chunked) {
    state_ = State::Chunked;
  } else {
    // Decided from the header alone, so the server can answer without reading the body.
    if (request_.content_length && *request_.content_length > limits_.max_body) return 413;
    body_length_ = request_.content_length.value_or(0);
    state_ = State::Body;
  }
  return 0;
}

void RequestParser::set_head_views(std::string_view input) {
  if (input.data() == head_views_base_) return;  // already pointing into this input
  head_views_base_ = input.data();
  // The spans were taken from this head, which lies within `input`: no bounds to check (substr
  // checked each, and these run for every request).
  const char* base = input.data();
  auto view = [base](size_t off, size_t len) { return std::string_view(base + off, len); };
  request_.method = view(method_.off, method_.len);
  request_.target = view(target_.off, target_.len);
  request_.host = view(host_.off, host_.len);
  request_.authorization = view(authorization_.off, authorization_.len);
  request_.content_encoding = view(content_encoding_.off, content_encoding_.len);
  request_.content_type = view(content_type_.off, content_type_.len);
  views_.resize(fields_.size());  // within the capacity reserved for max_headers
  for (size_t i = 0; i < fields_.size(); ++i) {
    const FieldSpan& f = fields_[i];
    views_[i] = {view(f.name_off, f.name_len), view(f.value_off, f.value_len)};
  }
  request_.headers = std::span<const Header>(views_.data(), views_.size());
}

ParseResult RequestParser::complete(std::string_view input, const Buffer& chunked_body) {
  set_head_views(input);
  if (request_.chunked) {
    std::string_view all = chunked_body.view();
    request_.body =
        chunked_.out_start() <= all.size() ? all.substr(chunked_.out_start()) : std::string_view{};
  } else {
    request_.body = input.substr(body_start_, size_t(body_length_));
  }
  result_ = {ParseStatus::Complete, cur_.pos, 0};
  return result_;
}

}  // namespace callwire::http
