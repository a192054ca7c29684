#include "server/framing.hpp"

#include "http/scgi.hpp"

namespace callwire::detail {

namespace {

class HttpFraming final : public RequestFraming {
 public:
  explicit HttpFraming(const http::RequestLimits& limits) : parser_(limits) {}
  http::ParseResult parse(std::string_view input, Buffer& chunked_body) override {
    return parser_.parse(input, chunked_body);
  }
  void reset() noexcept override { parser_.reset(); }
  bool headers_complete() const noexcept override { return parser_.headers_complete(); }
  const http::Request& request() const noexcept override { return parser_.request(); }
  size_t place_head(Buffer& out, size_t body_offset, const http::ResponseHead& head) override {
    return http::place_response_head(out, body_offset, head);
  }
  void append_error(Buffer& out, int status, std::span<const http::Header> extra,
                    std::string_view date) override {
    http::append_error_response(out, status, extra, date);
  }

 private:
  http::RequestParser parser_;
};

class ScgiFraming final : public RequestFraming {
 public:
  explicit ScgiFraming(const http::RequestLimits& limits) : parser_(limits) {}
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
    http::append_scgi_error_response(out, status, extra);
  }
  std::string gateway_peer() const override {
    return http::cgi_peer(parser_.variable("REMOTE_ADDR"), parser_.variable("REMOTE_PORT"));
  }
  std::string_view gateway_user() const override { return parser_.variable("REMOTE_USER"); }

 private:
  http::ScgiRequestParser parser_;
};

}  // namespace

std::unique_ptr<RequestFraming> make_framing(FramingKind kind, const http::RequestLimits& limits) {
  if (kind == FramingKind::Scgi) return std::make_unique<ScgiFraming>(limits);
  return std::make_unique<HttpFraming>(limits);
}

std::string_view over_capacity_answer(FramingKind kind) noexcept {
  if (kind == FramingKind::Scgi)
    return "Status: 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n";
  return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n"
         "Retry-After: 1\r\n\r\n";
}

}  // namespace callwire::detail
