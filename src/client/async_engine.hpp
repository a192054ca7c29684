// Internal: a client's asynchronous calls. One I/O thread with an event loop drives the
// connections' state machines (ClientConnection); at most `max_in_flight` exchanges run at once,
// the rest wait in order, and every one ends by its deadline.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "client/cancel.hpp"
#include "client/client_connection.hpp"
#include "client/connection_pool.hpp"
#include "client/pipeline.hpp"
#include "net/event_loop.hpp"

namespace callwire::detail {

/// Ownership: borrows the pool (it outlives the engine), owns the calls in flight and its
/// thread. Thread-safety: submit and post from any thread; the rest runs on the I/O thread.
/// The destructor waits for the calls in flight (each ends by its deadline).
class AsyncEngine final {
 public:
  using Clock = std::chrono::steady_clock;
  struct Call {
    std::unique_ptr<ClientConnection> connection;
    size_t offset = 0;  ///< where the request starts in connection->request()
    Clock::time_point deadline;
    std::function<void(Result<Value>)> done;  ///< runs on the I/O thread
    bool retried = false;
    std::unique_ptr<AsyncCancel> cancel;  ///< null: cannot be cancelled
  };

  static constexpr std::chrono::milliseconds kTick{10};

  /// `pipeline_depth` > 1: calls given to submit_pipelined share up to `max_in_flight`
  /// packet-stream connections, that many on each (see Pipeline). `host_loop`: no thread;
  /// the host's loop watches fd() and calls process() (ClientOptions::host_loop), and what
  /// this says runs "on the I/O thread" runs inside process(), on the host's thread.
  AsyncEngine(ConnectionPool& pool, size_t max_in_flight, size_t pipeline_depth = 1,
              bool host_loop = false);
  ~AsyncEngine();

  /// False when the I/O thread could not be started (no event loop: out of descriptors).
  bool ok() const noexcept { return loop_ != nullptr; }
  /// Runs `task` on the I/O thread.
  void post(std::function<void()> task) { loop_->post(std::move(task)); }
  /// Starts `call` when a slot is free.
  void submit(Call call);
  /// Hands `call` to the pipeline (only with a pipeline depth above 1).
  void submit_pipelined(Pipeline::Call call);
  /// Makes the I/O thread end the calls cancelled since it last looked, now rather than at
  /// its next sweep (AsyncCancel's poke). Any thread.
  void poke() {
    loop_->post([this] { sweep(); });
  }
  /// Runs `task` on the I/O thread with the pipeline (null without one), and waits for it
  /// (with a host loop: runs it now, on the caller's thread, which must be the host's).
  void with_pipeline(const std::function<void(Pipeline*)>& task);

  // ---- With a host loop only, from the host's thread.
  bool host_loop() const noexcept { return host_loop_; }
  /// The descriptor to watch for reading.
  int fd() const noexcept { return loop_->fd(); }
  /// Milliseconds the host may wait before process(); -1: nothing pending, wait for fd().
  int timeout_ms();
  /// Runs what is ready: events, posted tasks, the sweep when due; completions run here.
  void process();

 private:
  struct Active final : net::Watcher {
    AsyncEngine* engine;
    std::unique_ptr<Call> call;
    uint32_t interest = 0;
    int registered_fd = -1;
    void on_event(uint32_t) override { engine->advance(this); }
  };

  void start_queued();
  void advance(Active* a);
  void finish(Active* a);
  void sweep();
  // Ends a call that never started: its connection back to the pool, `error` to its caller.
  void end_unstarted(Call& call, Error error);
  void quit_when_done();
  // The I/O thread's work: runs the loop until the destructor's stop and no call is left.
  void run_loop();

  ConnectionPool& pool_;
  const size_t max_in_flight_;
  const bool host_loop_;
  std::unique_ptr<net::EventLoop> loop_;
  std::unique_ptr<Pipeline> pipeline_;
  std::thread thread_;
  std::deque<std::unique_ptr<Call>> queue_;
  std::vector<Active*> active_;
  bool stopping_ = false;
};

}  // namespace callwire::detail
