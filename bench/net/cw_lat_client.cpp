// callwire bench: round-trip latency of sample.add with the callwire client (synchronous
// calls, one kept-alive connection) against any XML-RPC server, or a JSON-RPC 2.0 one with a
// `jsonrpc+http://` URL.
//
// Usage: cw_lat_client URL [--seconds S | --calls N] [--warmup N] [--server-pid P]
// Prints one JSON line (bench/net/lat_common.hpp). bench/net_run.py pairs it with
// `callwire serve --threads 1` (in both protocols) and with Python's SimpleXMLRPCServer.
#include <array>
#include <cstdio>

#include "callwire/client.hpp"
#include "lat_common.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: %s URL [--seconds S | --calls N] [--warmup N] [--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options options = lat::parse_options(argc, argv, 2);
  auto client = callwire::Client::create(argv[1]);
  if (!client) {
    std::fprintf(stderr, "cw_lat_client: %s\n", client.error().message.c_str());
    return 2;
  }
  // The parameters are built once, as a caller repeating a call would.
  std::array<callwire::Value, 2> params{callwire::Value(2), callwire::Value(3)};
  return lat::run("callwire", options, [&] {
    auto result = client->call("sample.add", params);
    if (!result) {
      std::fprintf(stderr, "cw_lat_client: %s\n", result.error().message.c_str());
      return false;
    }
    return result->try_as_i8() == 5;
  });
}
