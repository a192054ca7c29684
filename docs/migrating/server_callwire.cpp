// After: the same server with callwire's C++ API. Compiled by `make test`.
#include <callwire/server.hpp>
#include <cstdio>

int main() {
  callwire::ServerOptions options;
  options.listen = {"0.0.0.0:8080"};
  callwire::Server server(options);
  // The signature (int, int -> int) comes from the lambda; a call with other parameters gets
  // fault -32602 before it runs.
  if (auto s = server.bind("sample.add", [](int a, int b) { return a + b; }, "Adds two integers.");
      !s) {
    std::fprintf(stderr, "%s\n", s.error().message.c_str());
    return 1;
  }
  if (auto s = server.start(); !s) {  // listening from here on
    std::fprintf(stderr, "%s\n", s.error().message.c_str());
    return 1;
  }
  server.wait();  // serves until server.stop() (from a signal handler, another thread)
}
