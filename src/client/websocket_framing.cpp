#include "client/websocket_framing.hpp"

#include <cstring>
#include <utility>

#include "base/keyed_hash.hpp"
#include "base/transports.hpp"
#include "callwire/json.hpp"
#include "client/answer_reader.hpp"
#include "client/url.hpp"
#include "http/response_writer.hpp"
#include "http/syntax.hpp"
#include "ws/frame_reader.hpp"
#include "ws/frame_writer.hpp"
#include "ws/handshake.hpp"

namespace callwire::detail {

namespace {

// A fresh masking key for each frame the client sends (RFC 6455 §5.3: unpredictable).
ws::MaskKey fresh_mask() noexcept {
  const uint64_t r = unpredictable_u64();
  ws::MaskKey key;
  std::memcpy(key.data(), &r, key.size());
  return key;
}

// The fields the opening request writes itself: a caller's would contradict them.
bool is_handshake_field(std::string_view name) {
  constexpr std::string_view kPrefix = "sec-websocket-";
  return http::iequals(name, "upgrade") ||
         (name.size() >= kPrefix.size() && http::iequals(name.substr(0, kPrefix.size()), kPrefix));
}

// The server's frames, as a call's answers: the first data message that is not a request of
// the server's own is the answer. Notifications before and after it go to the handler; pings
// are answered; a Close ends the connection. The frame reader lives as long as the connection
// (a frame may straddle two calls' reads), so reset() leaves it be.
class WebSocketAnswerParser final : public AnswerParser {
 public:
  WebSocketAnswerParser(const http::ResponseLimits& limits, bool json_rpc,
                        const NotificationHandler* on_notification)
      : limits_{limits.max_body, limits.max_body},
        reader_(ws::Role::Client, limits_),
        json_rpc_(json_rpc),
        on_notification_(on_notification && *on_notification ? on_notification : nullptr) {
    reset();
  }

  // Every byte given is taken (the reader keeps what it needs), so nothing after the answer
  // is left over as "trailing": what follows it (a notification, a ping) is read now.
  http::ResponseParseResult parse(std::string_view input, Buffer&) override {
    if (result_.status != http::ParseStatus::Incomplete) return result_;
    feed(input.substr(fed_), true);
    fed_ = input.size();
    return settle(input.size());
  }
  http::ResponseParseResult parse_eof(std::string_view input, Buffer& unused) override {
    if (http::ResponseParseResult r = parse(input, unused);
        r.status != http::ParseStatus::Incomplete)
      return r;
    if (!reader_.holds_partial()) {
      error_ = "the server closed the connection without answering (and without a Close)";
      return result_ = {http::ParseStatus::Error, 0, http::ResponseError::NoResponse};
    }
    error_ = "WebSocket: the connection closed inside a frame";
    return result_ = {http::ParseStatus::Error, 0, http::ResponseError::Truncated};
  }
  size_t take_consumed() noexcept override {
    return result_.status == http::ParseStatus::Incomplete ? std::exchange(fed_, 0) : 0;
  }
  void reset() noexcept override {
    answered_ = stray_ = false;
    fed_ = 0;
    result_ = {};
    response_ = {};
    response_.status = 200;
    response_.keep_alive = true;
    error_.clear();
  }
  void reset_stream() noexcept override {
    reader_ = ws::FrameReader(ws::Role::Client, limits_);
    owed_.clear();
    closed_ = failed_ = false;
    reset();
  }
  bool read_idle(std::string_view input) override {
    feed(input, false);
    return !closed_ && !failed_ && !stray_;
  }
  std::string_view owed_output() const noexcept override { return owed_.view(); }
  void output_sent(size_t n) noexcept override { owed_.drop_front(n); }
  bool headers_complete() const noexcept override { return false; }
  const http::Response& response() const noexcept override { return response_; }
  std::string_view error() const noexcept override { return error_; }

 private:
  void feed(std::string_view data, bool call_waits) {
    while (!closed_ && !failed_) {
      ws::Event e = reader_.next(data);
      data.remove_prefix(e.consumed);
      switch (e.kind) {
        case ws::EventKind::NeedMore:
          return;
        case ws::EventKind::Text:
        case ws::EventKind::Binary:
          on_message(e.payload, call_waits);
          break;
        case ws::EventKind::Ping:
          ws::append_pong(owed_, e.payload, fresh_mask());
          break;
        case ws::EventKind::Pong:
          break;
        case ws::EventKind::Close:
          closed_ = true;
          close_words_ = "code " + std::to_string(e.code);
          if (!e.payload.empty()) close_words_ += ": " + std::string(e.payload);
          ws::append_close(owed_, e.code == ws::kCloseNoStatus ? ws::kCloseNoStatus : e.code, {},
                           fresh_mask());
          break;
        case ws::EventKind::Error:
          failed_ = true;
          error_ = "WebSocket: " + std::string(e.error);
          ws::append_close(owed_, e.code, e.error, fresh_mask());
          break;
      }
    }
  }

  void on_message(std::string_view payload, bool call_waits) {
    if (json_rpc_ && read_server_request(payload)) return;
    if (call_waits && !answered_) {
      answer_ = reader_.take_message();
      answered_ = true;
      return;
    }
    stray_ = true;  // an answer nobody waits for: it cannot be matched to a call
  }

  // A JSON-RPC request of the server's (a notification, or a call): the handler gets the
  // notifications; a call is answered "method not found", since the client serves none.
  // False when `payload` is not one (the answer).
  bool read_server_request(std::string_view payload) {
    // Only a document that names a method can be a request: the answer is not read twice.
    if (payload.find("\"method\"") == std::string_view::npos) return false;
    if (!json_) json_ = std::make_unique<json::Reader>(json::JsonLimits{});
    if (!json_->read_request(payload, request_)) return false;
    for (const json::Call& c : request_.calls)
      if (!c.ok() || c.method.empty()) return false;
    for (const json::Call& c : request_.calls) {
      if (c.is_notification()) {
        notify(c.method, c.params);
        continue;
      }
      Buffer answer;
      if (json::write_error(answer, c.id, -32601, "the client serves no methods")) {
        const ws::Masking mask = fresh_mask();
        ws::append_frame(owed_, ws::Opcode::Text, answer.view(), true, mask);
      }
    }
    return true;
  }

  void notify(std::string_view method, const Value& params) const {
    if (!on_notification_) return;
    // The handler's exceptions stop at the connection: the frames after it are still read.
    try {
      (*on_notification_)(method, params);
    } catch (...) {
    }
  }

  http::ResponseParseResult settle(size_t input_size) {
    if (failed_) return result_ = {http::ParseStatus::Error, 0, http::ResponseError::Malformed};
    if (answered_) {
      response_.body = answer_.view();
      response_.keep_alive = !closed_ && !stray_;
      return result_ = {http::ParseStatus::Complete, input_size, http::ResponseError::None};
    }
    if (closed_) {
      error_ = "the server closed the WebSocket (" + close_words_ + ") without answering";
      return result_ = {http::ParseStatus::Error, 0, http::ResponseError::NoResponse};
    }
    return result_;
  }

  ws::ReaderLimits limits_;
  ws::FrameReader reader_;
  const bool json_rpc_;
  const NotificationHandler* const on_notification_;  // null: notifications are dropped
  std::unique_ptr<json::Reader> json_;                // made at the first server request
  json::Request request_;
  Buffer owed_;    // Pongs and Closes not yet sent
  Buffer answer_;  // the answer's message, taken from the reader
  size_t fed_ = 0;
  bool answered_ = false;
  bool stray_ = false;   // a message came that answers nothing
  bool closed_ = false;  // the server's Close has come
  bool failed_ = false;  // the server broke the protocol
  std::string close_words_;
  http::ResponseParseResult result_;
  http::Response response_;
  std::string error_;
};

class WebSocketFraming final : public ClientFraming {
 public:
  explicit WebSocketFraming(WebSocketClientSetup setup)
      : ClientFraming(transport_of(ConnectionFraming::WebSocket)), setup_(std::move(setup)) {}

  // The opening request but its key, once (its check refuses bad fields at creation).
  Status prepare(const ClientUrl& url) {
    std::vector<http::Header> extra = {
        {"Sec-WebSocket-Version", "13"},
        {"Sec-WebSocket-Protocol", setup_.json_rpc ? "jsonrpc" : "xmlrpc"}};
    for (const auto& [name, value] : setup_.headers) {
      if (is_handshake_field(name))
        return Error(Errc::InvalidArgument,
                     "header field " + name + " is the WebSocket handshake's own");
      extra.push_back({name, value});
    }
    http::RequestHead head;
    head.method = "GET";
    head.upgrade = "websocket";
    head.path = url.path;
    head.host = url.host;
    head.port = url.port;
    head.tls = url.tls;
    head.content_type = {};
    head.authorization = setup_.authorization;
    if (!setup_.user_agent.empty()) head.user_agent = setup_.user_agent;
    head.extra = extra;
    return http::append_request_head_fixed(opening_fixed_, head);
  }

  Status append_head(Buffer& out, const RequestFacts& facts) const override {
    // The opening request carried the client's fields; a message carries none.
    if (!facts.headers.empty())
      return Error(Errc::InvalidArgument,
                   "a call's header fields cannot travel in a WebSocket message (the client's "
                   "own, ClientOptions::headers, go with the opening request)");
    ws::append_masked_header(out, ws::Opcode::Text, facts.body_size, fresh_mask());
    return Status();
  }
  void finish_request(Buffer& out, size_t body_offset) const override {
    // The key is the header's last 4 bytes, just before the body.
    ws::MaskKey key;
    std::memcpy(key.data(), out.data() + body_offset - key.size(), key.size());
    ws::mask_in_place(out.data() + body_offset, out.size() - body_offset, key);
  }
  std::string append_opening(Buffer& out) const override {
    uint8_t nonce[16];
    for (size_t i = 0; i < sizeof nonce; i += 8) {
      const uint64_t r = unpredictable_u64();
      std::memcpy(nonce + i, &r, 8);
    }
    const std::string key = ws::make_client_key(std::span<const uint8_t, 16>(nonce));
    out.append(opening_fixed_.view());
    out.append("Sec-WebSocket-Key: ");
    out.append(key);
    out.append("\r\n\r\n");
    return ws::accept_key(key);
  }
  void append_goodbye(Buffer& out) const override {
    ws::append_close(out, ws::kCloseGoingAway, {}, fresh_mask());
  }
  Status check_opening(const http::Response& answer, std::string_view expected) const override {
    if (answer.status != 101) {
      Error refused = http_status_error(answer);
      refused.message = "the server refused the WebSocket opening: " + refused.message;
      return refused;
    }
    auto bad = [](std::string why) {
      return Error(Errc::BadResponse, "the server's WebSocket opening answer " + why);
    };
    if (!ws::header_has_token(answer.find_header("Upgrade"), "websocket") ||
        !ws::header_has_token(answer.find_header("Connection"), "upgrade"))
      return bad("lacks Upgrade: websocket or Connection: Upgrade");
    if (answer.find_header("Sec-WebSocket-Accept") != expected)
      return bad("has a Sec-WebSocket-Accept that does not answer the key sent");
    if (!answer.find_header("Sec-WebSocket-Extensions").empty())
      return bad("names an extension, and none was offered");
    const std::string_view offered = setup_.json_rpc ? "jsonrpc" : "xmlrpc";
    const std::string_view chosen = answer.find_header("Sec-WebSocket-Protocol");
    if (!chosen.empty() && chosen != offered)
      return bad("chose subprotocol '" + std::string(chosen) + "', and only '" +
                 std::string(offered) + "' was offered");
    // A server that picks none speaks its default: JSON-RPC for those that serve it over
    // WebSocket, so XML-RPC would be misread.
    if (chosen.empty() && !setup_.json_rpc)
      return bad(
          "chose no subprotocol: the server does not serve XML-RPC over WebSocket (call it "
          "with jsonrpc+ws:// for JSON-RPC)");
    return Status();
  }
  std::unique_ptr<AnswerParser> make_answer_parser(
      const http::ResponseLimits& limits) const override {
    return std::make_unique<WebSocketAnswerParser>(limits, setup_.json_rpc, setup_.on_notification);
  }

 private:
  WebSocketClientSetup setup_;
  Buffer opening_fixed_;
};

}  // namespace

Result<std::unique_ptr<ClientFraming>> make_websocket_framing(const ClientUrl& url,
                                                              WebSocketClientSetup setup) {
  auto framing = std::make_unique<WebSocketFraming>(std::move(setup));
  if (Status s = framing->prepare(url); !s) return s.error();
  return std::unique_ptr<ClientFraming>(std::move(framing));
}

}  // namespace callwire::detail
