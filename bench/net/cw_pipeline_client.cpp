// callwire bench: sample.add(2, 3) pipelined on one connection with callwire's client
// (ClientOptions::pipeline_depth over a pstream:// URL, max_connections 1): N async_call()s
// kept in flight, each answer's callback starting the next call (async_call may be called from
// inside `done`). The floor beside it is raw_lat_client --pipeline N (bench/net_run.py's
// throughput table). A call's latency is from its async_call to its callback, its wait behind
// the others included; calls_per_s is the connection's rate.
//
// Usage: cw_pipeline_client URL --pipeline N [--seconds S] [--warmup N] [--server-pid P]
// Prints one JSON line (bench/net/lat_common.hpp). Built only when ClientOptions has
// pipeline_depth (bench/CMakeLists.txt).
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "callwire/client.hpp"
#include "lat_common.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: %s URL --pipeline N [--seconds S] [--warmup N] [--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options options = lat::parse_options(argc, argv, 2);
  if (options.pipeline < 1) lat::die("--pipeline N (at least 1) expected");
  if (options.calls > 0) lat::die("cw_pipeline_client times by --seconds, not --calls");

  callwire::ClientOptions o;
  o.max_connections = 1;
  o.pipeline_depth = size_t(options.pipeline);
  auto client = callwire::Client::create(argv[1], o);
  if (!client) {
    std::fprintf(stderr, "cw_pipeline_client: %s\n", client.error().message.c_str());
    return 2;
  }

  using Clock = std::chrono::steady_clock;
  lat::InFlightWindow window(options);
  std::mutex window_mutex;  // the callbacks may not all run on one thread
  std::atomic<long> in_flight{0};
  std::atomic<bool> failed{false};
  std::mutex done_mutex;
  std::condition_variable all_done;

  // Starts one call; its answer starts the next unless the window is closed or a call failed.
  // in_flight counts a call from before its async_call to the end of its callback, and a
  // replacement is counted before its predecessor leaves: it reaches 0 only at the end.
  std::function<void()> start;
  auto answered = [&](Clock::time_point started, const callwire::Result<callwire::Value>& r) {
    Clock::time_point now = Clock::now();
    bool again = false;
    if (!r || r->try_as_i8() != 5) {
      if (!failed.exchange(true))
        std::fprintf(stderr, "cw_pipeline_client: %s\n",
                     r ? "wrong sum" : r.error().message.c_str());
    } else {
      std::lock_guard lock(window_mutex);
      again = window.answered(started, now);
    }
    if (again && !failed.load()) start();  // outside the lock: `done` may run inline
    // Under the lock: main may return as soon as it sees 0, taking the mutex with it.
    std::lock_guard lock(done_mutex);
    if (in_flight.fetch_sub(1) == 1) all_done.notify_all();
  };
  start = [&] {
    in_flight.fetch_add(1);
    Clock::time_point started = Clock::now();
    client->async_call("sample.add",
                       std::vector<callwire::Value>{callwire::Value(2), callwire::Value(3)},
                       [&, started](callwire::Result<callwire::Value> r) { answered(started, r); });
  };
  for (long i = 0; i < options.pipeline; ++i) start();
  {
    std::unique_lock lock(done_mutex);
    all_done.wait(lock, [&] { return in_flight.load() == 0; });
  }
  if (failed.load()) return 1;
  std::lock_guard lock(window_mutex);
  return window.report("callwire pipelined");
}
