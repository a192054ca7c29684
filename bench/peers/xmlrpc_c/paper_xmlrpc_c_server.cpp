// The paper's Database.Request served by xmlrpc-c's C++ Abyss server, XML limit raised.
// Usage: paper_xmlrpc_c_server; prints "listening on PORT"; ends on SIGTERM.
#include <csignal>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/registry.hpp>
#include <xmlrpc-c/server_abyss.hpp>

#include "../common/paper.hpp"
#include "common.hpp"

namespace {

class Request : public xmlrpc_c::method {
 public:
  Request() {
    _signature = "S:ib";
    for (int id = 1; id <= peers::kRecords; ++id) records_.push_back(peers::make_info(id, false));
  }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int id = params.getInt(0, 1, peers::kRecords);
    bool with_photo = params.getBoolean(1);
    params.verifyEnd(2);
    const peers::Info& info = records_[static_cast<size_t>(id - 1)];
    xmlrpc_c::cbytestring photo;
    if (with_photo) photo.assign(peers::paper_photo().begin(), peers::paper_photo().end());
    *result = xmlrpc_c::value_struct({{"id", xmlrpc_c::value_int(info.id)},
                                      {"first_name", xmlrpc_c::value_string(info.first_name)},
                                      {"last_name", xmlrpc_c::value_string(info.last_name)},
                                      {"age", xmlrpc_c::value_int(info.age)},
                                      {"email", xmlrpc_c::value_string(info.email)},
                                      {"phone", xmlrpc_c::value_string(info.phone)},
                                      {"newsletter", xmlrpc_c::value_boolean(info.newsletter)},
                                      {"latitude", xmlrpc_c::value_double(info.latitude)},
                                      {"longitude", xmlrpc_c::value_double(info.longitude)},
                                      {"photo", xmlrpc_c::value_bytestring(photo)}});
  }

 private:
  std::vector<peers::Info> records_;
};

extern "C" void on_term(int) { _exit(0); }

}  // namespace

int main() {
  peers::xmlrpc_c_peer::raise_xml_size_limit(size_t{64} << 20);
  unsigned port = 0;
  int fd = peers::xmlrpc_c_peer::listen_on_loopback(port);
  try {
    xmlrpc_c::registry registry;
    registry.addMethod("Database.Request", xmlrpc_c::methodPtr(new Request));
    xmlrpc_c::serverAbyss server(xmlrpc_c::serverAbyss::constrOpt()
                                     .registryP(&registry)
                                     .socketFd(fd)
                                     .keepaliveMaxConn(1000000000)
                                     .serverOwnsSignals(false));
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGTERM, on_term);
    peers::announce_port(port);
    server.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "paper_xmlrpc_c_server: %s\n", e.what());
    return 1;
  }
  return 0;
}
