// callwire bench: the floor's server. Accepts connections one at a time; on each, reads
// requests of a known length and answers each with fixed bytes (the response callwire's
// server sends for sample.add, captured by bench/net_run.py). TCP_NODELAY; blocking I/O; no
// parsing. Pairs with raw_lat_client, and with bench/peers/raw/pipeline_client (many
// requests in flight): whatever whole requests one read brings are answered with one write,
// as a server that handles pipelining well does; one request at a time is one read and one
// write.
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
#include <cstring>
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

  std::vector<char> input(64 * request_length);
  std::string output;
  for (;;) {
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    size_t have = 0;  // bytes of a request not yet whole, at the start of `input`
    for (;;) {
      ssize_t n = ::read(fd, input.data() + have, input.size() - have);
      if (n <= 0) break;
      have += size_t(n);
      size_t whole = have / request_length;
      output.clear();
      for (size_t i = 0; i < whole; ++i) output += response;
      have -= whole * request_length;
      std::memmove(input.data(), input.data() + whole * request_length, have);
      size_t sent = 0;
      while (sent < output.size()) {
        ssize_t w = ::write(fd, output.data() + sent, output.size() - sent);
        if (w <= 0) break;
        sent += size_t(w);
      }
      if (sent < output.size()) break;
    }
    close(fd);
  }
}
