// xmlrpc-c's C++ packet-stream server (xmlrpc_c::serverPstreamConn over each accepted socket,
// in libxmlrpc_server_pstream++): the peer of callwire's pstream client in
// test_xmlrpc_c_pstream_server.py.
//
// Usage: xmlrpc_c_pstream_server
//
// Binds 127.0.0.1 port 0, prints "listening on pstream://127.0.0.1:PORT" and flushes, then
// serves one connection at a time, as xmlrpc-c's serverPstream does, each until its client
// closes. SIGTERM ends it with exit status 0.
//
// Methods: xmlrpc_c_peer.hpp's (sample.add, echo: its parameters as an array, sample.fault:
// always fault 42), and connections (how many connections it has accepted, this one included).
#include <sys/socket.h>
#include <unistd.h>
#include <xmlrpc-c/base.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/registry.hpp>
#include <xmlrpc-c/server_pstream.hpp>

#include "xmlrpc_c_peer.hpp"

namespace {

int accepted = 0;

class ConnectionsMethod : public xmlrpc_c::method {
 public:
  void execute(const xmlrpc_c::paramList&, xmlrpc_c::value* result) override {
    *result = xmlrpc_c::value_int(accepted);
  }
};

}  // namespace

int main() {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGTERM, interop::exit_on_term);
  alarm(300);  // never outlive a broken test run
  // xmlrpc-c refuses XML over 512 KiB by default (a process-wide limit); the 4 MiB echo is
  // about 5.6 MB of XML each way.
  xmlrpc_limit_set(XMLRPC_XML_SIZE_LIMIT_ID, 64 << 20);
  uint16_t port = 0;
  int listener = interop::listen_on_loopback("xmlrpc_c_pstream_server", port);
  if (listener < 0) return 1;
  xmlrpc_c::registry registry;
  interop::add_methods(registry);
  registry.addMethod("connections", xmlrpc_c::methodPtr(new ConnectionsMethod));
  std::printf("listening on pstream://127.0.0.1:%u\n", unsigned(port));
  std::fflush(stdout);
  for (;;) {
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    ++accepted;
    try {
      xmlrpc_c::serverPstreamConn server(
          xmlrpc_c::serverPstreamConn::constrOpt().socketFd(fd).registryP(&registry));
      server.run();  // until the client closes
    } catch (const std::exception& e) {
      std::fprintf(stderr, "xmlrpc_c_pstream_server: connection %d: %s\n", accepted, e.what());
    }
    close(fd);
  }
}
