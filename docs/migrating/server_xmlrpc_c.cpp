// Before: sample.add served by xmlrpc-c's C++ Abyss server, as xmlrpc-c's own
// xmlrpc_sample_add_server.cpp does it. Compiled by `make test`.
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/registry.hpp>
#include <xmlrpc-c/server_abyss.hpp>

class SampleAdd : public xmlrpc_c::method {
 public:
  SampleAdd() {
    _signature = "i:ii";
    _help = "Adds two integers.";
  }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int a = params.getInt(0);
    int b = params.getInt(1);
    params.verifyEnd(2);
    *result = xmlrpc_c::value_int(a + b);
  }
};

int main() {
  xmlrpc_c::registry registry;
  registry.addMethod("sample.add", xmlrpc_c::methodPtr(new SampleAdd));
  xmlrpc_c::serverAbyss server(
      xmlrpc_c::serverAbyss::constrOpt().registryP(&registry).portNumber(8080));
  server.run();  // serves until killed; errors are thrown as girerr::error
}
