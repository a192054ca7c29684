// callwire bench: xmlrpc-c's C++ packet-stream server with sample.add: serverPstreamConn (in
// libxmlrpc_server_pstream++) over each accepted TCP connection, one connection at a time, as
// xmlrpc-c's own serverPstream does. The peer of xmlrpc_c_pstream_lat_client in
// bench/net_run.py and of startup_xmlrpc_c_pstream in bench/startup.py.
//
// Usage: xmlrpc_c_pstream_server
// Listens on 127.0.0.1 on a port the kernel picks, prints "listening on
// pstream://127.0.0.1:PORT" like `callwire serve --pstream`, serves until killed. TCP_NODELAY
// on each connection, as every server of these benchmarks (xmlrpc-c leaves the socket as it
// is given).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/registry.hpp>
#include <xmlrpc-c/server_pstream.hpp>

namespace {

class SampleAdd : public xmlrpc_c::method {
 public:
  SampleAdd() { this->_signature = "i:ii"; }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int a = params.getInt(0), b = params.getInt(1);
    params.verifyEnd(2);
    *result = xmlrpc_c::value_int(a + b);
  }
};

}  // namespace

int main() {
  std::signal(SIGPIPE, SIG_IGN);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(listener, 16) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    std::perror("xmlrpc_c_pstream_server");
    return 2;
  }
  xmlrpc_c::registry registry;
  registry.addMethod("sample.add", xmlrpc_c::methodPtr(new SampleAdd));
  std::printf("listening on pstream://127.0.0.1:%u\n", unsigned(ntohs(address.sin_port)));
  std::fflush(stdout);

  int one = 1;
  for (;;) {
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    try {
      xmlrpc_c::serverPstreamConn server(
          xmlrpc_c::serverPstreamConn::constrOpt().socketFd(fd).registryP(&registry));
      server.run();  // until the client closes
    } catch (const std::exception& e) {
      std::fprintf(stderr, "xmlrpc_c_pstream_server: %s\n", e.what());
    }
    close(fd);
  }
}
