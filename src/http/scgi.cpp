#include "http/scgi.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
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
      return Error(Errc::InvalidArgument,
                   "SCGI request: bad header name '" + std::string(h.name) + "'");
    if (!plain_value(h.value) || !is_field_value(h.value))
      return Error(Errc::InvalidArgument,
                   "SCGI request: a control character in header " + std::string(h.name));
    std::string name = "HTTP_";
    for (char c : h.name)
      name.push_back(c == '-' ? '_' : (c >= 'a' && c <= 'z' ? char(c - 32) : c));
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
    fail(ResponseError::TooLarge,
         "over " + std::to_string(limits_.max_headers) + " SCGI response header fields");
    return false;
  }
  std::string_view name = line.substr(0, colon), value = trim_ows(line.substr(colon + 1));
  auto span = [&input](std::string_view v) {
    return Span{size_t(v.data() - input.data()), v.size()};
  };
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
    if (response_.content_length || syntax::parse_length(value, n) != syntax::LengthText::Ok) {
      fail(ResponseError::Malformed, "bad or repeated SCGI Content-Length");
      return false;
    }
    if (n > limits_.max_body) {
      fail(ResponseError::TooLarge, "response body of " + std::to_string(n) +
                                        " bytes over the limit of " +
                                        std::to_string(limits_.max_body));
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
        return fail(
            ResponseError::TooLarge,
            "SCGI response headers over " + std::to_string(limits_.max_header_bytes) + " bytes");
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
    return fail(ResponseError::TooLarge,
                "response body over the limit of " + std::to_string(limits_.max_body) + " bytes");
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

// ---- the server's side ----

namespace callwire::http {

ScgiRequestParser::ScgiRequestParser(RequestLimits limits) : limits_(limits) {
  variables_.reserve(limits_.max_headers + 8);
  header_of_.reserve(limits_.max_headers);
  name_spans_.reserve(limits_.max_headers);
  headers_.reserve(limits_.max_headers);
  names_.reserve(limits_.max_header_bytes);  // never more: the views into it stay valid
}

void ScgiRequestParser::reset() noexcept {
  state_ = State::Length;
  result_ = {};
  block_start_ = block_length_ = body_start_ = 0;
  variables_.clear();
  header_of_.clear();
  names_.clear();
  name_spans_.clear();
  headers_.clear();
  content_type_of_ = kNoVariable;
  input_ = {};
  request_ = {};
}

ParseResult ScgiRequestParser::fail(int status) noexcept {
  state_ = State::Failed;
  result_ = {ParseStatus::Error, 0, status};
  return result_;
}

std::string_view ScgiRequestParser::variable(std::string_view name) const noexcept {
  for (const auto& [n, v] : variables_)
    if (input_.substr(n.off, n.len) == name) return input_.substr(v.off, v.len);
  return {};
}

// The netstring's contents: NUL-terminated names and values, CONTENT_LENGTH first.
int ScgiRequestParser::on_block(std::string_view block, size_t offset) {
  size_t pos = 0;
  while (pos < block.size()) {
    size_t name_end = block.find('\0', pos);
    if (name_end == std::string_view::npos || name_end == pos) return 400;
    size_t value_end = block.find('\0', name_end + 1);
    if (value_end == std::string_view::npos) return 400;
    if (variables_.size() == limits_.max_headers + 8) return 431;
    variables_.push_back(
        {{offset + pos, name_end - pos}, {offset + name_end + 1, value_end - name_end - 1}});
    pos = value_end + 1;
  }
  if (variables_.empty() || block.substr(0, 15) != std::string_view("CONTENT_LENGTH\0", 15))
    return 400;
  auto text = [&](Span s) { return block.substr(s.off - offset, s.len); };
  bool scgi = false;
  for (size_t i = 0; i < variables_.size(); ++i) {
    std::string_view name = text(variables_[i].first), value = text(variables_[i].second);
    if (name == "SCGI") scgi = value == "1";
    if (!is_cgi_header(name)) continue;
    if (header_of_.size() == limits_.max_headers) return 431;
    size_t start = names_.size();
    append_cgi_header_name(names_, name);
    name_spans_.push_back({start, names_.size() - start});
    header_of_.push_back(i);
    // Noted here, so that choosing the protocol needs no search of the fields per request.
    if (content_type_of_ == kNoVariable &&
        iequals(std::string_view(names_).substr(start), "Content-Type"))
      content_type_of_ = i;
  }
  if (!scgi) return 400;
  uint64_t length = 0;
  switch (syntax::parse_length(text(variables_[0].second), length)) {
    case syntax::LengthText::Malformed:
      return 400;
    case syntax::LengthText::TooLarge:
      return 413;
    case syntax::LengthText::Ok:
      break;
  }
  if (length > limits_.max_body) return 413;
  request_.content_length = length;
  return 0;
}

// The request's views into this call's input (which may have moved since the last call).
void ScgiRequestParser::make_views(std::string_view input) {
  input_ = input;
  auto view = [&input](Span s) { return input.substr(s.off, s.len); };
  headers_.clear();
  for (size_t k = 0; k < header_of_.size(); ++k)
    headers_.push_back({std::string_view(names_).substr(name_spans_[k].off, name_spans_[k].len),
                        view(variables_[header_of_[k]].second)});
  Request& r = request_;
  r.headers = headers_;
  r.method = variable("REQUEST_METHOD");
  r.target = variable("REQUEST_URI");
  if (r.target.empty()) r.target = variable("SCRIPT_NAME");
  r.version = variable("SERVER_PROTOCOL") == "HTTP/1.0" ? HttpVersion::Http10 : HttpVersion::Http11;
  r.keep_alive = false;
  r.content_type = content_type_of_ == kNoVariable ? std::string_view()
                                                   : view(variables_[content_type_of_].second);
  r.content_encoding = variable("HTTP_CONTENT_ENCODING");
  r.content_encoding_gzip =
      iequals(r.content_encoding, "gzip") || iequals(r.content_encoding, "x-gzip");
  r.accept_gzip = accepts_gzip(variable("HTTP_ACCEPT_ENCODING"));
  r.authorization = variable("HTTP_AUTHORIZATION");
  r.host = variable("HTTP_HOST");
}

ParseResult ScgiRequestParser::parse(std::string_view input, Buffer&) {
  if (state_ == State::Failed) return result_;
  if (state_ == State::Length) {
    // Decimal digits, then ':' (no more digits than the header limit can have).
    size_t digits = 0;
    while (digits < input.size() && input[digits] >= '0' && input[digits] <= '9') ++digits;
    // Too many digits is refused as soon as seen, whatever follows: the same answer however
    // the bytes arrive.
    if (digits > 9) return fail(431);
    if (digits == input.size()) return result_;
    if (digits == 0 || input[digits] != ':') return fail(400);
    size_t length = 0;
    std::from_chars(input.data(), input.data() + digits, length);
    if (length > limits_.max_header_bytes) return fail(431);
    block_start_ = digits + 1;
    block_length_ = length;
    state_ = State::Block;
  }
  if (state_ == State::Block) {
    if (input.size() < block_start_ + block_length_ + 1) return result_;
    if (input[block_start_ + block_length_] != ',') return fail(400);
    if (int status = on_block(input.substr(block_start_, block_length_), block_start_))
      return fail(status);
    body_start_ = request_.body_offset = block_start_ + block_length_ + 1;
    state_ = State::Body;
  }
  make_views(input);
  size_t end = body_start_ + static_cast<size_t>(*request_.content_length);
  if (input.size() < end) return result_;
  request_.body = input.substr(body_start_, end - body_start_);
  state_ = State::Done;
  result_ = {ParseStatus::Complete, end, 0};
  return result_;
}

bool is_cgi_header(std::string_view variable) noexcept {
  return (variable.starts_with("HTTP_") && variable.size() > 5) || variable == "CONTENT_TYPE" ||
         variable == "CONTENT_LENGTH";
}

void append_cgi_header_name(std::string& out, std::string_view variable) {
  std::string_view raw = variable.starts_with("HTTP_") ? variable.substr(5) : variable;
  bool word_start = true;
  for (char c : raw) {
    if (c == '_') {
      out.push_back('-');
      word_start = true;
    } else {
      out.push_back(!word_start && c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c);
      word_start = false;
    }
  }
}

std::string cgi_peer(std::string_view address, std::string_view port) {
  if (address.empty()) return {};
  const bool v6 = address.find(':') != std::string_view::npos;
  std::string peer;
  peer.reserve(address.size() + port.size() + 3);
  if (v6) peer += '[';
  peer += address;
  if (v6) peer += ']';
  if (!port.empty()) {
    peer += ':';
    peer += port;
  }
  return peer;
}

size_t place_scgi_response_head(Buffer& buf, size_t body_offset,
                                const ResponseHead& head) noexcept {
  char text[256];
  std::string_view reason = reason_phrase(head.status);
  std::string_view type_name = head.content_type.empty() ? "" : "Content-Type: ";
  std::string_view type_end = head.content_type.empty() ? "" : "\r\n";
  char length[48] = "";
  if (response_has_length(head.status))
    std::snprintf(length, sizeof length, "Content-Length: %zu\r\n", buf.size() - body_offset);
  int n =
      std::snprintf(text, sizeof text, "Status: %d %.*s\r\n%.*s%.*s%.*s%s%s\r\n", head.status,
                    int(reason.size()), reason.data(), int(type_name.size()), type_name.data(),
                    int(head.content_type.size()), head.content_type.data(), int(type_end.size()),
                    type_end.data(), length, head.gzip ? "Content-Encoding: gzip\r\n" : "");
  if (n <= 0 || size_t(n) >= sizeof text || size_t(n) > body_offset) return kNoRoom;
  std::memcpy(buf.data() + body_offset - size_t(n), text, size_t(n));
  return body_offset - size_t(n);
}

Status append_scgi_error_response(Buffer& out, int status, std::span<const Header> extra,
                                  std::string_view message) {
  for (const Header& h : extra)
    if (!is_token(h.name) || !is_field_value(h.value))
      return Error(Errc::InvalidArgument, "bad extra field in an SCGI answer");
  std::string reason(reason_phrase(status));
  std::string body =
      message.empty() ? std::to_string(status) + " " + reason + "\n" : std::string(message) + "\n";
  std::string head = "Status: " + std::to_string(status) + " " + reason + "\r\n";
  for (const Header& h : extra) head += std::string(h.name) + ": " + std::string(h.value) + "\r\n";
  head +=
      "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n";
  out.append(head);
  out.append(body);
  return Status();
}

}  // namespace callwire::http
