// callwire bench: the floor of the round trip. Writes a fixed request (the bytes callwire's
// client sends for sample.add, captured by bench/net_run.py) and reads a response of known
// length, over one TCP connection with TCP_NODELAY: one write and (usually) one read per call,
// no parsing. The peer is raw_lat_server.
//
// With --pipeline N, the floor of pipelined calls on one connection: N requests go out in one
// write, and whenever reads complete answers, as many new requests go out, again in one write,
// so N stay in flight. A call's latency is then from the write of its request to the read that
// completed its answer (its wait behind the others included); calls_per_s in the JSON line is
// the rate either way. --pipeline times by --seconds only (not --calls).
//
// Usage: raw_lat_client HOST:PORT REQUEST_FILE RESPONSE_LENGTH [--pipeline N]
//                       [--seconds S | --calls N] [--warmup N] [--server-pid P]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "lat_common.hpp"

namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, const std::string& data) {
  for (size_t sent = 0; sent < data.size();) {
    ssize_t n = ::write(fd, data.data() + sent, data.size() - sent);
    if (n <= 0) return false;
    sent += size_t(n);
  }
  return true;
}

int pipelined(int fd, const lat::Options& o, long depth, const std::string& request,
              size_t response_length) {
  std::deque<Clock::time_point> sent;  // write times of the requests on the wire, in order
  std::string out;
  auto send = [&](long count) {
    out.clear();
    for (long i = 0; i < count; ++i) out += request;
    Clock::time_point now = Clock::now();
    if (!write_all(fd, out)) lat::die("write failed");
    sent.insert(sent.end(), size_t(count), now);
  };

  lat::InFlightWindow window(o);
  std::vector<char> buffer(std::max<size_t>(65536, response_length * size_t(depth)));
  size_t partial = 0;  // bytes of an answer not yet whole
  send(depth);
  while (!sent.empty()) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n <= 0) lat::die("the server closed the connection");
    Clock::time_point now = Clock::now();
    partial += size_t(n);
    long again = 0;
    for (; partial >= response_length && !sent.empty(); partial -= response_length) {
      if (window.answered(sent.front(), now)) ++again;
      sent.pop_front();
    }
    if (again > 0) send(again);
  }
  return window.report("raw pipelined");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s HOST:PORT REQUEST_FILE RESPONSE_LENGTH [--pipeline N] "
                 "[--seconds S | --calls N] [--warmup N] [--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options options = lat::parse_options(argc, argv, 4);
  std::string request = lat::read_file(argv[2]);
  size_t response_length = std::stoul(argv[3]);
  if (response_length == 0) lat::die("RESPONSE_LENGTH must be positive");
  int fd = lat::connect_tcp(argv[1]);

  int status;
  if (options.pipeline > 0) {
    if (options.calls > 0) lat::die("--pipeline times by --seconds, not --calls");
    status = pipelined(fd, options, options.pipeline, request, response_length);
  } else {
    std::vector<char> response(response_length);
    status = lat::run("raw", options, [&] {
      if (!write_all(fd, request)) return false;
      for (size_t got = 0; got < response_length;) {
        ssize_t n = ::read(fd, response.data() + got, response_length - got);
        if (n <= 0) return false;
        got += size_t(n);
      }
      return true;
    });
  }
  close(fd);
  return status;
}
