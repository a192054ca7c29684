// Experiment 6 of make bench-peers (bench/scaling.py), calls per second as the payload grows:
// callwire's server with get_blob(n), the first n bytes of the suite's 16 MiB blob, and
// sample.add. `callwire serve` has no method that answers n bytes to a small request (its
// echo would send the n bytes both ways). Default ServerOptions, as `callwire serve` uses
// them (a loop per core, no gzip); only the address is set.
// Usage: load_callwire_server; prints "listening on URL"; ends on SIGTERM.
#include <callwire/server.hpp>
#include <csignal>
#include <cstdio>

#include "../common/data.hpp"
#include "must.hpp"

namespace {

constexpr size_t kMaxBlob = size_t{16} << 20;
callwire::Server* g_server = nullptr;

void on_stop_signal(int) {
  if (g_server) g_server->stop();  // async-signal-safe
}

}  // namespace

int main() {
  const std::vector<uint8_t> blob = peers::random_bytes(kMaxBlob, 16);
  callwire::ServerOptions options;
  options.listen = {"127.0.0.1:0"};
  callwire::Server server(options);
  peers::must(server.bind("sample.add", [](int a, int b) { return a + b; }));
  peers::must(server.bind("get_blob", [&blob](int size) {
    size_t n = size < 0 ? 0 : std::min(static_cast<size_t>(size), blob.size());
    return std::vector<uint8_t>(blob.begin(), blob.begin() + static_cast<ptrdiff_t>(n));
  }));
  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "load_callwire_server: %s\n", started.error().message.c_str());
    return 1;
  }
  g_server = &server;
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  std::printf("listening on %s\n", server.url().c_str());
  std::fflush(stdout);
  server.wait();
  return 0;
}
