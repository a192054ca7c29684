// libFuzzer driver: the HTTP/1.1 response parser and the SCGI one (and gzip_inflate on gzip
// bodies).
//
// Input: one byte of flags (bit 0: tiny limits, to reach every TooLarge; bit 1: the
// connection ends after the input, so parse_eof ends the parse; bit 2: the SCGI parser, whose
// answers never keep the connection), two bytes choosing a split
// offset, then the response bytes. For any input: the parser never crashes or reads outside
// the input (every copy is exactly sized); an error has a kind and a message and consumed
// nothing; NoResponse only for no bytes at all; a Complete response has 0 < consumed <= size
// and every view inside the input (a chunked body inside the caller's Buffer), a body within
// max_body and matching Content-Length; the same input fed in two parts (split at the chosen
// offset), one byte at a time, and with chunk data read straight past the input, gives the
// same outcome with bounded work; the first `consumed` bytes alone parse to the same response.
// A gzip body inflates to at most the cap, and to nothing unless Ok. Any violation prints what
// differs and traps.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "callwire/buffer.hpp"
#include "http/gzip.hpp"
#include "http/response_parser.hpp"
#include "http/scgi.hpp"

namespace {

using callwire::Buffer;
using callwire::http::Header;
using callwire::http::ParseStatus;
using callwire::http::Response;
using callwire::http::ResponseError;
using callwire::http::ResponseLimits;
using callwire::http::ResponseParser;
using callwire::http::ResponseParseResult;
using callwire::http::ScgiResponseParser;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "\n*** http_response_fuzz: %s\n", what);
  std::fflush(stderr);
  __builtin_trap();
}

struct Outcome {
  ParseStatus status = ParseStatus::Incomplete;
  size_t consumed = 0;
  ResponseError error = ResponseError::None;
  std::string flat;  // message, or the response's fields and facts, length-prefixed

  bool operator==(const Outcome&) const = default;
};

void put(std::string& out, std::string_view s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}

bool inside(std::string_view v, std::string_view whole) {
  if (v.empty()) return true;
  auto b = reinterpret_cast<uintptr_t>(whole.data());
  auto p = reinterpret_cast<uintptr_t>(v.data());
  return p >= b && p + v.size() <= b + whole.size();
}

void check_gzip(std::string_view body) {
  constexpr size_t kCap = 1 << 16;
  Buffer out;
  out.append("pre");
  auto s = callwire::http::gzip_inflate(body, out, kCap);
  if (s == callwire::http::InflateStatus::Ok) {
    if (out.size() > 3 + kCap) fail("gzip output over the cap");
  } else if (out.view() != "pre") {
    fail("gzip failure left bytes in the output");
  }
  if (out.capacity() > 3 + kCap + 1 + 256) fail("gzip storage over the cap");
}

template <class Parser>
Outcome capture(const Parser& parser, ResponseParseResult r, std::string_view input,
                const Buffer& body, const ResponseLimits& limits) {
  Outcome o{r.status, r.consumed, r.error, {}};
  if (r.status == ParseStatus::Error) {
    if (r.error == ResponseError::None) fail("an error without a kind");
    if (parser.error().empty()) fail("an error without a message");
    if (r.consumed != 0) fail("an error that consumed bytes");
    if (r.error == ResponseError::NoResponse && !input.empty()) fail("NoResponse after bytes");
    put(o.flat, parser.error());
    return o;
  }
  if (r.error != ResponseError::None) fail("a kind without an error");
  if (r.status != ParseStatus::Complete) return o;
  if (r.consumed > input.size() || r.consumed == 0) fail("consumed out of range");
  std::string_view bytes = input.substr(0, r.consumed);
  const Response& q = parser.response();
  if (q.status < 200 || q.status > 599) fail("a final status outside 200..599");
  for (std::string_view v : {q.reason, q.content_encoding, q.content_type, q.www_authenticate})
    if (!inside(v, bytes)) fail("a view outside the response");
  for (const Header& h : q.headers) {
    if (h.name.empty()) fail("empty header name");
    if (!inside(h.name, bytes) || !inside(h.value, bytes)) fail("a header outside the response");
  }
  if (q.chunked) {
    if (q.content_length) fail("chunked with a Content-Length");
    if (!inside(q.body, body.view())) fail("chunked body outside the Buffer");
  } else {
    if (!inside(q.body, bytes)) fail("body outside the response");
    if (q.status != 204 && q.status != 304 && q.content_length &&
        q.body.size() != *q.content_length)
      fail("body size != Content-Length");
    if (!q.content_length && q.status != 204 && q.status != 304 && q.keep_alive)
      fail("an end-delimited body on a kept-alive connection");
  }
  if (q.body.size() > limits.max_body) fail("body over max_body");
  if (q.headers.size() > limits.max_headers) fail("too many headers");
  if (std::is_same_v<Parser, ScgiResponseParser> && q.keep_alive) fail("SCGI kept alive");
  if (q.content_encoding_gzip) check_gzip(q.body);
  put(o.flat, q.reason);
  for (const Header& h : q.headers) {
    put(o.flat, h.name);
    put(o.flat, h.value);
  }
  put(o.flat, q.content_encoding);
  put(o.flat, q.content_type);
  put(o.flat, q.www_authenticate);
  put(o.flat, q.body);
  o.flat += std::to_string(q.status);
  o.flat += std::to_string(q.content_length.value_or(~0ull));
  o.flat += char('0' + int(q.version));
  for (bool b : {q.chunked, q.keep_alive, q.content_encoding_gzip}) o.flat += b ? '1' : '0';
  return o;
}

// An exactly-sized heap copy: ASan reports any read past its end.
std::unique_ptr<char[]> copy(std::string_view s) {
  auto p = std::make_unique<char[]>(s.size() ? s.size() : 1);
  if (!s.empty()) std::memcpy(p.get(), s.data(), s.size());
  return p;
}

template <class Parser>
ResponseParseResult finish(Parser& p, std::string_view in, Buffer& body, bool eof) {
  return eof ? p.parse_eof(in, body) : p.parse(in, body);
}

template <class Parser>
Outcome parse_once(std::string_view input, const ResponseLimits& limits, bool eof) {
  Parser parser(limits);
  Buffer body;
  auto c = copy(input);
  std::string_view view(c.get(), input.size());
  return capture(parser, finish(parser, view, body, eof), view, body, limits);
}

template <class Parser>
void check(std::string_view input, const ResponseLimits& limits, bool eof, size_t split) {
  Outcome whole = parse_once<Parser>(input, limits, eof);

  // Two parts; the storage moves between the calls.
  {
    Parser parser(limits);
    Buffer body;
    auto first = copy(input.substr(0, split));
    ResponseParseResult r1 = parser.parse({first.get(), split}, body);
    if (r1.status == ParseStatus::Complete && r1.consumed > split) fail("consumed > size");
    first.reset();
    auto second = copy(input);
    std::string_view view(second.get(), input.size());
    Outcome o = capture(parser, finish(parser, view, body, eof), view, body, limits);
    if (!(o == whole)) fail("split at an offset changed the outcome");
  }

  // One byte at a time, bounded work.
  if (input.size() <= 2048) {
    Parser parser(limits);
    Buffer body;
    std::string grown;
    ResponseParseResult r;
    for (size_t i = 0; i < input.size(); ++i) {
      grown.push_back(input[i]);
      r = parser.parse(grown, body);
      if (r.status != ParseStatus::Incomplete) break;
    }
    if (eof && r.status == ParseStatus::Incomplete) r = parser.parse_eof(grown, body);
    if constexpr (std::is_same_v<Parser, ResponseParser>) {
      if (parser.bytes_scanned() > 2 * grown.size() + 4) fail("bytes_scanned not linear");
    }
    Outcome o = capture(parser, r, grown, body, limits);
    if (!(o == whole)) fail("byte-at-a-time changed the outcome");
  }

  // A chunk's data read straight into the body whenever the parser says some is due (as the
  // client reads a long chunked answer), the rest in steps: the same outcome, with the bytes
  // read straight missing from the input and from `consumed`.
  if constexpr (std::is_same_v<Parser, ResponseParser>) {
    const size_t step = split % 61 + 1;
    Parser parser(limits);
    Buffer body;
    std::string in;
    size_t at = 0, straight = 0;
    ResponseParseResult r;
    while (r.status == ParseStatus::Incomplete && at < input.size()) {
      const uint64_t due = parser.chunk_data_due(in);
      const size_t n =
          std::min(due != 0 ? size_t(std::min<uint64_t>(due, step)) : step, input.size() - at);
      if (due != 0) {
        body.append(input.data() + at, n);
        parser.chunk_data_read(n);
        straight += n;
      } else {
        in.append(input.substr(at, n));
      }
      at += n;
      r = parser.parse(in, body);
    }
    if (eof && r.status == ParseStatus::Incomplete) r = parser.parse_eof(in, body);
    if (parser.bytes_scanned() > 2 * input.size() + 4) fail("straight reads: scanning not linear");
    Outcome o = capture(parser, r, in, body, limits);
    if (o.status != whole.status || o.error != whole.error || o.flat != whole.flat)
      fail("reading chunk data straight changed the outcome");
    if (o.status == ParseStatus::Complete && o.consumed + straight != whole.consumed)
      fail("reading chunk data straight changed what was consumed");
  }

  // The consumed prefix is a response on its own.
  if (whole.status == ParseStatus::Complete) {
    Outcome alone = parse_once<Parser>(input.substr(0, whole.consumed), limits, eof);
    if (!(alone == whole)) fail("the consumed prefix parses differently");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  ResponseLimits limits;
  if (data[0] & 1) {
    limits.max_header_bytes = 96;
    limits.max_headers = 4;
    limits.max_body = 32;
  }
  const bool eof = data[0] & 2;
  size_t split = (size_t(data[1]) << 8) | data[2];
  std::string_view input(reinterpret_cast<const char*>(data) + 3, size - 3);
  split %= input.size() + 1;
  if (data[0] & 4)
    check<ScgiResponseParser>(input, limits, eof, split);
  else
    check<ResponseParser>(input, limits, eof, split);
  return 0;
}
