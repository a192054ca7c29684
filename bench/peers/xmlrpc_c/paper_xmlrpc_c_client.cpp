// The paper's client with xmlrpc-c's C++ client: one curl transport (one kept-alive
// connection) and client_xml for every call, XML limit raised.
#include <memory>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/client.hpp>

#include "../common/paper.hpp"
#include "common.hpp"

namespace {

struct XmlrpcCClient {
  xmlrpc_c::clientXmlTransport_curl transport;
  xmlrpc_c::client_xml client{&transport};
  xmlrpc_c::carriageParm_curl0 carriage;
  explicit XmlrpcCClient(const std::string& url) : carriage(url) {}
};

const xmlrpc_c::value& member(const xmlrpc_c::cstruct& s, const char* name) {
  auto it = s.find(name);
  if (it == s.end()) throw std::runtime_error(std::string("no member ") + name);
  return it->second;
}

}  // namespace

int main(int argc, char** argv) {
  peers::xmlrpc_c_peer::raise_xml_size_limit(size_t{64} << 20);
  return peers::run_paper_client(argc, argv, "xmlrpc-c", [](int port) {
    auto c = std::make_shared<XmlrpcCClient>("http://127.0.0.1:" + std::to_string(port) + "/RPC2");
    return [c](int id, bool photo) {
      try {
        xmlrpc_c::paramList params;
        params.add(xmlrpc_c::value_int(id));
        params.add(xmlrpc_c::value_boolean(photo));
        xmlrpc_c::rpcPtr rpc("Database.Request", params);
        rpc->call(&c->client, &c->carriage);
        xmlrpc_c::cstruct s = xmlrpc_c::value_struct(rpc->getResult());
        peers::Info info;
        info.id = xmlrpc_c::value_int(member(s, "id"));
        info.first_name = xmlrpc_c::value_string(member(s, "first_name"));
        info.last_name = xmlrpc_c::value_string(member(s, "last_name"));
        info.age = xmlrpc_c::value_int(member(s, "age"));
        info.email = xmlrpc_c::value_string(member(s, "email"));
        info.phone = xmlrpc_c::value_string(member(s, "phone"));
        info.newsletter = xmlrpc_c::value_boolean(member(s, "newsletter"));
        info.latitude = static_cast<float>(xmlrpc_c::value_double(member(s, "latitude")));
        info.longitude = static_cast<float>(xmlrpc_c::value_double(member(s, "longitude")));
        info.photo = xmlrpc_c::value_bytestring(member(s, "photo")).vectorUcharValue();
        return info;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "xmlrpc-c: %s\n", e.what());
        std::exit(1);
      }
    };
  });
}
