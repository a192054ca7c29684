// An out-of-tree program built against an installed callwire (tests/install/run.sh): a server on
// 127.0.0.1:0 with sample.add, one call to it, and the answer checked. Exits 0 only on 3 + 5 = 8.
#include <callwire/client.hpp>
#include <callwire/server.hpp>
#include <cstdio>
#include <exception>
#include <string>

int main() try {
  callwire::ServerOptions options;
  options.listen = {"127.0.0.1:0"};
  callwire::Server server(options);
  auto added = server.add_method("sample.add",
                                 [](callwire::Params p, callwire::CallContext&) {
                                   return callwire::Value(p[0].as_int() + p[1].as_int());
                                 },
                                 {{{"int", "int", "int"}}, "Adds two integers."});
  if (!added) {
    std::fprintf(stderr, "add_method: %s\n", added.error().message.c_str());
    return 1;
  }
  auto started = server.start();
  if (!started) {
    std::fprintf(stderr, "start: %s\n", started.error().message.c_str());
    return 1;
  }

  const std::string url = server.url();
  callwire::Client client(url);
  auto sum = client.call("sample.add", {callwire::Value(3), callwire::Value(5)});
  server.stop();
  server.wait();
  if (!sum) {
    std::fprintf(stderr, "sample.add: %s\n", sum.error().message.c_str());
    return 1;
  }
  if (sum->as_int() != 8) {
    std::fprintf(stderr, "sample.add(3, 5) returned %d, expected 8\n", sum->as_int());
    return 1;
  }
  std::printf("sample.add(3, 5) = %d via %s\n", sum->as_int(), url.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "exception: %s\n", e.what());
  return 1;
}
