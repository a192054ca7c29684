// The paper's client with gRPC C++: one channel and one stub for every call.
#include <grpcpp/grpcpp.h>

#include "../common/paper.hpp"
#include "paper.grpc.pb.h"

namespace pb = peers::paper;

int main(int argc, char** argv) {
  return peers::run_paper_client(argc, argv, "grpc", [](int port) {
    std::shared_ptr<pb::Database::Stub> stub = pb::Database::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
    return [stub](int id, bool photo) {
      pb::InfoRequest request;
      request.set_id(id);
      request.set_photo(photo);
      pb::Info reply;
      grpc::ClientContext context;
      grpc::Status status = stub->Request(&context, request, &reply);
      if (!status.ok()) {
        std::fprintf(stderr, "grpc: %s\n", status.error_message().c_str());
        std::exit(1);
      }
      peers::Info info;
      info.id = reply.id();
      info.first_name = std::move(*reply.mutable_first_name());
      info.last_name = std::move(*reply.mutable_last_name());
      info.age = reply.age();
      info.email = std::move(*reply.mutable_email());
      info.phone = std::move(*reply.mutable_phone());
      info.newsletter = reply.newsletter();
      info.latitude = reply.latitude();
      info.longitude = reply.longitude();
      info.photo.assign(reply.photo().begin(), reply.photo().end());
      return info;
    };
  });
}
