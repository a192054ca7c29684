#include "trace/wire_trace.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "base/ascii.hpp"
#include "base/utf8.hpp"
#include "http/gzip.hpp"
#include "pstream/pstream.hpp"

namespace callwire::trace {

namespace {

// Appends one head field, a credential's value hidden past its scheme ("Basic [hidden]").
void append_field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append(": ");
  if (base::iequals(name, "Authorization") || base::iequals(name, "Proxy-Authorization")) {
    size_t space = value.find(' ');
    out.append(value.substr(0, space == std::string_view::npos ? 0 : space + 1));
    out.append("[hidden]");
  } else {
    out.append(value);
  }
  out.append("\r\n");
}

void append_fields(std::string& out, std::span<const http::Header> headers) {
  for (const http::Header& h : headers) append_field(out, h.name, h.value);
}

// An HTTP or SCGI head as sent ("line\r\nName: value\r\n"): each field through append_field.
std::string shown_head(std::string_view head) {
  std::string out;
  bool first = true;
  while (!head.empty()) {
    size_t end = head.find("\r\n");
    std::string_view line = head.substr(0, end);
    head.remove_prefix(end == std::string_view::npos ? head.size() : end + 2);
    size_t colon = line.find(':');
    if (first || colon == std::string_view::npos) {
      out.append(line).append("\r\n");
    } else {
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      append_field(out, line.substr(0, colon), value);
    }
    first = false;
  }
  return out;
}

// Whether a head (as sent) says its body is gzip.
// Whether the head has field `name` (lower case, with its colon) and its value holds `word`.
bool field_says(std::string_view head, std::string_view name, std::string_view word) {
  for (size_t at = 0; (at = head.find('\n', at)) != std::string_view::npos;) {
    std::string_view line = head.substr(++at);
    if (line.size() >= name.size() && base::iequals(line.substr(0, name.size()), name)) {
      std::string value(line.substr(name.size(), line.find('\r') - name.size()));
      for (char& c : value) c = (c >= 'A' && c <= 'Z') ? char(c + 32) : c;
      return value.find(word) != std::string::npos;
    }
  }
  return false;
}

bool says_gzip(std::string_view head) { return field_says(head, "content-encoding:", "gzip"); }

// A server's chunked answer (one sent while it was written) as its data alone; what does not
// parse as chunks ends it.
std::string_view dechunked(std::string_view bytes, Buffer& storage) {
  storage.clear();
  for (;;) {
    size_t eol = bytes.find("\r\n");
    if (eol == std::string_view::npos || eol == 0 || eol > 16) break;
    uint64_t size = 0;
    for (char c : bytes.substr(0, eol)) {
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
      if (digit < 0) return storage.view();
      size = size * 16 + uint64_t(digit);
    }
    if (size == 0 || bytes.size() - eol - 2 < size) break;
    storage.append(bytes.substr(eol + 2, size_t(size)));
    bytes.remove_prefix(std::min(bytes.size(), eol + 2 + size_t(size) + 2));
  }
  return storage.view();
}

// An SCGI request's netstring head ("70:CONTENT_LENGTH\0" "27\0...,") as "NAME: value" lines;
// false when the bytes are not one.
bool split_netstring(std::string_view bytes, Shown& out) {
  size_t colon = bytes.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon > 10) return false;
  size_t length = 0;
  for (char c : bytes.substr(0, colon)) {
    if (c < '0' || c > '9') return false;
    length = length * 10 + size_t(c - '0');
  }
  if (bytes.size() < colon + 1 + length + 1 || bytes[colon + 1 + length] != ',') return false;
  std::string_view fields = bytes.substr(colon + 1, length);
  while (!fields.empty()) {
    size_t name_end = fields.find('\0');
    if (name_end == std::string_view::npos) break;
    size_t value_end = fields.find('\0', name_end + 1);
    if (value_end == std::string_view::npos) value_end = fields.size();
    append_field(out.head, fields.substr(0, name_end),
                 fields.substr(name_end + 1, value_end - name_end - 1));
    fields.remove_prefix(std::min(value_end + 1, fields.size()));
  }
  out.body = bytes.substr(colon + 1 + length + 1);
  return true;
}

// The first packet's payload, unescaped, or the bytes themselves when they are not a packet.
std::string_view unescaped_packet(std::string_view bytes, Buffer& storage) {
  pstream::Decoder decoder(bytes.size());
  Result<pstream::Decoded> d = decoder.decode(bytes);
  if (!d || !d->packet) return bytes;
  storage.clear();
  storage.append(d->payload);  // the payload may point into the decoder, gone on return
  return storage.view();
}

// Appends `text` for a terminal: printable ASCII, tabs, line feeds and well-formed UTF-8
// (not its C1 controls) as they are, every other byte `\xHH`; CR LF becomes LF.
void append_printable(std::string& out, std::string_view text) {
  constexpr char kHex[] = "0123456789ABCDEF";
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    unsigned char c = *p;
    if (c == '\r' && p + 1 < end && p[1] == '\n') {
      ++p;
      continue;
    }
    if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') {
      out += char(c);
      ++p;
      continue;
    }
    uint32_t cp = 0;
    size_t n = c >= 0x80 ? base::decode_utf8(p, end, cp) : 0;
    if (n != 0 && cp >= 0xA0) {
      out.append(reinterpret_cast<const char*>(p), n);
      p += n;
      continue;
    }
    const char escape[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 0xF]};
    out.append(escape, sizeof escape);
    ++p;
  }
}

const char* title(TraceKind kind) {
  switch (kind) {
    case TraceKind::ClientRequest:
      return "client request to";
    case TraceKind::ClientAnswer:
      return "client answer from";
    case TraceKind::ServerRequest:
      return "server request from";
    case TraceKind::ServerAnswer:
      return "server answer to";
  }
  return "message";
}

}  // namespace

namespace {

// The payload of the frame that `bytes` begins with, after its 2-, 4- or 10-byte header: a
// server's as it is, a client's unmasked into `storage` (its 4-byte key follows the length).
// Whatever does not parse is shown as it is.
std::string_view websocket_payload(std::string_view bytes, Buffer& storage) {
  if (bytes.size() < 2) return bytes;
  const unsigned length = static_cast<unsigned char>(bytes[1]) & 0x7f;
  const bool masked = (static_cast<unsigned char>(bytes[1]) & 0x80) != 0;
  const size_t header = (length < 126 ? 2 : length == 126 ? 4 : 10) + (masked ? 4 : 0);
  if (bytes.size() < header) return bytes;
  std::string_view payload = bytes.substr(header);
  if (!masked) return payload;
  const std::string_view key = bytes.substr(header - 4, 4);
  storage.clear();
  char* out = storage.prepare(payload.size());
  for (size_t i = 0; i < payload.size(); ++i) out[i] = char(payload[i] ^ key[i & 3]);
  storage.commit(payload.size());
  return storage.view();
}

}  // namespace

void show_sent(ConnectionFraming framing, std::string_view bytes, size_t max_body, Shown& out) {
  out.head.clear();
  out.body = bytes;
  switch (framing) {
    case ConnectionFraming::Pstream:
      out.body = unescaped_packet(bytes, out.storage);
      return;
    case ConnectionFraming::JsonLines:
      if (!bytes.empty() && bytes.back() == '\n') out.body.remove_suffix(1);
      return;
    case ConnectionFraming::WebSocket:
      out.body = websocket_payload(bytes, out.storage);
      return;
    case ConnectionFraming::Scgi:
      if (split_netstring(bytes, out)) return;
      [[fallthrough]];  // an answer: a CGI head ("Status: 200 OK\r\n...\r\n\r\n")
    case ConnectionFraming::Http: {
      size_t end = bytes.find("\r\n\r\n");
      if (end == std::string_view::npos) return;
      std::string_view head = bytes.substr(0, end + 2);
      out.head = shown_head(head);
      out.body = bytes.substr(end + 4);
      if (field_says(head, "transfer-encoding:", "chunked")) {
        out.body = dechunked(out.body, out.chunks);
      }
      out.body = shown_body(out.body, says_gzip(head), max_body, out.storage);
      return;
    }
  }
}

std::string request_head(const http::Request& request) {
  std::string out;
  out.append(request.method).append(" ").append(request.target);
  out.append(request.version == http::HttpVersion::Http10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
  append_fields(out, request.headers);
  return out;
}

std::string response_head(const http::Response& response) {
  std::string out(response.version == http::HttpVersion::Http10 ? "HTTP/1.0 " : "HTTP/1.1 ");
  out.append(std::to_string(response.status)).append(" ").append(response.reason).append("\r\n");
  append_fields(out, response.headers);
  return out;
}

std::string_view shown_body(std::string_view body, bool gzipped, size_t max_body, Buffer& storage) {
  if (!gzipped) return body;
  storage.clear();
  if (http::gzip_inflate(body, storage, max_body) != http::InflateStatus::Ok) return body;
  return storage.view();
}

void emit(const TraceHook& hook, TraceKind kind, std::string_view peer, std::string_view head,
          std::string_view body) noexcept {
  try {
    hook(TraceEvent{kind, peer, head, body});
  } catch (...) {  // a trace never fails a call
  }
}

TraceHook chosen(const TraceHook& configured) {
  return configured ? configured : trace_from_environment();
}

}  // namespace callwire::trace

namespace callwire {

TraceHook trace_to_stderr(size_t max_body) {
  return [max_body](const TraceEvent& e) {
    std::string text = "callwire trace: ";
    text += trace::title(e.kind);
    text += ' ';
    trace::append_printable(text, e.peer);
    text += '\n';
    trace::append_printable(text, e.head);
    if (!e.head.empty()) text += '\n';
    std::string_view body = e.body;
    const bool cut = max_body != 0 && body.size() > max_body;
    if (cut) body = body.substr(0, max_body);
    trace::append_printable(text, body);
    if (text.back() != '\n') text += '\n';
    if (cut)
      text += "[... " + std::to_string(e.body.size() - max_body) + " more bytes of " +
              std::to_string(e.body.size()) + "]\n";
    text += '\n';
    // One write per message, under one lock: messages of several threads never interleave.
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  };
}

TraceHook trace_from_environment() {
  const char* value = std::getenv("CALLWIRE_TRACE");
  if (value == nullptr || *value == '\0' || std::strcmp(value, "0") == 0) return {};
  size_t max_body = 0;
  if (const char* colon = std::strchr(value, ':')) max_body = std::strtoull(colon + 1, nullptr, 10);
  return trace_to_stderr(max_body);
}

}  // namespace callwire
