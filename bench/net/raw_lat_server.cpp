// callwire bench: the floor's server. Accepts connections one at a time; on each, reads
// requests of a known length and answers each with fixed bytes (the response callwire's
// server sends for sample.add, captured by bench/net_run.py). TCP_NODELAY; blocking I/O; no
// parsing. Pairs with raw_lat_client.
//
// Usage: raw_lat_server REQUEST_LENGTH RESPONSE_FILE [HOST]
// Prints "listening on http://HOST:PORT/RPC2" (port 0: the kernel picks one) like
// `callwire serve`, then serves until killed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s REQUEST_LENGTH RESPONSE_FILE [HOST]\n", argv[0]);
    return 2;
  }
  size_t request_length = std::stoul(argv[1]);
  std::ifstream in(argv[2], std::ios::binary);
  std::string response((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const char* host = argc > 3 ? argv[3] : "127.0.0.1";
  if (request_length == 0 || response.empty()) {
    std::fprintf(stderr, "raw_lat_server: empty request length or response\n");
    return 2;
  }

  int listener = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  inet_pton(AF_INET, host, &address.sin_addr);
  socklen_t length = sizeof address;
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(listener, 16) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    std::perror("raw_lat_server");
    return 2;
  }
  std::printf("listening on http://%s:%u/RPC2\n", host, unsigned(ntohs(address.sin_port)));
  std::fflush(stdout);

  std::vector<char> request(request_length);
  for (;;) {
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (bool open = true; open;) {
      for (size_t got = 0; got < request_length;) {
        ssize_t n = ::read(fd, request.data() + got, request_length - got);
        if (n <= 0) {
          open = false;
          break;
        }
        got += size_t(n);
      }
      if (!open) break;
      for (size_t sent = 0; sent < response.size();) {
        ssize_t n = ::write(fd, response.data() + sent, response.size() - sent);
        if (n <= 0) {
          open = false;
          break;
        }
        sent += size_t(n);
      }
    }
    close(fd);
  }
}
