// libFuzzer driver: the client's side of WebSocket (src/client/websocket_framing.cpp), the
// parser that reads a server's frames as answers, notifications, pings and Closes, driven as a
// client connection drives it.
//
// Input: one byte of flags (bit 0: JSON-RPC, else XML-RPC; bit 1: a 64-byte max_response_size,
// else 1 MiB; bit 2: a notification handler that throws), one byte choosing the chunk size
// (its value + 1), then the server's bytes after its 101. They arrive in chunks; while a call
// waits they go to parse() (and the bytes take_consumed() gives back are dropped, as the
// connection drops them), after an answer the next chunk comes while idle (read_idle), and the
// next call begins with reset(). For any input: nothing reads outside its buffer; a Complete
// answer consumed every byte given, and its body is readable; every byte the parser owes the
// server is a run of whole, masked, valid frames of a client (a Server-role FrameReader reads
// them without an error); each notification handed over has a method; once the parser errs or
// the connection cannot go on, the driver stops as the connection would. Violations trap.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include "callwire/client.hpp"
#include "client/framing.hpp"
#include "client/url.hpp"
#include "ws/frame_reader.hpp"

namespace {

using namespace callwire;
using namespace callwire::detail;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "\n*** ws_client_fuzz: %s\n", what);
  std::fflush(stderr);
  __builtin_trap();
}

// Reads what the parser owes the server as the server would, and lets it go.
void check_owed(AnswerParser& parser, ws::FrameReader& server_side) {
  std::string_view owed = parser.owed_output();
  while (!owed.empty()) {
    ws::Event e = server_side.next(owed);
    if (e.kind == ws::EventKind::Error) fail("owed bytes are not a client's valid frames");
    owed.remove_prefix(e.consumed);
    if (e.kind == ws::EventKind::NeedMore) fail("owed bytes end inside a frame");
  }
  parser.output_sent(parser.owed_output().size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const bool json = data[0] & 1;
  const bool small = data[0] & 2;
  const bool throwing = data[0] & 4;
  const size_t chunk = size_t(data[1]) + 1;
  std::string_view stream(reinterpret_cast<const char*>(data) + 2, size - 2);

  static const ClientUrl url = parse_client_url("ws://127.0.0.1:1/RPC2", "").value();
  size_t notifications = 0;
  NotificationHandler handler = [&](std::string_view method, const Value& params) {
    if (method.empty()) fail("a notification without a method");
    if (!params.is_array() && !params.is_struct()) fail("params neither array nor struct");
    ++notifications;
    if (throwing) throw std::runtime_error("a handler's own failure");
  };
  auto framing = make_client_framing(url, json ? "application/json" : "text/xml", false, "", "", {},
                                     nullptr, &handler);
  if (!framing) fail("no framing for a ws:// URL");
  http::ResponseLimits limits;
  limits.max_body = small ? 64 : 1 << 20;
  auto parser = (*framing)->make_answer_parser(limits);
  parser->reset_stream();
  ws::FrameReader server_side(ws::Role::Server);

  Buffer in, unused;
  bool idle = false;  // an answer came: the next chunk arrives between calls
  while (!stream.empty()) {
    std::string_view piece = stream.substr(0, chunk);
    stream.remove_prefix(piece.size());
    if (idle) {
      const bool alive = parser->read_idle(piece);
      check_owed(*parser, server_side);
      if (!alive) return 0;  // the connection is dropped
      parser->reset();       // the next call begins
      in.clear();
      idle = false;
      continue;
    }
    in.append(piece);
    http::ResponseParseResult r = parser->parse(in.view(), unused);
    check_owed(*parser, server_side);
    if (r.status == http::ParseStatus::Error) return 0;
    if (r.status == http::ParseStatus::Incomplete) {
      const size_t done = parser->take_consumed();
      if (done > in.size()) fail("consumed more than was given");
      const std::string_view rest = in.view().substr(done);
      Buffer kept;
      kept.append(rest);
      in = std::move(kept);
      continue;
    }
    if (r.consumed != in.size()) fail("an answer left bytes behind");
    const std::string_view body = parser->response().body;
    volatile char sink = 0;
    for (char c : body) sink = char(sink ^ c);  // readable, whole
    if (!parser->response().keep_alive) return 0;
    idle = true;
  }
  if (!idle) {
    parser->parse_eof(in.view(), unused);
    check_owed(*parser, server_side);
  }
  return 0;
}
