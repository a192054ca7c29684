// One XML-RPC or JSON-RPC request as a CGI program (RFC 3875): the meta-variables in, the body on
// standard input, the response on standard output. The web server does the HTTP.
#include "server/cgi.hpp"

#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/gzip.hpp"
#include "http/request_parser.hpp"
#include "http/response_writer.hpp"
#include "http/scgi.hpp"
#include "http/syntax.hpp"

extern char** environ;

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

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

// A refusal, as the CGI form of an HTTP error answer.
int refuse(int fd, int status, std::string_view message, std::span<const http::Header> extra = {}) {
  Buffer out;
  (void)http::append_scgi_error_response(out, status, extra, message);  // fixed, valid fields
  return write_all(fd, out.view()) ? 0 : 1;
}

// Reads exactly `n` bytes; false when the input ends first or fails.
bool read_body(int fd, size_t n, Buffer& body) {
  char* dst = body.prepare(n);
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, dst + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += size_t(r);
  }
  body.commit(n);
  return true;
}

}  // namespace

int serve_cgi_on(Registry& registry, const CgiOptions& options, const char* const* env, int in_fd,
                 int out_fd) {
  CgiEnvironment cgi{env};
  RequestDispatcher dispatcher(registry, options.dispatch);
  if (cgi.get("REQUEST_METHOD") != "POST") {
    const http::Header allow{"Allow", "POST"};
    return refuse(out_fd, 405, "calls are POST requests", {&allow, 1});
  }
  if (!cgi.has("CONTENT_LENGTH")) return refuse(out_fd, 411, "CONTENT_LENGTH is required");
  std::string_view length_text = cgi.get("CONTENT_LENGTH");
  uint64_t length = 0;
  if (http::syntax::LengthText t = http::syntax::parse_length(length_text, length);
      t != http::syntax::LengthText::Ok)
    return refuse(out_fd, t == http::syntax::LengthText::TooLarge ? 413 : 400,
                  "CONTENT_LENGTH is not a length: " + std::string(length_text));
  if (length > options.max_body)
    return refuse(out_fd, 413,
                  "the body of " + std::to_string(length) + " bytes exceeds the limit of " +
                      std::to_string(options.max_body) + " bytes (max_body)");
  Buffer body;
  if (!read_body(in_fd, length, body))
    return refuse(out_fd, 400, "the body ends before CONTENT_LENGTH bytes");

  std::string_view encoding = cgi.get("HTTP_CONTENT_ENCODING");
  Buffer inflated;
  std::string_view request = body.view();
  if (http::iequals(encoding, "gzip")) {
    http::InflateStatus s = http::gzip_inflate(request, inflated, options.max_body);
    if (s == http::InflateStatus::OverLimit)
      return refuse(out_fd, 413,
                    "the inflated body exceeds the limit of " + std::to_string(options.max_body) +
                        " bytes (max_body)");
    if (s != http::InflateStatus::Ok)
      return refuse(out_fd, 400, std::string("gzip body: ") + http::inflate_status_name(s));
    request = inflated.view();
  } else if (!encoding.empty() && !http::iequals(encoding, "identity")) {
    return refuse(out_fd, 415, "unsupported Content-Encoding: " + std::string(encoding));
  }

  // What the handlers see: the peer as the server shows it, the user the web server
  // authenticated, the header fields the web server passed on.
  std::string peer = http::cgi_peer(cgi.get("REMOTE_ADDR"), cgi.get("REMOTE_PORT"));
  std::vector<std::string> names;
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
  CallContext context(peer, cgi.get("REMOTE_USER"), headers);

  // The answer after a gap its head is written into, once its length is known (as the
  // server does): one write, no copy.
  Buffer response;
  response.append(std::string(http::kResponseHeadGap, ' '));
  std::string_view type = dispatcher.dispatch(cgi.get("CONTENT_TYPE"), request, response, context);
  http::ResponseHead head;
  if (type.empty()) {  // JSON-RPC notifications only: no answer
    head.status = 204;
    head.content_type = {};
  } else {
    head.content_type = type == "text/xml" ? "text/xml; charset=utf-8" : type;
  }
  size_t start = http::place_scgi_response_head(response, http::kResponseHeadGap, head);
  return write_all(out_fd, response.view().substr(start)) ? 0 : 1;
}

}  // namespace detail

int serve_cgi(Registry& registry, const CgiOptions& options) {
  return detail::serve_cgi_on(registry, options, environ, STDIN_FILENO, STDOUT_FILENO);
}

}  // namespace callwire
