// async_client: many calls in flight at once, callwire's take on xmlrpc-c's
// xmlrpc_asynch_client. It starts COUNT calls of sample.add(i, 1000) without waiting, then
// collects the answers and checks every one.
//
//   async_client URL [COUNT]      COUNT defaults to 100
//
// async_call<R> returns a std::future at once; the calls run on the client's own I/O thread,
// up to ClientOptions::max_connections exchanges at a time, the rest queued in order.
#include <callwire/client.hpp>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s URL [COUNT]\n", argv[0]);
    return 2;
  }
  const int count = argc == 3 ? std::atoi(argv[2]) : 100;
  if (count <= 0) {
    std::fprintf(stderr, "COUNT must be a positive number\n");
    return 2;
  }

  callwire::ClientOptions options;
  options.max_connections = 4;  // at most four calls on the wire at once
  auto client = callwire::Client::create(argv[1], options);
  if (!client) {
    std::fprintf(stderr, "%s\n", client.error().message.c_str());
    return 1;
  }

  // Start them all: nothing waits here.
  std::vector<std::future<callwire::Result<int>>> pending;
  pending.reserve(count);
  for (int i = 0; i < count; ++i) pending.push_back(client->async_call<int>("sample.add", i, 1000));

  // Collect them in the order they were started; each future is ready once its answer (or its
  // error, at the latest by the call's deadline) has come.
  int failures = 0;
  for (int i = 0; i < count; ++i) {
    callwire::Result<int> sum = pending[i].get();
    if (!sum) {
      std::fprintf(stderr, "call %d failed: %s\n", i, sum.error().message.c_str());
      ++failures;
    } else if (*sum != i + 1000) {
      std::fprintf(stderr, "call %d: sample.add(%d, 1000) returned %d\n", i, i, *sum);
      ++failures;
    }
  }
  if (failures != 0) {
    std::fprintf(stderr, "%d of %d calls failed\n", failures, count);
    return 1;
  }
  std::printf("%d calls, all correct\n", count);
  return 0;
}
