// The floor of the paper's benchmark: the same records in a plain binary form (wire.hpp) over
// raw TCP; one connection at a time, one read and one write per call.
// Usage: paper_raw_server; prints "listening on PORT"; ends on SIGTERM.
#include <arpa/inet.h>

#include <cstdio>

#include "wire.hpp"

int main() {
  std::vector<peers::Info> records;
  for (int id = 1; id <= peers::kRecords; ++id) records.push_back(peers::make_info(id, false));
  const std::vector<uint8_t>& photo = peers::paper_photo();

  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener, 16) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("paper_raw_server");
    return 1;
  }
  peers::announce_port(ntohs(addr.sin_port));

  std::string answer;
  for (;;) {
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    peers::raw::set_nodelay(fd);
    int32_t request[2];
    while (peers::raw::read_all(fd, request, sizeof request)) {
      if (request[0] < 1 || request[0] > peers::kRecords) break;
      peers::raw::encode(answer, records[static_cast<size_t>(request[0] - 1)],
                         request[1] != 0 ? &photo : nullptr);
      if (!peers::raw::write_all(fd, answer.data(), answer.size())) break;
    }
    close(fd);
  }
}
