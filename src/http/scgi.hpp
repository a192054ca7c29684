// Internal: SCGI framing for the client (the protocol rtorrent, and web servers' scgi_pass,
// speak): a request is a netstring of NUL-separated header pairs, CONTENT_LENGTH first and
// SCGI=1 among them, then the body; the answer is a CGI response (`Status: 200 OK` and header
// lines, a blank line, the body), or a whole HTTP response, which some servers send; the server
// closes the connection after it. See https://python.ca/scgi/protocol.txt.
//
// I/O-free, with ResponseParser's contract (response_parser.hpp): the caller passes every byte
// received so far, from the first; parse_eof when the connection ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "http/response_parser.hpp"

namespace callwire::http {

struct ScgiRequestHead {
  uint64_t content_length = 0;
  std::string_view uri = "/RPC2";  ///< REQUEST_URI
  std::string_view content_type = "text/xml";
  bool gzip = false;                ///< HTTP_CONTENT_ENCODING=gzip: the body is gzip
  bool accept_gzip = false;         ///< HTTP_ACCEPT_ENCODING=gzip
  std::span<const Header> extra;    ///< sent as HTTP_NAME (upper case, '-' as '_')
};

/// Appends the netstring header block of a request ("NN:CONTENT_LENGTH\0...\0,"); the body
/// follows it. Errors: InvalidArgument (nothing appended) for an extra name that is not a
/// token, or a value or URI holding a control character. Throws std::bad_alloc.
Status append_scgi_request_head(Buffer& out, const ScgiRequestHead& head);

/// One SCGI answer. Ownership, thread-safety, limits and errors as ResponseParser's; the
/// Response it gives never keeps the connection alive.
class ScgiResponseParser {
 public:
  explicit ScgiResponseParser(ResponseLimits limits = {});

  ResponseParseResult parse(std::string_view input, Buffer& chunked_body);
  ResponseParseResult parse_eof(std::string_view input, Buffer& chunked_body);
  void reset() noexcept;

  bool headers_complete() const noexcept;
  const Response& response() const noexcept;
  std::string_view error() const noexcept;

 private:
  enum class State { Start, Head, Body, BodyUntilEof, Done, Failed, Http };
  ResponseParseResult fail(ResponseError kind, std::string_view message);
  bool on_field(std::string_view input, size_t begin, size_t end);
  ResponseParseResult complete(std::string_view input, size_t end);
  ResponseParseResult from_http(ResponseParseResult r);

  ResponseLimits limits_;
  ResponseParser http_;  // for servers that answer with an HTTP status line
  State state_ = State::Start;
  ResponseParseResult result_;
  size_t line_start_ = 0;  // the next head line to look at
  size_t scanned_ = 0;     // searched for a line end up to here
  size_t body_start_ = 0;
  // Offsets into the input (which may move between calls), made views at completion.
  struct Span {
    size_t off = 0, len = 0;
  };
  std::vector<std::pair<Span, Span>> fields_;
  std::vector<Header> views_;
  Span reason_, content_type_, content_encoding_;
  Response response_;
  std::string error_;
};

}  // namespace callwire::http
