// The paper's Database service with gRPC C++ (synchronous server, the paper's proto).
// Usage: paper_grpc_server; prints "listening on PORT"; ends on SIGTERM.
#include <grpcpp/grpcpp.h>

#include "../common/paper.hpp"
#include "paper.grpc.pb.h"

namespace pb = peers::paper;

namespace {

class DatabaseService final : public pb::Database::Service {
 public:
  DatabaseService() {
    for (int id = 1; id <= peers::kRecords; ++id) records_.push_back(peers::make_info(id, false));
  }

  grpc::Status Request(grpc::ServerContext*, const pb::InfoRequest* request,
                       pb::Info* reply) override {
    if (request->id() < 1 || request->id() > peers::kRecords)
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such record");
    const peers::Info& info = records_[static_cast<size_t>(request->id() - 1)];
    reply->set_id(info.id);
    reply->set_first_name(info.first_name);
    reply->set_last_name(info.last_name);
    reply->set_age(info.age);
    reply->set_email(info.email);
    reply->set_phone(info.phone);
    reply->set_newsletter(info.newsletter);
    reply->set_latitude(info.latitude);
    reply->set_longitude(info.longitude);
    if (request->photo()) {
      const auto& photo = peers::paper_photo();
      reply->set_photo(photo.data(), photo.size());
    }
    return grpc::Status::OK;
  }

 private:
  std::vector<peers::Info> records_;
};

}  // namespace

int main() {
  DatabaseService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "paper_grpc_server: could not start\n");
    return 1;
  }
  peers::announce_port(static_cast<unsigned>(port));
  server->Wait();  // SIGTERM's default action ends the process
  return 0;
}
