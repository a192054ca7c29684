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
// Methods: sample.add (int, int -> int), echo (its first parameter), sample.fault (always fault
// 42), connections (how many connections it has accepted, this one included).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xmlrpc-c/base.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/registry.hpp>
#include <xmlrpc-c/server_pstream.hpp>

namespace {

int accepted = 0;

class AddMethod : public xmlrpc_c::method {
 public:
  AddMethod() { _signature = "i:ii"; }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int a = params.getInt(0);
    int b = params.getInt(1);
    params.verifyEnd(2);
    *result = xmlrpc_c::value_int(a + b);
  }
};

class EchoMethod : public xmlrpc_c::method {
 public:
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    *result = params[0];
  }
};

class FaultMethod : public xmlrpc_c::method {
 public:
  void execute(const xmlrpc_c::paramList&, xmlrpc_c::value*) override {
    throw xmlrpc_c::fault("the answer is a fault", static_cast<xmlrpc_c::fault::code_t>(42));
  }
};

class ConnectionsMethod : public xmlrpc_c::method {
 public:
  void execute(const xmlrpc_c::paramList&, xmlrpc_c::value* result) override {
    *result = xmlrpc_c::value_int(accepted);
  }
};

void on_term(int) { _exit(0); }

}  // namespace

int main() {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGTERM, on_term);
  alarm(300);  // never outlive a broken test run
  // xmlrpc-c refuses XML over 512 KiB by default (a process-wide limit); the 4 MiB echo is
  // about 5.6 MB of XML each way.
  xmlrpc_limit_set(XMLRPC_XML_SIZE_LIMIT_ID, 64 << 20);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener, 16) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("xmlrpc_c_pstream_server: socket");
    return 1;
  }
  xmlrpc_c::registry registry;
  registry.addMethod("sample.add", xmlrpc_c::methodPtr(new AddMethod));
  registry.addMethod("echo", xmlrpc_c::methodPtr(new EchoMethod));
  registry.addMethod("sample.fault", xmlrpc_c::methodPtr(new FaultMethod));
  registry.addMethod("connections", xmlrpc_c::methodPtr(new ConnectionsMethod));
  std::printf("listening on pstream://127.0.0.1:%u\n", unsigned(ntohs(addr.sin_port)));
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
