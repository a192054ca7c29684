// introspection_dump: lists what a server offers, with each method's signatures and help text,
// from system.listMethods, system.methodSignature and system.methodHelp. Works against any
// XML-RPC server with introspection (callwire, xmlrpc-c, Python's SimpleXMLRPCServer...).
//
//   introspection_dump URL
#include <callwire/client.hpp>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s URL\n", argv[0]);
    return 2;
  }
  auto client = callwire::Client::create(argv[1]);
  if (!client) {
    std::fprintf(stderr, "%s\n", client.error().message.c_str());
    return 1;
  }

  auto methods = client->call<std::vector<std::string>>("system.listMethods");
  if (!methods) {
    std::fprintf(stderr, "system.listMethods failed: %s\n", methods.error().message.c_str());
    return 1;
  }

  for (const std::string& name : *methods) {
    std::printf("%s\n", name.c_str());

    // An array of signatures, each [return type, parameter types...]; or the string "undef"
    // when the server was given none. callwire::Value takes either, unconverted.
    auto signatures = client->call<callwire::Value>("system.methodSignature", name);
    if (!signatures) {
      std::printf("  signature: (%s)\n", signatures.error().message.c_str());
    } else if (signatures->is_array()) {
      for (const callwire::Value& sig : signatures->as_array()) {
        // Written as a C-like prototype: "int sample.add(int, int)".
        auto types = sig.as_array();
        std::string text =
            types.empty() ? "?" : std::string(types[0].try_as_string().value_or("?"));
        text += ' ' + name + '(';
        for (size_t i = 1; i < types.size(); ++i) {
          if (i > 1) text += ", ";
          text += types[i].try_as_string().value_or("?");
        }
        std::printf("  signature: %s)\n", text.c_str());
      }
    } else {
      std::printf("  signature: undef\n");
    }

    auto help = client->call<std::string>("system.methodHelp", name);
    if (!help) {
      std::printf("  help: (%s)\n", help.error().message.c_str());
    } else if (!help->empty()) {
      std::printf("  help: %s\n", help->c_str());
    }
  }
  return 0;
}
