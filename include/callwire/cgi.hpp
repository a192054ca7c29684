// callwire: serving XML-RPC as a CGI program, under any web server that runs CGI programs
// (lighttpd's mod_cgi, Apache's mod_cgi, nginx with fcgiwrap).
#pragma once

#include <cstddef>

#include "callwire/dispatch.hpp"
#include "callwire/export.hpp"
#include "callwire/registry.hpp"

namespace callwire {

struct CgiOptions {
  DispatcherOptions dispatch;  ///< limits, dialect, introspection, multicall, call timeout
  /// The request body, before or after gzip; larger ones are answered 413 unread.
  size_t max_body = size_t{32} << 20;
};

/// Serves the one request of a CGI invocation: reads the CGI environment (REQUEST_METHOD,
/// CONTENT_LENGTH, REMOTE_ADDR, REMOTE_PORT, REMOTE_USER and the HTTP_* header fields, which
/// handlers see as CallContext::peer(), user() and headers()), reads the body from standard
/// input and writes the CGI response to standard output: `Status: 200 OK`, `Content-Type:
/// text/xml` and the response document (a result or a fault). Refused before dispatch: 405
/// for any method but POST (with `Allow: POST`), 411 without CONTENT_LENGTH, 400 for a bad
/// one or a body that ends short, 413 past max_body, 415 for a Content-Encoding other than
/// gzip or identity. A gzipped body is inflated (up to max_body).
///
/// Returns 0 once a response is written (a fault and a 4xx are responses), 1 when standard
/// output cannot be written. Freezes `registry`. Never throws except std::bad_alloc.
CALLWIRE_API int serve_cgi(Registry& registry, const CgiOptions& options = {});

}  // namespace callwire
