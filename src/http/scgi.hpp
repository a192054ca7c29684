// Internal: SCGI framing (the protocol rtorrent and web servers' scgi_pass speak), both ends: a
// request is a netstring of NUL-separated pairs of CGI variables, CONTENT_LENGTH first and
// SCGI=1 among them, then the body; the answer is a CGI response (`Status: 200 OK` and header
// lines, a blank line, the body), or a whole HTTP response, which some servers send; the
// server closes the connection after it. See https://python.ca/scgi/protocol.txt.
//
// I/O-free, with the HTTP parsers' contracts (request_parser.hpp, response_parser.hpp): the
// caller passes every byte received so far, from the first; parse_eof when the connection
// ends. Both parsers fill the HTTP parsers' structs, so the rest of a server or client reads
// a request or an answer the same whichever framing carried it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "http/request_parser.hpp"
#include "http/response_parser.hpp"
#include "http/response_writer.hpp"

namespace callwire::http {

struct ScgiRequestHead {
  uint64_t content_length = 0;
  std::string_view uri = "/RPC2";  ///< REQUEST_URI
  std::string_view content_type = "text/xml";
  bool gzip = false;              ///< HTTP_CONTENT_ENCODING=gzip: the body is gzip
  bool accept_gzip = false;       ///< HTTP_ACCEPT_ENCODING=gzip
  std::span<const Header> extra;  ///< sent as HTTP_NAME (upper case, '-' as '_')
};

/// Appends the netstring header block of a request ("NN:CONTENT_LENGTH\0...\0,"); the body
/// follows it. Errors: InvalidArgument (nothing appended) for an extra name that is not a
/// token, or a value or URI holding a control character. Throws std::bad_alloc.
Status append_scgi_request_head(Buffer& out, const ScgiRequestHead& head);

/// One SCGI request, as http::Request: REQUEST_METHOD is the method, REQUEST_URI the target,
/// the HTTP_* variables the header fields (HTTP_USER_AGENT as "User-Agent"), CONTENT_TYPE and
/// CONTENT_LENGTH too; content_type is CONTENT_TYPE (the first variable that names the field,
/// as find_header would find it); keep_alive is false. Refusals, as `http_status`: 400 for a
/// malformed netstring, a first variable other than CONTENT_LENGTH, a bad length or SCGI
/// missing; 431 for a netstring over max_header_bytes or more than max_headers variables; 413
/// for a body over max_body. Views point into the input of the last parse (the names of header
/// fields into the parser); ownership and thread-safety as RequestParser's.
class ScgiRequestParser {
 public:
  explicit ScgiRequestParser(RequestLimits limits = {});

  ParseResult parse(std::string_view input, Buffer& chunked_body);
  void reset() noexcept;
  bool headers_complete() const noexcept { return state_ == State::Body || state_ == State::Done; }
  const Request& request() const noexcept { return request_; }
  /// A CGI variable of the request (REMOTE_ADDR, REMOTE_USER, ...), or empty.
  std::string_view variable(std::string_view name) const noexcept;

 private:
  enum class State { Length, Block, Body, Done, Failed };
  struct Span {
    size_t off = 0, len = 0;
  };
  ParseResult fail(int status) noexcept;
  int on_block(std::string_view block, size_t offset);
  void make_views(std::string_view input);

  RequestLimits limits_;
  State state_ = State::Length;
  ParseResult result_;
  size_t block_start_ = 0, block_length_ = 0, body_start_ = 0;
  std::vector<std::pair<Span, Span>> variables_;  // every pair, offsets into the input
  std::vector<size_t> header_of_;                 // for each header field: its variable's index
  std::string names_;             // the header fields' names, reserved: views stay valid
  std::vector<Span> name_spans_;  // into names_
  std::vector<Header> headers_;
  // The variable Content-Type comes from (kNoVariable: none), found while the block is read.
  static constexpr size_t kNoVariable = SIZE_MAX;
  size_t content_type_of_ = kNoVariable;
  std::string_view input_;  // of the last parse, for variable()
  Request request_;
};

/// Whether a CGI variable carries a request header field: HTTP_*, CONTENT_TYPE, CONTENT_LENGTH.
bool is_cgi_header(std::string_view variable) noexcept;
/// Appends the field name a CGI variable stands for, as a client would have written it
/// (HTTP_USER_AGENT -> User-Agent, CONTENT_TYPE -> Content-Type).
void append_cgi_header_name(std::string& out, std::string_view variable);

/// The peer a CGI or SCGI request names: REMOTE_ADDR and REMOTE_PORT as "127.0.0.1:4711" or
/// "[::1]:4711" (no port: the address alone); empty without an address.
std::string cgi_peer(std::string_view address, std::string_view port);

/// Writes a CGI response head ("Status: 200 OK\r\nContent-Type: text/xml\r\nContent-Length:
/// N\r\n[Content-Encoding: gzip\r\n]\r\n") so that it ends at `body_offset`, the body being
/// buf[body_offset, size); returns where the answer starts, or kNoRoom when the gap is too
/// small. `head.close`, `date` and `extra` are not written (SCGI closes anyway).
size_t place_scgi_response_head(Buffer& buf, size_t body_offset, const ResponseHead& head) noexcept;

/// Appends a complete CGI error answer: `Status: 413 Content Too Large`, the `extra` fields,
/// `Content-Type: text/plain`, Content-Length and the body "<status> <reason>\n" (or `message`
/// and a newline when given). Errors: InvalidArgument (nothing appended) for an extra field
/// that is not a token and a clean value. Throws std::bad_alloc.
Status append_scgi_error_response(Buffer& out, int status, std::span<const Header> extra = {},
                                  std::string_view message = {});

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
