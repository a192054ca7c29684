// BodyRules: the one place HTTP/1.1's framing fields are judged, for requests and responses.
#include "http/body_rules.hpp"

#include <gtest/gtest.h>

namespace callwire::http {
namespace {

TEST(BodyRules, ContentLengthOnceAndDigitsOnly) {
  BodyRules r;
  EXPECT_TRUE(r.content_length("12"));
  EXPECT_EQ(r.length(), 12u);
  EXPECT_FALSE(r.content_length("12"));  // repeated, even with the same value
  BodyRules bad;
  EXPECT_FALSE(bad.content_length("+12"));
  EXPECT_FALSE(bad.length());
}

TEST(BodyRules, TransferEncodingIsChunkedOnceOrRefused) {
  BodyRules both;
  both.transfer_encoding("chunked");
  ASSERT_TRUE(both.content_length("3"));
  EXPECT_EQ(both.ruling(true), BodyRuling::LengthAndChunked);

  BodyRules old;
  old.transfer_encoding("chunked");
  EXPECT_EQ(old.ruling(false), BodyRuling::ChunkedBeforeHttp11);

  BodyRules twice;  // two fields form one list: "chunked, chunked"
  twice.transfer_encoding("chunked");
  twice.transfer_encoding("chunked");
  EXPECT_EQ(twice.ruling(true), BodyRuling::NotOnlyChunked);

  BodyRules gzip;
  gzip.transfer_encoding("gzip, chunked");
  EXPECT_EQ(gzip.ruling(true), BodyRuling::NotOnlyChunked);

  BodyRules ok;
  ok.transfer_encoding("Chunked");
  EXPECT_EQ(ok.ruling(true), BodyRuling::Ok);
  EXPECT_TRUE(ok.chunked());
  ok.reset();
  EXPECT_FALSE(ok.chunked());
}

TEST(BodyRules, KeepAliveByVersionAndConnection) {
  BodyRules none;
  EXPECT_TRUE(none.keep_alive(true));
  EXPECT_FALSE(none.keep_alive(false));
  BodyRules close;
  close.connection("Keep-Alive, close");
  EXPECT_FALSE(close.keep_alive(true));
  EXPECT_FALSE(close.keep_alive(false));
  BodyRules keep;
  keep.connection("upgrade, keep-alive");
  EXPECT_TRUE(keep.keep_alive(false));
}

TEST(BodyRules, ContentEncodingOnce) {
  BodyRules r;
  EXPECT_TRUE(r.content_encoding("x-gzip"));
  EXPECT_TRUE(r.gzip());
  EXPECT_FALSE(r.content_encoding("gzip"));
  BodyRules identity;
  EXPECT_TRUE(identity.content_encoding("identity"));
  EXPECT_FALSE(identity.gzip());
}

}  // namespace
}  // namespace callwire::http
