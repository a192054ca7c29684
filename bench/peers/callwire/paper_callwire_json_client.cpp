// The paper's client with callwire speaking JSON-RPC 2.0 (the callwire-json peer): one Client
// on a jsonrpc+http:// URL, default options, typed call<Info> as the XML-RPC peer calls it,
// against paper_callwire_server, which answers JSON-RPC on the same port by the request's
// Content-Type. JSON has no bytes type, so the photo travels as base64 text, as between
// libjsonrpccpp's peers; the typed call reads it from that text straight into info.photo
// (strings stand for bytes in a typed JSON-RPC result: docs/typed-api.md).
#include <callwire/client.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "paper_info.hpp"

int main(int argc, char** argv) {
  return peers::run_paper_client(argc, argv, "callwire-json", [](int port) {
    auto client = std::make_shared<callwire::Client>(
        "jsonrpc+http://127.0.0.1:" + std::to_string(port) + "/RPC2");
    return [client](int id, bool photo) {
      auto info = client->call<peers::Info>("Database.Request", id, photo);
      if (!info) {
        std::fprintf(stderr, "callwire-json: %s\n", info.error().message.c_str());
        std::exit(1);
      }
      return std::move(*info);
    };
  });
}
