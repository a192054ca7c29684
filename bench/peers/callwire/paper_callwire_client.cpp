// The paper's client with callwire: one Client (connections kept alive), typed call<Info>.
#include <callwire/client.hpp>

#include <memory>

#include "paper_info.hpp"

int main(int argc, char** argv) {
  return peers::run_paper_client(argc, argv, "callwire", [](int port) {
    auto client =
        std::make_shared<callwire::Client>("http://127.0.0.1:" + std::to_string(port) + "/RPC2");
    return [client](int id, bool photo) {
      auto info = client->call<peers::Info>("Database.Request", id, photo);
      if (!info) {
        std::fprintf(stderr, "callwire: %s\n", info.error().message.c_str());
        std::exit(1);
      }
      return std::move(*info);
    };
  });
}
