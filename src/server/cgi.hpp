// Internal: CGI (RFC 3875) over any environment and file descriptors, for the tests.
#pragma once

#include "callwire/cgi.hpp"

namespace callwire::detail {

/// serve_cgi with the environment `env` ("NAME=value" strings, null-terminated like
/// `environ`), the body read from `in_fd` and the response written to `out_fd`.
int serve_cgi_on(Registry& registry, const CgiOptions& options, const char* const* env, int in_fd,
                 int out_fd);

}  // namespace callwire::detail
