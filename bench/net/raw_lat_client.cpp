// callwire bench: the floor of the round trip. Writes a fixed request (the bytes callwire's
// client sends for sample.add, captured by bench/net_run.py) and reads a response of known
// length, over one TCP connection with TCP_NODELAY: one write and (usually) one read per call,
// no parsing. The peer is raw_lat_server.
//
// Usage: raw_lat_client HOST:PORT REQUEST_FILE RESPONSE_LENGTH [--seconds S | --calls N]
//                       [--warmup N] [--server-pid P]
#include <unistd.h>

#include <cstdio>
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
  std::string request = lat::read_file(argv[2]);
  size_t response_length = std::stoul(argv[3]);
  int fd = lat::connect_tcp(argv[1]);

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
