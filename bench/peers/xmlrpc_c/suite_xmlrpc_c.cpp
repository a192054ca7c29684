// rpclib's suite with xmlrpc-c's C++ library: its Abyss server on a thread of this process
// and its client over the curl transport (client_xml, carriageParm_curl0 and rpc, as its
// xmlrpc_sample_add_client_complex example), one transport (one curl session, so one
// kept-alive connection) for every call. The 512 KiB XML limit is raised (process-wide: it is
// also the Abyss server's ceiling on a request body, which put_blob's 16 MiB, 22.4 MB as
// base64, needs), and Abyss's keep-alive is allowed more than its default 30 requests a
// connection. put_blob sends a value_bytestring and the server answers a value_i8.
#include <memory>
#include <thread>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/client.hpp>
#include <xmlrpc-c/registry.hpp>
#include <xmlrpc-c/server_abyss.hpp>

#include "../common/suite.hpp"
#include "common.hpp"

using xmlrpc_c::value;

namespace {

value to_xmlrpc(const peers::Date& d) {
  return xmlrpc_c::value_struct({{"year", xmlrpc_c::value_int(d.year)},
                                 {"month", xmlrpc_c::value_int(d.month)},
                                 {"day", xmlrpc_c::value_int(d.day)}});
}
value to_xmlrpc(const peers::Address& a) {
  return xmlrpc_c::value_struct({{"city", xmlrpc_c::value_string(a.city)},
                                 {"zipcode", xmlrpc_c::value_int(a.zipcode)},
                                 {"street", xmlrpc_c::value_string(a.street)},
                                 {"number", xmlrpc_c::value_int(a.number)}});
}
value to_xmlrpc(const std::vector<std::string>& strings) {
  xmlrpc_c::carray items;
  items.reserve(strings.size());
  for (const std::string& s : strings) items.push_back(xmlrpc_c::value_string(s));
  return xmlrpc_c::value_array(items);
}
value to_xmlrpc(const peers::Student& s) {
  xmlrpc_c::carray subjects;
  for (const peers::Subject& subject : s.favorite_subjects) {
    subjects.push_back(xmlrpc_c::value_struct({{"id", xmlrpc_c::value_int(subject.id)},
                                               {"title", xmlrpc_c::value_string(subject.title)},
                                               {"code", xmlrpc_c::value_string(subject.code)}}));
  }
  xmlrpc_c::carray schools;
  for (const peers::School& school : s.schools) {
    schools.push_back(
        xmlrpc_c::value_struct({{"name", xmlrpc_c::value_string(school.name)},
                                {"address", to_xmlrpc(school.address)},
                                {"foundation", to_xmlrpc(school.foundation)},
                                {"email_addresses", to_xmlrpc(school.email_addresses)}}));
  }
  return xmlrpc_c::value_struct({{"name", xmlrpc_c::value_string(s.name)},
                                 {"friends", xmlrpc_c::value_int(s.friends)},
                                 {"home_address", to_xmlrpc(s.home_address)},
                                 {"birth_place", to_xmlrpc(s.birth_place)},
                                 {"birth", to_xmlrpc(s.birth)},
                                 {"favorite_subjects", xmlrpc_c::value_array(subjects)},
                                 {"email_addresses", to_xmlrpc(s.email_addresses)},
                                 {"schools", xmlrpc_c::value_array(schools)}});
}

// Member `name` of a struct; a missing one throws, as xmlrpc-c's own accessors do.
const value& member(const xmlrpc_c::cstruct& s, const char* name) {
  auto it = s.find(name);
  if (it == s.end()) throw std::runtime_error(std::string("no member ") + name);
  return it->second;
}
int int_member(const xmlrpc_c::cstruct& s, const char* name) {
  return xmlrpc_c::value_int(member(s, name));
}
std::string string_member(const xmlrpc_c::cstruct& s, const char* name) {
  return xmlrpc_c::value_string(member(s, name));
}
peers::Date date_from(const value& v) {
  xmlrpc_c::cstruct s = xmlrpc_c::value_struct(v);
  return {int_member(s, "year"), static_cast<char>(int_member(s, "month")),
          static_cast<char>(int_member(s, "day"))};
}
peers::Address address_from(const value& v) {
  xmlrpc_c::cstruct s = xmlrpc_c::value_struct(v);
  return {string_member(s, "city"), int_member(s, "zipcode"), string_member(s, "street"),
          static_cast<int16_t>(int_member(s, "number"))};
}
std::vector<std::string> strings_from(const value& v) {
  std::vector<std::string> out;
  for (const value& item : xmlrpc_c::value_array(v).vectorValueValue())
    out.push_back(xmlrpc_c::value_string(item));
  return out;
}
peers::Student student_from(const value& v) {
  xmlrpc_c::cstruct s = xmlrpc_c::value_struct(v);
  peers::Student out;
  out.name = string_member(s, "name");
  out.friends = int_member(s, "friends");
  out.home_address = address_from(member(s, "home_address"));
  out.birth_place = address_from(member(s, "birth_place"));
  out.birth = date_from(member(s, "birth"));
  for (const value& item :
       xmlrpc_c::value_array(member(s, "favorite_subjects")).vectorValueValue()) {
    xmlrpc_c::cstruct subject = xmlrpc_c::value_struct(item);
    out.favorite_subjects.push_back({int_member(subject, "id"), string_member(subject, "title"),
                                     string_member(subject, "code")});
  }
  out.email_addresses = strings_from(member(s, "email_addresses"));
  for (const value& item : xmlrpc_c::value_array(member(s, "schools")).vectorValueValue()) {
    xmlrpc_c::cstruct school = xmlrpc_c::value_struct(item);
    out.schools.push_back({string_member(school, "name"), address_from(member(school, "address")),
                           date_from(member(school, "foundation")),
                           strings_from(member(school, "email_addresses"))});
  }
  return out;
}

class GetAnswer : public xmlrpc_c::method {
 public:
  GetAnswer() { _signature = "i:i"; }
  void execute(const xmlrpc_c::paramList& params, value* result) override {
    int n = params.getInt(0);
    params.verifyEnd(1);
    *result = xmlrpc_c::value_int(peers::get_answer_direct(n));
  }
};

class GetBlob : public xmlrpc_c::method {
 public:
  GetBlob() { _signature = "6:i"; }
  void execute(const xmlrpc_c::paramList& params, value* result) override {
    int size = params.getInt(0, 0, static_cast<int>(peers::kMaxBlob));
    params.verifyEnd(1);
    const auto& source = peers::blob_source();
    *result =
        xmlrpc_c::value_bytestring(xmlrpc_c::cbytestring(source.begin(), source.begin() + size));
  }
};

class PutBlob : public xmlrpc_c::method {
 public:
  PutBlob() { _signature = "I:6"; }
  void execute(const xmlrpc_c::paramList& params, value* result) override {
    xmlrpc_c::cbytestring bytes = params.getBytestring(0);
    params.verifyEnd(1);
    *result = xmlrpc_c::value_i8(peers::blob_digest(bytes.data(), bytes.size()));
  }
};

class GetStructs : public xmlrpc_c::method {
 public:
  GetStructs() { _signature = "A:"; }
  void execute(const xmlrpc_c::paramList& params, value* result) override {
    params.verifyEnd(0);
    xmlrpc_c::carray students;
    for (const peers::Student& s : peers::students_source()) students.push_back(to_xmlrpc(s));
    *result = xmlrpc_c::value_array(students);
  }
};

class XmlrpcCPeer {
 public:
  XmlrpcCPeer() {
    peers::xmlrpc_c_peer::raise_xml_size_limit(peers::kMessageLimit);
    registry_.addMethod("get_answer", xmlrpc_c::methodPtr(new GetAnswer));
    registry_.addMethod("get_blob", xmlrpc_c::methodPtr(new GetBlob));
    registry_.addMethod("get_structs", xmlrpc_c::methodPtr(new GetStructs));
    registry_.addMethod("put_blob", xmlrpc_c::methodPtr(new PutBlob));
    unsigned port = 0;
    int fd = peers::xmlrpc_c_peer::listen_on_loopback(port);
    server_ = std::make_unique<xmlrpc_c::serverAbyss>(xmlrpc_c::serverAbyss::constrOpt()
                                                          .registryP(&registry_)
                                                          .socketFd(fd)
                                                          .keepaliveMaxConn(1000000000)
                                                          .keepaliveTimeout(60)
                                                          .serverOwnsSignals(false));
    server_thread_ = std::thread([this] { server_->run(); });
    carriage_ = std::make_unique<xmlrpc_c::carriageParm_curl0>(
        "http://127.0.0.1:" + std::to_string(port) + "/RPC2");
    client_ = std::make_unique<xmlrpc_c::client_xml>(&transport_);
  }
  ~XmlrpcCPeer() {
    client_.reset();
    server_->terminate();
    server_thread_.join();
  }

  int get_answer(int n) {
    xmlrpc_c::paramList params;
    params.add(xmlrpc_c::value_int(n));
    return xmlrpc_c::value_int(call("get_answer", params));
  }
  std::vector<unsigned char> get_blob(size_t size) {
    xmlrpc_c::paramList params;
    params.add(xmlrpc_c::value_int(static_cast<int>(size)));
    return xmlrpc_c::value_bytestring(call("get_blob", params)).vectorUcharValue();
  }
  int64_t put_blob(std::span<const uint8_t> bytes) {
    xmlrpc_c::paramList params;
    params.add(xmlrpc_c::value_bytestring(xmlrpc_c::cbytestring(bytes.begin(), bytes.end())));
    return xmlrpc_c::value_i8(call("put_blob", params));
  }
  std::vector<peers::Student> get_structs() {
    std::vector<peers::Student> students;
    for (const value& item : xmlrpc_c::value_array(call("get_structs", {})).vectorValueValue())
      students.push_back(student_from(item));
    return students;
  }

 private:
  value call(const std::string& method, const xmlrpc_c::paramList& params) {
    try {
      xmlrpc_c::rpcPtr rpc(method, params);
      rpc->call(client_.get(), carriage_.get());
      return rpc->getResult();
    } catch (const std::exception& e) {
      peers::wrong_answer("xmlrpc-c/" + method, e.what());
    }
  }

  xmlrpc_c::registry registry_;
  std::unique_ptr<xmlrpc_c::serverAbyss> server_;
  std::thread server_thread_;
  xmlrpc_c::clientXmlTransport_curl transport_;
  std::unique_ptr<xmlrpc_c::client_xml> client_;
  std::unique_ptr<xmlrpc_c::carriageParm_curl0> carriage_;
};

}  // namespace

int main(int argc, char** argv) { return peers::run_suite<XmlrpcCPeer>(argc, argv, "xmlrpc-c"); }
