// The paper's Database.Request served by callwire (typed bind, default options).
// Usage: paper_callwire_server [--gzip]; prints "listening on PORT"; ends on SIGTERM.
// --gzip gzips answers from 4 KiB to clients that ask (callwire-gzip); the default never does.
#include <callwire/server.hpp>
#include <csignal>
#include <cstring>

#include "must.hpp"
#include "paper_info.hpp"

namespace {
callwire::Server* running_server = nullptr;
extern "C" void on_signal(int) { running_server->stop(); }  // stop() is async-signal-safe
}  // namespace

int main(int argc, char** argv) {
  const bool gzip = argc == 2 && std::strcmp(argv[1], "--gzip") == 0;
  if (argc > 2 || (argc == 2 && !gzip)) {
    std::fprintf(stderr, "usage: paper_callwire_server [--gzip]\n");
    return 2;
  }
  std::vector<peers::Info> records;
  for (int id = 1; id <= peers::kRecords; ++id) records.push_back(peers::make_info(id, false));
  const std::vector<uint8_t>& photo = peers::paper_photo();

  callwire::ServerOptions options;
  options.listen = {"127.0.0.1:0"};
  if (gzip) options.gzip_min_size = 4096;
  callwire::Server server(options);
  peers::must(server.bind(
      "Database.Request", [&](int id, bool with_photo) -> callwire::Result<peers::Info> {
        if (id < 1 || id > peers::kRecords)
          return callwire::Error(callwire::Errc::Fault, 404, "no record " + std::to_string(id));
        peers::Info info = records[static_cast<size_t>(id - 1)];
        if (with_photo) info.photo = photo;
        return info;
      }));
  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "paper_callwire_server: %s\n", started.error().message.c_str());
    return 1;
  }
  running_server = &server;
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  peers::announce_port(server.port());
  server.wait();
  return 0;
}
