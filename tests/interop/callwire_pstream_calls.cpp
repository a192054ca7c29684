// callwire's Client calling a packet-stream server through one connection, step by step, for
// test_xmlrpc_c_pstream_server.py (xmlrpc-c's serverPstreamConn on the other end): one line per
// step on standard output, exit status 0 when every step went as expected.
//
// Usage: callwire_pstream_calls pstream://HOST:PORT
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "callwire/client.hpp"

using namespace callwire;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s pstream://HOST:PORT\n", argv[0]);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each step as it happens
  ClientOptions options;
  options.timeout = std::chrono::seconds(60);
  Result<Client> made = Client::create(argv[1], options);
  if (!made) {
    std::fprintf(stderr, "%s\n", made.error().message.c_str());
    return 1;
  }
  Client& client = *made;
  int failures = 0;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "%s\n", why.c_str());
    ++failures;
  };

  if (Result<int> r = client.call<int>("sample.add", 3, 5); r)
    std::printf("add %d\n", *r);
  else
    fail("sample.add: " + r.error().message);

  if (Result<int> r = client.call<int>("sample.fault"); !r && r.error().code == Errc::Fault)
    std::printf("fault %d %s\n", r.error().fault_code, r.error().message.c_str());
  else
    fail("sample.fault did not fault");

  // 4 MiB with many 0x1B bytes: base64 carries them, so no packet holds one.
  std::vector<uint8_t> blob(4 << 20);
  size_t escapes = 0;
  for (size_t i = 0; i < blob.size(); ++i) {
    blob[i] = i % 3 == 0 ? 0x1B : uint8_t(i * 7);
    escapes += blob[i] == 0x1B;
  }
  // echo answers its parameters as an array.
  Result<Value> r = client.call("echo", {Value::bytes(blob)});
  if (r && r->is_array() && r->size() == 1 && (*r)[0].is_bytes()) {
    std::span<const uint8_t> back = (*r)[0].as_bytes();
    bool same = std::equal(back.begin(), back.end(), blob.begin(), blob.end());
    std::printf("echo base64 %s %zu bytes %zu ESC\n", same ? "identical" : "different", back.size(),
                escapes);
  } else {
    fail("echo base64: " + (r ? std::string("not an array of bytes") : r.error().message));
  }

  int right = 0;
  for (int i = 0; i < 50; ++i)
    if (Result<int> r = client.call<int>("sample.add", i, i); r && *r == 2 * i) ++right;
  std::printf("sequential %d of 50\n", right);

  // No async calls: callwire's async engine has connections of its own, and xmlrpc-c's server
  // serves one connection at a time, so a second one waits until this one closes.

  if (Result<int> r = client.call<int>("connections"); r)
    std::printf("connections %d\n", *r);
  else
    fail("connections: " + r.error().message);
  return failures ? 1 : 0;
}
