// Experiment 4 (the heartbeat) with gRPC C++, on one channel (one HTTP/2 connection).
// --in-flight 1: the synchronous stub, one call after the other. --in-flight K: the
// asynchronous stub and one CompletionQueue driven by this thread, K calls always on the
// channel (a finished one is replaced at once). Every sum is checked; a wrong one exits 1.
//
// Usage: heartbeat_grpc_client HOST:PORT [--in-flight K] [--seconds S] [--warmup N]
//                              [--server-pid P]
// Prints bench/net/lat_common.hpp's JSON line.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <vector>

#include "../../net/lat_common.hpp"
#include "heartbeat.grpc.pb.h"

namespace pb = peers::heartbeat;
using Clock = std::chrono::steady_clock;

namespace {

// One call on the wire: gRPC wants a fresh ClientContext for every call.
struct Slot {
  std::unique_ptr<grpc::ClientContext> context;
  pb::AddRequest request;
  pb::AddReply reply;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<pb::AddReply>> call;
  Clock::time_point started;
};

int run_in_flight(pb::Heartbeat::Stub& stub, const lat::Options& o) {
  grpc::CompletionQueue queue;
  std::vector<Slot> slots(size_t(o.in_flight));
  int32_t next = 0;
  auto start_call = [&](Slot& s) {
    s.context = std::make_unique<grpc::ClientContext>();
    s.request.set_a(next++);
    s.request.set_b(7);
    s.started = Clock::now();
    s.call = stub.AsyncAdd(s.context.get(), s.request, &queue);
    s.call->Finish(&s.reply, &s.status, &s);
  };
  for (Slot& s : slots) start_call(s);

  lat::InFlightWindow window(o);
  long answered = 0, on_wire = o.in_flight;
  void* tag = nullptr;
  bool ok = false;
  while (on_wire > 0 && queue.Next(&tag, &ok)) {
    Clock::time_point now = Clock::now();
    Slot& s = *static_cast<Slot*>(tag);
    --on_wire;
    if (!ok || !s.status.ok() || s.reply.sum() != s.request.a() + 7) {
      std::fprintf(stderr, "heartbeat_grpc_client: call %ld: %s\n", answered,
                   s.status.ok() ? "wrong sum" : s.status.error_message().c_str());
      return 1;
    }
    ++answered;
    if (window.answered(s.started, now)) {
      start_call(s);
      ++on_wire;
    }
  }
  queue.Shutdown();
  for (void* t; queue.Next(&t, &ok);) {
  }
  return window.report("grpc");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr,
                 "usage: %s HOST:PORT [--in-flight K] [--seconds S] [--warmup N] "
                 "[--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options o = lat::parse_options(argc, argv, 2);
  auto channel = grpc::CreateChannel(argv[1], grpc::InsecureChannelCredentials());
  auto stub = pb::Heartbeat::NewStub(channel);
  if (o.in_flight > 1) return run_in_flight(*stub, o);
  int32_t next = 0;
  return lat::run("grpc", o, [&] {
    grpc::ClientContext context;
    pb::AddRequest request;
    pb::AddReply reply;
    request.set_a(next++);
    request.set_b(7);
    grpc::Status status = stub->Add(&context, request, &reply);
    if (!status.ok())
      std::fprintf(stderr, "heartbeat_grpc_client: %s\n", status.error_message().c_str());
    return status.ok() && reply.sum() == request.a() + 7;
  });
}
