// The tutorial's server (docs/tutorial.md): four typed methods (one answers a struct of its
// own), optional Basic authentication and TLS, and a clean stop on Ctrl-C. Built by `make test`
// (tests/docs) so it keeps compiling.
//   tutorial_server [--listen HOST:PORT] [--user U --password P] [--tls-cert F --tls-key F]
#include <callwire/server.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

namespace {

callwire::Server* running = nullptr;  // for the signal handler
extern "C" void on_signal(int) {
  if (running) running->stop();  // async-signal-safe
}

// A struct of your own, declared in one line: its members are the XML-RPC struct's keys.
struct Summary {
  int count = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
};
CALLWIRE_STRUCT(Summary, count, mean, min, max);

// bind returns a Status: a name bound twice, or a system.* name, is refused, not thrown.
void must(const callwire::Status& bound) {
  if (bound) return;
  std::fprintf(stderr, "bind: %s\n", bound.error().message.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  callwire::ServerOptions options;
  options.listen = {"127.0.0.1:8080"};
  std::string user, password;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view flag = argv[i];
    if (flag == "--listen") options.listen = {argv[i + 1]};
    else if (flag == "--user") user = argv[i + 1];
    else if (flag == "--password") password = argv[i + 1];
    else if (flag == "--tls-cert") options.tls.cert_file = argv[i + 1];
    else if (flag == "--tls-key") options.tls.key_file = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }

  // Basic authentication: the callback runs on the server's threads, so it only reads, and
  // compares in constant time so the time taken tells a guesser nothing.
  if (!user.empty()) {
    options.authenticate = [user, password](std::string_view u, std::string_view p) {
      // Both compared, whatever the first says: no early exit on a wrong user name.
      bool user_ok = callwire::constant_time_equal(u, user);
      bool password_ok = callwire::constant_time_equal(p, password);
      return user_ok && password_ok;
    };
  }

  callwire::Server server(options);

  // The signature (int, int) -> int is deduced; a wrong argument is fault -32602.
  must(server.bind("sample.add", [](int a, int b) { return a + b; }, "Adds two integers."));

  // Containers convert too: an array of doubles in, a double out.
  must(server.bind(
      "stats.mean",
      [](const std::vector<double>& xs) {
        if (xs.empty()) throw callwire::FaultError(1, "stats.mean: no numbers");
        return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
      },
      "The mean of an array of numbers; fault 1 when it is empty."));

  // A declared struct converts like any other type: here the result.
  must(server.bind(
      "stats.summary",
      [](const std::vector<double>& xs) {
        if (xs.empty()) throw callwire::FaultError(1, "stats.summary: no numbers");
        auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
        double sum = std::accumulate(xs.begin(), xs.end(), 0.0);
        return Summary{static_cast<int>(xs.size()), sum / static_cast<double>(xs.size()), *lo,
                       *hi};
      },
      "How many numbers, their mean, the smallest and the largest."));

  // The call context comes first; it is not an XML-RPC parameter.
  must(server.bind(
      "whoami",
      [](callwire::CallContext& ctx) {
        std::string who = ctx.user().empty() ? "anonymous" : std::string(ctx.user());
        return who + " from " + std::string(ctx.peer());
      },
      "Who is calling, and from where."));

  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "start: %s\n", started.error().message.c_str());
    return 1;
  }
  std::printf("listening on %s\n", server.url().c_str());
  std::fflush(stdout);

  running = &server;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  server.wait();  // until Ctrl-C, SIGTERM or system.shutdown
  running = nullptr;
  return 0;
}
