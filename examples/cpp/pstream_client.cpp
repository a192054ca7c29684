// pstream_client: calls sample.add(5, 7) over xmlrpc-c's packet stream (XML-RPC without HTTP,
// docs/pstream.md) and prints the sum: callwire's take on xmlrpc-c's pstream_client.
//
//   pstream_client URL        e.g. pstream://127.0.0.1:8080 or pstream+unix:/run/app.sock
//   pstream_client -          over the connected socket on standard input
//
// xmlrpc-c's client is handed a connected socket on standard input (by socketexec): with "-"
// callwire's is too (Client::adopt); with a URL it connects itself and keeps the connection
// for later calls. Serve it with `callwire serve --pstream 127.0.0.1:8080` or
// pstream_inetd_server under inetd.
// Exits 0 and prints "12" on success; on any failure it prints why and exits 1.
#include <unistd.h>

#include <callwire/client.hpp>
#include <cstdio>
#include <string_view>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s pstream://HOST:PORT | pstream+unix:PATH | -\n", argv[0]);
    return 2;
  }
  auto client = std::string_view(argv[1]) == "-"
                    ? callwire::Client::adopt(STDIN_FILENO, callwire::ConnectionFraming::Pstream)
                    : callwire::Client::create(argv[1]);
  if (!client) {
    std::fprintf(stderr, "%s\n", client.error().message.c_str());
    return 1;
  }
  // One packet out, one packet back; a fault or a broken stream comes back as the error.
  callwire::Result<int> sum = client->call<int>("sample.add", 5, 7);
  if (!sum) {
    std::fprintf(stderr, "sample.add failed: %s\n", sum.error().message.c_str());
    return 1;
  }
  std::printf("%d\n", *sum);
  return 0;
}
