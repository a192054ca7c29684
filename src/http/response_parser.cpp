#include "http/response_parser.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "http/syntax.hpp"

namespace callwire::http {
namespace {

constexpr int kMaxEmptyLinesBefore = 4;
constexpr int kMaxInterimResponses = 16;

using syntax::is_ows;
using syntax::is_value_char;
using syntax::trim_ows;

inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

}  // namespace

std::string_view Response::find_header(std::string_view name) const noexcept {
  for (const Header& h : headers)
    if (iequals(h.name, name)) return h.value;
  return {};
}

ResponseParser::ResponseParser(ResponseLimits limits) : limits_(limits) {
  fields_.reserve(limits_.max_headers);
  views_.reserve(limits_.max_headers);
}

void ResponseParser::reset_head() noexcept {
  fields_.clear();
  views_.clear();
  reason_ = content_encoding_ = content_type_ = www_authenticate_ = {};
  body_.reset();
  seen_www_authenticate_ = seen_content_type_ = false;
  response_ = {};
}

void ResponseParser::reset() noexcept {
  // Everything back to its initial value but the storage of the two vectors.
  reset_head();
  state_ = State::StatusLine;
  result_ = {};
  cur_.pos = cur_.scan = head_start_ = 0;
  cur_.scanned = 0;
  empty_lines_ = interim_count_ = 0;
  body_start_ = 0;
  body_length_ = 0;
  chunked_ = ChunkedDecoder();
  error_len_ = 0;
  error_[0] = '\0';
}

ChunkedLimits ResponseParser::chunked_limits() const noexcept {
  return {limits_.max_header_bytes, limits_.max_headers, limits_.max_body};
}

ResponseParseResult ResponseParser::fail_chunked(ChunkedDecoder::Error error) noexcept {
  using E = ChunkedDecoder::Error;
  switch (error) {
    case E::SizeLineTooLong:
      return fail(ResponseError::TooLarge, "chunk size line over %zu bytes",
                  limits_.max_header_bytes);
    case E::BodyTooLarge:
      return fail(ResponseError::TooLarge, "chunked body over the %zu-byte limit",
                  limits_.max_body);
    case E::FramingTooLarge:
      return fail(ResponseError::TooLarge, "chunked framing over %llu bytes",
                  static_cast<unsigned long long>(2 * uint64_t(limits_.max_body) +
                                                  limits_.max_header_bytes));
    case E::NoLineEndAfterData:
      return fail(ResponseError::Malformed, "no line end after chunk data");
    case E::TrailersTooLarge:
      return fail(ResponseError::TooLarge, "response trailers over %zu bytes",
                  limits_.max_header_bytes);
    case E::TooManyTrailers:
      return fail(ResponseError::TooLarge, "more than %zu trailer fields", limits_.max_headers);
    case E::SizeOverflow:
      return fail(ResponseError::Malformed, "chunk size overflows");
    case E::FoldedTrailer:
      return fail(ResponseError::Malformed, "folded trailer line (obs-fold)");
    case E::BadTrailer:
      switch (chunked_.trailer_error()) {
        case syntax::FieldLineError::BadName:
          return fail(ResponseError::Malformed, "malformed trailer field name");
        case syntax::FieldLineError::BadValue:
          return fail(ResponseError::Malformed, "control character in a trailer field");
        default:
          return fail(ResponseError::Malformed, "malformed trailer field");
      }
    case E::BadSizeLine:
    case E::None:
      break;
  }
  return fail(ResponseError::Malformed, "malformed chunk size line");
}

ResponseParseResult ResponseParser::fail(ResponseError kind, const char* format, ...) noexcept {
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(error_, sizeof error_, format, args);
  va_end(args);
  error_len_ = n < 0 ? 0 : (size_t(n) < sizeof error_ ? size_t(n) : sizeof error_ - 1);
  state_ = State::Failed;
  result_ = {ParseStatus::Error, 0, kind};
  return result_;
}

ResponseParseResult ResponseParser::parse(std::string_view input, Buffer& chunked_body) {
  if (state_ == State::Failed) return result_;
  // The caller broke the contract (the input shrank): refuse rather than read out of bounds.
  if (input.size() < cur_.scan || input.size() < cur_.pos ||
      (state_ == State::Done && input.size() < result_.consumed))
    return fail(ResponseError::Malformed, "response bytes changed between calls");
  if (state_ == State::Done) return complete(input, chunked_body);

  for (;;) {
    size_t line_end = 0, next = 0;
    switch (state_) {
      case State::StatusLine:
      case State::Headers: {
        if (!cur_.next_line(input, line_end, next)) {
          // The head in progress already ends past the limit.
          if (input.size() - head_start_ >= limits_.max_header_bytes)
            return fail(ResponseError::TooLarge, "response headers over %zu bytes",
                        limits_.max_header_bytes);
          return result_;
        }
        if (next - head_start_ > limits_.max_header_bytes)
          return fail(ResponseError::TooLarge, "response headers over %zu bytes",
                      limits_.max_header_bytes);
        cur_.scanned += line_end - cur_.pos;
        if (state_ == State::StatusLine) {
          if (line_end == cur_.pos) {
            if (++empty_lines_ > kMaxEmptyLinesBefore)
              return fail(ResponseError::Malformed, "empty lines instead of a status line");
          } else {
            if (!on_status_line(input.substr(cur_.pos, line_end - cur_.pos))) return result_;
            reason_.off += cur_.pos;
            state_ = State::Headers;
          }
          cur_.pos = next;
        } else if (line_end == cur_.pos) {
          cur_.pos = next;
          if (!on_headers_done()) return result_;
          if (state_ == State::Chunked) chunked_.begin(body_start_, chunked_body);
          if (state_ == State::Done) return complete(input, chunked_body);
        } else {
          if (!on_header_line(input, cur_.pos, line_end)) return result_;
          cur_.pos = next;
        }
        break;
      }
      case State::Body:
        if (input.size() - body_start_ < body_length_) return result_;
        cur_.pos = body_start_ + size_t(body_length_);
        state_ = State::Done;
        return complete(input, chunked_body);
      case State::BodyUntilEof:
        // Only parse_eof ends it; meanwhile the limit holds.
        if (input.size() - body_start_ > limits_.max_body)
          return fail(ResponseError::TooLarge, "response body over the %zu-byte limit",
                      limits_.max_body);
        return result_;
      case State::Chunked:
        switch (chunked_.decode(input, cur_, chunked_body, chunked_limits())) {
          case ChunkedDecoder::Status::Incomplete:
            return result_;
          case ChunkedDecoder::Status::Error:
            return fail_chunked(chunked_.error());
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

ResponseParseResult ResponseParser::parse_eof(std::string_view input, Buffer& chunked_body) {
  ResponseParseResult r = parse(input, chunked_body);
  if (r.status != ParseStatus::Incomplete) return r;
  switch (state_) {
    case State::BodyUntilEof:
      body_length_ = input.size() - body_start_;
      cur_.pos = input.size();
      state_ = State::Done;
      return complete(input, chunked_body);
    case State::StatusLine:
      if (input.empty())
        return fail(ResponseError::NoResponse, "connection closed before any response");
      return fail(ResponseError::Truncated, "connection closed inside the status line");
    case State::Headers:
      return fail(ResponseError::Truncated, "connection closed inside the response headers");
    case State::Body:
      return fail(ResponseError::Truncated, "truncated body: %llu of %llu bytes",
                  static_cast<unsigned long long>(input.size() - body_start_),
                  static_cast<unsigned long long>(body_length_));
    case State::Chunked:
      if (chunked_.in_trailers())
        return fail(ResponseError::Truncated, "connection closed inside the trailers");
      return fail(ResponseError::Truncated, "truncated chunked body after %llu bytes",
                  static_cast<unsigned long long>(chunked_.decoded()));
    case State::Done:
    case State::Failed:
      break;
  }
  return result_;
}

bool ResponseParser::on_status_line(std::string_view line) noexcept {
  // HTTP-version SP 3DIGIT SP reason; the reason's offset is relative to the line here.
  if (line.size() < 12 || line.substr(0, 5) != "HTTP/" || !is_digit(line[5]) || line[6] != '.' ||
      !is_digit(line[7]) || line[8] != ' ') {
    fail(ResponseError::Malformed, "malformed status line");
    return false;
  }
  if (line[5] != '1') {
    fail(ResponseError::Malformed, "unsupported HTTP version %.8s", line.data());
    return false;
  }
  response_.version = line[7] == '0' ? HttpVersion::Http10 : HttpVersion::Http11;
  if (!is_digit(line[9]) || !is_digit(line[10]) || !is_digit(line[11])) {
    fail(ResponseError::Malformed, "malformed status line");
    return false;
  }
  int status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  if (status < 100 || status > 599) {
    fail(ResponseError::Malformed, "status code %d out of range", status);
    return false;
  }
  response_.status = status;
  if (line.size() == 12) {  // no SP and no reason: tolerated
    reason_ = {12, 0};
    return true;
  }
  if (line[12] != ' ') {
    fail(ResponseError::Malformed, "malformed status line");
    return false;
  }
  for (size_t i = 13; i < line.size(); ++i) {
    if (!is_value_char(static_cast<unsigned char>(line[i]))) {
      fail(ResponseError::Malformed, "control character in the status line");
      return false;
    }
  }
  reason_ = {13, line.size() - 13};
  return true;
}

bool ResponseParser::check_field_line(std::string_view line, size_t& colon,
                                      const char* where) noexcept {
  if (is_ows(line[0])) {
    fail(ResponseError::Malformed, "folded %s line (obs-fold)", where);
    return false;
  }
  switch (syntax::scan_field_line(line, colon)) {
    case syntax::FieldLineError::None:
      return true;
    case syntax::FieldLineError::NoColon:
      fail(ResponseError::Malformed, "malformed %s field", where);
      return false;
    case syntax::FieldLineError::BadName:  // includes SP before ':'
      fail(ResponseError::Malformed, "malformed %s field name", where);
      return false;
    case syntax::FieldLineError::BadValue:
      fail(ResponseError::Malformed, "control character in a %s field", where);
      return false;
  }
  return false;
}

bool ResponseParser::on_header_line(std::string_view input, size_t begin, size_t end) noexcept {
  if (fields_.size() >= limits_.max_headers) {
    fail(ResponseError::TooLarge, "more than %zu response header fields", limits_.max_headers);
    return false;
  }
  std::string_view line = input.substr(begin, end - begin);
  size_t colon = 0;
  if (!check_field_line(line, colon, "header")) return false;
  std::string_view name = line.substr(0, colon);
  std::string_view value = trim_ows(line.substr(colon + 1));
  size_t value_off = value.empty() ? begin + colon + 1 : size_t(value.data() - input.data());
  fields_.push_back({begin, colon, value_off, value.size()});
  Span span{value_off, value.size()};

  switch (name.size()) {  // the lengths of the names below: one compare skips the others
    case 10:              // connection
    case 12:              // content-type
    case 14:              // content-length
    case 16:              // content-encoding, www-authenticate
    case 17:              // transfer-encoding
      break;
    default:
      return true;
  }
  if (iequals(name, "content-length")) {
    if (!body_.content_length(value)) {
      fail(ResponseError::Malformed,
           response_.content_length ? "repeated Content-Length" : "invalid Content-Length");
      return false;
    }
    response_.content_length = body_.length();
  } else if (iequals(name, "transfer-encoding")) {
    body_.transfer_encoding(value);
  } else if (iequals(name, "connection")) {
    body_.connection(value);
  } else if (iequals(name, "content-encoding")) {
    if (!body_.content_encoding(value)) {
      fail(ResponseError::Malformed, "repeated Content-Encoding");
      return false;
    }
    content_encoding_ = span;
    response_.content_encoding_gzip = body_.gzip();
  } else if (iequals(name, "content-type")) {
    if (!seen_content_type_) content_type_ = span;
    seen_content_type_ = true;
  } else if (iequals(name, "www-authenticate")) {
    if (!seen_www_authenticate_) www_authenticate_ = span;
    seen_www_authenticate_ = true;
  }
  return true;
}

bool ResponseParser::on_headers_done() noexcept {
  const int status = response_.status;
  if (status == 101 && upgrade_awaited_) {
    // The head is all of it: what follows is the upgraded protocol's, not a body.
    response_.keep_alive = true;
    body_start_ = cur_.pos;
    cur_.scan = cur_.pos;
    body_length_ = 0;
    state_ = State::Done;
    return true;
  }
  if (status < 200) {
    if (status == 101) {
      fail(ResponseError::Malformed, "unexpected 101 Switching Protocols");
      return false;
    }
    if (++interim_count_ > kMaxInterimResponses) {
      fail(ResponseError::Malformed, "more than %d interim (1xx) responses", kMaxInterimResponses);
      return false;
    }
    // An interim response has no body: the final response starts on the next byte.
    reset_head();
    head_start_ = cur_.pos;
    cur_.scan = cur_.pos;
    state_ = State::StatusLine;
    return true;
  }
  const bool http11 = response_.version == HttpVersion::Http11;
  switch (body_.ruling(http11)) {
    case BodyRuling::LengthAndChunked:
      fail(ResponseError::Malformed, "Content-Length and Transfer-Encoding together");
      return false;
    case BodyRuling::ChunkedBeforeHttp11:
      fail(ResponseError::Malformed, "Transfer-Encoding in an HTTP/1.0 response");
      return false;
    case BodyRuling::NotOnlyChunked:
      fail(ResponseError::Malformed, "unsupported Transfer-Encoding");
      return false;
    case BodyRuling::Ok:
      break;
  }
  response_.keep_alive = body_.keep_alive(http11);
  response_.chunked = body_.chunked();
  body_start_ = cur_.pos;
  cur_.scan = cur_.pos;
  if (status == 204 || status == 304) {
    body_length_ = 0;
    state_ = State::Done;
  } else if (response_.chunked) {
    state_ = State::Chunked;
  } else if (response_.content_length) {
    // Decided from the header alone: a lying Content-Length costs nothing.
    if (*response_.content_length > limits_.max_body) {
      fail(ResponseError::TooLarge, "response body of %llu bytes over the %zu-byte limit",
           static_cast<unsigned long long>(*response_.content_length), limits_.max_body);
      return false;
    }
    body_length_ = *response_.content_length;
    state_ = State::Body;
  } else {
    response_.keep_alive = false;  // the end of the connection ends the body
    state_ = State::BodyUntilEof;
  }
  return true;
}

ResponseParseResult ResponseParser::complete(std::string_view input, const Buffer& chunked_body) {
  auto view = [&](Span s) { return input.substr(s.off, s.len); };
  response_.reason = view(reason_);
  response_.content_encoding = view(content_encoding_);
  response_.content_type = view(content_type_);
  response_.www_authenticate = view(www_authenticate_);
  views_.clear();
  for (const FieldSpan& f : fields_)
    views_.push_back(
        {input.substr(f.name_off, f.name_len), input.substr(f.value_off, f.value_len)});
  response_.headers = std::span<const Header>(views_.data(), views_.size());
  if (response_.chunked) {
    std::string_view all = chunked_body.view();
    response_.body =
        chunked_.out_start() <= all.size() ? all.substr(chunked_.out_start()) : std::string_view{};
  } else {
    response_.body = input.substr(body_start_, size_t(body_length_));
  }
  result_ = {ParseStatus::Complete, cur_.pos, ResponseError::None};
  return result_;
}

}  // namespace callwire::http
