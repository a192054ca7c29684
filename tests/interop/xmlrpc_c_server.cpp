// A tiny XML-RPC server built on xmlrpc-c's C++ API and its Abyss HTTP server: the peer that
// the interop tests point `callwire call` and `callwire list` at.
//
// Usage: xmlrpc_c_server [--apache]
//   --apache   answer in xmlrpc-c's Apache dialect (<ex:i8>, <ex:nil/>)
//
// It binds 127.0.0.1 port 0 itself and hands the listening socket to Abyss (constrOpt's
// socketFd), so there is no window in which another process could take the port. Once the
// socket listens it prints "listening on http://127.0.0.1:PORT/RPC2" and flushes; SIGTERM ends it
// with exit status 0.
//
// Methods: sample.add (int, int -> int), echo (its parameters as an array), sample.fault (always
// fault 42), and xmlrpc-c's own system.* methods (listMethods, methodSignature, methodHelp,
// multicall, ...).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/registry.hpp>
#include <xmlrpc-c/server_abyss.hpp>

#include "xmlrpc_c_peer.hpp"

int main(int argc, char** argv) {
  bool apache = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--apache") == 0) {
      apache = true;
    } else {
      std::fprintf(stderr, "usage: %s [--apache]\n", argv[0]);
      return 2;
    }
  }

  uint16_t port = 0;
  int fd = interop::listen_on_loopback("xmlrpc_c_server", port);
  if (fd < 0) return 1;

  try {
    xmlrpc_c::registry registry;
    if (apache) registry.setDialect(xmlrpc_dialect_apache);
    interop::add_methods(registry);

    xmlrpc_c::serverAbyss server(
        xmlrpc_c::serverAbyss::constrOpt().registryP(&registry).socketFd(fd).serverOwnsSignals(
            false));  // Abyss's own SIGTERM handler would print and exit non-zero
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGTERM, interop::exit_on_term);
    std::printf("listening on http://127.0.0.1:%u/RPC2\n", unsigned(port));
    std::fflush(stdout);
    server.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xmlrpc_c_server: %s\n", e.what());
    return 1;
  }
  return 0;
}
