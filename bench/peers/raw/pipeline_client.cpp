// Experiment 4 (the heartbeat): many calls in flight on one HTTP/1.1 connection, by
// pipelining. Keeps K requests on the wire: writes K copies of a request file (callwire's own
// bytes for sample.add(2, 3), captured by bench/heartbeat.py), and whenever answers come back
// writes as many new requests, all in one write. Answers are framed by Content-Length, not
// parsed: each must be "HTTP/1.1 200" with exactly the expected body, else the run fails.
// Against raw_lat_server (which answers the same bytes without parsing) it is the floor;
// against `callwire serve` it measures callwire's server under pipelining. callwire's own
// Client does not pipeline: it uses a connection per call in flight.
//
// Usage: pipeline_client HOST:PORT REQUEST_FILE BODY_FILE [--in-flight K] [--seconds S]
//                        [--warmup N] [--server-pid P]
// Prints lat_common.hpp's JSON line; a call's latency is from the write of its request to
// the read that completed its answer (so it includes its wait behind the others).
#include <strings.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <string>
#include <string_view>

#include "../../net/lat_common.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// The length of the first whole answer in `in`, 0 if it is not all there yet, or -1 if it is
// not a 200 with `body`.
long whole_answer(std::string_view in, std::string_view body) {
  size_t head_end = in.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return 0;
  std::string_view head = in.substr(0, head_end);
  long length = -1;
  for (size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2))
    if (strncasecmp(head.data() + at + 2, "content-length:", 15) == 0)
      length = std::atol(head.data() + at + 17);
  if (head.substr(0, 12) != "HTTP/1.1 200" || length < 0) return -1;
  size_t total = head_end + 4 + size_t(length);
  if (in.size() < total) return 0;
  return in.substr(head_end + 4, size_t(length)) == body ? long(total) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s HOST:PORT REQUEST_FILE BODY_FILE [--in-flight K] [--seconds S] "
                 "[--warmup N] [--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options o = lat::parse_options(argc, argv, 4);
  std::string request = lat::read_file(argv[2]), body = lat::read_file(argv[3]);
  if (o.in_flight < 1) lat::die("--in-flight must be at least 1");
  int fd = lat::connect_tcp(argv[1]);

  std::deque<Clock::time_point> sent;  // write times of the requests on the wire, in order
  std::string out, in;
  auto send = [&](long count) {
    out.clear();
    for (long i = 0; i < count; ++i) out += request;
    Clock::time_point now = Clock::now();
    for (size_t done = 0; done < out.size();) {
      ssize_t n = ::write(fd, out.data() + done, out.size() - done);
      if (n <= 0) lat::die("write failed");
      done += size_t(n);
    }
    sent.insert(sent.end(), size_t(count), now);
  };

  lat::InFlightWindow window(o);
  long answered = 0;
  send(o.in_flight);
  char buffer[65536];
  while (!sent.empty()) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) lat::die("the server closed the connection");
    Clock::time_point now = Clock::now();
    in.append(buffer, size_t(n));
    long again = 0;
    size_t used = 0;
    for (long length; (length = whole_answer(std::string_view(in).substr(used), body)) != 0;) {
      if (length < 0) {
        std::fprintf(stderr, "pipeline_client: answer %ld is not the expected one\n", answered);
        return 1;
      }
      used += size_t(length);
      ++answered;
      if (window.answered(sent.front(), now)) ++again;
      sent.pop_front();
    }
    in.erase(0, used);
    if (again > 0) send(again);
  }
  close(fd);
  return window.report("pipelined");
}
