// The tutorial's client (docs/tutorial.md): typed calls, a fault, asynchronous calls, a
// multicall and per-call options against the tutorial's server. Built by `make test`
// (tests/docs) so it keeps compiling.
//   tutorial_client URL [--user U --password P] [--ca-file F]
#include <callwire/client.hpp>

#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <string_view>
#include <vector>

// The server's Summary, declared the same way (members it does not list would be skipped).
struct Summary {
  int count = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
};
CALLWIRE_STRUCT(Summary, count, mean, min, max);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tutorial_client URL [--user U --password P] [--ca-file F]\n");
    return 2;
  }
  callwire::ClientOptions options;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string_view flag = argv[i];
    if (flag == "--user") options.user = argv[i + 1];
    else if (flag == "--password") options.password = argv[i + 1];
    else if (flag == "--ca-file") options.tls.ca_file = argv[i + 1];  // trust a self-signed cert
  }

  auto created = callwire::Client::create(argv[1], options);
  if (!created) {
    std::fprintf(stderr, "%s\n", created.error().message.c_str());
    return 1;
  }
  callwire::Client& client = *created;

  // A typed call: the arguments are converted to XML-RPC, the result back to int.
  callwire::Result<int> sum = client.call<int>("sample.add", 3, 5);
  if (!sum) {
    std::fprintf(stderr, "sample.add: %s\n", sum.error().message.c_str());
    return 1;
  }
  std::printf("3 + 5 = %d\n", *sum);

  // A std::vector goes as an array.
  auto mean = client.call<double>("stats.mean", std::vector<double>{1.5, 2.5, 4.0});
  if (mean) std::printf("mean = %g\n", *mean);

  // A struct comes back whole, member by member (a missing one is an error naming it).
  auto summary = client.call<Summary>("stats.summary", std::vector<double>{1.5, 2.5, 4.0});
  if (summary) std::printf("%d numbers, %g to %g\n", summary->count, summary->min, summary->max);

  // A fault is an error like any other: Errc::Fault with the server's code and string.
  auto empty = client.call<double>("stats.mean", std::vector<double>{});
  if (!empty && empty.error().code == callwire::Errc::Fault) {
    std::printf("fault %d: %s\n", empty.error().fault_code, empty.error().message.c_str());
  }

  auto who = client.call<std::string>("whoami");
  if (who) std::printf("I am %s\n", who->c_str());

  // Asynchronous calls: ten started at once (8 in flight, max_connections); get() waits.
  std::vector<std::future<callwire::Result<int>>> pending;
  for (int i = 0; i < 10; ++i) pending.push_back(client.async_call<int>("sample.add", i, i));
  for (auto& f : pending) {
    callwire::Result<int> r = f.get();
    std::printf("%d ", r ? *r : -1);
  }
  std::printf("\n");

  // A multicall: three calls in one request, one result or fault each, in order.
  std::vector<callwire::MethodCall> calls = {
      {"sample.add", callwire::Value::array({1, 2})},
      {"stats.mean", callwire::Value::array({callwire::Value::array({2.0, 4.0})})},
      {"no.such.method", callwire::Value::array()},
  };
  auto results = client.multicall(calls);
  if (results) {
    for (const callwire::CallResult& r : *results) {
      if (!r) std::printf("fault %d: %s\n", r.error().fault_code, r.error().message.c_str());
      else if (auto x = callwire::Convert<double>::from_value(*r)) std::printf("= %g\n", *x);
    }
  }

  // Per-call options: a tighter deadline and an extra header for this call only.
  callwire::CallOptions quick;
  quick.timeout = std::chrono::milliseconds(500);
  quick.headers = {{"X-Request-Id", "tutorial-1"}};
  auto fast = client.call_with<int>(quick, "sample.add", 1, 1);
  if (!fast && fast.error().code == callwire::Errc::Timeout) std::printf("too slow\n");
  return 0;
}
