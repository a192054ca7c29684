// One XML-RPC or JSON-RPC request as a CGI program (RFC 3875): the meta-variables in, the body on
// standard input, the response on standard output. The web server does the HTTP. What the
// meta-variables say is read by functions without I/O; serve_cgi_on alone reads and writes.
#include "server/cgi.hpp"

#include <cerrno>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "http/gzip.hpp"
#include "http/request_parser.hpp"
#include "http/response_writer.hpp"
#include "http/scgi.hpp"
#include "http/syntax.hpp"
#include "net/file_io.hpp"

namespace callwire {

namespace detail {

namespace {

// The meta-variables a CGI program is given, looked up by name.
struct CgiEnvironment {
  const char* const* env;

  std::optional<std::string_view> find(std::string_view name) const {
    for (const char* const* e = env; e && *e; ++e) {
      std::string_view entry(*e);
      if (entry.size() > name.size() && entry[name.size()] == '=' && entry.starts_with(name))
        return entry.substr(name.size() + 1);
    }
    return std::nullopt;
  }
  std::string_view get(std::string_view name) const { return find(name).value_or(""); }
  bool has(std::string_view name) const { return find(name).has_value(); }
};

// A request refused before it reaches the dispatcher: its status and why.
struct Refusal {
  int status;
  std::string message;
};

// A refusal, as the CGI form of an HTTP error answer.
int refuse(int fd, const Refusal& r, std::span<const http::Header> extra = {}) {
  Buffer out;
  (void)http::append_scgi_error_response(out, r.status, extra, r.message);  // fixed, valid fields
  return net::write_all(fd, out.view()) ? 0 : 1;
}

// Reads exactly `n` bytes; false when the input ends first or fails.
bool read_body(int fd, size_t n, Buffer& body) {
  if (!net::read_exact(fd, body.prepare(n), n)) return false;
  body.commit(n);
  return true;
}

// ---- what the meta-variables say, no I/O ----

// The body's length from CONTENT_LENGTH, within max_body (the method is checked before).
std::variant<uint64_t, Refusal> body_length(const CgiEnvironment& cgi, size_t max_body) {
  if (!cgi.has("CONTENT_LENGTH")) return Refusal{411, "CONTENT_LENGTH is required"};
  std::string_view text = cgi.get("CONTENT_LENGTH");
  uint64_t length = 0;
  if (http::syntax::LengthText t = http::syntax::parse_length(text, length);
      t != http::syntax::LengthText::Ok)
    return Refusal{t == http::syntax::LengthText::TooLarge ? 413 : 400,
                   "CONTENT_LENGTH is not a length: " + std::string(text)};
  if (length > max_body)
    return Refusal{413, "the body of " + std::to_string(length) + " bytes exceeds the limit of " +
                            std::to_string(max_body) + " bytes (max_body)"};
  return length;
}

// The request as the dispatcher reads it: `body`, or it inflated into `inflated` when
// HTTP_CONTENT_ENCODING says gzip.
std::variant<std::string_view, Refusal> request_body(const CgiEnvironment& cgi,
                                                     std::string_view body, size_t max_body,
                                                     Buffer& inflated) {
  std::string_view encoding = cgi.get("HTTP_CONTENT_ENCODING");
  if (encoding.empty() || http::iequals(encoding, "identity")) return body;
  if (!http::iequals(encoding, "gzip"))
    return Refusal{415, "unsupported Content-Encoding: " + std::string(encoding)};
  http::InflateStatus s = http::gzip_inflate(body, inflated, max_body);
  if (s == http::InflateStatus::OverLimit)
    return Refusal{413, "the inflated body exceeds the limit of " + std::to_string(max_body) +
                            " bytes (max_body)"};
  if (s != http::InflateStatus::Ok)
    return Refusal{400, std::string("gzip body: ") + http::inflate_status_name(s)};
  return inflated.view();
}

// What the handlers see of the request's fields: the HTTP_* variables as header fields
// (names in `names`, which the fields point into).
std::vector<HeaderField> header_fields(const char* const* env, std::vector<std::string>& names) {
  std::vector<HeaderField> headers;
  for (const char* const* e = env; e && *e; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = entry.substr(0, eq);
    if (!http::is_cgi_header(name)) continue;
    http::append_cgi_header_name(names.emplace_back(), name);
    headers.push_back({{}, entry.substr(eq + 1)});
  }
  for (size_t i = 0; i < headers.size(); ++i) headers[i].name = names[i];
  return headers;
}

}  // namespace

int serve_cgi_on(Registry& registry, const CgiOptions& options, const char* const* env, int in_fd,
                 int out_fd) {
  CgiEnvironment cgi{env};
  RequestDispatcher dispatcher(registry, options.dispatch);
  if (cgi.get("REQUEST_METHOD") != "POST") {
    const http::Header allow{"Allow", "POST"};
    return refuse(out_fd, {405, "calls are POST requests"}, {&allow, 1});
  }
  std::variant<uint64_t, Refusal> length = body_length(cgi, options.max_body);
  if (auto* r = std::get_if<Refusal>(&length)) return refuse(out_fd, *r);
  Buffer body;
  if (!read_body(in_fd, size_t(std::get<uint64_t>(length)), body))
    return refuse(out_fd, {400, "the body ends before CONTENT_LENGTH bytes"});
  Buffer inflated;
  std::variant<std::string_view, Refusal> request =
      request_body(cgi, body.view(), options.max_body, inflated);
  if (auto* r = std::get_if<Refusal>(&request)) return refuse(out_fd, *r);

  // What the handlers see: the peer as the server shows it, the user the web server
  // authenticated, the header fields the web server passed on.
  std::string peer = http::cgi_peer(cgi.get("REMOTE_ADDR"), cgi.get("REMOTE_PORT"));
  std::vector<std::string> names;
  std::vector<HeaderField> headers = header_fields(env, names);
  CallContext context(peer, cgi.get("REMOTE_USER"), headers);

  // The answer after a gap its head is written into, once its length is known (as the
  // server does): one write, no copy.
  Buffer response;
  response.append(std::string(http::kResponseHeadGap, ' '));
  std::string_view type = dispatcher.dispatch(
      cgi.get("CONTENT_TYPE"), std::get<std::string_view>(request), response, context);
  http::ResponseHead head;
  if (type.empty()) {  // JSON-RPC notifications only: no answer
    head.status = 204;
    head.content_type = {};
  } else {
    head.content_type = type == "text/xml" ? "text/xml; charset=utf-8" : type;
  }
  size_t start = http::place_scgi_response_head(response, http::kResponseHeadGap, head);
  return net::write_all(out_fd, response.view().substr(start)) ? 0 : 1;
}

}  // namespace detail

int serve_cgi(Registry& registry, const CgiOptions& options) {
  return detail::serve_cgi_on(registry, options, net::process_environment(), net::standard_input(),
                              net::standard_output());
}

}  // namespace callwire
