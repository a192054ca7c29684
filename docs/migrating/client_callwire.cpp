// After: the same call with callwire's C++ Client. Compiled by `make test`.
#include <callwire/client.hpp>
#include <cstdio>

int main() {
  auto client = callwire::Client::create("http://127.0.0.1:8080/RPC2");
  if (!client) {
    std::fprintf(stderr, "%s\n", client.error().message.c_str());
    return 1;
  }
  // A fault, a transport error or a result that is not an int: the Result's error.
  callwire::Result<int> sum = client->call<int>("sample.add", 5, 3);
  if (!sum) {
    std::fprintf(stderr, "%s\n", sum.error().message.c_str());
    return 1;
  }
  std::printf("%d\n", *sum);
}
