// The paper's client with callwire speaking JSON-RPC 2.0 (the callwire-json peer): one Client
// on a jsonrpc+http:// URL, default options, against paper_callwire_server, which answers
// JSON-RPC on the same port by the request's Content-Type. JSON has no bytes type, so the
// photo travels as base64 text, as between libjsonrpccpp's peers; this client decodes it
// itself, as theirs does. (A typed call<Info> would refuse it: over JSON-RPC a typed result
// reads bytes only from a bytes Value, docs/typed-api.md.)
#include <callwire/base64.hpp>
#include <callwire/client.hpp>
#include <callwire/convert.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "../common/paper.hpp"

namespace {

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "callwire-json: %s\n", why.c_str());
  std::exit(1);
}

template <class T>
T member(const callwire::Value& info, std::string_view name) {
  auto m = callwire::member_as<T>(info, name);
  if (!m) fail(m.error().message);
  return std::move(*m);
}

// The answer's struct as an Info: the plain members as the XML-RPC peer reads them, the photo
// decoded from its text.
peers::Info to_info(const callwire::Value& v) {
  peers::Info info;
  info.id = member<int32_t>(v, "id");
  info.first_name = member<std::string>(v, "first_name");
  info.last_name = member<std::string>(v, "last_name");
  info.age = member<int32_t>(v, "age");
  info.email = member<std::string>(v, "email");
  info.phone = member<std::string>(v, "phone");
  info.newsletter = member<bool>(v, "newsletter");
  info.latitude = member<float>(v, "latitude");
  info.longitude = member<float>(v, "longitude");
  auto photo = callwire::base64_decode(member<std::string_view>(v, "photo"));
  if (!photo) fail("photo: " + photo.error().message);
  info.photo = std::move(*photo);
  return info;
}

}  // namespace

int main(int argc, char** argv) {
  return peers::run_paper_client(argc, argv, "callwire-json", [](int port) {
    auto client = std::make_shared<callwire::Client>(
        "jsonrpc+http://127.0.0.1:" + std::to_string(port) + "/RPC2");
    return [client](int id, bool photo) {
      auto answer = client->call("Database.Request", {id, photo});
      if (!answer) fail(answer.error().message);
      return to_info(*answer);
    };
  });
}
