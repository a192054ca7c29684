// What the xmlrpc-c server peers of the interop tests share (xmlrpc_c_server.cpp over Abyss,
// xmlrpc_c_pstream_server.cpp over the packet stream): their methods and their listening
// socket.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/registry.hpp>

namespace interop {

class AddMethod : public xmlrpc_c::method {
 public:
  AddMethod() {
    _signature = "i:ii";
    _help = "Adds two 32-bit integers.";
  }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int a = params.getInt(0);
    int b = params.getInt(1);
    params.verifyEnd(2);
    *result = xmlrpc_c::value_int(a + b);
  }
};

class EchoMethod : public xmlrpc_c::method {
 public:
  EchoMethod() {
    _signature = "?";  // any parameters
    _help = "Returns its parameters as an array.";
  }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    std::vector<xmlrpc_c::value> items;
    for (unsigned i = 0; i < params.size(); ++i) items.push_back(params[i]);
    *result = xmlrpc_c::value_array(items);
  }
};

class FaultMethod : public xmlrpc_c::method {
 public:
  FaultMethod() {
    _signature = "i:";
    _help = "Always answers fault 42.";
  }
  void execute(const xmlrpc_c::paramList&, xmlrpc_c::value*) override {
    throw xmlrpc_c::fault("the fault you asked for", static_cast<xmlrpc_c::fault::code_t>(42));
  }
};

/// sample.add, echo and sample.fault.
inline void add_methods(xmlrpc_c::registry& registry) {
  registry.addMethod("sample.add", xmlrpc_c::methodPtr(new AddMethod));
  registry.addMethod("echo", xmlrpc_c::methodPtr(new EchoMethod));
  registry.addMethod("sample.fault", xmlrpc_c::methodPtr(new FaultMethod));
}

extern "C" inline void exit_on_term(int) { _exit(0); }

/// A socket listening on 127.0.0.1 at a port the system picks (in `port`); -1 after printing
/// why (prefixed with `program`).
inline int listen_on_loopback(const char* program, uint16_t& port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 64) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::fprintf(stderr, "%s: ", program);
    std::perror("socket");
    return -1;
  }
  port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace interop
