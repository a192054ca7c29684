// rpclib's suite with Apache Thrift C++: the binary protocol over a buffered TSocket (Thrift's
// C++ tutorial), a TThreadedServer in a thread of this process, one client connection for
// every call. The server converts the native structs into Thrift's on every call and the
// client moves Thrift's into native ones, as the other peers do. put_blob sends a binary (a
// std::string in Thrift's C++) and the server answers an i64.
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/server/TThreadedServer.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TServerSocket.h>
#include <thrift/transport/TSocket.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "../common/suite.hpp"
#include "Suite.h"

namespace ts = peers::thrift_suite;
using apache::thrift::TConfiguration;
using apache::thrift::protocol::TBinaryProtocol;
using apache::thrift::protocol::TBinaryProtocolFactory;
using apache::thrift::server::TServerEventHandler;
using apache::thrift::server::TThreadedServer;
using apache::thrift::transport::TBufferedTransport;
using apache::thrift::transport::TBufferedTransportFactory;
using apache::thrift::transport::TServerSocket;
using apache::thrift::transport::TSocket;

namespace {

ts::Date to_thrift(const peers::Date& d) {
  ts::Date out;
  out.year = d.year;
  out.month = static_cast<int8_t>(d.month);
  out.day = static_cast<int8_t>(d.day);
  return out;
}
ts::Address to_thrift(const peers::Address& a) {
  ts::Address out;
  out.city = a.city;
  out.zipcode = a.zipcode;
  out.street = a.street;
  out.number = a.number;
  return out;
}
ts::Student to_thrift(const peers::Student& s) {
  ts::Student out;
  out.name = s.name;
  out.friends = s.friends;
  out.home_address = to_thrift(s.home_address);
  out.birth_place = to_thrift(s.birth_place);
  out.birth = to_thrift(s.birth);
  out.favorite_subjects.reserve(s.favorite_subjects.size());
  for (const peers::Subject& subject : s.favorite_subjects) {
    ts::Subject o;
    o.id = subject.id;
    o.title = subject.title;
    o.code = subject.code;
    out.favorite_subjects.push_back(std::move(o));
  }
  out.email_addresses = s.email_addresses;
  out.schools.reserve(s.schools.size());
  for (const peers::School& school : s.schools) {
    ts::School o;
    o.name = school.name;
    o.address = to_thrift(school.address);
    o.foundation = to_thrift(school.foundation);
    o.email_addresses = school.email_addresses;
    out.schools.push_back(std::move(o));
  }
  return out;
}

peers::Date from_thrift(const ts::Date& d) {
  return {d.year, static_cast<char>(d.month), static_cast<char>(d.day)};
}
peers::Address from_thrift(ts::Address& a) {
  return {std::move(a.city), a.zipcode, std::move(a.street), a.number};
}
peers::Student from_thrift(ts::Student& s) {
  peers::Student out;
  out.name = std::move(s.name);
  out.friends = s.friends;
  out.home_address = from_thrift(s.home_address);
  out.birth_place = from_thrift(s.birth_place);
  out.birth = from_thrift(s.birth);
  out.favorite_subjects.reserve(s.favorite_subjects.size());
  for (ts::Subject& subject : s.favorite_subjects)
    out.favorite_subjects.push_back(
        {subject.id, std::move(subject.title), std::move(subject.code)});
  out.email_addresses = std::move(s.email_addresses);
  out.schools.reserve(s.schools.size());
  for (ts::School& school : s.schools) {
    out.schools.push_back({std::move(school.name), from_thrift(school.address),
                           from_thrift(school.foundation), std::move(school.email_addresses)});
  }
  return out;
}

class SuiteHandler : public ts::SuiteIf {
 public:
  int32_t get_answer(const int32_t number) override { return peers::get_answer_direct(number); }
  void get_blob(std::string& out, const int64_t size) override {
    if (size < 0 || static_cast<size_t>(size) > peers::kMaxBlob) return;
    const auto* bytes = reinterpret_cast<const char*>(peers::blob_source().data());
    out.assign(bytes, static_cast<size_t>(size));
  }
  int64_t put_blob(const std::string& data) override {
    return peers::blob_digest(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  }
  void get_structs(std::vector<ts::Student>& out) override {
    const auto& students = peers::students_source();
    out.reserve(students.size());
    for (const peers::Student& s : students) out.push_back(to_thrift(s));
  }
};

// Tells the constructor when serve() has opened its socket, so the port can be read.
class ReadySignal : public TServerEventHandler {
 public:
  void preServe() override {
    std::lock_guard lock(mutex_);
    ready_ = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return ready_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool ready_ = false;
};

class ThriftPeer {
 public:
  ThriftPeer() {
    // Thrift refuses messages over its configured maximum (100 MB by default): set ours. The
    // server's sockets keep the default, which covers put_blob's 16 MiB.
    auto config = std::make_shared<TConfiguration>(static_cast<int>(peers::kMessageLimit));
    auto server_socket = std::make_shared<TServerSocket>("127.0.0.1", 0);
    server_ = std::make_unique<TThreadedServer>(
        std::make_shared<ts::SuiteProcessor>(std::make_shared<SuiteHandler>()), server_socket,
        std::make_shared<TBufferedTransportFactory>(), std::make_shared<TBinaryProtocolFactory>());
    auto ready = std::make_shared<ReadySignal>();
    server_->setServerEventHandler(ready);
    thread_ = std::thread([this] { server_->serve(); });
    ready->wait();
    int port = server_socket->getPort();
    if (port == 0) peers::wrong_answer("thrift", "no port");

    auto socket = std::make_shared<TSocket>("127.0.0.1", port, config);
    socket->setNoDelay(true);
    transport_ = std::make_shared<TBufferedTransport>(socket, config);
    client_ = std::make_unique<ts::SuiteClient>(std::make_shared<TBinaryProtocol>(transport_));
    transport_->open();
  }
  ~ThriftPeer() {
    transport_->close();
    server_->stop();
    thread_.join();
  }

  int get_answer(int n) { return client_->get_answer(n); }
  std::string get_blob(size_t size) {
    std::string blob;
    client_->get_blob(blob, static_cast<int64_t>(size));
    return blob;
  }
  int64_t put_blob(std::span<const uint8_t> bytes) {
    return client_->put_blob(
        std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  std::vector<peers::Student> get_structs() {
    std::vector<ts::Student> reply;
    client_->get_structs(reply);
    std::vector<peers::Student> students;
    students.reserve(reply.size());
    for (ts::Student& s : reply) students.push_back(from_thrift(s));
    return students;
  }

 private:
  std::unique_ptr<TThreadedServer> server_;
  std::thread thread_;
  std::shared_ptr<TBufferedTransport> transport_;
  std::unique_ptr<ts::SuiteClient> client_;
};

}  // namespace

int main(int argc, char** argv) { return peers::run_suite<ThriftPeer>(argc, argv, "thrift"); }
