// The paper's client with libjsonrpccpp: its HttpClient (curl) and the client stub jsonrpcstub
// generates from paper.json, one of each for every call.
#include <jsonrpccpp/client/connectors/httpclient.h>

#include <memory>

#include "../common/paper.hpp"
#include "base64.hpp"
#include "database_client_stub.h"

namespace {
struct JsonRpcClient {
  jsonrpc::HttpClient http;
  peers::DatabaseClientStub stub{http};
  explicit JsonRpcClient(const std::string& url) : http(url) {}
};
}  // namespace

int main(int argc, char** argv) {
  return peers::run_paper_client(argc, argv, "jsonrpccpp", [](int port) {
    auto c = std::make_shared<JsonRpcClient>("http://127.0.0.1:" + std::to_string(port));
    return [c](int id, bool photo) {
      try {
        Json::Value r = c->stub.Database_Request(id, photo);
        peers::Info info;
        info.id = r["id"].asInt();
        info.first_name = r["first_name"].asString();
        info.last_name = r["last_name"].asString();
        info.age = r["age"].asInt();
        info.email = r["email"].asString();
        info.phone = r["phone"].asString();
        info.newsletter = r["newsletter"].asBool();
        info.latitude = r["latitude"].asFloat();
        info.longitude = r["longitude"].asFloat();
        info.photo = peers::base64_decode(r["photo"].asString());
        return info;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "jsonrpccpp: %s\n", e.what());
        std::exit(1);
      }
    };
  });
}
