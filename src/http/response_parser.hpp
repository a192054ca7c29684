// Internal: an incremental, I/O-free HTTP/1.1 response parser for the client (RFC 9112).
//
// The contract is RequestParser's: the caller appends received bytes to one contiguous buffer
// and calls `parse` with everything received so far for the current response, from its first
// byte. The buffer may move between calls, but the bytes already passed must not change. Each
// byte is examined a bounded number of times however the input is split (`bytes_scanned()`):
// a server that sends one byte at a time costs O(n). When the connection reaches its end
// (read returned 0), the caller calls `parse_eof` with the same bytes: it completes a body
// delimited by the end of the connection, and turns anything unfinished into an error.
//
// Decisions:
// - Status line: "HTTP/1.0" or "HTTP/1.1" (another 1.x is read as 1.1, RFC 9110 §2.5), SP, a
//   status code 100..599, SP, any reason (HTAB, SP, visible, obs-text). A missing SP before
//   an empty reason is tolerated. Up to 4 empty lines before it are skipped.
// - Line endings: CRLF or a bare LF; a CR anywhere else is refused.
// - Header fields as strictly as the request parser: obs-fold, white space before the colon,
//   a name that is not a token, a control character in a value → error; Content-Length and
//   Transfer-Encoding together → error; any repeated Content-Length → error; a
//   Transfer-Encoding other than exactly `chunked`, or in an HTTP/1.0 response → error;
//   repeated Content-Encoding → error.
// - 1xx interim responses (100 Continue, 102, 103) are checked and skipped: the response
//   reported is the final one, and `consumed` covers the interim ones too. At most 16 of them;
//   101 Switching Protocols is an error (we never ask to switch).
// - Body: none for 204 and 304 (RFC 9112 §6.3); else chunked, else Content-Length, else until
//   the end of the connection (keep_alive is then false).
//   Responses to HEAD are not told apart (the client only POSTs).
// - Limits: max_header_bytes per head (status line, fields, blank line) and per chunk-size
//   line and per trailer section; max_headers fields per head and trailer section; max_body
//   for the body, decided from Content-Length or each chunk size before the data arrives, so
//   a lying Content-Length costs nothing (CVE-2025-13836) as long as the caller does not
//   reserve content_length bytes itself: grow the receive buffer as the bytes arrive. The
//   chunked section on the wire may not exceed 2 * max_body + max_header_bytes.
// - Errors carry a short English message for the user ("response headers over 16384 bytes",
//   "truncated body: 10 of 200 bytes") and a kind.
//
// Ownership: the parser borrows nothing between calls; views in `response()` point into the
// buffer passed to the last `parse`/`parse_eof` (reason, fields, a Content-Length or
// end-delimited body) or into the caller's chunked-body Buffer, and stay valid until the next
// call or `reset` and while those buffers are unchanged. `error()` points into the parser.
// Thread-safety: none (one connection at a time). Errors: never throws (except
// std::bad_alloc from the caller's Buffer while decoding a chunked body, and from the
// constructor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/printf_format.hpp"
#include "callwire/buffer.hpp"
#include "http/body_rules.hpp"
#include "http/chunked.hpp"
#include "http/request_parser.hpp"  // ParseStatus, HttpVersion, Header, iequals

namespace callwire::http {

/// Per-parser limits; a client copies them from its options.
struct ResponseLimits {
  size_t max_header_bytes = 16 * 1024;  ///< status line + header fields + blank line
  size_t max_headers = 64;              ///< header fields of one head, or trailer fields
  size_t max_body = 32 << 20;           ///< Content-Length, decoded chunked or end-delimited
};

/// What kind of failure an Error is, for the client to map onto its own codes.
enum class ResponseError {
  None,
  Malformed,   ///< bytes that are not an acceptable HTTP/1.1 response
  TooLarge,    ///< over a limit
  Truncated,   ///< the connection ended inside the head or a delimited body
  NoResponse,  ///< the connection ended before the first byte (e.g. a closed idle connection)
};

/// What one `parse` or `parse_eof` call tells; the message of an Error is `error()`.
struct ResponseParseResult {
  ParseStatus status = ParseStatus::Incomplete;
  /// Complete: bytes of this response (interim responses, head and body framing) from the
  /// start of the buffer; the connection's next response, if any, starts there.
  size_t consumed = 0;
  ResponseError error = ResponseError::None;  ///< Error: the kind
};

/// What the client needs from one final response. The facts are valid once
/// `ResponseParser::headers_complete()`; the views only after Complete.
struct Response {
  HttpVersion version = HttpVersion::Http11;
  int status = 0;
  std::string_view reason;
  std::span<const Header> headers;
  std::optional<uint64_t> content_length;
  bool chunked = false;
  bool keep_alive = true;              ///< false for HTTP/1.0 without keep-alive, for
                                       ///< Connection: close, and for an end-delimited body
  bool content_encoding_gzip = false;  ///< Content-Encoding is `gzip` or `x-gzip`
  std::string_view content_encoding;   ///< empty when absent
  std::string_view content_type;       ///< empty when absent
  std::string_view www_authenticate;   ///< the first one; empty when absent
  /// Content-Length or end-delimited: a view into the input; chunked: the decoded bytes
  /// appended to the caller's Buffer by this response.
  std::string_view body;

  /// The first field named `name` (case-insensitive), or empty.
  std::string_view find_header(std::string_view name) const noexcept;
};

/// One connection's response reader, reused response after response (reset() between them).
/// Ownership, thread-safety and errors: see the top of this file.
class ResponseParser {
 public:
  explicit ResponseParser(ResponseLimits limits = {});

  /// Parses `input`: every byte received so far for this response, from its first byte.
  /// Successive calls must pass the same bytes followed by more (the storage may move). A
  /// chunked body is decoded by appending to `chunked_body` (the same Buffer on every call
  /// for one response). After Complete or Error the result is sticky until `reset()`.
  ResponseParseResult parse(std::string_view input, Buffer& chunked_body);

  /// The connection ended after `input` (the same bytes as before, and possibly more): parses
  /// them, then completes an end-delimited body, or fails with NoResponse (no byte at all) or
  /// Truncated (a head or a delimited body unfinished). Sticky like `parse`.
  ResponseParseResult parse_eof(std::string_view input, Buffer& chunked_body);

  /// Prepares for the next response on the connection (keeps storage: no allocation).
  void reset() noexcept;

  /// Whether a 101 Switching Protocols is the answer awaited (a WebSocket opening handshake):
  /// then it completes at the end of its head, with no body, and the bytes after it are the
  /// new protocol's. Otherwise (the default) a 101 is refused, since nothing asked for it.
  /// Kept across reset().
  void set_upgrade_awaited(bool awaited) noexcept { upgrade_awaited_ = awaited; }

  /// True once the final response's header section is parsed and accepted.
  bool headers_complete() const noexcept {
    return state_ > State::Headers && state_ != State::Failed;
  }
  const Response& response() const noexcept { return response_; }
  const ResponseLimits& limits() const noexcept { return limits_; }
  /// While a body of declared length (Content-Length) and no content coding is arriving: the
  /// part of it `input` holds, and in `length` the whole's length. Empty otherwise.
  std::string_view arriving_body(std::string_view input, uint64_t& length) const noexcept {
    if (state_ != State::Body || response_.content_encoding_gzip || input.size() <= body_start_)
      return {};
    length = body_length_;
    return input.substr(body_start_,
                        size_t(std::min<uint64_t>(input.size() - body_start_, body_length_)));
  }
  /// While a chunked body with no content coding is arriving: its data decoded so far into
  /// `chunked_body` (the Buffer passed to parse), from where it starts there. Empty otherwise.
  std::string_view arriving_chunks(const Buffer& chunked_body) const noexcept {
    if (state_ != State::Chunked || response_.content_encoding_gzip ||
        chunked_.out_start() >= chunked_body.size())
      return {};
    return chunked_body.view().substr(chunked_.out_start());
  }
  /// While a chunked body is arriving and every byte of `input` is parsed, with the next bytes
  /// on the wire a chunk's data: how many of them are due. The caller may read up to that many
  /// straight to the end of `chunked_body` and say so with chunk_data_read, sparing the copy
  /// from the input; they then never appear in `input`. 0 otherwise.
  uint64_t chunk_data_due(std::string_view input) const noexcept {
    return state_ == State::Chunked ? chunked_.data_due(input, cur_) : 0;
  }
  /// `n` bytes (at most chunk_data_due) appended to `chunked_body` by the caller, from the wire.
  void chunk_data_read(size_t n) noexcept { chunked_.data_read_straight(n, cur_); }
  /// After an Error: what went wrong, for the user ("truncated body: 10 of 200 bytes").
  /// Empty otherwise. Points into the parser: valid until the next call or reset.
  std::string_view error() const noexcept { return {error_, error_len_}; }
  /// Bytes examined since construction or reset: the proof that parsing stays linear.
  uint64_t bytes_scanned() const noexcept { return cur_.scanned; }

 private:
  enum class State { StatusLine, Headers, Body, BodyUntilEof, Chunked, Done, Failed };
  struct FieldSpan {
    size_t name_off, name_len, value_off, value_len;
  };
  struct Span {
    size_t off = 0, len = 0;
  };

  ResponseParseResult fail(ResponseError kind, const char* format, ...) noexcept
      CALLWIRE_PRINTF_FORMAT(3, 4);
  ResponseParseResult complete(std::string_view input, const Buffer& chunked_body);
  // Each returns true on success, or false after fail() recorded the error.
  bool on_status_line(std::string_view line) noexcept;
  bool on_header_line(std::string_view input, size_t begin, size_t end) noexcept;
  bool on_headers_done() noexcept;
  ChunkedLimits chunked_limits() const noexcept;
  ResponseParseResult fail_chunked(ChunkedDecoder::Error error) noexcept;
  bool check_field_line(std::string_view line, size_t& colon, const char* where) noexcept;
  void reset_head() noexcept;

  ResponseLimits limits_;
  State state_ = State::StatusLine;
  ResponseParseResult result_;
  Cursor cur_;  // the next unprocessed byte, how far the search for LF got, bytes examined
  size_t head_start_ = 0;  // first byte of the current head (after interim responses)
  int empty_lines_ = 0;
  int interim_count_ = 0;
  bool upgrade_awaited_ = false;

  Span reason_, content_encoding_, content_type_, www_authenticate_;
  std::vector<FieldSpan> fields_;  // reserved to max_headers: never grows past it
  std::vector<Header> views_;      // idem
  BodyRules body_;  // Content-Length, Transfer-Encoding, Connection, Content-Encoding
  bool seen_www_authenticate_ = false;
  bool seen_content_type_ = false;
  size_t body_start_ = 0;
  uint64_t body_length_ = 0;
  ChunkedDecoder chunked_;
  Response response_;
  char error_[112] = {};
  size_t error_len_ = 0;
};

}  // namespace callwire::http
