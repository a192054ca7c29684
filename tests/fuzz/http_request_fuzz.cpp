// libFuzzer driver: the HTTP/1.1 request parser and the SCGI one.
//
// Input: one byte of flags (bit 0: tiny limits, to reach 413 and 431; bit 1: the SCGI parser,
// whose header names live in the parser and whose method may be missing), two bytes
// choosing a split offset, then the request bytes. For any input: parse never crashes or reads
// outside the input (every copy is exactly sized); an error carries 400, 413, 431, 501 or 505;
// a Complete request has consumed <= size and every view inside the input (the chunked body
// inside the caller's Buffer); the same input fed in two parts (split at the chosen offset),
// and fed one byte at a time, gives the same outcome; byte-at-a-time feeding examines each
// byte a bounded number of times; the first `consumed` bytes alone parse to the same request.
// A Complete HTTP request then goes through the server's HttpSession (the rules a connection
// applies, with credentials required): a refusal is 401, 404, 405 or 415 with the field its
// status needs, asking twice gives the same answer, and the call's setup keeps every field.
// Any violation prints what differs and traps.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "callwire/buffer.hpp"
#include "http/request_parser.hpp"
#include "http/scgi.hpp"
#include "server/http_session.hpp"

namespace {

using callwire::Buffer;
using callwire::http::Header;
using callwire::http::ParseResult;
using callwire::http::ParseStatus;
using callwire::http::Request;
using callwire::http::RequestLimits;
using callwire::http::RequestParser;
using callwire::http::ScgiRequestParser;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "\n*** http_request_fuzz: %s\n", what);
  std::fflush(stderr);
  __builtin_trap();
}

// Everything observable about one parse, copied out of the views.
struct Outcome {
  ParseStatus status = ParseStatus::Incomplete;
  size_t consumed = 0;
  int http_status = 0;
  std::string flat;  // method, target, headers, facts and body, length-prefixed

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

template <class Parser>
Outcome capture(const Parser& parser, ParseResult r, std::string_view input, const Buffer& body,
                const RequestLimits& limits) {
  constexpr bool kScgi = std::is_same_v<Parser, ScgiRequestParser>;
  Outcome o{r.status, r.consumed, r.http_status, {}};
  if (r.status == ParseStatus::Error) {
    int s = r.http_status;
    if (s != 400 && s != 413 && s != 431 && s != 501 && s != 505) fail("unexpected HTTP status");
    if (r.consumed != 0) fail("an error that consumed bytes");
    return o;
  }
  if (r.status != ParseStatus::Complete) return o;
  if (r.consumed > input.size() || r.consumed == 0) fail("consumed out of range");
  std::string_view request_bytes = input.substr(0, r.consumed);
  const Request& q = parser.request();
  for (std::string_view v : {q.method, q.target, q.host, q.authorization, q.content_encoding})
    if (!inside(v, request_bytes)) fail("a view outside the request");
  if (!kScgi && (q.method.empty() || q.target.empty())) fail("empty method or target");
  if (kScgi && q.keep_alive) fail("SCGI kept alive");
  for (const Header& h : q.headers) {
    if (h.name.empty()) fail("empty header name");
    if ((!kScgi && !inside(h.name, request_bytes)) || !inside(h.value, request_bytes))
      fail("a header outside the request");
  }
  if (q.chunked) {
    if (q.content_length) fail("chunked with a Content-Length");
    if (!inside(q.body, body.view())) fail("chunked body outside the Buffer");
  } else {
    if (!inside(q.body, request_bytes)) fail("body outside the request");
    if (q.body.size() != q.content_length.value_or(0)) fail("body size != Content-Length");
  }
  if (q.body.size() > limits.max_body) fail("body over max_body");
  if (q.headers.size() > limits.max_headers) fail("too many headers");
  put(o.flat, q.method);
  put(o.flat, q.target);
  for (const Header& h : q.headers) {
    put(o.flat, h.name);
    put(o.flat, h.value);
  }
  put(o.flat, q.host);
  put(o.flat, q.authorization);
  put(o.flat, q.content_encoding);
  put(o.flat, q.body);
  o.flat += std::to_string(q.content_length.value_or(~0ull));
  o.flat += char('0' + int(q.version));
  for (bool b :
       {q.chunked, q.keep_alive, q.expect_continue, q.content_encoding_gzip, q.accept_gzip})
    o.flat += b ? '1' : '0';
  return o;
}

// An exactly-sized heap copy: ASan reports any read past its end.
std::unique_ptr<char[]> copy(std::string_view s) {
  auto p = std::make_unique<char[]>(s.size() ? s.size() : 1);
  if (!s.empty()) std::memcpy(p.get(), s.data(), s.size());
  return p;
}

template <class Parser>
Outcome parse_once(std::string_view input, const RequestLimits& limits) {
  Parser parser(limits);
  Buffer body;
  auto c = copy(input);
  std::string_view view(c.get(), input.size());
  return capture(parser, parser.parse(view, body), view, body, limits);
}

template <class Parser>
void check(std::string_view input, const RequestLimits& limits, size_t split) {
  Outcome whole = parse_once<Parser>(input, limits);

  // Two parts; the storage moves between the calls.
  {
    Parser parser(limits);
    Buffer body;
    auto first = copy(input.substr(0, split));
    ParseResult r1 = parser.parse({first.get(), split}, body);
    if (r1.status == ParseStatus::Complete && r1.consumed > split) fail("consumed > size");
    first.reset();
    auto second = copy(input);
    std::string_view view(second.get(), input.size());
    Outcome o = capture(parser, parser.parse(view, body), view, body, limits);
    if (!(o == whole)) fail("split at an offset changed the outcome");
  }

  // One byte at a time, bounded work.
  if (input.size() <= 2048) {
    Parser parser(limits);
    Buffer body;
    std::string grown;
    ParseResult r;
    for (size_t i = 0; i < input.size(); ++i) {
      grown.push_back(input[i]);
      r = parser.parse(grown, body);
      if (r.status != ParseStatus::Incomplete) break;
    }
    if constexpr (std::is_same_v<Parser, RequestParser>) {
      if (parser.bytes_scanned() > 2 * grown.size() + 4) fail("bytes_scanned not linear");
    }
    Outcome o = capture(parser, r, grown, body, limits);
    if (!(o == whole)) fail("byte-at-a-time changed the outcome");
  }

  // The consumed prefix is a request on its own.
  if (whole.status == ParseStatus::Complete) {
    Outcome alone = parse_once<Parser>(input.substr(0, whole.consumed), limits);
    if (!(alone == whole)) fail("the consumed prefix parses differently");
  }
}

// The server's rules on a request the parser accepted.
void check_session(std::string_view input, const RequestLimits& limits) {
  RequestParser parser(limits);
  Buffer body;
  if (parser.parse(input, body).status != ParseStatus::Complete) return;
  const Request& q = parser.request();
  callwire::ServerOptions options;
  options.authenticate = [](std::string_view user, std::string_view password) {
    return user == "ann" && password == "secret";
  };
  options.call_timeout = std::chrono::milliseconds(1000);
  options.gzip_min_size = 16;
  const std::string challenge = "Basic realm=\"callwire\"";
  callwire::detail::HttpSession session(options, challenge);
  callwire::detail::HttpSession::Refusal first = session.check_head(q);
  callwire::detail::HttpSession::Refusal again = session.check_head(q);
  if (first.status != again.status) fail("the session changed its mind");
  switch (first.status) {
    case 0:
    case 404:
    case 415:
      if (first.fields.size() != 0) fail("a field for a status that needs none");
      break;
    case 405:
      if (first.fields.size() != 1 || first.fields[0].name != "Allow") fail("405 without Allow");
      break;
    case 401:
      if (first.fields.size() != 1 || first.fields[0].name != "WWW-Authenticate" ||
          first.fields[0].value != challenge)
        fail("401 without the challenge");
      break;
    default:
      fail("an unexpected refusal");
  }
  if (first.status == 0 && session.user() != "ann") fail("accepted without the user");
  auto before = std::chrono::steady_clock::now();
  auto setup = session.setup_call(q, std::nullopt, false);
  if (setup.deadline > before + std::chrono::milliseconds(1000) + std::chrono::seconds(5))
    fail("a deadline beyond call_timeout");
  if (setup.keep_alive != q.keep_alive) fail("keep-alive changed");
  Buffer z;
  if (session.gzip_answer(q.accept_gzip, q.body, z) && z.size() >= q.body.size())
    fail("a gzipped answer no smaller");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  RequestLimits limits;
  if (data[0] & 1) {
    limits.max_header_bytes = 96;
    limits.max_headers = 4;
    limits.max_body = 32;
  }
  size_t split = (size_t(data[1]) << 8) | data[2];
  std::string_view input(reinterpret_cast<const char*>(data) + 3, size - 3);
  split %= input.size() + 1;
  if (data[0] & 2)
    check<ScgiRequestParser>(input, limits, split);
  else {
    check<RequestParser>(input, limits, split);
    check_session(input, limits);
  }
  return 0;
}
