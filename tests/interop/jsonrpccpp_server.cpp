// libjsonrpccpp's server (jsonrpc::AbstractServer, JSON-RPC 2.0, over jsonrpc::HttpServer, which
// is libmicrohttpd): the peer test_jsonrpccpp_server.py points `callwire call --json-rpc` at.
//
// Usage: jsonrpccpp_server
//
// Listens on 127.0.0.1, port 0, prints "listening on http://127.0.0.1:PORT/" once it does, and
// exits 0 on SIGTERM or SIGINT. Its procedures, by position:
//
//   add(a, b)     a + b; the library answers -32602 unless both are integers
//   echo(...)     its parameters back (any number, any types)
//   types()       an object holding every JSON type
//   fail(...)     throws JsonRpcException(42, "the answer is no", {"asked": its parameters})
//   note(...)     a notification procedure: records its parameters; notes() returns them all
#include <arpa/inet.h>
#include <dlfcn.h>
#include <jsonrpccpp/server.h>
#include <jsonrpccpp/server/connectors/httpserver.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace {

std::atomic<int> g_listen_fd{-1};

}  // namespace

// libjsonrpccpp 0.7.0's HttpServer takes a port and nothing else: libmicrohttpd binds it on
// every interface (INADDR_ANY), and the daemon that could tell which port 0 picked is a private
// member (1.x has BindLocalhost(); Debian 12 ships 0.7.0). Tests bind loopback only, on port 0,
// so this program defines bind(), exported (visible, and named to the linker in CMakeLists.txt),
// and libmicrohttpd's call resolves to it before libc's: an IPv4 wildcard address becomes
// 127.0.0.1, everything else passes to libc unchanged, and the IPv4 socket is remembered so that
// main() reads its port back with getsockname(). No port is guessed, so no retry is needed.
extern "C" __attribute__((visibility("default"))) int bind(int fd, const struct sockaddr* addr,
                                                           socklen_t len) noexcept {
  using Bind = int (*)(int, const struct sockaddr*, socklen_t);
  static const Bind libc_bind = reinterpret_cast<Bind>(dlsym(RTLD_NEXT, "bind"));
  sockaddr_in loopback;
  if (addr != nullptr && addr->sa_family == AF_INET && len >= sizeof loopback) {
    std::memcpy(&loopback, addr, sizeof loopback);
    if (loopback.sin_addr.s_addr == htonl(INADDR_ANY)) {
      loopback.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr = reinterpret_cast<const sockaddr*>(&loopback);
    }
    g_listen_fd = fd;
  }
  return libc_bind(fd, addr, len);
}

namespace {

class Server : public jsonrpc::AbstractServer<Server> {
 public:
  explicit Server(jsonrpc::AbstractServerConnector& connector)
      : AbstractServer<Server>(connector, jsonrpc::JSONRPC_SERVER_V2) {
    using jsonrpc::Procedure;
    bindAndAddMethod(Procedure("add", jsonrpc::PARAMS_BY_POSITION, jsonrpc::JSON_INTEGER, "a",
                               jsonrpc::JSON_INTEGER, "b", jsonrpc::JSON_INTEGER, nullptr),
                     &Server::add);
    // No parameters declared: the library then takes any.
    bindAndAddMethod(Procedure("echo", jsonrpc::PARAMS_BY_POSITION, jsonrpc::JSON_ARRAY, nullptr),
                     &Server::echo);
    bindAndAddMethod(Procedure("types", jsonrpc::PARAMS_BY_POSITION, jsonrpc::JSON_OBJECT, nullptr),
                     &Server::types);
    bindAndAddMethod(Procedure("fail", jsonrpc::PARAMS_BY_POSITION, jsonrpc::JSON_OBJECT, nullptr),
                     &Server::fail);
    bindAndAddNotification(Procedure("note", jsonrpc::PARAMS_BY_POSITION, nullptr), &Server::note);
    bindAndAddMethod(Procedure("notes", jsonrpc::PARAMS_BY_POSITION, jsonrpc::JSON_ARRAY, nullptr),
                     &Server::notes);
  }

  void add(const Json::Value& params, Json::Value& result) {
    result = params[0].asInt64() + params[1].asInt64();
  }
  void echo(const Json::Value& params, Json::Value& result) { result = params; }
  void types(const Json::Value&, Json::Value& result) {
    Json::Value array(Json::arrayValue);
    array.append(1);
    array.append("two");
    array.append(Json::Value(Json::arrayValue));
    Json::Value nested(Json::objectValue);
    nested["nested"] = Json::Value(Json::objectValue);
    result = Json::Value(Json::objectValue);
    result["string"] = "caf\xc3\xa9 \xe2\x98\x83 \"quoted\" \\ \n";
    result["integer"] = 42;
    result["negative"] = -7;
    result["big"] = Json::Int64(9007199254740993LL);  // beyond 2^53: exact in int64
    result["double"] = 1.5;
    result["true"] = true;
    result["false"] = false;
    result["null"] = Json::Value(Json::nullValue);
    result["array"] = array;
    result["object"] = nested;
  }
  void fail(const Json::Value& params, Json::Value&) {
    Json::Value data(Json::objectValue);
    data["asked"] = params;
    throw jsonrpc::JsonRpcException(42, "the answer is no", data);
  }
  void note(const Json::Value& params) {
    std::lock_guard<std::mutex> lock(mutex_);  // HttpServer runs handlers on several threads
    notes_.append(params);
  }
  void notes(const Json::Value&, Json::Value& result) {
    std::lock_guard<std::mutex> lock(mutex_);
    result = notes_;
  }

 private:
  std::mutex mutex_;
  Json::Value notes_{Json::arrayValue};
};

}  // namespace

int main() {
  // Blocked before libmicrohttpd starts its threads, so that they inherit the mask and the
  // signals wait for sigwait() below.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  jsonrpc::HttpServer http(0, "", "", 4);
  Server server(http);
  if (!server.StartListening()) {
    std::fprintf(stderr, "jsonrpccpp_server: HttpServer::StartListening failed\n");
    return 1;
  }
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  if (g_listen_fd < 0 || getsockname(g_listen_fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0 ||
      bound.sin_addr.s_addr != htonl(INADDR_LOOPBACK)) {
    std::fprintf(stderr,
                 "jsonrpccpp_server: no IPv4 loopback socket bound (is bind() exported?)\n");
    return 1;
  }
  std::printf("listening on http://127.0.0.1:%d/\n", ntohs(bound.sin_port));
  std::fflush(stdout);

  int signal = 0;
  sigwait(&stop, &signal);
  server.StopListening();
  return 0;
}
