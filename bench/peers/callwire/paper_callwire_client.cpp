// The paper's client with callwire: one Client (connections kept alive), typed call<Info>,
// default options (no gzip). Built a second time with PEERS_GZIP as paper_callwire_gzip_client,
// whose client asks for gzip (from a server started with --gzip), to show what opting in costs
// on loopback.
#include <callwire/client.hpp>
#include <memory>

#include "paper_info.hpp"

int main(int argc, char** argv) {
  return peers::run_paper_client(argc, argv, "callwire", [](int port) {
    callwire::ClientOptions options;
#ifdef PEERS_GZIP
    options.accept_gzip = true;
#endif
    auto client = std::make_shared<callwire::Client>(
        "http://127.0.0.1:" + std::to_string(port) + "/RPC2", options);
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
