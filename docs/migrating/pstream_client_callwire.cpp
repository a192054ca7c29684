// After: the same call with callwire's Client over a packet stream: a URL, no socket of the
// program's own; its connections are kept (pipeline_depth above 1 pipelines asynchronous calls).
// Compiled by `make test`.
#include <callwire/client.hpp>
#include <cstdio>

int main() {
  auto client = callwire::Client::create("pstream://127.0.0.1:8080");
  if (!client) {
    std::fprintf(stderr, "%s\n", client.error().message.c_str());
    return 1;
  }
  callwire::Result<int> sum = client->call<int>("sample.add", 5, 3);
  if (!sum) {
    std::fprintf(stderr, "%s\n", sum.error().message.c_str());
    return 1;
  }
  std::printf("%d\n", *sum);
}
