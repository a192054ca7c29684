// The floor's client: one connection, one write and the reads of one answer per call.
#include <arpa/inet.h>

#include <cstdio>
#include <memory>

#include "wire.hpp"

int main(int argc, char** argv) {
  return peers::run_paper_client(argc, argv, "raw", [](int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      std::perror("paper_raw_client: connect");
      std::exit(1);
    }
    peers::raw::set_nodelay(fd);
    auto buffer = std::make_shared<std::string>();
    return [fd, buffer](int id, bool photo) {
      int32_t request[2] = {id, photo ? 1 : 0};
      uint32_t length = 0;
      if (!peers::raw::write_all(fd, request, sizeof request) ||
          !peers::raw::read_all(fd, &length, sizeof length)) {
        std::fprintf(stderr, "raw: connection lost\n");
        std::exit(1);
      }
      buffer->resize(length);
      if (!peers::raw::read_all(fd, &(*buffer)[0], length)) {
        std::fprintf(stderr, "raw: connection lost\n");
        std::exit(1);
      }
      return peers::raw::decode(*buffer);
    };
  });
}
