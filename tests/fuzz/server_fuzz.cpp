// libFuzzer driver for the whole server path a peer can reach: bytes over a real (Unix)
// socket into a running Server — HTTP or SCGI parsing, 100-continue, gzip, pipelining,
// dispatch, answers, closing. Each input (raw bytes: the seeds are plain requests) goes to the
// SCGI listener when it starts with a digit (an SCGI request's netstring length), to the
// packet stream when it starts with 0x1B (ESC, as every packet does: to the pstream listener,
// or through one end of a socketpair handed to Server::adopt_connection, as a hash bit of the
// input says), to the WebSocket listener when its high bit is set (as a frame's FIN bit: the
// driver sends a valid handshake first, the subprotocol JSON-RPC or XML-RPC as a hash bit
// says, and the input is the frames), and to the HTTP one otherwise, in up to three pieces cut
// where a hash of the input says, then the client half-closes; the server must answer and close
// within three seconds (no hang), never crash (ASan, UBSan), and leak nothing.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "callwire/server.hpp"

namespace {

using namespace callwire;

const std::string& socket_dir() {
  static std::string dir = [] {
    char d[] = "/tmp/callwire-server-fuzz.XXXXXX";
    if (!mkdtemp(d)) abort();
    return std::string(d);
  }();
  return dir;
}
enum class Kind { Http, Scgi, Pstream, WebSocket };
std::string socket_path(Kind kind) {
  return socket_dir() + (kind == Kind::Scgi        ? "/scgi.sock"
                         : kind == Kind::Pstream   ? "/ps.sock"
                         : kind == Kind::WebSocket ? "/ws.sock"
                                                   : "/s.sock");
}

// A registration the driver depends on; refused, there is nothing to fuzz.
void must(const Status& added) {
  if (!added) abort();
}

Server& server() {
  static Server* s = [] {
    ServerOptions o;
    o.listen = {"unix:" + socket_path(Kind::Http), "scgi+unix:" + socket_path(Kind::Scgi),
                "pstream+unix:" + socket_path(Kind::Pstream),
                "ws+unix:" + socket_path(Kind::WebSocket)};
    o.websocket.ping_interval = std::chrono::milliseconds(0);  // the input's bytes alone
    o.threads = 1;
    o.max_body = 64 * 1024;
    o.max_header_bytes = 4096;
    o.gzip_min_size = 64;
    o.request_timeout = std::chrono::milliseconds(1000);
    auto* srv = new Server(o);
    must(srv->add_method("echo", [](Params p, CallContext&) {
      Value a = Value::array();
      for (Value& v : p) a.push_back(std::move(v));
      return a;
    }));
    must(srv->add_method(
        "sample.add",
        [](Params p, CallContext&) { return Value(int64_t(p[0].as_int()) + p[1].as_int()); },
        {{{"int", "int", "int"}}, ""}));
    if (!srv->start()) abort();
    return srv;
  }();
  return *s;
}

bool send_all(int fd, const uint8_t* p, size_t n) {
  while (n) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;  // the server may close early (an error answer): fine
    p += w;
    n -= size_t(w);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  server();
  uint32_t hash = 2166136261u;  // FNV-1a: the same input is always cut the same way
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
  const Kind kind = size == 0                          ? Kind::Http
                    : data[0] >= '0' && data[0] <= '9' ? Kind::Scgi
                    : data[0] == 0x1B                  ? Kind::Pstream
                    : data[0] >= 0x80                  ? Kind::WebSocket
                                                       : Kind::Http;
  int fd = -1;
  if (kind == Kind::Pstream && (hash & 0x80000000u)) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) abort();
    if (!server().adopt_connection(pair[1], ConnectionFraming::Pstream)) abort();
    fd = pair[0];
  } else {
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, socket_path(kind).c_str(), sizeof a.sun_path - 1);
    int rc;
    while ((rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a)) != 0 && errno == EINTR) {
    }
    if (rc != 0 && errno != EISCONN) abort();
  }
  if (kind == Kind::WebSocket) {
    const std::string handshake =
        std::string(
            "GET /RPC2 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n") +
        (hash & 0x40000000u ? "Sec-WebSocket-Protocol: xmlrpc\r\n" : "") + "\r\n";
    send_all(fd, reinterpret_cast<const uint8_t*>(handshake.data()), handshake.size());
  }
  size_t first = size ? hash % (size + 1) : 0, second = size ? (hash >> 16) % (size + 1) : 0;
  if (second < first) std::swap(first, second);
  if (send_all(fd, data, first) && send_all(fd, data + first, second - first))
    send_all(fd, data + second, size - second);
  ::shutdown(fd, SHUT_WR);
  // libFuzzer's timers interrupt system calls (EINTR): retry those, against one deadline.
  char buf[65536];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd pf{fd, POLLIN, 0};
    int ready = left.count() > 0 ? ::poll(&pf, 1, int(left.count())) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      std::fprintf(stderr, "server_fuzz: no answer and no close within 3 s\n");
      abort();
    }
    ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
  }
  ::close(fd);
  return 0;
}
