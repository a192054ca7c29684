// rpclib's suite with Cap'n Proto RPC: EzRpcServer on its own thread (an EzRpc object owns
// the event loop of the thread that makes it) and EzRpcClient on the benchmark's thread, one
// connection for every call, as Cap'n Proto's calculator sample does. The server builds its
// answer from the native structs on every call; the client copies it into native structs
// (a Reader points into the message, which is gone with the response). putBlob's Data is set
// on the request and read by the server where it lies in the received message; the default
// traversal limit (64 MiB) covers 16 MiB both ways.
#include <capnp/ez-rpc.h>
#include <kj/async.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "../common/suite.hpp"
#include "suite.capnp.h"

namespace cs = peers::capnp_suite;

namespace {

capnp::Text::Reader text(const std::string& s) { return capnp::Text::Reader(s.data(), s.size()); }
std::string native(capnp::Text::Reader t) { return std::string(t.cStr(), t.size()); }

void fill(cs::Date::Builder out, const peers::Date& d) {
  out.setYear(d.year);
  out.setMonth(static_cast<int8_t>(d.month));
  out.setDay(static_cast<int8_t>(d.day));
}
void fill(cs::Address::Builder out, const peers::Address& a) {
  out.setCity(text(a.city));
  out.setZipcode(a.zipcode);
  out.setStreet(text(a.street));
  out.setNumber(a.number);
}
void fill(capnp::List<capnp::Text>::Builder out, const std::vector<std::string>& strings) {
  for (unsigned i = 0; i < strings.size(); ++i) out.set(i, text(strings[i]));
}
void fill(cs::Student::Builder out, const peers::Student& s) {
  out.setName(text(s.name));
  out.setFriends(s.friends);
  fill(out.initHomeAddress(), s.home_address);
  fill(out.initBirthPlace(), s.birth_place);
  fill(out.initBirth(), s.birth);
  auto subjects = out.initFavoriteSubjects(static_cast<unsigned>(s.favorite_subjects.size()));
  for (unsigned i = 0; i < subjects.size(); ++i) {
    subjects[i].setId(s.favorite_subjects[i].id);
    subjects[i].setTitle(text(s.favorite_subjects[i].title));
    subjects[i].setCode(text(s.favorite_subjects[i].code));
  }
  fill(out.initEmailAddresses(static_cast<unsigned>(s.email_addresses.size())), s.email_addresses);
  auto schools = out.initSchools(static_cast<unsigned>(s.schools.size()));
  for (unsigned i = 0; i < schools.size(); ++i) {
    const peers::School& school = s.schools[i];
    schools[i].setName(text(school.name));
    fill(schools[i].initAddress(), school.address);
    fill(schools[i].initFoundation(), school.foundation);
    fill(schools[i].initEmailAddresses(static_cast<unsigned>(school.email_addresses.size())),
         school.email_addresses);
  }
}

peers::Date native(cs::Date::Reader d) {
  return {d.getYear(), static_cast<char>(d.getMonth()), static_cast<char>(d.getDay())};
}
peers::Address native(cs::Address::Reader a) {
  return {native(a.getCity()), a.getZipcode(), native(a.getStreet()), a.getNumber()};
}
std::vector<std::string> native(capnp::List<capnp::Text>::Reader strings) {
  std::vector<std::string> out;
  out.reserve(strings.size());
  for (capnp::Text::Reader s : strings) out.push_back(native(s));
  return out;
}
peers::Student native(cs::Student::Reader s) {
  peers::Student out;
  out.name = native(s.getName());
  out.friends = s.getFriends();
  out.home_address = native(s.getHomeAddress());
  out.birth_place = native(s.getBirthPlace());
  out.birth = native(s.getBirth());
  out.favorite_subjects.reserve(s.getFavoriteSubjects().size());
  for (cs::Subject::Reader subject : s.getFavoriteSubjects())
    out.favorite_subjects.push_back(
        {subject.getId(), native(subject.getTitle()), native(subject.getCode())});
  out.email_addresses = native(s.getEmailAddresses());
  out.schools.reserve(s.getSchools().size());
  for (cs::School::Reader school : s.getSchools()) {
    out.schools.push_back({native(school.getName()), native(school.getAddress()),
                           native(school.getFoundation()), native(school.getEmailAddresses())});
  }
  return out;
}

class SuiteImpl final : public cs::Suite::Server {
 protected:
  kj::Promise<void> getAnswer(GetAnswerContext context) override {
    context.getResults().setAnswer(peers::get_answer_direct(context.getParams().getNumber()));
    return kj::READY_NOW;
  }
  kj::Promise<void> getBlob(GetBlobContext context) override {
    uint64_t size = context.getParams().getSize();
    KJ_REQUIRE(size <= peers::kMaxBlob, "too large");
    auto data = context.getResults().initData(static_cast<unsigned>(size));
    std::memcpy(data.begin(), peers::blob_source().data(), size);
    return kj::READY_NOW;
  }
  kj::Promise<void> putBlob(PutBlobContext context) override {
    capnp::Data::Reader data = context.getParams().getData();
    context.getResults().setDigest(peers::blob_digest(data.begin(), data.size()));
    return kj::READY_NOW;
  }
  kj::Promise<void> getStructs(GetStructsContext context) override {
    const auto& students = peers::students_source();
    auto out = context.getResults().initStudents(static_cast<unsigned>(students.size()));
    for (unsigned i = 0; i < out.size(); ++i) fill(out[i], students[i]);
    return kj::READY_NOW;
  }
};

class CapnpPeer {
 public:
  CapnpPeer() {
    server_thread_ = std::thread([this] { serve(); });
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return port_ != 0; });
    client_.emplace("127.0.0.1", port_);
    suite_.emplace(client_->getMain<cs::Suite>());
  }
  ~CapnpPeer() {
    suite_.reset();
    client_.reset();
    server_executor_->executeSync([this] { stop_->fulfill(); });
    server_thread_.join();
  }

  int get_answer(int n) {
    auto request = suite_->getAnswerRequest();
    request.setNumber(n);
    return request.send().wait(client_->getWaitScope()).getAnswer();
  }
  std::vector<uint8_t> get_blob(size_t size) {
    auto request = suite_->getBlobRequest();
    request.setSize(size);
    auto response = request.send().wait(client_->getWaitScope());
    capnp::Data::Reader data = response.getData();
    return std::vector<uint8_t>(data.begin(), data.end());
  }
  int64_t put_blob(std::span<const uint8_t> bytes) {
    auto request = suite_->putBlobRequest();
    request.setData(capnp::Data::Reader(bytes.data(), bytes.size()));
    return request.send().wait(client_->getWaitScope()).getDigest();
  }
  std::vector<peers::Student> get_structs() {
    auto response = suite_->getStructsRequest().send().wait(client_->getWaitScope());
    std::vector<peers::Student> students;
    students.reserve(response.getStudents().size());
    for (cs::Student::Reader s : response.getStudents()) students.push_back(native(s));
    return students;
  }

 private:
  void serve() {
    capnp::EzRpcServer server(kj::heap<SuiteImpl>(), "127.0.0.1", 0);
    auto& wait_scope = server.getWaitScope();
    unsigned port = server.getPort().wait(wait_scope);
    auto stop = kj::newPromiseAndFulfiller<void>();
    {
      std::lock_guard lock(mutex_);
      stop_ = kj::mv(stop.fulfiller);
      server_executor_ = &kj::getCurrentThreadExecutor();
      port_ = port;
    }
    cv_.notify_all();
    stop.promise.wait(wait_scope);
  }

  std::thread server_thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  unsigned port_ = 0;
  const kj::Executor* server_executor_ = nullptr;
  kj::Own<kj::PromiseFulfiller<void>> stop_;
  std::optional<capnp::EzRpcClient> client_;
  std::optional<cs::Suite::Client> suite_;
};

}  // namespace

int main(int argc, char** argv) { return peers::run_suite<CapnpPeer>(argc, argv, "capnp"); }
