// Experiment 4 (the heartbeat) with gRPC C++: Add(a, b) -> a + b on the synchronous server,
// as gRPC's C++ quick start writes it (its thread pool serves calls in flight at once).
// Usage: heartbeat_grpc_server; prints "listening on http://127.0.0.1:PORT/" like
// `callwire serve`; ends on SIGTERM.
#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "heartbeat.grpc.pb.h"

namespace pb = peers::heartbeat;

namespace {

class HeartbeatService final : public pb::Heartbeat::Service {
  grpc::Status Add(grpc::ServerContext*, const pb::AddRequest* request,
                   pb::AddReply* reply) override {
    reply->set_sum(request->a() + request->b());
    return grpc::Status::OK;
  }
};

}  // namespace

int main() {
  HeartbeatService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "heartbeat_grpc_server: could not start\n");
    return 1;
  }
  std::printf("listening on http://127.0.0.1:%d/\n", port);
  std::fflush(stdout);
  server->Wait();  // SIGTERM's default action ends the process
  return 0;
}
