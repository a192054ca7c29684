#include "http/response_writer.hpp"

#include <cstring>
#include <initializer_list>
#include <string>

#include "http/syntax.hpp"

namespace callwire::http {
namespace {

// Two sinks for one emitter: the first counts, the second writes; the size reported and the
// bytes written cannot disagree. A literal's copy has its size known when compiled, so it is
// a few moves, not a call to memcpy: a response head is mostly literals, written per answer.
struct CountSink {
  size_t n = 0;
  void put(std::string_view s) noexcept { n += s.size(); }
};
struct WriteSink {
  char* p;
  void put(std::string_view s) noexcept {
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  template <size_t N>
  void put(const char (&literal)[N]) noexcept {
    std::memcpy(p, literal, N - 1);
    p += N - 1;
  }
};
// Writes what fits before `end`, counts everything.
struct BoundedSink {
  char* p;
  char* end;
  size_t n = 0;
  void put(std::string_view s) noexcept {
    n += s.size();
    if (s.size() > size_t(end - p)) {
      p = end;
      return;
    }
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  template <size_t N>
  void put(const char (&literal)[N]) noexcept {
    n += N - 1;
    if (N - 1 > size_t(end - p)) {
      p = end;
      return;
    }
    std::memcpy(p, literal, N - 1);
    p += N - 1;
  }
};

// Decimal digits of v, in a caller's array (no allocation).
std::string_view decimal(uint64_t v, char (&buf)[20]) noexcept {
  char* end = buf + sizeof buf;
  char* p = end;
  do {
    *--p = char('0' + v % 10);
    v /= 10;
  } while (v);
  return {p, size_t(end - p)};
}

constexpr std::string_view kResponseOwned[] = {"content-length", "transfer-encoding",
                                               "content-type", "content-encoding", "connection"};
constexpr std::string_view kRequestOwned[] = {"host",
                                              "content-length",
                                              "transfer-encoding",
                                              "content-type",
                                              "content-encoding",
                                              "accept-encoding",
                                              "authorization",
                                              "user-agent",
                                              "connection",
                                              "te"};

template <size_t N>
bool is_owned(std::string_view name, const std::string_view (&owned)[N]) noexcept {
  for (std::string_view o : owned)
    if (iequals(name, o)) return true;
  return false;
}

// Empty when the fields are fine, else what is wrong with the first bad one.
template <size_t N>
const char* check_extra(std::span<const Header> extra,
                        const std::string_view (&owned)[N]) noexcept {
  for (const Header& h : extra) {
    if (!syntax::is_token(h.name)) return "a field name that is not a token";
    if (!syntax::is_field_value(h.value)) return "a control character in a field value";
    if (is_owned(h.name, owned)) return "a field the writer sets itself";
  }
  return nullptr;
}

bool valid_status(int status) noexcept { return status >= 100 && status <= 999; }

}  // namespace

bool response_has_length(int status) noexcept { return status >= 200 && status != 204; }

namespace {

bool valid_response_head(const ResponseHead& head) noexcept {
  return valid_status(head.status) && syntax::is_field_value(head.content_type) &&
         syntax::is_field_value(head.date) && check_extra(head.extra, kResponseOwned) == nullptr;
}

template <typename Sink>
void emit_response_head(Sink& out, const ResponseHead& head) noexcept {
  char digits[20];
  if (head.status == 200) {
    out.put("HTTP/1.1 200 OK\r\n");  // nearly every answer
  } else {
    out.put("HTTP/1.1 ");
    out.put(decimal(uint64_t(head.status), digits));
    out.put(" ");
    out.put(reason_phrase(head.status));
    out.put("\r\n");
  }
  if (!head.content_type.empty()) {
    out.put("Content-Type: ");
    out.put(head.content_type);
    out.put("\r\n");
  }
  if (head.chunked) {
    out.put("Transfer-Encoding: chunked\r\n");
  } else if (response_has_length(head.status)) {
    out.put("Content-Length: ");
    out.put(decimal(head.content_length, digits));
    out.put("\r\n");
  }
  if (head.gzip) out.put("Content-Encoding: gzip\r\n");
  if (head.close)
    out.put("Connection: close\r\n");
  else if (head.request_version == HttpVersion::Http10)
    out.put("Connection: keep-alive\r\n");  // HTTP/1.0 closes unless the answer says
  if (!head.date.empty()) {
    out.put("Date: ");
    out.put(head.date);
    out.put("\r\n");
  }
  for (const Header& h : head.extra) {
    out.put(h.name);
    out.put(": ");
    out.put(h.value);
    out.put("\r\n");
  }
  out.put("\r\n");
}

// RFC 3986 unreserved / sub-delims / '%' (pct-encoded): a reg-name or an IPv4 address.
bool is_reg_name_char(char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::strchr("-._~!$&'()*+,;=%", c) != nullptr && c != '\0';
}

bool is_ipv6_char(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
         c == '.';
}

// The host as the Host field shows it (IPv6 in brackets, without a zone), or empty if the
// host is malformed. `bracketed` tells whether the brackets must be added.
std::string_view host_for_field(std::string_view host, bool& bracketed) noexcept {
  bracketed = false;
  if (host.empty()) return {};
  std::string_view inner = host;
  const bool had_brackets = host.front() == '[';
  if (had_brackets) {
    if (host.size() < 3 || host.back() != ']') return {};
    inner = host.substr(1, host.size() - 2);
  }
  if (had_brackets || inner.find(':') != std::string_view::npos) {
    inner = inner.substr(0, inner.find('%'));  // the zone stays on this machine
    if (inner.find(':') == std::string_view::npos) return {};
    for (char c : inner)
      if (!is_ipv6_char(c)) return {};
    bracketed = true;
    return inner;
  }
  for (char c : inner)
    if (!is_reg_name_char(c)) return {};
  return inner;
}

bool valid_path(std::string_view path) noexcept {
  if (path.empty() || path[0] != '/') return false;
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u > 0x7e) return false;
  }
  return true;
}

// The fields that stay the same from call to call: everything but the framing.
template <typename Sink>
void emit_request_fixed(Sink& out, const RequestHead& head, std::string_view host,
                        bool bracketed) noexcept {
  char digits[20];
  const uint16_t default_port = head.tls ? 443 : 80;
  auto authority = [&] {
    if (bracketed) out.put("[");
    out.put(host);
    if (bracketed) out.put("]");
    if (head.port != 0 && head.port != default_port) {
      out.put(":");
      out.put(decimal(head.port, digits));
    }
  };
  out.put(head.method);
  out.put(" ");
  if (head.absolute_form) {
    out.put(head.tls ? "https://" : "http://");
    authority();
  }
  out.put(head.path);
  out.put(" HTTP/1.1\r\nHost: ");
  authority();
  out.put("\r\n");
  if (!head.user_agent.empty()) {
    out.put("User-Agent: ");
    out.put(head.user_agent);
    out.put("\r\n");
  }
  if (!head.content_type.empty()) {
    out.put("Content-Type: ");
    out.put(head.content_type);
    out.put("\r\n");
  }
  if (head.accept_gzip) out.put("Accept-Encoding: gzip\r\n");
  if (!head.authorization.empty()) {
    out.put("Authorization: ");
    out.put(head.authorization);
    out.put("\r\n");
  }
  if (head.absolute_form && !head.proxy_authorization.empty()) {
    out.put("Proxy-Authorization: ");
    out.put(head.proxy_authorization);
    out.put("\r\n");
  }
  if (!head.upgrade.empty()) {
    out.put("Connection: Upgrade\r\nUpgrade: ");
    out.put(head.upgrade);
    out.put("\r\n");
  } else if (head.close) {
    out.put("Connection: close\r\n");
  } else if (head.accept_trailers) {
    out.put("TE: trailers\r\nConnection: TE\r\n");
  }
  for (const Header& h : head.extra) {
    out.put(h.name);
    out.put(": ");
    out.put(h.value);
    out.put("\r\n");
  }
}

// The framing, last: Content-Length, Content-Encoding and the blank line.
template <typename Sink>
void emit_request_framing(Sink& out, uint64_t content_length, bool gzip) noexcept {
  char digits[20];
  out.put("Content-Length: ");
  out.put(decimal(content_length, digits));
  out.put("\r\n");
  if (gzip) out.put("Content-Encoding: gzip\r\n");
  out.put("\r\n");
}

Error invalid(std::string what) { return Error(Errc::InvalidArgument, std::move(what)); }

}  // namespace

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 100:
      return "Continue";
    case 101:
      return "Switching Protocols";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 304:
      return "Not Modified";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 417:
      return "Expectation Failed";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return {};
  }
}

size_t response_head_size(const ResponseHead& head) noexcept {
  if (!valid_response_head(head)) return 0;
  CountSink count;
  emit_response_head(count, head);
  return count.n;
}

size_t format_response_head(char* dst, size_t cap, const ResponseHead& head) noexcept {
  size_t n = response_head_size(head);
  if (n == 0 || n > cap) return 0;
  WriteSink w{dst};
  emit_response_head(w, head);
  return n;
}

size_t place_response_head(Buffer& buf, size_t body_offset, ResponseHead head) noexcept {
  if (body_offset > buf.size()) return kNoRoom;
  if (!head.length_ahead) head.content_length = buf.size() - body_offset;
  // Validated once and written once, then copied before the body: this runs for every answer,
  // and counting the head first cost as much as writing it. A head too long for the stack
  // (many extra fields) is written where it goes, once its length is known.
  if (!valid_response_head(head)) return kNoRoom;
  char local[512];
  BoundedSink w{local, local + sizeof local};
  emit_response_head(w, head);
  if (w.n > body_offset) return kNoRoom;
  const size_t start = body_offset - w.n;
  if (w.n <= sizeof local) {
    std::memcpy(buf.data() + start, local, w.n);
  } else {
    WriteSink at{buf.data() + start};
    emit_response_head(at, head);
  }
  return start;
}

Status append_error_response(Buffer& out, int status, std::span<const Header> extra,
                             std::string_view date) {
  if (!valid_status(status)) return invalid("HTTP status " + std::to_string(status));
  if (const char* bad = check_extra(extra, kResponseOwned)) return invalid(bad);
  if (!syntax::is_field_value(date)) return invalid("a control character in the Date value");
  // The body: "405 Method Not Allowed\n".
  char digits[20];
  std::string_view code = decimal(uint64_t(status), digits);
  std::string_view reason = reason_phrase(status);
  const size_t body_size = code.size() + (reason.empty() ? 0 : 1 + reason.size()) + 1;
  ResponseHead head;
  head.status = status;
  head.content_type = "text/plain";
  head.content_length = body_size;
  head.close = true;
  head.date = date;
  head.extra = extra;
  const size_t n = response_head_size(head);  // valid: checked above
  char* dst = out.prepare(n + body_size);
  WriteSink w{dst};
  emit_response_head(w, head);
  WriteSink body{dst + n};
  body.put(code);
  if (!reason.empty()) {
    body.put(" ");
    body.put(reason);
  }
  body.put("\n");
  out.commit(n + body_size);
  return {};
}

Status append_text_response(Buffer& out, int status, std::string_view body,
                            std::span<const Header> extra, std::string_view date) {
  if (!valid_status(status)) return invalid("HTTP status " + std::to_string(status));
  if (const char* bad = check_extra(extra, kResponseOwned)) return invalid(bad);
  if (!syntax::is_field_value(date)) return invalid("a control character in the Date value");
  ResponseHead head;
  head.status = status;
  head.content_type = "text/plain";
  head.content_length = body.size();
  head.close = true;
  head.date = date;
  head.extra = extra;
  const size_t n = response_head_size(head);  // valid: checked above
  char* dst = out.prepare(n + body.size());
  WriteSink w{dst};
  emit_response_head(w, head);
  WriteSink b{dst + n};
  b.put(body);
  out.commit(n + body.size());
  return {};
}

Status append_switching_protocols(Buffer& out, std::span<const Header> fields) {
  static constexpr std::string_view kNoneOwned[] = {""};  // Connection and Upgrade are its own
  if (const char* bad = check_extra(fields, kNoneOwned)) return invalid(bad);
  out.append("HTTP/1.1 101 Switching Protocols\r\n");
  for (const Header& h : fields) {
    out.append(h.name);
    out.append(": ");
    out.append(h.value);
    out.append("\r\n");
  }
  out.append("\r\n");
  return {};
}

Status append_request_head(Buffer& out, const RequestHead& head) {
  if (Status s = append_request_head_fixed(out, head); !s) return s;
  append_request_framing(out, head.content_length, head.gzip);
  return {};
}

Status append_request_head_fixed(Buffer& out, const RequestHead& head) {
  if (!valid_path(head.path))
    return invalid("request path must start with '/' and hold only visible ASCII");
  bool bracketed = false;
  std::string_view host = host_for_field(head.host, bracketed);
  if (host.empty()) return invalid("malformed host for the Host field");
  if (!syntax::is_field_value(head.content_type))
    return invalid("a control character in the content type");
  if (!syntax::is_field_value(head.authorization))
    return invalid("a control character in the Authorization value");
  if (!syntax::is_field_value(head.user_agent))
    return invalid("a control character in the User-Agent value");
  if (!syntax::is_field_value(head.proxy_authorization))
    return invalid("a control character in the Proxy-Authorization value");
  if (const char* bad = check_extra(head.extra, kRequestOwned)) return invalid(bad);
  CountSink count;
  emit_request_fixed(count, head, host, bracketed);
  WriteSink w{out.prepare(count.n)};
  emit_request_fixed(w, head, host, bracketed);
  out.commit(count.n);
  return {};
}

void append_request_framing(Buffer& out, uint64_t content_length, bool gzip) {
  CountSink count;
  emit_request_framing(count, content_length, gzip);
  WriteSink w{out.prepare(count.n)};
  emit_request_framing(w, content_length, gzip);
  out.commit(count.n);
}

Status append_connect_request(Buffer& out, std::string_view host, uint16_t port,
                              std::string_view user_agent, std::string_view proxy_authorization) {
  bool bracketed = false;
  std::string_view h = host_for_field(host, bracketed);
  if (h.empty()) return invalid("malformed host for CONNECT");
  if (!syntax::is_field_value(user_agent))
    return invalid("a control character in the User-Agent value");
  if (!syntax::is_field_value(proxy_authorization))
    return invalid("a control character in the Proxy-Authorization value");
  char digits[20];
  std::string authority;
  if (bracketed) authority += '[';
  authority += h;
  if (bracketed) authority += ']';
  authority += ':';
  authority += decimal(port, digits);
  std::string head = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n";
  if (!user_agent.empty()) head += "User-Agent: " + std::string(user_agent) + "\r\n";
  if (!proxy_authorization.empty())
    head += "Proxy-Authorization: " + std::string(proxy_authorization) + "\r\n";
  head += "\r\n";
  out.append(head);
  return {};
}

}  // namespace callwire::http
