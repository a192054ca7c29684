// Internal: writing HTTP/1.1 heads, I/O-free: the server's response heads and error
// responses, and the client's request heads.
//
// Server, the one-send path: the server reserves a gap of kResponseHeadGap bytes at the front
// of its send Buffer, writes the XML body after it, and then places the head right-aligned in
// the gap (place_response_head), once the body length is known; it sends from the head's
// first byte. Nothing is allocated and no byte of the body moves.
//
// Every field name the caller supplies must be a token and every value free of CR, LF, NUL
// and the other control characters (HTAB allowed): what does not pass is refused before
// anything is written, so nobody can inject a header or split a message. The fields a writer
// owns (framing, content type and coding, connection) may not be given again as extra fields.
//
// All functions are stateless: thread-safe for distinct outputs; inputs are borrowed for the
// call only. They never throw, except std::bad_alloc where a Buffer grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "http/request_parser.hpp"  // Header

namespace callwire::http {

/// The reason phrase for 100, 200, 400, 401, 404, 405, 408, 413, 431, 500, 501, 503, 505
/// ("OK", "Content Too Large", ...), and for the other common codes; empty for a code it does
/// not know (the status line is then "HTTP/1.1 599 " — RFC 9112 allows an empty reason).
/// Static storage.
std::string_view reason_phrase(int status) noexcept;

/// The interim response a server sends to `Expect: 100-continue` before reading the body.
inline constexpr std::string_view kContinueResponse = "HTTP/1.1 100 Continue\r\n\r\n";

/// What a response head says. Views are borrowed for the call.
struct ResponseHead {
  int status = 200;                            ///< 100..999
  std::string_view content_type = "text/xml";  ///< a field value; empty: no Content-Type
  uint64_t content_length = 0;
  /// content_length is the body's whole length though not all of it is in the buffer yet (an
  /// answer sent as it is written, whose length was known before); else place_response_head
  /// counts it.
  bool length_ahead = false;
  /// Transfer-Encoding: chunked instead of Content-Length (an answer sent as it is written,
  /// http::ChunkedBodyWriter); only for an HTTP/1.1 request.
  bool chunked = false;
  bool gzip = false;   ///< Content-Encoding: gzip
  bool close = false;  ///< Connection: close
  /// The version of the request answered. An HTTP/1.0 connection kept open (close false) is
  /// told so with "Connection: keep-alive": without it an HTTP/1.0 client must assume the
  /// server closes (RFC 9112 §9.3, Appendix C.2.2). The status line says HTTP/1.1 either way,
  /// the version the server conforms to (RFC 9110 §6.2), as nginx answers.
  HttpVersion request_version = HttpVersion::Http11;
  std::string_view date;  ///< the Date field's value ("Sun, 06 Nov 1994 08:49:37 GMT"); empty: none
  /// More fields, after the others (e.g. Server). Not Content-Length,
  /// Transfer-Encoding, Content-Type, Content-Encoding or Connection.
  std::span<const Header> extra;
};

/// Whether an answer with `status` carries Content-Length: not 1xx and not 204 (RFC 9110
/// 8.6), whose answers have no body.
bool response_has_length(int status) noexcept;

/// Room a server should reserve before the body: enough for any head with no extra fields
/// and a content type of up to 64 bytes. Bigger heads make place_response_head report
/// kNoRoom, and the caller retries with a bigger gap.
inline constexpr size_t kResponseHeadGap = 256;

/// The exact number of bytes format_response_head writes for `head`, or 0 when `head` is
/// invalid: a status outside 100..999, a content type or extra value with a control
/// character, an extra name that is not a token or names an owned field.
size_t response_head_size(const ResponseHead& head) noexcept;

/// Writes the head ("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: N\r\n
/// [Content-Encoding: gzip\r\n][Connection: close|keep-alive\r\n][Date: ...\r\n][extra
/// fields]\r\n") to dst[0, n) and
/// returns n = response_head_size(head). Returns 0 and writes nothing when `head` is invalid
/// or `cap` < n (retry with more room). Allocates nothing.
size_t format_response_head(char* dst, size_t cap, const ResponseHead& head) noexcept;

/// What place_response_head returns when the head does not fit or is invalid.
inline constexpr size_t kNoRoom = SIZE_MAX;

/// The server's one-send path: `buf` holds a reserved gap in [0, body_offset) and the body in
/// [body_offset, buf.size()). Sets Content-Length to the body's size, writes the head so
/// that it ends exactly at body_offset, and returns the offset where the response begins
/// (send buf.view().substr(offset)). Returns kNoRoom and writes nothing when the head does
/// not fit in the gap or is invalid (response_head_size tells which). Allocates nothing.
size_t place_response_head(Buffer& buf, size_t body_offset, ResponseHead head) noexcept;

/// Appends a complete error response to `out`: the status line, `Content-Type: text/plain`,
/// Content-Length, `Connection: close`, the `extra` fields (e.g. `Allow: POST` with 405,
/// `WWW-Authenticate: Basic realm="..."` with 401), and the body "<status> <reason>\n"; a
/// non-empty `date` is the Date field, as in ResponseHead.
/// Errors: Errc::InvalidArgument (nothing appended) for a status outside 100..999 or an
/// invalid extra field (as for ResponseHead). Throws std::bad_alloc when `out` cannot grow.
Status append_error_response(Buffer& out, int status, std::span<const Header> extra = {},
                             std::string_view date = {});
/// The same with `body` (text/plain) instead of the status's reason: a health check's "ok\n".
/// Errors as append_error_response's.
Status append_text_response(Buffer& out, int status, std::string_view body,
                            std::span<const Header> extra = {}, std::string_view date = {});

/// Appends the head of a 101 Switching Protocols answer: the status line, `fields` (Upgrade,
/// Connection and the new protocol's own, in that order) and the blank line; no body, and
/// the connection speaks the new protocol from the next byte. Errors: InvalidArgument (nothing
/// appended) for a field name that is not a token or a value with a control character.
/// Throws std::bad_alloc when `out` cannot grow.
Status append_switching_protocols(Buffer& out, std::span<const Header> fields);

/// What a client's request head says. Views are borrowed for the call.
struct RequestHead {
  std::string_view path = "/RPC2";  ///< origin-form: '/' then visible ASCII (percent-encoded)
  /// A host name, an IPv4 address, or an IPv6 address with or without brackets (a zone
  /// "%eth0" is not sent: it means nothing to the server, RFC 6874 §4).
  std::string_view host;
  uint16_t port = 0;  ///< shown in Host unless 0 or the default port
  bool tls = false;   ///< the default port is 443, not 80
  std::string_view content_type = "text/xml";
  uint64_t content_length = 0;
  bool accept_gzip = false;  ///< Accept-Encoding: gzip
  bool gzip = false;         ///< Content-Encoding: gzip (the body is gzip)
  bool close = false;        ///< Connection: close
  /// "TE: trailers" (with "Connection: TE"): this client reads chunked answers whole, so a
  /// server may send a long answer while it writes it. Not with close or upgrade.
  bool accept_trailers = false;
  std::string_view authorization;  ///< the whole value ("Basic ..."); empty: none
  std::string_view user_agent = "callwire/0.1";
  /// The request method: "POST" for calls, "GET" for a WebSocket opening. Ours, never a
  /// caller's text: it is written unchecked.
  std::string_view method = "POST";
  /// A protocol to switch to ("websocket"): "Connection: Upgrade" and "Upgrade: <it>" are
  /// written (and no Connection: close). Empty: none. Ours, written unchecked.
  std::string_view upgrade;
  /// Through an HTTP proxy: the request-target in absolute form ("POST http://host:port/path",
  /// RFC 9112 §3.2.2) instead of origin-form; Host is the origin's all the same.
  bool absolute_form = false;
  /// Proxy-Authorization, the whole value ("Basic ..."); empty: none. For the proxy's eyes:
  /// only sent with absolute_form (inside a CONNECT tunnel the origin would see it).
  std::string_view proxy_authorization;
  /// More fields, after the others. Not one the writer owns: Host, Content-Length,
  /// Transfer-Encoding, Content-Type, Content-Encoding, Accept-Encoding, Authorization,
  /// User-Agent, Connection.
  std::span<const Header> extra;
};

/// Appends "POST <path> HTTP/1.1" (or "POST http://<host>[:port]<path> HTTP/1.1"), Host,
/// User-Agent, Content-Type, [Accept-Encoding: gzip], [Authorization], [Proxy-Authorization],
/// [Connection: close], the extra fields, then the framing: Content-Length, [Content-Encoding:
/// gzip] and the blank line, to `out`. It is append_request_head_fixed followed by
/// append_request_framing. Errors: Errc::InvalidArgument with a message naming the culprit, and
/// nothing appended, for a path that is not origin-form visible ASCII, an empty or malformed host,
/// a value with a control character (CR, LF, NUL, ...), an extra name that is not a token or that
/// names an owned field. Throws std::bad_alloc when `out` cannot grow.
Status append_request_head(Buffer& out, const RequestHead& head);

/// The part of the head that does not change from call to call (everything but the framing;
/// `content_length` and `gzip` are ignored), checked as append_request_head checks it: a client
/// builds it once and copies it before each request's framing. Errors: as append_request_head.
Status append_request_head_fixed(Buffer& out, const RequestHead& head);
/// "Content-Length: N\r\n", ["Content-Encoding: gzip\r\n"], and the blank line that ends the
/// head. Throws std::bad_alloc when `out` cannot grow.
void append_request_framing(Buffer& out, uint64_t content_length, bool gzip);

/// Appends a whole CONNECT request for an HTTP proxy (RFC 9110 §9.3.6): "CONNECT host:port
/// HTTP/1.1", Host (the same authority), [User-Agent], [Proxy-Authorization] and the blank
/// line. `host` as in RequestHead (an IPv6 address gets its brackets).
/// Errors: Errc::InvalidArgument (nothing appended) for a malformed host or a control
/// character in a value. Throws std::bad_alloc when `out` cannot grow.
Status append_connect_request(Buffer& out, std::string_view host, uint16_t port,
                              std::string_view user_agent, std::string_view proxy_authorization);

}  // namespace callwire::http
