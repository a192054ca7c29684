// Internal: HTTP Basic authentication (RFC 7617): reading and building the `Authorization`
// value, and building the `WWW-Authenticate` challenge a server sends with a 401.
//
// Stateless functions: thread-safe for distinct outputs; every input is borrowed for the call
// only. They never throw except std::bad_alloc from the output strings.
#pragma once

#include <string>
#include <string_view>

#include "callwire/error.hpp"

namespace callwire::http {

/// A user and password in the clear. The strings keep their storage between calls, so a
/// server that reuses one object per connection does not allocate per request.
struct BasicCredentials {
  std::string user;
  std::string password;
};

/// Parses an `Authorization` field value: "Basic" (any case), one or more spaces, then the
/// base64 (RFC 4648, padding optional) of "user:password". The user ends at the first ':'; the
/// password may contain ':'. White space around the whole value is ignored; none is allowed
/// inside the base64. On success `out` holds the decoded user and password (raw bytes: RFC
/// 7617 suggests UTF-8 but does not require it).
/// Errors (all Errc::InvalidArgument, `out` then unspecified): another scheme ("not Basic
/// authentication"), no credentials after the scheme, a character outside the base64
/// alphabet or a malformed quantum ("credentials are not valid base64"), no ':' in the decoded
/// text, a control character (0x00-0x1f, 0x7f) in the user or the password.
Status parse_basic_auth(std::string_view value, BasicCredentials& out);

/// The `Authorization` value for `user` and `password`: "Basic " + base64("user:password").
/// Errors (Errc::InvalidArgument): a ':' in the user (the password may hold any), a control
/// character in either: they could not be read back.
Result<std::string> make_basic_auth(std::string_view user, std::string_view password);

/// The `WWW-Authenticate` value for a 401: `Basic realm="<realm>", charset="UTF-8"`, with '"'
/// and '\' in the realm escaped as a quoted-string requires (RFC 9110 §5.6.4).
/// Errors (Errc::InvalidArgument): a control character in the realm (it would break the field).
Result<std::string> make_basic_challenge(std::string_view realm);

}  // namespace callwire::http
