// Experiments 5 and 6 of make bench-peers (bench/load.py, bench/scaling.py): gRPC's synchronous
// server with Add and GetBlob, which h2load drives. The message limits are raised past the
// 16 MiB blob (the default refuses messages over 4 MiB).
// Usage: load_grpc_server; prints "listening on http://127.0.0.1:PORT/"; ends on SIGTERM.
#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "../common/data.hpp"
#include "load.grpc.pb.h"

namespace pb = peers::load;

namespace {

constexpr size_t kMaxBlob = size_t{16} << 20;

class LoadService final : public pb::Load::Service {
 public:
  // The same bytes as bench/peers/common/suite.hpp's blob_source().
  LoadService() : blob_(peers::random_bytes(kMaxBlob, 16)) {}

  grpc::Status Add(grpc::ServerContext*, const pb::AddRequest* request,
                   pb::AddReply* reply) override {
    reply->set_sum(request->a() + request->b());
    return grpc::Status::OK;
  }

  grpc::Status GetBlob(grpc::ServerContext*, const pb::BlobRequest* request,
                       pb::BlobReply* reply) override {
    if (request->size() > blob_.size())
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "size out of range");
    reply->set_data(blob_.data(), request->size());
    return grpc::Status::OK;
  }

 private:
  std::vector<uint8_t> blob_;
};

}  // namespace

int main() {
  LoadService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.SetMaxSendMessageSize(64 << 20);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "load_grpc_server: could not start\n");
    return 1;
  }
  std::printf("listening on http://127.0.0.1:%d/\n", port);
  std::fflush(stdout);
  server->Wait();  // SIGTERM's default action ends the process
  return 0;
}
