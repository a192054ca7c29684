// Experiment 4 (the heartbeat): K calls in flight with callwire's own Client, which does not
// pipeline: Client::async_call with max_connections = K, so K connections, one call on each.
// Each completion (on the client's I/O thread) starts the next call. Every sum is checked; a
// wrong one exits 1.
//
// Usage: heartbeat_callwire_async URL [--in-flight K] [--seconds S] [--warmup N]
//                                 [--server-pid P]
// Prints bench/net/lat_common.hpp's JSON line.
#include <callwire/client.hpp>
#include <condition_variable>
#include <mutex>

#include "../../net/lat_common.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr,
                 "usage: %s URL [--in-flight K] [--seconds S] [--warmup N] "
                 "[--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options o = lat::parse_options(argc, argv, 2);
  callwire::ClientOptions options;
  options.max_connections = size_t(o.in_flight);
  callwire::Client client(argv[1], options);

  using Clock = std::chrono::steady_clock;
  lat::InFlightWindow window(o);
  std::mutex lock;  // the completions run on the I/O thread, main() waits for the last
  std::condition_variable drained;
  long on_wire = 0, failed = 0, next = 0;
  std::function<void()> start_call = [&] {  // called with `lock` held
    int a = int(next++);
    Clock::time_point started = Clock::now();
    ++on_wire;
    client.async_call<int>(
        [&, a, started](callwire::Result<int> sum) {
          Clock::time_point now = Clock::now();
          std::lock_guard<std::mutex> hold(lock);
          --on_wire;
          if (!sum || *sum != a + 7) {
            if (failed++ == 0)
              std::fprintf(stderr, "heartbeat_callwire_async: %s\n",
                           sum ? "wrong sum" : sum.error().message.c_str());
          } else if (window.answered(started, now)) {
            start_call();
          }
          if (on_wire == 0) drained.notify_one();
        },
        "sample.add", a, 7);
  };
  std::unique_lock<std::mutex> hold(lock);
  for (long i = 0; i < o.in_flight; ++i) start_call();
  drained.wait(hold, [&] { return on_wire == 0; });
  if (failed > 0) return 1;
  return window.report("callwire-async");
}
