// What the xmlrpc-c peers share: a loopback listening socket on a port the kernel picks (handed
// to Abyss with constrOpt's socketFd, so there is no window for another process to take it),
// and the ceiling on XML size raised from 512 KiB.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xmlrpc-c/base.h>

#include <cstdio>
#include <cstdlib>

namespace peers::xmlrpc_c_peer {

// The limit is process-wide in xmlrpc-c (client and server alike).
inline void raise_xml_size_limit(size_t bytes) {
  xmlrpc_limit_set(XMLRPC_XML_SIZE_LIMIT_ID, bytes);
}

// Returns the listening socket and sets `port`; exits on failure.
inline int listen_on_loopback(unsigned& port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 64) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("xmlrpc-c peer: socket");
    std::exit(1);
  }
  port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace peers::xmlrpc_c_peer
