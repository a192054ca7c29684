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

namespace {

class AddMethod : public xmlrpc_c::method {
 public:
  AddMethod() {
    _signature = "i:ii";
    _help = "Adds two 32-bit integers.";
  }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int a = params.getInt(0);
    int b = params.getInt(1);
    params.verifyEnd(2);
    *result = xmlrpc_c::value_int(a + b);
  }
};

class EchoMethod : public xmlrpc_c::method {
 public:
  EchoMethod() {
    _signature = "?";  // any parameters
    _help = "Returns its parameters as an array.";
  }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    std::vector<xmlrpc_c::value> items;
    for (unsigned i = 0; i < params.size(); ++i) items.push_back(params[i]);
    *result = xmlrpc_c::value_array(items);
  }
};

class FaultMethod : public xmlrpc_c::method {
 public:
  FaultMethod() {
    _signature = "i:";
    _help = "Always answers fault 42.";
  }
  void execute(const xmlrpc_c::paramList&, xmlrpc_c::value*) override {
    throw xmlrpc_c::fault("the fault you asked for", static_cast<xmlrpc_c::fault::code_t>(42));
  }
};

extern "C" void on_term(int) { _exit(0); }

}  // namespace

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

  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 64) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("xmlrpc_c_server: socket");
    return 1;
  }

  try {
    xmlrpc_c::registry registry;
    if (apache) registry.setDialect(xmlrpc_dialect_apache);
    registry.addMethod("sample.add", xmlrpc_c::methodPtr(new AddMethod));
    registry.addMethod("echo", xmlrpc_c::methodPtr(new EchoMethod));
    registry.addMethod("sample.fault", xmlrpc_c::methodPtr(new FaultMethod));

    xmlrpc_c::serverAbyss server(
        xmlrpc_c::serverAbyss::constrOpt().registryP(&registry).socketFd(fd).serverOwnsSignals(
            false));  // Abyss's own SIGTERM handler would print and exit non-zero
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGTERM, on_term);
    std::printf("listening on http://127.0.0.1:%u/RPC2\n", unsigned(ntohs(addr.sin_port)));
    std::fflush(stdout);
    server.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xmlrpc_c_server: %s\n", e.what());
    return 1;
  }
  return 0;
}
