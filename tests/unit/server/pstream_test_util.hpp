// Helpers for the packet-stream end-to-end tests (pstream_server_test.cpp,
// adopted_connection_test.cpp): packets and calls in raw bytes, answers decoded and read.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "callwire/xml.hpp"
#include "http_test_util.hpp"
#include "pstream/pstream.hpp"

namespace callwire::testing {

inline std::string packet(std::string_view payload) {
  Buffer b;
  pstream::append_packet(b, payload);
  return std::string(b.view());
}

inline std::string call(std::string_view method, std::vector<Value> params) {
  Buffer b;
  EXPECT_TRUE(xml::write_call(b, method, params));
  return std::string(b.view());
}

/// The answers in `bytes`, decoded and read; stops at the first incomplete one.
inline std::vector<MethodResponse> responses(std::string_view bytes) {
  pstream::Decoder decoder(1 << 24);
  xml::Reader reader;
  std::vector<MethodResponse> out;
  for (;;) {
    Result<pstream::Decoded> d = decoder.decode(bytes);
    EXPECT_TRUE(d) << d.error().message;
    if (!d || !d->packet) return out;
    Result<MethodResponse> r = reader.read_response(d->payload);
    EXPECT_TRUE(r) << r.error().message;
    if (r) out.push_back(std::move(*r));
    bytes.remove_prefix(d->consumed);
  }
}

/// Reads from `s` until `count` answers have come (or the peer closes, or 5 s pass).
inline std::string read_packets(RawSocket& s, size_t count) {
  return s.read_until([count](const std::string& got) { return responses(got).size() >= count; });
}

}  // namespace callwire::testing
