// Before: sample.add(5, 3) over xmlrpc-c's packet stream. xmlrpc-c's transport takes a socket
// the program has connected itself, and carries one call at a time. Compiled by `make test`.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/client.hpp>
#include <xmlrpc-c/client_transport.hpp>

#include <cstdio>
#include <exception>

int main() {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(8080);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("connect");
    return 1;
  }
  try {
    xmlrpc_c::clientXmlTransport_pstream transport(
        xmlrpc_c::clientXmlTransport_pstream::constrOpt().fd(fd));
    xmlrpc_c::client_xml client(&transport);
    xmlrpc_c::paramList params;
    params.add(xmlrpc_c::value_int(5));
    params.add(xmlrpc_c::value_int(3));
    xmlrpc_c::rpcPtr rpc("sample.add", params);
    xmlrpc_c::carriageParm_pstream carriage;
    rpc->call(&client, &carriage);
    std::printf("%d\n", static_cast<int>(xmlrpc_c::value_int(rpc->getResult())));
  } catch (const std::exception& e) {  // faults and transport errors alike
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  close(fd);
}
