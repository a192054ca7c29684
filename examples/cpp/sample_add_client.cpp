// sample_add_client: calls sample.add(5, 3) on a server and prints the sum, callwire's take on
// xmlrpc-c's xmlrpc_sample_add_client.
//
//   sample_add_client URL        e.g. http://127.0.0.1:8080/RPC2
//
// Exits 0 and prints "8" on success; on any failure (no server, a fault, a wrong answer) it
// prints the error message and exits 1.
#include <callwire/client.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s URL\n", argv[0]);
    return 2;
  }

  // create() reports a bad URL as an error; the constructor would throw it instead.
  auto client = callwire::Client::create(argv[1]);
  if (!client) {
    std::fprintf(stderr, "%s\n", client.error().message.c_str());
    return 1;
  }

  // The arguments are converted to XML-RPC ints and the result back to int; a fault, a
  // transport error or a result that is not an int all come back as the Result's error.
  callwire::Result<int> sum = client->call<int>("sample.add", 5, 3);
  if (!sum) {
    std::fprintf(stderr, "sample.add failed: %s\n", sum.error().message.c_str());
    return 1;
  }
  std::printf("%d\n", *sum);
  return 0;
}
