// Unit tests of Basic authentication: RFC 7617's example, real clients' values, every
// refusal, round trips, and the 401 challenge.

#include "http/basic_auth.hpp"

#include <gtest/gtest.h>

#include <string>

namespace callwire::http {
namespace {

// "ok:" + user + "/" + password, or "error: " + message.
std::string parse(std::string_view value) {
  BasicCredentials c;
  Status st = parse_basic_auth(value, c);
  if (!st.ok()) {
    EXPECT_EQ(st.error().code, Errc::InvalidArgument);
    return "error: " + st.error().message;
  }
  return "ok:" + c.user + "/" + c.password;
}

TEST(BasicAuth, Rfc7617Example) {
  // RFC 7617 §2: Aladdin / open sesame.
  EXPECT_EQ(parse("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="), "ok:Aladdin/open sesame");
}

TEST(BasicAuth, RealClients) {
  // xmlrpc-c's curl transport and Python's xmlrpc.client (http://user:pass@host/).
  EXPECT_EQ(parse("Basic dXNlcjpwYXNz"), "ok:user/pass");
  // supervisord's default user.
  EXPECT_EQ(parse("Basic dXNlcjoxMjM="), "ok:user/123");
}

TEST(BasicAuth, SchemeCaseAndSpaces) {
  EXPECT_EQ(parse("basic dXNlcjpwYXNz"), "ok:user/pass");
  EXPECT_EQ(parse("BASIC dXNlcjpwYXNz"), "ok:user/pass");
  EXPECT_EQ(parse("bAsIc    dXNlcjpwYXNz"), "ok:user/pass");
  EXPECT_EQ(parse("  Basic dXNlcjpwYXNz \t"), "ok:user/pass");
}

TEST(BasicAuth, PasswordMayHoldColonsAndEmptyParts) {
  auto value = [](std::string u, std::string p) {
    Result<std::string> r = make_basic_auth(u, p);
    EXPECT_TRUE(r.ok());
    return *r;
  };
  EXPECT_EQ(parse(value("u", "a:b:c")), "ok:u/a:b:c");
  EXPECT_EQ(parse(value("", "")), "ok:/");
  EXPECT_EQ(parse(value("", "p")), "ok:/p");
  EXPECT_EQ(parse(value("u", "")), "ok:u/");
  // UTF-8 (RFC 7617 charset) passes through as bytes.
  EXPECT_EQ(parse(value("test", "123\xc2\xa3")), "ok:test/123\xc2\xa3");
  // RFC 7617 §2.1's example: "test" / "123£" in UTF-8.
  EXPECT_EQ(parse("Basic dGVzdDoxMjPCow=="), "ok:test/123\xc2\xa3");
}

TEST(BasicAuth, PaddingOptional) {
  EXPECT_EQ(parse("Basic dXNlcjoxMjM"), "ok:user/123");
  EXPECT_EQ(parse("Basic YTpi"), "ok:a/b");
  EXPECT_EQ(parse("Basic YTpiYw"), "ok:a/bc");
  EXPECT_EQ(parse("Basic YTpiYw="), "ok:a/bc");
}

TEST(BasicAuth, Refusals) {
  EXPECT_EQ(parse("Bearer abc"), "error: not Basic authentication");
  EXPECT_EQ(parse("Digest username=\"u\""), "error: not Basic authentication");
  EXPECT_EQ(parse("Basi"), "error: not Basic authentication");
  EXPECT_EQ(parse(""), "error: not Basic authentication");
  EXPECT_EQ(parse("BasicdXNlcjpwYXNz"), "error: not Basic authentication");
  EXPECT_EQ(parse("Basic"), "error: no credentials after Basic");
  EXPECT_EQ(parse("Basic   "), "error: no credentials after Basic");
  EXPECT_EQ(parse("Basic\tdXNlcjpwYXNz"), "error: not Basic authentication");
  // Not base64.
  EXPECT_EQ(parse("Basic dXNl cjpwYXNz"), "error: credentials are not valid base64");
  EXPECT_EQ(parse("Basic dXNlcjpwYXNz\r\n"), "error: credentials are not valid base64");
  EXPECT_EQ(parse("Basic dXNlcjpwYXNz!"), "error: credentials are not valid base64");
  EXPECT_EQ(parse("Basic dXNl-jpwYXNz"), "error: credentials are not valid base64");
  EXPECT_EQ(parse("Basic dXNlc"), "error: credentials are not valid base64");  // 1 mod 4
  EXPECT_EQ(parse("Basic dX=lcjpw"), "error: credentials are not valid base64");
  EXPECT_EQ(parse("Basic ="), "error: credentials are not valid base64");
  EXPECT_EQ(parse("Basic dXNlcjpwYXNz dXNl"), "error: credentials are not valid base64");
  // No colon: base64("userpass").
  EXPECT_EQ(parse("Basic dXNlcnBhc3M="), "error: no ':' between user and password");
  // Control characters: "us\ter:pass", "user:pa\0ss", "user:pass\x7f", "user:\r\n".
  EXPECT_EQ(parse("Basic dXMJZXI6cGFzcw=="), "error: control character in the credentials");
  EXPECT_EQ(parse("Basic dXNlcjpwYQBzcw=="), "error: control character in the credentials");
  EXPECT_EQ(parse("Basic dXNlcjpwYXNzfw=="), "error: control character in the credentials");
  EXPECT_EQ(parse("Basic dXNlcjoNCg=="), "error: control character in the credentials");
}

TEST(BasicAuth, Build) {
  Result<std::string> r = make_basic_auth("Aladdin", "open sesame");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  r = make_basic_auth("a:b", "p");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
  EXPECT_FALSE(make_basic_auth("u", "p\r\nX-Injected: 1").ok());
  EXPECT_FALSE(make_basic_auth("u\n", "p").ok());
  EXPECT_FALSE(make_basic_auth(std::string("u\0", 2), "p").ok());
}

TEST(BasicAuth, RoundTripAllPrintableBytes) {
  std::string password;
  for (int c = 0x20; c < 0x7f; ++c) password.push_back(char(c));
  for (int c = 0x80; c < 0x100; ++c) password.push_back(char(c));
  for (size_t n = 0; n <= password.size(); n += 7) {
    Result<std::string> r = make_basic_auth("me", password.substr(0, n));
    ASSERT_TRUE(r.ok());
    BasicCredentials c;
    ASSERT_TRUE(parse_basic_auth(*r, c).ok()) << n;
    EXPECT_EQ(c.user, "me");
    EXPECT_EQ(c.password, password.substr(0, n));
  }
}

TEST(BasicAuth, ReusedCredentialsObject) {
  BasicCredentials c;
  ASSERT_TRUE(parse_basic_auth("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", c).ok());
  ASSERT_TRUE(parse_basic_auth("Basic YTpi", c).ok());
  EXPECT_EQ(c.user, "a");
  EXPECT_EQ(c.password, "b");
}

TEST(BasicAuth, Challenge) {
  Result<std::string> r = make_basic_challenge("callwire");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "Basic realm=\"callwire\", charset=\"UTF-8\"");
  r = make_basic_challenge("say \"hi\" \\o/");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "Basic realm=\"say \\\"hi\\\" \\\\o/\", charset=\"UTF-8\"");
  EXPECT_FALSE(make_basic_challenge("a\r\nSet-Cookie: x").ok());
  EXPECT_FALSE(make_basic_challenge(std::string("a\0", 2)).ok());
}

}  // namespace
}  // namespace callwire::http
