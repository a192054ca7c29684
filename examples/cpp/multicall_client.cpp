// multicall_client: several calls in one HTTP request with system.multicall, callwire's take on
// xmlrpc-c's multicall example. Each call has its own result or fault; one failing call does not
// spoil the others.
//
//   multicall_client URL        (against sample_add_server)
//
// Prints one line per call: "NAME: RESULT" or "NAME: fault CODE: MESSAGE".
#include <callwire/client.hpp>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// A short text for the few kinds of results this example expects.
std::string describe(const callwire::Value& v) {
  if (auto i = v.try_as_int()) return std::to_string(*i);
  if (auto s = v.try_as_string()) return '"' + std::string(*s) + '"';
  return "(a value of another type)";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s URL\n", argv[0]);
    return 2;
  }
  auto client = callwire::Client::create(argv[1]);
  if (!client) {
    std::fprintf(stderr, "%s\n", client.error().message.c_str());
    return 1;
  }

  // A MethodCall is a name and an array of parameters.
  std::vector<callwire::MethodCall> calls = {
      {"sample.add", callwire::Value::array({1, 2})},
      {"sample.add", callwire::Value::array({40, 2})},
      {"sample.add", callwire::Value::array({1, "two"})},  // a fault: parameter 2 is no int
      {"no.such.method", callwire::Value::array()},        // a fault: unknown method
  };

  // The Result is an error only when the whole request failed (no server, not a multicall
  // answer); otherwise it holds one CallResult per call, in order.
  auto results = client->multicall(calls);
  if (!results) {
    std::fprintf(stderr, "system.multicall failed: %s\n", results.error().message.c_str());
    return 1;
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    const callwire::CallResult& r = (*results)[i];
    if (r) {
      std::printf("%s: %s\n", calls[i].method_name.c_str(), describe(*r).c_str());
    } else {
      // A fault keeps the server's code and string.
      std::printf("%s: fault %d: %s\n", calls[i].method_name.c_str(),
                  static_cast<int>(r.error().fault_code), r.error().message.c_str());
    }
  }
  return 0;
}
