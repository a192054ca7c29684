// Experiment 3 (xmlrpc-c's performance page): a program that starts, makes N sample.add calls
// with callwire's C++ API (one Client, typed call<int>) and exits. Every sum is checked; a
// wrong one exits 1. bench/startup.py times the whole process.
//
// Usage: startup_callwire_cpp URL N
#include <callwire/client.hpp>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  long n = argc == 3 ? std::strtol(argv[2], nullptr, 10) : 0;
  if (n <= 0) {
    std::fprintf(stderr, "usage: %s URL N\n", argv[0]);
    return 2;
  }
  callwire::Client client(argv[1]);
  for (int i = 0; i < n; ++i) {
    auto sum = client.call<int>("sample.add", i, 7);
    if (!sum || *sum != i + 7) {
      std::fprintf(stderr, "startup_callwire_cpp: call %d: %s\n", i,
                   sum ? "wrong sum" : sum.error().message.c_str());
      return 1;
    }
  }
  return 0;
}
