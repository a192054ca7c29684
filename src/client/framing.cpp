#include "client/framing.hpp"

#include <cstdio>
#include <utility>

#include "base/transports.hpp"
#include "client/proxy.hpp"
#include "client/url.hpp"
#include "client/websocket_framing.hpp"
#include "http/response_writer.hpp"
#include "http/scgi.hpp"
#include "jsonl/line_scanner.hpp"
#include "pstream/pstream.hpp"

namespace callwire::detail {

namespace {

// The parsers have the same calls; this puts them behind AnswerParser.
template <class Parser>
class AnswerParserOf final : public AnswerParser {
 public:
  explicit AnswerParserOf(const http::ResponseLimits& limits) : parser_(limits) {}
  http::ResponseParseResult parse(std::string_view input, Buffer& chunked_body) override {
    return parser_.parse(input, chunked_body);
  }
  http::ResponseParseResult parse_eof(std::string_view input, Buffer& chunked_body) override {
    return parser_.parse_eof(input, chunked_body);
  }
  void reset() noexcept override { parser_.reset(); }
  bool headers_complete() const noexcept override { return parser_.headers_complete(); }
  std::string_view arriving_body(std::string_view input, uint64_t& length) const noexcept override {
    if constexpr (requires { parser_.arriving_body(input, length); }) {
      return parser_.arriving_body(input, length);
    } else {
      return {};
    }
  }
  std::string_view arriving_chunks(const Buffer& chunked_body) const noexcept override {
    if constexpr (requires { parser_.arriving_chunks(chunked_body); }) {
      return parser_.arriving_chunks(chunked_body);
    } else {
      return {};
    }
  }
  uint64_t chunk_data_due(std::string_view input) const noexcept override {
    if constexpr (requires { parser_.chunk_data_due(input); }) {
      return parser_.chunk_data_due(input);
    } else {
      return 0;
    }
  }
  void chunk_data_read(size_t n) noexcept override {
    if constexpr (requires { parser_.chunk_data_read(n); }) parser_.chunk_data_read(n);
  }
  const http::Response& response() const noexcept override { return parser_.response(); }
  std::string_view error() const noexcept override { return parser_.error(); }

 private:
  Parser parser_;
};

// What every request of a client says, owned.
struct CommonFields {
  std::string_view content_type;  // static storage
  bool accept_gzip = false;
  std::string authorization;
  std::string user_agent;  // empty: the writer's default
  std::vector<std::pair<std::string, std::string>> owned;
  std::vector<http::Header> extra;  // views into `owned`

  CommonFields(std::string_view type, bool gzip, std::string auth, std::string agent,
               std::vector<std::pair<std::string, std::string>> h)
      : content_type(type),
        accept_gzip(gzip),
        authorization(std::move(auth)),
        user_agent(std::move(agent)),
        owned(std::move(h)) {
    for (const auto& [name, value] : owned) extra.push_back({name, value});
  }
  // Moving keeps the strings where they are (the vector's storage moves whole): the views
  // stay valid. A copy would point into the original, so there is none.
  CommonFields(CommonFields&&) = default;
  CommonFields(const CommonFields&) = delete;
  // The client's extra fields, then the call's.
  std::vector<http::Header> with(std::span<const http::Header> call) const {
    std::vector<http::Header> all = extra;
    all.insert(all.end(), call.begin(), call.end());
    return all;
  }
};

class HttpFraming final : public ClientFraming {
 public:
  HttpFraming(const ClientUrl& url, CommonFields common, const ProxyRoute* proxy)
      : ClientFraming(transport_of(ConnectionFraming::Http)),
        url_(url),
        common_(std::move(common)),
        proxy_(proxy && !proxy->tunnel ? proxy : nullptr) {}

  // The head's fixed part, once (its check also refuses bad extra fields at creation rather
  // than at every call).
  Status prepare() {
    http::RequestHead head = fields();
    head.extra = common_.extra;
    if (Status s = http::append_request_head_fixed(fixed_head_, head); !s) return s;
    head.accept_trailers = true;
    return http::append_request_head_fixed(fixed_head_trailers_, head);
  }

  Status append_head(Buffer& out, const RequestFacts& facts) const override {
    const bool trailers = long_answers();
    if (facts.headers.empty()) {
      out.append(trailers ? fixed_head_trailers_.view() : fixed_head_.view());
    } else {
      std::vector<http::Header> extra = common_.with(facts.headers);
      http::RequestHead head = fields();
      head.extra = extra;
      head.accept_trailers = trailers;
      if (Status s = http::append_request_head_fixed(out, head); !s) return s;
    }
    if (facts.timeout_ms) {
      // After the fixed fields, before the framing: every field line ends with CRLF, and the
      // value is digits only, so it needs no check.
      char line[48];
      int n = std::snprintf(line, sizeof line, "X-Callwire-Timeout: %lld\r\n",
                            static_cast<long long>(*facts.timeout_ms));
      out.append(line, static_cast<size_t>(n));
    }
    http::append_request_framing(out, facts.body_size, facts.gzipped);
    return Status();
  }
  std::unique_ptr<AnswerParser> make_answer_parser(
      const http::ResponseLimits& limits) const override {
    return std::make_unique<AnswerParserOf<http::ResponseParser>>(limits);
  }

 private:
  http::RequestHead fields() const {
    http::RequestHead head;
    head.path = url_.path;
    head.host = url_.host;
    head.port = url_.port;
    head.tls = url_.tls;
    head.content_type = common_.content_type;
    head.accept_gzip = common_.accept_gzip;
    head.authorization = common_.authorization;
    if (!common_.user_agent.empty()) head.user_agent = common_.user_agent;
    if (proxy_) {
      head.absolute_form = true;
      head.proxy_authorization = proxy_->authorization;
    }
    return head;
  }

  const ClientUrl& url_;
  CommonFields common_;
  const ProxyRoute* proxy_;  // set when requests go to a proxy in absolute form
  Buffer fixed_head_;
  Buffer fixed_head_trailers_;  // the same with TE: trailers, once long answers came
};

class ScgiFraming final : public ClientFraming {
 public:
  ScgiFraming(const ClientUrl& url, CommonFields common)
      : ClientFraming(transport_of(ConnectionFraming::Scgi)),
        url_(url),
        common_(std::move(common)) {}

  Status append_head(Buffer& out, const RequestFacts& facts) const override {
    std::vector<http::Header> extra = common_.with(facts.headers);
    if (!common_.authorization.empty()) extra.push_back({"Authorization", common_.authorization});
    if (!common_.user_agent.empty()) extra.push_back({"User-Agent", common_.user_agent});
    std::string timeout;
    if (facts.timeout_ms) {
      timeout = std::to_string(*facts.timeout_ms);
      extra.push_back({"X-Callwire-Timeout", timeout});
    }
    http::ScgiRequestHead head;
    head.content_length = facts.body_size;
    head.uri = url_.path;
    head.content_type = common_.content_type;
    head.gzip = facts.gzipped;
    head.accept_gzip = common_.accept_gzip;
    head.extra = extra;
    return http::append_scgi_request_head(out, head);
  }
  std::unique_ptr<AnswerParser> make_answer_parser(
      const http::ResponseLimits& limits) const override {
    return std::make_unique<AnswerParserOf<http::ScgiResponseParser>>(limits);
  }

 private:
  const ClientUrl& url_;
  CommonFields common_;
};

// An answer that is one packet: its payload is the body of a 200 that keeps the connection.
// The connection passes every byte received for this answer that it has not dropped; it drops
// what take_consumed() says the decoder is done with, so a server sending ESC NOP for ever
// grows nothing: what is held is at most a packet's payload so far (the decoder's limit) and a
// partial control word.
class PacketAnswerParser final : public AnswerParser {
 public:
  explicit PacketAnswerParser(const http::ResponseLimits& limits) : decoder_(limits.max_body) {
    response_.status = 200;
    response_.keep_alive = true;
  }
  http::ResponseParseResult parse(std::string_view input, Buffer&) override {
    if (result_.status != http::ParseStatus::Incomplete) return result_;
    Result<pstream::Decoded> r = decoder_.decode(input.substr(fed_));
    if (!r) return fail(r.error());
    fed_ += r->consumed;
    if (r->consumed) any_consumed_ = true;
    if (r->packet) {
      response_.body = r->payload;
      result_ = {http::ParseStatus::Complete, fed_, http::ResponseError::None};
    }
    return result_;
  }
  http::ResponseParseResult parse_eof(std::string_view input, Buffer& unused) override {
    // Nothing at all came (NOPs dropped are something: the server was there, and the request
    // must not be sent again as if it had never seen it).
    if (input.empty() && !any_consumed_ && result_.status == http::ParseStatus::Incomplete)
      return result_ = {http::ParseStatus::Error, 0, http::ResponseError::NoResponse};
    if (http::ResponseParseResult r = parse(input, unused);
        r.status != http::ParseStatus::Incomplete)
      return r;
    Status ended = decoder_.finish(input.substr(fed_));
    return fail(ended ? Error(Errc::ConnectionClosed, "pstream: the stream ended before the answer")
                      : ended.error());
  }
  size_t take_consumed() noexcept override {
    // A whole packet's payload may point into the input: nothing goes until it is read.
    if (result_.status != http::ParseStatus::Incomplete) return 0;
    return std::exchange(fed_, 0);
  }
  void reset() noexcept override {
    decoder_.reset();
    fed_ = 0;
    any_consumed_ = false;
    result_ = {};
    response_.body = {};
    error_.clear();
  }
  bool headers_complete() const noexcept override { return false; }
  const http::Response& response() const noexcept override { return response_; }
  std::string_view error() const noexcept override { return error_; }

 private:
  http::ResponseParseResult fail(const Error& e) {
    error_ = e.message;
    http::ResponseError kind = e.code == Errc::LimitExceeded      ? http::ResponseError::TooLarge
                               : e.code == Errc::ConnectionClosed ? http::ResponseError::Truncated
                                                                  : http::ResponseError::Malformed;
    return result_ = {http::ParseStatus::Error, 0, kind};
  }

  pstream::Decoder decoder_;
  size_t fed_ = 0;             // bytes of the input the decoder has consumed (not yet taken)
  bool any_consumed_ = false;  // since reset()
  http::ResponseParseResult result_;
  http::Response response_;
  std::string error_;
};

// xmlrpc-c's packet stream: the request is one packet (ESC PKT, the body escaped, ESC END), the
// answer another; nothing else travels, so no header field, credential or gzip.
class PstreamFraming final : public ClientFraming {
 public:
  PstreamFraming() noexcept : ClientFraming(transport_of(ConnectionFraming::Pstream)) {}
  Status append_head(Buffer& out, const RequestFacts& facts) const override {
    // A call's own header fields (CallOptions::headers) have nowhere to go: said, not lost.
    if (!facts.headers.empty())
      return Error(Errc::InvalidArgument, "header fields cannot travel over a packet stream");
    out.append(pstream::kPacketStart);
    return Status();
  }
  void finish_request(Buffer& out, size_t body_offset) const override {
    pstream::end_packet(out, pstream::PacketMark{body_offset});
  }
  std::string_view idle_probe() const noexcept override { return pstream::kNop; }
  std::unique_ptr<AnswerParser> make_answer_parser(
      const http::ResponseLimits& limits) const override {
    return std::make_unique<PacketAnswerParser>(limits);
  }
};

// An answer that is one line of JSON (jsonl::LineScanner). Blank lines before it are dropped
// (take_consumed), so a server that keeps the connection alive with them grows nothing; a
// line is at most max_response_size bytes.
class JsonLineAnswerParser final : public AnswerParser {
 public:
  explicit JsonLineAnswerParser(const http::ResponseLimits& limits) : lines_(limits.max_body) {
    response_.status = 200;
    response_.keep_alive = true;
  }
  http::ResponseParseResult parse(std::string_view input, Buffer&) override {
    if (result_.status != http::ParseStatus::Incomplete) return result_;
    jsonl::Found found = lines_.next(input);
    switch (found.scan) {
      case jsonl::Scan::TooLong:
        error_ = "jsonl: an answer line over " + std::to_string(lines_.max_line()) + " bytes";
        return result_ = {http::ParseStatus::Error, 0, http::ResponseError::TooLarge};
      case jsonl::Scan::Incomplete:
        return result_;
      case jsonl::Scan::Line:
        break;
    }
    response_.body = found.line;
    return result_ = {http::ParseStatus::Complete, found.end, http::ResponseError::None};
  }
  http::ResponseParseResult parse_eof(std::string_view input, Buffer& unused) override {
    if (http::ResponseParseResult r = parse(input, unused);
        r.status != http::ParseStatus::Incomplete)
      return r;
    if (input.empty() && !lines_.saw_blank())
      return result_ = {http::ParseStatus::Error, 0, http::ResponseError::NoResponse};
    // What is left after the blank lines: the last line of a server that closes without its
    // newline (whole, or the reader says not), or nothing.
    const std::string_view rest = jsonl::without_cr(input.substr(lines_.take_done()));
    if (jsonl::is_blank(rest)) {
      error_ = "jsonl: the connection closed before the answer";
      return result_ = {http::ParseStatus::Error, 0, http::ResponseError::Truncated};
    }
    response_.body = rest;
    response_.keep_alive = false;
    return result_ = {http::ParseStatus::Complete, input.size(), http::ResponseError::None};
  }
  size_t take_consumed() noexcept override {
    return result_.status == http::ParseStatus::Incomplete ? lines_.take_done() : 0;
  }
  void reset() noexcept override {
    lines_.reset();
    result_ = {};
    response_.body = {};
    response_.keep_alive = true;
    error_.clear();
  }
  bool headers_complete() const noexcept override { return false; }
  const http::Response& response() const noexcept override { return response_; }
  std::string_view error() const noexcept override { return error_; }

 private:
  jsonl::LineScanner lines_;
  http::ResponseParseResult result_;
  http::Response response_;
  std::string error_;
};

// Newline-delimited JSON-RPC: the request document, then a newline; the answer a line; a
// notification gets none. No header fields, credentials or gzip.
class JsonLinesFraming final : public ClientFraming {
 public:
  JsonLinesFraming() noexcept : ClientFraming(transport_of(ConnectionFraming::JsonLines)) {}
  Status append_head(Buffer&, const RequestFacts& facts) const override {
    if (!facts.headers.empty())
      return Error(Errc::InvalidArgument, "header fields cannot travel over JSON lines");
    return Status();
  }
  void finish_request(Buffer& out, size_t) const override { out.append("\n", 1); }
  std::string_view idle_probe() const noexcept override { return "\n"; }  // skipped by JSON lines
  std::unique_ptr<AnswerParser> make_answer_parser(
      const http::ResponseLimits& limits) const override {
    return std::make_unique<JsonLineAnswerParser>(limits);
  }
};

}  // namespace

Result<std::unique_ptr<ClientFraming>> make_client_framing(
    const ClientUrl& url, std::string_view content_type, bool accept_gzip,
    std::string authorization, std::string user_agent,
    std::vector<std::pair<std::string, std::string>> headers, const ProxyRoute* proxy,
    const NotificationHandler* on_notification) {
  // What the transport can carry (kTransports), refused here, once, rather than at each call.
  const Transport& t = transport_of(url.framing);
  // The opening request carries the fields and credentials; the messages after it none.
  if (t.http_upgrade) {
    WebSocketClientSetup setup;
    setup.json_rpc = content_type == "application/json";
    setup.authorization = std::move(authorization);
    setup.user_agent = std::move(user_agent);
    setup.headers = std::move(headers);
    setup.on_notification = on_notification;
    return make_websocket_framing(url, std::move(setup));
  }
  if (on_notification && *on_notification)
    return Error(Errc::InvalidArgument,
                 "notifications from the server (ClientOptions::on_notification) come over "
                 "WebSocket only: use a jsonrpc+ws:// or jsonrpc+wss:// URL");
  const std::string over = " cannot travel over " + std::string(t.name);
  if (!t.carries_fields && (!headers.empty() || !authorization.empty() || !user_agent.empty()))
    return Error(Errc::InvalidArgument, "header fields and credentials" + over);
  if (t.xml_only && content_type != "text/xml")
    return Error(Errc::InvalidArgument, "JSON-RPC" + over + ": it carries XML-RPC only");
  if (t.json_only && content_type != "application/json")
    return Error(Errc::InvalidArgument, "XML-RPC" + over + ": it carries JSON-RPC only");
  if (url.framing == ConnectionFraming::Pstream)
    return std::unique_ptr<ClientFraming>(std::make_unique<PstreamFraming>());
  if (url.framing == ConnectionFraming::JsonLines)
    return std::unique_ptr<ClientFraming>(std::make_unique<JsonLinesFraming>());
  CommonFields common(content_type, accept_gzip, std::move(authorization), std::move(user_agent),
                      std::move(headers));
  if (url.framing == ConnectionFraming::Scgi) {
    // Checked once here too, as for HTTP: a field SCGI cannot carry fails at creation.
    auto framing = std::make_unique<ScgiFraming>(url, std::move(common));
    Buffer probe;
    if (Status s = framing->append_head(probe, {}); !s) return s.error();
    return std::unique_ptr<ClientFraming>(std::move(framing));
  }
  auto framing = std::make_unique<HttpFraming>(url, std::move(common), proxy);
  if (Status s = framing->prepare(); !s) return s.error();
  return std::unique_ptr<ClientFraming>(std::move(framing));
}

}  // namespace callwire::detail
