// Before: calling sample.add(5, 3) with xmlrpc-c's C++ clientSimple. Compiled by `make test`.
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/client_simple.hpp>

#include <cstdio>
#include <exception>

int main() {
  try {
    xmlrpc_c::clientSimple client;
    xmlrpc_c::value result;
    client.call("http://127.0.0.1:8080/RPC2", "sample.add", "ii", &result, 5, 3);
    std::printf("%d\n", static_cast<int>(xmlrpc_c::value_int(result)));
  } catch (const std::exception& e) {  // faults and transport errors alike
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
