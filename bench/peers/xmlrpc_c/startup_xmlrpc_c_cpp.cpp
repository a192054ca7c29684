// Experiment 3 (xmlrpc-c's performance page): a program that starts, makes N sample.add calls
// with xmlrpc-c's C++ client and exits: one curl transport and one client_xml for every call
// (carriageParm_curl0), as the paper's client in this folder. Every sum is checked; a wrong
// one exits 1.
//
// Usage: startup_xmlrpc_c_cpp URL N
#include <cstdio>
#include <cstdlib>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/client.hpp>

int main(int argc, char** argv) {
  long n = argc == 3 ? std::strtol(argv[2], nullptr, 10) : 0;
  if (n <= 0) {
    std::fprintf(stderr, "usage: %s URL N\n", argv[0]);
    return 2;
  }
  try {
    xmlrpc_c::clientXmlTransport_curl transport;
    xmlrpc_c::client_xml client(&transport);
    xmlrpc_c::carriageParm_curl0 carriage(argv[1]);
    for (int i = 0; i < n; ++i) {
      xmlrpc_c::paramList params;
      params.add(xmlrpc_c::value_int(i));
      params.add(xmlrpc_c::value_int(7));
      xmlrpc_c::rpcPtr rpc("sample.add", params);
      rpc->call(&client, &carriage);
      int sum = xmlrpc_c::value_int(rpc->getResult());
      if (sum != i + 7) {
        std::fprintf(stderr, "startup_xmlrpc_c_cpp: call %d: wrong sum %d\n", i, sum);
        return 1;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "startup_xmlrpc_c_cpp: %s\n", e.what());
    return 1;
  }
  return 0;
}
