// After: the same inetd-style server with callwire: the registry is the server's, and
// serve_connection serves standard input in the packet-stream framing. (To listen instead,
// give ServerOptions::listen a "pstream://HOST:PORT" address: many connections at once.)
// Compiled by `make test`.
#include <unistd.h>

#include <callwire/server.hpp>
#include <cstdio>

int main() {
  callwire::Server server;
  if (auto bound = server.bind("sample.add", [](int a, int b) { return a + b; }); !bound) {
    std::fprintf(stderr, "%s\n", bound.error().message.c_str());
    return 1;
  }
  callwire::Status served =
      server.serve_connection(STDIN_FILENO, callwire::ConnectionFraming::Pstream);
  if (!served) {
    std::fprintf(stderr, "%s\n", served.error().message.c_str());
    return 1;
  }
}
