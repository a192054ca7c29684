// Internal: an incremental, I/O-free HTTP/1.1 request parser (RFC 9112), strict about request
// smuggling.
//
// The caller appends received bytes to one contiguous buffer and calls `parse` with everything
// received so far for the current request, starting at its first byte. The buffer may move
// between calls (a growing std::string), but the bytes already passed must not change. The
// parser remembers how far it got, so each byte is examined a bounded number of times however
// the input is split (`bytes_scanned()` counts them): a client that sends one byte at a time
// costs O(n), not O(n^2).
//
// Decisions:
// - Line endings: CRLF or a bare LF end a line (common leniency, applied everywhere: request
//   line, header fields, chunk-size lines, trailers). A CR anywhere else is refused (400).
// - Up to 4 empty lines before the request line are skipped (a CRLF left after a previous
//   body); more → 400.
// - Content-Length and Transfer-Encoding together → 400; any repeated Content-Length, even
//   with the same value → 400; Transfer-Encoding other than exactly `chunked` → 501;
//   Transfer-Encoding in an HTTP/1.0 request → 400; HTTP/1.1 without Host, or two Host
//   fields → 400 (RFC 9112 §3.2). Repeated Authorization or Content-Encoding → 400.
// - The method is any token: refusing a method other than POST (405) is the server's choice.
// - `Expect: 100-continue` is ignored in an HTTP/1.0 request (RFC 9110 §10.1.1).
// - Chunked: chunk extensions are checked for control characters and ignored; trailer fields
//   are checked like header fields and discarded. One chunk-size line may not exceed
//   max_header_bytes (400); the trailer section may not exceed max_header_bytes or max_headers
//   (431); the decoded body may not exceed max_body (413, decided from the chunk size before
//   its data arrives); the chunked section on the wire (data plus framing) may not exceed
//   2 * max_body + max_header_bytes (413), which bounds what tiny chunks with long extensions
//   make the caller buffer.
//
// Ownership: the parser borrows nothing between calls; views in `request()` point into the
// buffer passed to the last `parse` call (method, target, headers, Content-Length body) or
// into the caller's chunked-body Buffer, and stay valid until the next `parse` or `reset`
// and while those buffers are unchanged. Thread-safety: none (one connection at a time).
// Errors: never throws (except std::bad_alloc from the caller's Buffer while decoding a
// chunked body, and from the constructor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/ascii.hpp"
#include "callwire/buffer.hpp"
#include "callwire/header_field.hpp"
#include "http/body_rules.hpp"
#include "http/chunked.hpp"

namespace callwire::http {

/// Per-parser limits; a server copies them from its options.
struct RequestLimits {
  size_t max_header_bytes = 16 * 1024;  ///< request line + header fields + blank line → 431
  size_t max_headers = 64;              ///< header fields → 431
  size_t max_body = 32 << 20;           ///< Content-Length or decoded chunked body → 413
};

enum class ParseStatus { Incomplete, Complete, Error };

struct ParseResult {
  ParseStatus status = ParseStatus::Incomplete;
  /// Complete: bytes of this request (header section + body framing) from the start of the
  /// buffer; a pipelined request starts there.
  size_t consumed = 0;
  /// Error: the HTTP status to answer with (400, 413, 431, 501, 505); then close.
  int http_status = 0;
};

enum class HttpVersion { Http10, Http11 };

/// A header field: the type a handler sees them as (CallContext::headers), so that a request's
/// fields reach the call without a copy.
using Header = callwire::HeaderField;

/// What the server needs from one request. Once `RequestParser::headers_complete()`, the
/// facts (version, content_length, chunked, keep_alive, expect_continue,
/// content_encoding_gzip, accept_gzip) are valid, and so are the head's views (method,
/// target, headers, host, authorization, content_encoding, content_type) into the input of
/// the last `parse` call (so that a server can refuse a request on its head before its body
/// arrives); `body` only after `parse` returned Complete.
struct Request {
  std::string_view method;
  std::string_view target;
  HttpVersion version = HttpVersion::Http11;
  std::span<const Header> headers;
  std::optional<uint64_t> content_length;
  /// Where the body starts in the input, once the head is complete: a Content-Length request
  /// ends at body_offset + content_length (so a server can grow its buffer to that end).
  size_t body_offset = 0;
  bool chunked = false;
  bool keep_alive = true;
  bool expect_continue = false;
  bool content_encoding_gzip = false;  ///< Content-Encoding is `gzip` or `x-gzip`
  bool accept_gzip = false;            ///< Accept-Encoding lists gzip with q != 0
  /// TE lists `trailers` (an HTTP/1.1 request): the client reads chunked answers whole, trailer
  /// section included, and a long answer may be sent to it while it is written.
  bool accepts_trailers = false;
  std::string_view content_encoding;  ///< empty when absent
  /// The first Content-Type field's value, empty when absent: kept while parsing because the
  /// server picks the protocol by it on every request (find_header would walk the fields again).
  std::string_view content_type;
  std::string_view authorization;  ///< empty when absent
  std::string_view host;           ///< empty when absent
  /// Content-Length: a view into the input; chunked: the decoded bytes appended to the
  /// caller's Buffer by this request.
  std::string_view body;

  /// The first field named `name` (case-insensitive), or empty.
  std::string_view find_header(std::string_view name) const noexcept;
};

/// ASCII case-insensitive equality (base/ascii.hpp), under the name the HTTP code uses.
using base::iequals;

/// Whether an Accept-Encoding value lists gzip (or x-gzip) with a q-value other than 0.
bool accepts_gzip(std::string_view list) noexcept;
/// Whether a TE value lists `trailers` (RFC 9110 §10.1.4).
bool lists_trailers(std::string_view list) noexcept;

class RequestParser {
 public:
  explicit RequestParser(RequestLimits limits = {});

  /// Parses `input`: every byte received so far for this request, from its first byte.
  /// Successive calls must pass the same bytes followed by more (the storage may move).
  /// A chunked body is decoded by appending to `chunked_body` (the same Buffer on every call
  /// for one request). After Complete or Error the result is sticky until `reset()`.
  ParseResult parse(std::string_view input, Buffer& chunked_body);

  /// Prepares for the next request (keeps storage: no allocation).
  void reset() noexcept;

  /// True once the header section is parsed and accepted: the facts in `request()` are
  /// valid (e.g. to answer `100 Continue` before the body arrives).
  bool headers_complete() const noexcept {
    return state_ > State::Headers && state_ != State::Failed;
  }
  const Request& request() const noexcept { return request_; }
  const RequestLimits& limits() const noexcept { return limits_; }
  /// Bytes examined since construction or reset: the proof that parsing stays linear.
  uint64_t bytes_scanned() const noexcept { return cur_.scanned; }

 private:
  enum class State { RequestLine, Headers, Body, Chunked, Done, Failed };
  struct FieldSpan {
    size_t name_off, name_len, value_off, value_len;
  };
  struct Span {
    size_t off = 0, len = 0;
  };

  ParseResult fail(int http_status) noexcept;
  ParseResult complete(std::string_view input, const Buffer& chunked_body);
  void set_head_views(std::string_view input);
  int on_request_line(std::string_view input, size_t begin, size_t end) noexcept;
  int on_header_line(std::string_view input, size_t begin, size_t end) noexcept;
  int on_headers_done() noexcept;
  ChunkedLimits chunked_limits() const noexcept;
  static int chunked_status(ChunkedDecoder::Error error) noexcept;
  static int check_field_line(std::string_view line, size_t& colon) noexcept;

  RequestLimits limits_;
  State state_ = State::RequestLine;
  ParseResult result_;
  Cursor cur_;  // the next unprocessed byte, how far the search for LF got, bytes examined
  int empty_lines_ = 0;

  Span method_, target_, host_, authorization_, content_encoding_, content_type_;
  std::vector<FieldSpan> fields_;  // reserved to max_headers: never grows past it
  std::vector<Header> views_;      // idem
  BodyRules body_;  // Content-Length, Transfer-Encoding, Connection, Content-Encoding
  bool seen_host_ = false;
  bool seen_content_type_ = false;
  bool seen_authorization_ = false;
  bool expect_continue_ = false;
  size_t body_start_ = 0;
  uint64_t body_length_ = 0;
  ChunkedDecoder chunked_;
  Request request_;
  const char* head_views_base_ = nullptr;  // the input the head's views point into
};

}  // namespace callwire::http
