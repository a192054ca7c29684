// The opening handshake's values (src/ws/handshake.hpp) and the close codes' validity
// (src/ws/frame.hpp).

#include "ws/handshake.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "ws/frame.hpp"

namespace callwire::ws {
namespace {

TEST(Handshake, AcceptKeyOfTheRfcExample) {
  // RFC 6455 §1.3.
  EXPECT_EQ(accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(Handshake, ClientKeyFromItsNonce) {
  // RFC 6455 §4.1's example: the nonce is "the sample nonce".
  const std::string nonce = "the sample nonce";
  std::array<uint8_t, 16> bytes{};
  std::copy(nonce.begin(), nonce.end(), bytes.begin());
  EXPECT_EQ(make_client_key(bytes), "dGhlIHNhbXBsZSBub25jZQ==");
  std::array<uint8_t, 16> all_ones;
  all_ones.fill(0xff);
  EXPECT_TRUE(is_valid_client_key(make_client_key(all_ones)));
}

TEST(Handshake, ValidAndInvalidClientKeys) {
  EXPECT_TRUE(is_valid_client_key("dGhlIHNhbXBsZSBub25jZQ=="));
  EXPECT_TRUE(is_valid_client_key("AAAAAAAAAAAAAAAAAAAAAA=="));
  for (const char* bad : {
           "",
           "dGhlIHNhbXBsZSBub25jZQ",      // no padding
           "dGhlIHNhbXBsZSBub25jZQ=",     // short padding
           "dGhlIHNhbXBsZSBub25jZR==",    // stray low bits (not canonical)
           "dGhlIHNhbXBsZSBub25j ZQ=",    // white space inside
           " dGhlIHNhbXBsZSBub25jZQ=",    // and before
           "dGhlIHNhbXBsZSBub25jZQ===",   // 25 characters
           "dGhlIHNhbXBsZSBub25jZWE=",    // 17 bytes
           "dGhlIHNhbXBsZSBub25jZQ!=",    // not base64
           "dGhlIHNhbXBsZSBub25jZQ==\n",  // a line end
       })
    EXPECT_FALSE(is_valid_client_key(bad)) << bad;
}

TEST(Handshake, SubprotocolInTheServersOrderOfPreference) {
  const std::string_view supported[] = {"jsonrpc", "xmlrpc"};
  EXPECT_EQ(choose_subprotocol("xmlrpc, jsonrpc", supported), "jsonrpc");
  EXPECT_EQ(choose_subprotocol("xmlrpc", supported), "xmlrpc");
  EXPECT_EQ(choose_subprotocol("  chat ,\txmlrpc  ", supported), "xmlrpc");
  EXPECT_EQ(choose_subprotocol("chat,,xmlrpc", supported), "xmlrpc");
  EXPECT_EQ(choose_subprotocol("chat, superchat", supported), std::nullopt);
  EXPECT_EQ(choose_subprotocol("", supported), std::nullopt);
  EXPECT_EQ(choose_subprotocol("JSONRPC", supported), std::nullopt);  // exact names
  EXPECT_EQ(choose_subprotocol("jsonrpc2", supported), std::nullopt);
  EXPECT_EQ(choose_subprotocol("jsonrpc", {}), std::nullopt);
}

TEST(Handshake, HeaderHasToken) {
  EXPECT_TRUE(header_has_token("keep-alive, Upgrade", "upgrade"));
  EXPECT_TRUE(header_has_token("Upgrade", "upgrade"));
  EXPECT_TRUE(header_has_token("websocket", "WebSocket"));
  EXPECT_TRUE(header_has_token(" ,WEBSOCKET\t, ", "websocket"));
  EXPECT_FALSE(header_has_token("keep-alive", "upgrade"));
  EXPECT_FALSE(header_has_token("Upgrade2, xupgrade", "upgrade"));
  EXPECT_FALSE(header_has_token("", "upgrade"));
  EXPECT_FALSE(header_has_token("websocket/13", "websocket"));
}

TEST(CloseCodes, ValidOnTheWire) {
  for (uint16_t code : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014,
                        3000, 3999, 4000, 4999})
    EXPECT_TRUE(is_valid_close_code(code)) << code;
  // Reserved for reports (1004, 1005, 1006, 1015), unassigned, or out of range.
  for (uint16_t code : {0, 1, 999, 1004, 1005, 1006, 1015, 1016, 1999, 2000, 2999, 5000, 65535})
    EXPECT_FALSE(is_valid_close_code(code)) << code;
}

}  // namespace
}  // namespace callwire::ws
