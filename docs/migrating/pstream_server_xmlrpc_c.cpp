// Before: an inetd-style xmlrpc-c packet-stream server: it serves the one connection it is
// given as standard input (inetd, or systemd with Accept=yes), until the client closes it.
// Compiled by `make test`.
#include <unistd.h>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/registry.hpp>
#include <xmlrpc-c/server_pstream.hpp>

#include <cstdio>
#include <exception>

class SampleAdd : public xmlrpc_c::method {
 public:
  SampleAdd() { _signature = "i:ii"; }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int a = params.getInt(0), b = params.getInt(1);
    params.verifyEnd(2);
    *result = xmlrpc_c::value_int(a + b);
  }
};

int main() {
  try {
    xmlrpc_c::registry registry;
    registry.addMethod("sample.add", xmlrpc_c::methodPtr(new SampleAdd));
    xmlrpc_c::serverPstreamConn server(
        xmlrpc_c::serverPstreamConn::constrOpt().socketFd(STDIN_FILENO).registryP(&registry));
    server.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
