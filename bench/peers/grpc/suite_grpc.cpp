// rpclib's suite with gRPC C++: the synchronous server and stub, as gRPC's C++ quick start
// writes them; one channel for every call; the 4 MiB message limit raised on both sides, for
// sending and receiving (put_blob's 16 MiB request as well as get_blob's reply).
// The server fills its reply from the native structs on every call, and the client moves the
// reply into native structs, as the other peers do. PutBlob sends bytes and answers an int64.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <utility>

#include "../common/suite.hpp"
#include "suite.grpc.pb.h"

namespace pb = peers::suite;

namespace {

void to_proto(const peers::Date& d, pb::Date* out) {
  out->set_year(d.year);
  out->set_month(d.month);
  out->set_day(d.day);
}
void to_proto(const peers::Address& a, pb::Address* out) {
  out->set_city(a.city);
  out->set_zipcode(a.zipcode);
  out->set_street(a.street);
  out->set_number(a.number);
}
void to_proto(const peers::Student& s, pb::Student* out) {
  out->set_name(s.name);
  out->set_friends(s.friends);
  to_proto(s.home_address, out->mutable_home_address());
  to_proto(s.birth_place, out->mutable_birth_place());
  to_proto(s.birth, out->mutable_birth());
  out->mutable_favorite_subjects()->Reserve(static_cast<int>(s.favorite_subjects.size()));
  for (const peers::Subject& subject : s.favorite_subjects) {
    pb::Subject* o = out->add_favorite_subjects();
    o->set_id(subject.id);
    o->set_title(subject.title);
    o->set_code(subject.code);
  }
  for (const std::string& e : s.email_addresses) out->add_email_addresses(e);
  out->mutable_schools()->Reserve(static_cast<int>(s.schools.size()));
  for (const peers::School& school : s.schools) {
    pb::School* o = out->add_schools();
    o->set_name(school.name);
    to_proto(school.address, o->mutable_address());
    to_proto(school.foundation, o->mutable_foundation());
    for (const std::string& e : school.email_addresses) o->add_email_addresses(e);
  }
}

peers::Date from_proto(const pb::Date& d) {
  return {d.year(), static_cast<char>(d.month()), static_cast<char>(d.day())};
}
peers::Address from_proto(pb::Address* a) {
  return {std::move(*a->mutable_city()), a->zipcode(), std::move(*a->mutable_street()),
          static_cast<int16_t>(a->number())};
}
std::vector<std::string> from_proto(google::protobuf::RepeatedPtrField<std::string>* strings) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(strings->size()));
  for (std::string& s : *strings) out.push_back(std::move(s));
  return out;
}
peers::Student from_proto(pb::Student* s) {
  peers::Student out;
  out.name = std::move(*s->mutable_name());
  out.friends = s->friends();
  out.home_address = from_proto(s->mutable_home_address());
  out.birth_place = from_proto(s->mutable_birth_place());
  out.birth = from_proto(s->birth());
  out.favorite_subjects.reserve(static_cast<size_t>(s->favorite_subjects_size()));
  for (pb::Subject& subject : *s->mutable_favorite_subjects()) {
    out.favorite_subjects.push_back(
        {subject.id(), std::move(*subject.mutable_title()), std::move(*subject.mutable_code())});
  }
  out.email_addresses = from_proto(s->mutable_email_addresses());
  out.schools.reserve(static_cast<size_t>(s->schools_size()));
  for (pb::School& school : *s->mutable_schools()) {
    out.schools.push_back({std::move(*school.mutable_name()), from_proto(school.mutable_address()),
                           from_proto(school.foundation()),
                           from_proto(school.mutable_email_addresses())});
  }
  return out;
}

class SuiteService final : public pb::Suite::Service {
  grpc::Status GetAnswer(grpc::ServerContext*, const pb::AnswerRequest* request,
                         pb::AnswerReply* reply) override {
    reply->set_answer(peers::get_answer_direct(request->number()));
    return grpc::Status::OK;
  }
  grpc::Status GetBlob(grpc::ServerContext*, const pb::BlobRequest* request,
                       pb::BlobReply* reply) override {
    if (request->size() > peers::kMaxBlob)
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "too large");
    reply->set_data(peers::blob_source().data(), request->size());
    return grpc::Status::OK;
  }
  grpc::Status PutBlob(grpc::ServerContext*, const pb::PutBlobRequest* request,
                       pb::PutBlobReply* reply) override {
    const std::string& data = request->data();
    reply->set_digest(
        peers::blob_digest(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
    return grpc::Status::OK;
  }
  grpc::Status GetStructs(grpc::ServerContext*, const pb::StructsRequest*,
                          pb::StructsReply* reply) override {
    const auto& students = peers::students_source();
    reply->mutable_students()->Reserve(static_cast<int>(students.size()));
    for (const peers::Student& s : students) to_proto(s, reply->add_students());
    return grpc::Status::OK;
  }
};

class GrpcPeer {
 public:
  GrpcPeer() {
    int port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service_);
    builder.SetMaxReceiveMessageSize(static_cast<int>(peers::kMessageLimit));
    builder.SetMaxSendMessageSize(static_cast<int>(peers::kMessageLimit));
    server_ = builder.BuildAndStart();
    if (!server_ || port == 0) peers::wrong_answer("grpc", "the server did not start");
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(static_cast<int>(peers::kMessageLimit));
    args.SetMaxSendMessageSize(static_cast<int>(peers::kMessageLimit));
    stub_ = pb::Suite::NewStub(grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                                         grpc::InsecureChannelCredentials(), args));
  }
  ~GrpcPeer() { server_->Shutdown(); }

  int get_answer(int n) {
    pb::AnswerRequest request;
    request.set_number(n);
    pb::AnswerReply reply;
    grpc::ClientContext context;
    check(stub_->GetAnswer(&context, request, &reply));
    return reply.answer();
  }
  std::string get_blob(size_t size) {
    pb::BlobRequest request;
    request.set_size(size);
    pb::BlobReply reply;
    grpc::ClientContext context;
    check(stub_->GetBlob(&context, request, &reply));
    return std::move(*reply.mutable_data());
  }
  int64_t put_blob(std::span<const uint8_t> bytes) {
    pb::PutBlobRequest request;
    request.set_data(bytes.data(), bytes.size());
    pb::PutBlobReply reply;
    grpc::ClientContext context;
    check(stub_->PutBlob(&context, request, &reply));
    return reply.digest();
  }
  std::vector<peers::Student> get_structs() {
    pb::StructsReply reply;
    grpc::ClientContext context;
    check(stub_->GetStructs(&context, pb::StructsRequest(), &reply));
    std::vector<peers::Student> students;
    students.reserve(static_cast<size_t>(reply.students_size()));
    for (pb::Student& s : *reply.mutable_students()) students.push_back(from_proto(&s));
    return students;
  }

 private:
  static void check(const grpc::Status& status) {
    if (!status.ok()) peers::wrong_answer("grpc", status.error_message());
  }

  SuiteService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<pb::Suite::Stub> stub_;
};

}  // namespace

int main(int argc, char** argv) { return peers::run_suite<GrpcPeer>(argc, argv, "grpc"); }
