// Experiment 3 (xmlrpc-c's performance page) over the packet stream: a program that starts,
// makes N sample.add calls with xmlrpc-c's C++ packet-stream client and exits. xmlrpc-c's
// client connects nothing itself: as its pstream_client example, the program opens the TCP
// connection (getaddrinfo, connect, TCP_NODELAY as every client here) and gives the socket to
// one clientXmlTransport_pstream and one client_xml for every call (carriageParm_pstream).
// Every sum is checked; a wrong one exits 1.
//
// Usage: startup_xmlrpc_c_pstream pstream://HOST:PORT N
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/client.hpp>
#include <xmlrpc-c/client_transport.hpp>

namespace {

int connect_to(const std::string& url) {
  const std::string scheme = "pstream://";
  size_t colon = url.rfind(':');
  if (url.compare(0, scheme.size(), scheme) != 0 || colon < scheme.size())
    throw std::runtime_error("pstream://HOST:PORT expected, got " + url);
  std::string host = url.substr(scheme.size(), colon - scheme.size());
  std::string port = url.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw std::runtime_error(std::string("getaddrinfo: ") + gai_strerror(rc));
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) throw std::runtime_error(std::string("connect: ") + std::strerror(errno));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  long n = argc == 3 ? std::strtol(argv[2], nullptr, 10) : 0;
  if (n <= 0) {
    std::fprintf(stderr, "usage: %s pstream://HOST:PORT N\n", argv[0]);
    return 2;
  }
  try {
    int fd = connect_to(argv[1]);
    {
      xmlrpc_c::clientXmlTransport_pstream transport(
          xmlrpc_c::clientXmlTransport_pstream::constrOpt().fd(fd));
      xmlrpc_c::client_xml client(&transport);
      xmlrpc_c::carriageParm_pstream carriage;
      for (int i = 0; i < n; ++i) {
        xmlrpc_c::paramList params;
        params.add(xmlrpc_c::value_int(i));
        params.add(xmlrpc_c::value_int(7));
        xmlrpc_c::rpcPtr rpc("sample.add", params);
        rpc->call(&client, &carriage);
        int sum = xmlrpc_c::value_int(rpc->getResult());
        if (sum != i + 7) {
          std::fprintf(stderr, "startup_xmlrpc_c_pstream: call %d: wrong sum %d\n", i, sum);
          return 1;
        }
      }
    }
    close(fd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "startup_xmlrpc_c_pstream: %s\n", e.what());
    return 1;
  }
  return 0;
}
