// callwire bench: the floor of the round trip. Writes a fixed request (the bytes callwire's
// client sends for sample.add, captured by bench/net_run.py) and reads a response of known
// length, over one TCP connection with TCP_NODELAY: one write and (usually) one read per call,
// no parsing. The peer is raw_lat_server.
//
// Usage: raw_lat_client HOST:PORT REQUEST_FILE RESPONSE_LENGTH [--seconds S | --calls N]
//                       [--warmup N] [--server-pid P]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "lat_common.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s HOST:PORT REQUEST_FILE RESPONSE_LENGTH [--seconds S | --calls N] "
                 "[--warmup N] [--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options options = lat::parse_options(argc, argv, 4);
  std::string endpoint = argv[1];
  size_t colon = endpoint.rfind(':');
  if (colon == std::string::npos) lat::die("HOST:PORT expected");
  std::ifstream in(argv[2], std::ios::binary);
  std::string request((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (request.empty()) lat::die("empty or unreadable request file");
  size_t response_length = std::stoul(argv[3]);

  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(std::stoi(endpoint.substr(colon + 1))));
  if (inet_pton(AF_INET, endpoint.substr(0, colon).c_str(), &address.sin_addr) != 1)
    lat::die("an IPv4 address expected");
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
    lat::die("cannot connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  std::vector<char> response(response_length);
  int status = lat::run("raw", options, [&] {
    for (size_t sent = 0; sent < request.size();) {
      ssize_t n = ::write(fd, request.data() + sent, request.size() - sent);
      if (n <= 0) return false;
      sent += size_t(n);
    }
    for (size_t got = 0; got < response_length;) {
      ssize_t n = ::read(fd, response.data() + got, response_length - got);
      if (n <= 0) return false;
      got += size_t(n);
    }
    return true;
  });
  close(fd);
  return status;
}
