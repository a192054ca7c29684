#include "http/scgi.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "http/syntax.hpp"

namespace callwire::http {

using namespace syntax;

namespace {

// A netstring field pair: the value must not hold NUL (it ends the value) nor CR or LF (no
// header value may).
bool plain_value(std::string_view v) {
  for (char c : v)
    if (c == '\0' || c == '\r' || c == '\n') return false;
  return true;
}

void append_pair(std::string& block, std::string_view name, std::string_view value) {
  block.append(name);
  block.push_back('\0');
  block.append(value);
  block.push_back('\0');
}

}  // namespace

Status append_scgi_request_head(Buffer& out, const ScgiRequestHead& head) {
  if (!plain_value(head.uri) || !plain_value(head.content_type))
    return Error(Errc::InvalidArgument, "SCGI request: a control character in the URI or type");
  std::string block;
  block.reserve(160);
  append_pair(block, "CONTENT_LENGTH", std::to_string(head.content_length));  // first: the rule
  append_pair(block, "SCGI", "1");
  append_pair(block, "REQUEST_METHOD", "POST");
  append_pair(block, "REQUEST_URI", head.uri);
  append_pair(block, "SERVER_PROTOCOL", "HTTP/1.1");
  append_pair(block, "CONTENT_TYPE", head.content_type);
  if (head.gzip) append_pair(block, "HTTP_CONTENT_ENCODING", "gzip");
  if (head.accept_gzip) append_pair(block, "HTTP_ACCEPT_ENCODING", "gzip");
  for (const Header& h : head.extra) {
    if (!is_token(h.name))
      return Error(Errc::InvalidArgument, "SCGI request: bad header name '" + std::string(h.name) + "'");
    if (!plain_value(h.value) || !is_field_value(h.value))
      return Error(Errc::InvalidArgument,
                   "SCGI request: a control character in header " + std::string(h.name));
    std::string name = "HTTP_";
    for (char c : h.name) name.push_back(c == '-' ? '_' : (c >= 'a' && c <= 'z' ? char(c - 32) : c));
    append_pair(block, name, h.value);
  }
  std::string length = std::to_string(block.size());
  out.append(length);
  out.push_back(':');
  out.append(block);
  out.push_back(',');
  return Status();
}

ScgiResponseParser::ScgiResponseParser(ResponseLimits limits) : limits_(limits), http_(limits) {
  fields_.reserve(limits_.max_headers);
  views_.reserve(limits_.max_headers);
}

void ScgiResponseParser::reset() noexcept {
  http_.reset();
  state_ = State::Start;
  result_ = {};
  line_start_ = scanned_ = body_start_ = 0;
  fields_.clear();
  views_.clear();
  reason_ = content_type_ = content_encoding_ = {};
  response_ = {};
  error_.clear();
}

bool ScgiResponseParser::headers_complete() const noexcept {
  if (state_ == State::Http) return http_.headers_complete();
  return state_ == State::Body || state_ == State::BodyUntilEof || state_ == State::Done;
}

const Response& ScgiResponseParser::response() const noexcept { return response_; }

std::string_view ScgiResponseParser::error() const noexcept {
  return state_ == State::Http ? http_.error() : std::string_view(error_);
}

ResponseParseResult ScgiResponseParser::fail(ResponseError kind, std::string_view message) {
  state_ = State::Failed;
  error_.assign(message);
  result_ = {ParseStatus::Error, 0, kind};
  return result_;
}

// One "Name: value" line of the head, input[begin, end) without its line ending.
bool ScgiResponseParser::on_field(std::string_view input, size_t begin, size_t end) {
  std::string_view line = input.substr(begin, end - begin);
  size_t colon = 0;
  if (scan_field_line(line, colon) != FieldLineError::None) {
    fail(ResponseError::Malformed, "malformed SCGI response header line");
    return false;
  }
  if (fields_.size() == limits_.max_headers) {
    fail(ResponseError::TooLarge, "over " + std::to_string(limits_.max_headers) +
                                      " SCGI response header fields");
    return false;
  }
  std::string_view name = line.substr(0, colon), value = trim_ows(line.substr(colon + 1));
  auto span = [&input](std::string_view v) { return Span{size_t(v.data() - input.data()), v.size()}; };
  fields_.push_back({span(name), span(value)});
  if (iequals(name, "Status")) {
    // "200 OK": three digits, then an optional reason. No interim (1xx) answers in CGI.
    int code = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), code);
    size_t digits = size_t(p - value.data());
    if (ec != std::errc() || digits != 3 || code < 200 || code > 599 ||
        (digits < value.size() && value[digits] != ' ')) {
      fail(ResponseError::Malformed, "bad SCGI Status: " + std::string(value.substr(0, 40)));
      return false;
    }
    response_.status = code;
    reason_ = span(trim_ows(value.substr(digits)));
  } else if (iequals(name, "Content-Length")) {
    uint64_t n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (response_.content_length || value.empty() || ec != std::errc() ||
        p != value.data() + value.size()) {
      fail(ResponseError::Malformed, "bad or repeated SCGI Content-Length");
      return false;
    }
    if (n > limits_.max_body) {
      fail(ResponseError::TooLarge, "response body of " + std::to_string(n) +
                                        " bytes over the limit of " + std::to_string(limits_.max_body));
      return false;
    }
    response_.content_length = n;
  } else if (iequals(name, "Content-Encoding")) {
    content_encoding_ = span(value);
    response_.content_encoding_gzip = iequals(value, "gzip") || iequals(value, "x-gzip");
  } else if (iequals(name, "Content-Type")) {
    content_type_ = span(value);
  }
  return true;
}

ResponseParseResult ScgiResponseParser::complete(std::string_view input, size_t end) {
  auto view = [&input](Span s) { return input.substr(s.off, s.len); };
  views_.clear();
  for (const auto& [name, value] : fields_) views_.push_back({view(name), view(value)});
  response_.headers = views_;
  response_.reason = view(reason_);
  response_.content_type = view(content_type_);
  response_.content_encoding = view(content_encoding_);
  response_.body = input.substr(body_start_, end - body_start_);
  state_ = State::Done;
  result_ = {ParseStatus::Complete, end, ResponseError::None};
  return result_;
}

ResponseParseResult ScgiResponseParser::parse(std::string_view input, Buffer& chunked_body) {
  if (state_ == State::Start) {
    // An HTTP status line ("HTTP/1.1 200 OK"), as some SCGI servers send: HTTP's parser reads it.
    constexpr std::string_view kHttp = "HTTP/";
    if (input.size() < kHttp.size() && kHttp.starts_with(input)) return result_;  // undecided
    state_ = input.starts_with(kHttp) ? State::Http : State::Head;
    response_.status = 200;  // CGI: a document response without Status is 200
    response_.keep_alive = false;
  }
  if (state_ == State::Http) return from_http(http_.parse(input, chunked_body));
  if (state_ == State::Failed) return result_;
  // Sticky, with the views made again into this call's input (the storage may have moved).
  if (state_ == State::Done) return complete(input, result_.consumed);
  while (state_ == State::Head) {
    size_t lf = input.find('\n', std::max(line_start_, scanned_));
    if (lf == std::string_view::npos) {
      scanned_ = input.size();  // each byte is searched once, however the input arrives
      if (input.size() > limits_.max_header_bytes)
        return fail(ResponseError::TooLarge, "SCGI response headers over " +
                                                 std::to_string(limits_.max_header_bytes) + " bytes");
      return result_;
    }
    if (lf + 1 > limits_.max_header_bytes)
      return fail(ResponseError::TooLarge, "SCGI response headers over " +
                                               std::to_string(limits_.max_header_bytes) + " bytes");
    size_t end = lf > line_start_ && input[lf - 1] == '\r' ? lf - 1 : lf;
    if (end == line_start_) {  // the blank line
      body_start_ = lf + 1;
      state_ = response_.content_length ? State::Body : State::BodyUntilEof;
      if (!response_.content_length) response_.keep_alive = false;
      break;
    }
    if (!on_field(input, line_start_, end)) return result_;
    line_start_ = lf + 1;
  }
  if (state_ == State::Body && input.size() - body_start_ >= *response_.content_length)
    return complete(input, body_start_ + static_cast<size_t>(*response_.content_length));
  if (state_ == State::BodyUntilEof && input.size() - body_start_ > limits_.max_body)
    return fail(ResponseError::TooLarge, "response body over the limit of " +
                                             std::to_string(limits_.max_body) + " bytes");
  return result_;
}

// An HTTP answer as SCGI's: the server closes after it whatever its head says.
ResponseParseResult ScgiResponseParser::from_http(ResponseParseResult r) {
  response_ = http_.response();
  response_.keep_alive = false;
  return r;
}

ResponseParseResult ScgiResponseParser::parse_eof(std::string_view input, Buffer& chunked_body) {
  if (state_ == State::Http) return from_http(http_.parse_eof(input, chunked_body));
  if (state_ == State::Start && input.empty())
    return fail(ResponseError::NoResponse, "the server closed the connection without answering");
  ResponseParseResult r = parse(input, chunked_body);
  if (state_ == State::Http) return from_http(http_.parse_eof(input, chunked_body));
  if (r.status != ParseStatus::Incomplete) return r;
  if (state_ == State::BodyUntilEof) return complete(input, input.size());
  if (state_ == State::Body)
    return fail(ResponseError::Truncated,
                "truncated body: " + std::to_string(input.size() - body_start_) + " of " +
                    std::to_string(*response_.content_length) + " bytes");
  return fail(ResponseError::Truncated, "the connection ended inside the SCGI response head");
}

}  // namespace callwire::http
