// The paper's Database.Request served by libjsonrpccpp: its HttpServer (libmicrohttpd) and the
// server stub jsonrpcstub generates from paper.json. The photo travels as base64 text.
// Usage: paper_jsonrpccpp_server PORT (HttpServer cannot report a port the kernel picked, so
// bench/peers_run.py picks a free one); prints "listening on PORT"; ends on SIGTERM.
#include <jsonrpccpp/server/connectors/httpserver.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "../common/paper.hpp"
#include "base64.hpp"
#include "database_server_stub.h"

namespace {

class DatabaseServer : public peers::DatabaseServerStub {
 public:
  explicit DatabaseServer(jsonrpc::HttpServer& connector)
      : DatabaseServerStub(connector), photo_base64_(peers::base64_encode(peers::paper_photo())) {
    for (int id = 1; id <= peers::kRecords; ++id) records_.push_back(peers::make_info(id, false));
  }

  Json::Value Database_Request(int id, bool with_photo) override {
    if (id < 1 || id > peers::kRecords) throw jsonrpc::JsonRpcException(-32602, "no such record");
    const peers::Info& info = records_[static_cast<size_t>(id - 1)];
    Json::Value out(Json::objectValue);
    out["id"] = info.id;
    out["first_name"] = info.first_name;
    out["last_name"] = info.last_name;
    out["age"] = info.age;
    out["email"] = info.email;
    out["phone"] = info.phone;
    out["newsletter"] = info.newsletter;
    out["latitude"] = info.latitude;
    out["longitude"] = info.longitude;
    // Encoded once at start, as the other servers keep their bytes ready; the JSON writer
    // still copies it into every answer.
    out["photo"] = with_photo ? photo_base64_ : std::string();
    return out;
  }

 private:
  std::vector<peers::Info> records_;
  std::string photo_base64_;
};

extern "C" void on_term(int) { _exit(0); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PORT\n", argv[0]);
    return 2;
  }
  int port = std::atoi(argv[1]);
  jsonrpc::HttpServer connector(port);
  DatabaseServer server(connector);
  if (!server.StartListening()) {
    std::fprintf(stderr, "paper_jsonrpccpp_server: cannot listen on port %d\n", port);
    return 1;
  }
  std::signal(SIGTERM, on_term);
  peers::announce_port(static_cast<unsigned>(port));
  for (;;) pause();
}
