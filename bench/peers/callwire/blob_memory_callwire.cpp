// Issue 30: the memory a big get_blob takes on each side. A server process (forked) and a
// client process, each measuring its own resident high-water mark (VmHWM, reset through
// /proc/self/clear_refs once the connection is up) above its resident size at that moment,
// over CALLS calls of get_blob(SIZE). The server holds the blob before it is measured, as a
// server holds the data it serves; "view" answers with a view of it, "copies" with a fresh
// std::vector<uint8_t> copied from it on every call. The client reads each answer with
// call<std::vector<uint8_t>> and drops it.
//
//   blob_memory_callwire view|copies SIZE CALLS
//
// Prints one line of JSON: {"variant", "payload", "calls", "client_idle", "client_peak",
// "server_idle", "server_peak"} (bytes; a peak is the high-water mark, not above idle).
// Linux only (/proc).
#include <sys/wait.h>
#include <unistd.h>

#include <callwire/client.hpp>
#include <callwire/server.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../common/data.hpp"
#include "must.hpp"
#include "proc_status.hpp"  // tests/unit/common: VmRSS, VmHWM and their reset

namespace {

// The resident size now, with the high-water mark reset to it.
size_t start_peak() {
  callwire::test::reset_peak();
  return callwire::test::proc_status("VmRSS:");
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "blob_memory_callwire: %s\n", what.c_str());
  std::exit(1);
}

void write_line(int fd, const std::string& line) {
  std::string s = line + "\n";
  if (write(fd, s.data(), s.size()) != ssize_t(s.size())) die("pipe write");
}

std::string read_line(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

// The server's side: serves until told to report, then reports and exits.
[[noreturn]] void serve(bool copies, size_t size, int commands, int replies) {
  const std::vector<uint8_t> blob = peers::random_bytes(size, 30);
  callwire::ServerOptions options;
  options.listen = {"127.0.0.1:0"};
  options.max_body = 64 << 20;
  callwire::Server server(options);
  if (copies) {
    peers::must(server.bind("get_blob", [&blob]() { return blob; }));
  } else {
    peers::must(server.bind("get_blob", [&blob]() { return std::span<const uint8_t>(blob); }));
  }
  if (auto started = server.start(); !started) die(started.error().message);
  write_line(replies, server.url());
  if (read_line(commands) != "reset") die("expected reset");
  size_t idle = start_peak();
  write_line(replies, "ok");
  if (read_line(commands) != "report") die("expected report");
  write_line(replies,
             std::to_string(idle) + " " + std::to_string(callwire::test::proc_status("VmHWM:")));
  server.stop();
  server.wait();
  std::_Exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || (std::strcmp(argv[1], "view") != 0 && std::strcmp(argv[1], "copies") != 0))
    die("usage: blob_memory_callwire view|copies SIZE CALLS");
  const bool copies = std::strcmp(argv[1], "copies") == 0;
  const size_t size = std::stoull(argv[2]);
  const int calls = std::stoi(argv[3]);
  int to_server[2], from_server[2];
  if (pipe(to_server) != 0 || pipe(from_server) != 0) die("pipe");
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) serve(copies, size, to_server[0], from_server[1]);

  const std::string url = read_line(from_server[0]);
  callwire::ClientOptions options;
  options.max_response_size = 64 << 20;
  callwire::Client client(url, options);
  // The connection up, with a small call, before anything is measured.
  if (auto listed = client.call("system.listMethods"); !listed) die(listed.error().message);
  write_line(to_server[1], "reset");
  if (read_line(from_server[0]) != "ok") die("the server did not reset");
  const size_t client_idle = start_peak();
  for (int i = 0; i < calls; ++i) {
    auto blob = client.call<std::vector<uint8_t>>("get_blob");
    if (!blob) die(blob.error().message);
    if (blob->size() != size) die("a blob of " + std::to_string(blob->size()) + " bytes");
  }
  const size_t client_peak = callwire::test::proc_status("VmHWM:");
  write_line(to_server[1], "report");
  size_t server_idle = 0, server_peak = 0;
  if (std::sscanf(read_line(from_server[0]).c_str(), "%zu %zu", &server_idle, &server_peak) != 2)
    die("no report from the server");
  int status = 0;
  waitpid(child, &status, 0);
  std::printf(
      "{\"variant\": \"%s\", \"payload\": %zu, \"calls\": %d, \"client_idle\": %zu, "
      "\"client_peak\": %zu, \"server_idle\": %zu, \"server_peak\": %zu}\n",
      argv[1], size, calls, client_idle, client_peak, server_idle, server_peak);
  return 0;
}
