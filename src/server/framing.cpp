#include "server/framing.hpp"

#include <cstring>

#include "callwire/json.hpp"
#include "callwire/message.hpp"
#include "callwire/xml.hpp"
#include "http/scgi.hpp"
#include "jsonl/line_scanner.hpp"
#include "pstream/pstream.hpp"
#include "ws/frame_reader.hpp"
#include "ws/frame_writer.hpp"

namespace callwire::detail {

namespace {

class HttpFraming final : public RequestFraming {
 public:
  explicit HttpFraming(const http::RequestLimits& limits)
      : RequestFraming(transport_of(ConnectionFraming::Http)), parser_(limits) {}
  http::ParseResult parse(std::string_view input, Buffer& chunked_body) override {
    return parser_.parse(input, chunked_body);
  }
  void reset() noexcept override { parser_.reset(); }
  bool headers_complete() const noexcept override { return parser_.headers_complete(); }
  const http::Request& request() const noexcept override { return parser_.request(); }
  size_t place_head(Buffer& out, size_t body_offset, const http::ResponseHead& head) override {
    // The request's version decides what the Connection field says (an HTTP/1.0 client kept
    // alive is told so).
    http::ResponseHead h = head;
    h.request_version = parser_.request().version;
    return http::place_response_head(out, body_offset, h);
  }
  void append_error(Buffer& out, int status, std::span<const http::Header> extra,
                    std::string_view date) override {
    // A body over the limit is told the limit, so that the client can say what to change.
    if (status == 413 && http::append_text_response(
                             out, 413,
                             "413 Content Too Large: the body exceeds this server's limit "
                             "of " +
                                 std::to_string(parser_.limits().max_body) + " bytes (max_body)\n",
                             extra, date))
      return;
    // The server's own status and fields. Should a field ever carry what a peer sent and be
    // refused, the status still goes out without the fields: never silence.
    if (!http::append_error_response(out, status, extra, date))
      static_cast<void>(http::append_error_response(out, status, {}, date));
  }

 private:
  http::RequestParser parser_;
};

class ScgiFraming final : public RequestFraming {
 public:
  explicit ScgiFraming(const http::RequestLimits& limits)
      : RequestFraming(transport_of(ConnectionFraming::Scgi)), parser_(limits) {}
  http::ParseResult parse(std::string_view input, Buffer& chunked_body) override {
    return parser_.parse(input, chunked_body);
  }
  void reset() noexcept override { parser_.reset(); }
  bool headers_complete() const noexcept override { return parser_.headers_complete(); }
  const http::Request& request() const noexcept override { return parser_.request(); }
  size_t place_head(Buffer& out, size_t body_offset, const http::ResponseHead& head) override {
    return http::place_scgi_response_head(out, body_offset, head);
  }
  void append_error(Buffer& out, int status, std::span<const http::Header> extra,
                    std::string_view) override {
    if (!http::append_scgi_error_response(out, status, extra))  // as for HTTP
      static_cast<void>(http::append_scgi_error_response(out, status, {}));
  }
  std::string gateway_peer() const override {
    return http::cgi_peer(parser_.variable("REMOTE_ADDR"), parser_.variable("REMOTE_PORT"));
  }
  std::string_view gateway_user() const override { return parser_.variable("REMOTE_USER"); }

 private:
  http::ScgiRequestParser parser_;
};

// xmlrpc-c's packet stream: each packet's payload is a request body; answers go back as
// packets. There is no head to check and no way to say what went wrong with the framing, so
// a refusal closes the connection, except a packet over the size limit, whose caller is told
// with a fault packet first (its own output). The connection's own refusals (busy, too slow)
// have no packet to say them in: the connection just closes.
class PstreamFraming final : public RequestFraming {
 public:
  explicit PstreamFraming(const http::RequestLimits& limits)
      : RequestFraming(transport_of(ConnectionFraming::Pstream)),
        decoder_(limits.max_body),
        max_body_(limits.max_body) {
    request_.method = "POST";
    storage_ = &decoder_.storage();
  }
  http::ParseResult parse(std::string_view input, Buffer&) override {
    Result<pstream::Decoded> r = decoder_.decode(input);
    if (!r) {
      if (r.error().code != Errc::LimitExceeded) return {http::ParseStatus::Error, 0, 400};
      Buffer fault;
      static_cast<void>(xml::write_fault(  // ASCII text: always written
          fault,
          Fault{fault_code::kInvalidXmlRpc, "the request exceeds the server's packet limit of " +
                                                std::to_string(max_body_) + " bytes (max_body)"}));
      pstream::append_packet(own_output_, fault.view());
      return {http::ParseStatus::Error, 0, 413};
    }
    if (!r->packet) return {http::ParseStatus::Incomplete, r->consumed, 0};
    request_.body = r->payload;
    request_.content_length = r->payload.size();
    return {http::ParseStatus::Complete, r->consumed, 0};
  }
  // Between packets the decoder is where a stream starts; the payload's view is done with.
  void reset() noexcept override { decoder_.reset(); }
  bool in_request() const noexcept override { return decoder_.in_packet(); }
  bool copies_input() const noexcept override { return decoder_.copying(); }
  void release_storage() noexcept override { decoder_.release_storage(); }
  bool headers_complete() const noexcept override { return false; }
  const http::Request& request() const noexcept override { return request_; }
  size_t place_head(Buffer& out, size_t body_offset, const http::ResponseHead&) override {
    // ESC PKT into the gap before the body, then the body escaped in place and ESC END.
    const size_t start = body_offset - pstream::kPacketStart.size();
    std::memcpy(out.data() + start, pstream::kPacketStart.data(), pstream::kPacketStart.size());
    pstream::end_packet(out, pstream::PacketMark{body_offset});
    return start;
  }
  bool answers_own_refusals() const noexcept override { return true; }
  void append_error(Buffer&, int, std::span<const http::Header>, std::string_view) override {}

 private:
  pstream::Decoder decoder_;
  size_t max_body_;
  http::Request request_;
};

// Newline-delimited JSON-RPC (as IPC peers speak it): each line is a request document, each
// answer a line; a document of notifications only is answered with nothing. The JSON writer
// never writes a raw newline (it escapes them in strings), so an answer is always one line.
// A line over max_body is answered with a -32600 error line, then the connection closes.
class JsonLinesFraming final : public RequestFraming {
 public:
  explicit JsonLinesFraming(const http::RequestLimits& limits)
      : RequestFraming(transport_of(ConnectionFraming::JsonLines)), lines_(limits.max_body) {
    request_.method = "POST";
  }
  http::ParseResult parse(std::string_view input, Buffer&) override {
    jsonl::Found found = lines_.next(input);
    switch (found.scan) {
      case jsonl::Scan::TooLong:
        static_cast<void>(json::write_error(  // ASCII text: always written
            own_output_, json::kNullId, fault_code::kInvalidXmlRpc,
            "the request exceeds the server's limit of " + std::to_string(lines_.max_line()) +
                " bytes (max_body)"));
        own_output_.append("\n", 1);
        return {http::ParseStatus::Error, 0, 413};
      case jsonl::Scan::Incomplete:  // blank lines (keep-alives) before it are dropped
        return {http::ParseStatus::Incomplete, lines_.take_done(), 0};
      case jsonl::Scan::Line:
        break;
    }
    request_.body = found.line;
    request_.content_length = found.line.size();
    return {http::ParseStatus::Complete, found.end, 0};
  }
  void reset() noexcept override { lines_.reset(); }
  bool headers_complete() const noexcept override { return false; }
  const http::Request& request() const noexcept override { return request_; }
  std::optional<Protocol> fixed_protocol() const noexcept override { return Protocol::JsonRpc; }
  size_t place_head(Buffer& out, size_t body_offset, const http::ResponseHead& head) override {
    if (head.status != 204) out.append("\n", 1);  // 204: notifications only, nothing to say
    return body_offset;
  }
  // A line over the limit is told in parse; the connection's own refusals (busy, too slow)
  // have no request id to answer: the connection just closes.
  bool answers_own_refusals() const noexcept override { return true; }
  void append_error(Buffer&, int, std::span<const http::Header>, std::string_view) override {}

 private:
  jsonl::LineScanner lines_;
  http::Request request_;
};

// WebSocket after the upgrade (RFC 6455): each data message a request, each answer a message
// of the same kind (text or binary), none for notifications only. Pings are answered, a Close
// is echoed, and a frame that breaks the protocol or a limit gets the Close naming it; the
// connection closes after either.
class WebSocketFraming final : public RequestFraming {
 public:
  WebSocketFraming(size_t max_message, Protocol protocol)
      : RequestFraming(transport_of(ConnectionFraming::WebSocket)),
        reader_(ws::Role::Server, {max_message, max_message}),
        protocol_(protocol) {
    request_.method = "POST";
    storage_ = &reader_.message_storage();
  }
  http::ParseResult parse(std::string_view input, Buffer&) override {
    size_t used = 0;
    for (;;) {
      ws::Event e = reader_.next(input.substr(used));
      used += e.consumed;
      switch (e.kind) {
        case ws::EventKind::NeedMore:
          return {http::ParseStatus::Incomplete, used, 0};
        case ws::EventKind::Text:
        case ws::EventKind::Binary:
          answer_opcode_ = e.kind == ws::EventKind::Text ? ws::Opcode::Text : ws::Opcode::Binary;
          request_.body = e.payload;
          request_.content_length = e.payload.size();
          return {http::ParseStatus::Complete, used, 0};
        case ws::EventKind::Ping:
          ws::append_pong(own_output_, e.payload, std::nullopt);
          continue;
        case ws::EventKind::Pong:
          continue;
        case ws::EventKind::Close:  // echoed, and the connection closes once it is sent
          say_close(e.code == ws::kCloseNoStatus ? ws::kCloseNormal : e.code, {});
          return {http::ParseStatus::Error, used, 0};
        case ws::EventKind::Error:
          say_close(e.code, e.error);
          return {http::ParseStatus::Error, used, 0};
      }
    }
  }
  // Between messages: a large one's storage is given back by release_storage.
  void reset() noexcept override {}
  bool headers_complete() const noexcept override { return false; }
  const http::Request& request() const noexcept override { return request_; }
  std::optional<Protocol> fixed_protocol() const noexcept override { return protocol_; }
  bool answers_own_refusals() const noexcept override { return true; }
  bool in_request() const noexcept override { return reader_.holds_partial(); }
  // Every payload byte read is copied (unmasked) into the reader's storage.
  bool copies_input() const noexcept override { return true; }
  void release_storage() noexcept override { reader_.release_storage(); }
  size_t place_head(Buffer& out, size_t body_offset, const http::ResponseHead& head) override {
    if (head.status == 204) return body_offset;  // notifications only: no message
    const uint64_t size = out.size() - body_offset;
    const size_t n = ws::unmasked_header_size(size);
    ws::write_unmasked_header(out.data() + body_offset - n, answer_opcode_, size);
    return body_offset - n;
  }
  void append_error(Buffer& out, int status, std::span<const http::Header>,
                    std::string_view) override {
    // What HTTP says with a status, WebSocket says with a Close code.
    switch (status) {
      case 413:
        return close_with(out, ws::kCloseMessageTooBig, "the message exceeds max_body");
      case 503:
        return close_with(out, kCloseTryAgainLater, "the server is busy");
      case 408:
        return close_with(out, ws::kClosePolicyViolation, "the message took too long");
      default:
        return close_with(out, ws::kCloseInternalError, "the server could not answer");
    }
  }
  void append_goodbye(Buffer& out) override { close_with(out, ws::kCloseGoingAway, {}); }
  void append_ping(Buffer& out) override { ws::append_ping(out, {}, std::nullopt); }

 private:
  static constexpr uint16_t kCloseTryAgainLater = 1013;
  void say_close(uint16_t code, std::string_view reason) { close_with(own_output_, code, reason); }
  void close_with(Buffer& out, uint16_t code, std::string_view reason) {
    if (close_sent_) return;  // one Close a connection
    close_sent_ = true;
    ws::append_close(out, code, reason, std::nullopt);
  }

  ws::FrameReader reader_;
  Protocol protocol_;
  ws::Opcode answer_opcode_ = ws::Opcode::Text;
  bool close_sent_ = false;
  http::Request request_;
};

}  // namespace

std::unique_ptr<RequestFraming> make_websocket_framing(size_t max_message, Protocol protocol) {
  return std::make_unique<WebSocketFraming>(max_message, protocol);
}

std::unique_ptr<RequestFraming> make_framing(ConnectionFraming kind,
                                             const http::RequestLimits& limits) {
  if (kind == ConnectionFraming::Scgi) return std::make_unique<ScgiFraming>(limits);
  if (kind == ConnectionFraming::Pstream) return std::make_unique<PstreamFraming>(limits);
  if (kind == ConnectionFraming::JsonLines) return std::make_unique<JsonLinesFraming>(limits);
  return std::make_unique<HttpFraming>(limits);
}

std::string_view over_capacity_answer(ConnectionFraming kind) noexcept {
  const Transport& t = transport_of(kind);
  if (!t.carries_fields && !t.http_upgrade) return {};  // no status to say it with: just closed
  if (kind == ConnectionFraming::Scgi)
    return "Status: 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n";
  return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n"
         "Retry-After: 1\r\n\r\n";
}

}  // namespace callwire::detail
