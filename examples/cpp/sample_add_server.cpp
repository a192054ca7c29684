// sample_add_server: the smallest useful XML-RPC server, callwire's take on xmlrpc-c's
// xmlrpc_sample_add_server. It offers one method, sample.add(int, int) -> int, plus the
// system.* methods (listMethods, methodSignature, methodHelp, multicall, ...).
//
//   sample_add_server [--listen ADDRESS]
//
// ADDRESS is "HOST:PORT", "[IPV6]:PORT", "unix:PATH", or "scgi://HOST:PORT" for a web server in
// front (examples/nginx/callwire-scgi.conf); the default 127.0.0.1:0 lets the
// system pick a free port. The server prints "listening on URL" once it accepts calls, and
// stops cleanly on Ctrl-C (SIGINT) or SIGTERM. Try it with sample_add_client URL.
#include <callwire/server.hpp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

// Server::stop() is async-signal-safe, so the signal handler may call it directly.
callwire::Server* g_server = nullptr;

extern "C" void on_signal(int) {
  if (g_server != nullptr) g_server->stop();
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:0";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
      listen = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--listen ADDRESS]\n", argv[0]);
      return 2;
    }
  }

  callwire::ServerOptions options;
  options.listen = {listen};
  callwire::Server server(options);

  // The signature (int, int -> int) is deduced from the lambda: system.methodSignature shows
  // it, and a call with the wrong parameters gets a -32602 fault before the lambda runs.
  if (auto bound = server.bind(
          "sample.add", [](int a, int b) { return a + b; }, "Adds two integers.");
      !bound) {
    std::fprintf(stderr, "cannot bind: %s\n", bound.error().message.c_str());
    return 1;
  }

  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "cannot start: %s\n", started.error().message.c_str());
    return 1;
  }

  g_server = &server;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  // Flushed at once: a script reading this line through a pipe must not wait for a full buffer.
  std::printf("listening on %s\n", server.url().c_str());
  std::fflush(stdout);

  server.wait();  // returns once stop() has run and the calls in flight have finished
  g_server = nullptr;
  std::printf("stopped\n");
  return 0;
}
