// Internal: one event-loop thread of a server: accepts connections, owns them, sweeps their
// timeouts on a coarse tick, and winds down on stop.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "net/event_loop.hpp"
#include "net/stream.hpp"
#include "protocol/dispatcher.hpp"
#include "server/metrics.hpp"
#include "server/server_core.hpp"

namespace callwire::detail {

class Connection;
class ServerLoop;

/// A listening socket as this loop sees it.
class ListenerWatcher final : public net::Watcher {
 public:
  ListenerWatcher(ServerLoop& loop, const Listener& listener) : loop_(loop), listener_(listener) {}
  void on_event(uint32_t events) override;
  const Listener& listener() const noexcept { return listener_; }
  bool registered = false;

 private:
  ServerLoop& loop_;
  const Listener& listener_;
};

/// A TLS newcomer over the connection cap, answered as a plain one is: the handshake, the
/// 503, close_notify, then reading until the peer closes (so the answer is not lost to a
/// reset), all without blocking the loop and within ServerLoop::kTlsRefusalTime.
/// Ownership: owned by its ServerLoop, deleted after the batch of events it finished in.
class TlsRefusal final : public net::Watcher {
 public:
  using Clock = std::chrono::steady_clock;
  TlsRefusal(ServerLoop& loop, net::Stream stream, std::string_view answer,
             Clock::time_point deadline)
      : loop_(loop), stream_(std::move(stream)), answer_(answer), deadline_(deadline) {}
  /// Registers with the loop and starts; false when the loop refuses.
  bool start();
  void on_event(uint32_t events) override;
  /// Closes the socket (at the deadline, on stop, or when done).
  void finish() noexcept;
  bool done() const noexcept { return done_; }
  Clock::time_point deadline() const noexcept { return deadline_; }

 private:
  void drive();

  ServerLoop& loop_;
  net::Stream stream_;
  std::string_view answer_;  // static text (over_capacity_answer)
  size_t sent_ = 0;
  size_t discarded_ = 0;
  Clock::time_point deadline_;
  uint32_t interest_ = 0;
  bool lingering_ = false;
  bool done_ = false;
};

class ServerLoop {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kTick{100};
  /// TLS refusals over the connection cap in flight on one loop: each costs a handshake (CPU
  /// and an SSL object), so a flood past the cap must not buy more than these; newcomers
  /// beyond them are closed without a word.
  static constexpr size_t kMaxTlsRefusals = 8;
  /// How long one may take, handshake to close.
  static constexpr std::chrono::seconds kTlsRefusalTime{3};

  /// Errors: InvalidArgument (no event loop: out of file descriptors).
  static Result<std::unique_ptr<ServerLoop>> create(ServerCore& core);
  ~ServerLoop();

  /// Runs on the calling thread until the server stops and every connection is closed.
  void run();
  /// Driven by a host's loop instead of run() (ServerOptions::host_loop): begin() once, then
  /// process() (never blocks) until it returns false: stopped, every connection closed.
  void begin();
  bool process();
  bool ended() const noexcept { return ended_; }
  /// Host loop: how long the host may sleep; -1 when nothing but a descriptor can bring work
  /// (no connection to time out, accepting, not stopping) or once ended.
  std::chrono::milliseconds host_timeout();
  /// Wakes the loop to notice ServerCore::stopping (async-signal-safe).
  void wake() noexcept { loop_->wake(); }

  ServerCore& core() noexcept { return core_; }
  net::EventLoop& events() noexcept { return *loop_; }
  Dispatcher& dispatcher() noexcept { return dispatcher_; }
  /// The loop's clock: read as each turn's events arrive, every tick and after a wake-up.
  Clock::time_point now() const noexcept { return loop_->now(); }
  /// The current Date header value ("Sun, 06 Nov 1994 08:49:37 GMT"), refreshed each second.
  std::string_view http_date() const noexcept { return {date_, 29}; }
  bool stopping() const noexcept { return stop_seen_; }
  /// Scratch space for one gzip or inflate at a time on this loop.
  Buffer& scratch() noexcept { return scratch_; }
  /// Bytes read from and written to this loop's connections, for the metrics. Counted on the
  /// loop's thread (one writer: no read-modify-write), read from any.
  void count_received(size_t n) noexcept {
    bytes_received_.store(bytes_received_.load(std::memory_order_relaxed) + n,
                          std::memory_order_relaxed);
  }
  void count_sent(size_t n) noexcept {
    bytes_sent_.store(bytes_sent_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t bytes_received() const noexcept {
    return bytes_received_.load(std::memory_order_relaxed);
  }
  uint64_t bytes_sent() const noexcept { return bytes_sent_.load(std::memory_order_relaxed); }
  /// Answers by HTTP status (a packet stream's and JSON lines' as 200), documents that were
  /// not well-formed (fault -32700), failed TLS handshakes and refused connections: this
  /// loop's, for the metrics. Counted as the bytes are.
  void count_answer(int status) noexcept {
    if (status >= 100 && status < 600) bump(counts_.answers[size_t(status - 100)]);
  }
  void count_parse_error() noexcept { bump(counts_.parse_errors); }
  void count_tls_failure() noexcept { bump(counts_.tls_failures); }
  void count_refused() noexcept { bump(counts_.refused); }
  /// Adds this loop's counts to `to` (any thread).
  void add_counts(ServerCounts& to) const noexcept;

  void accept_from(ListenerWatcher& listener);
  /// Any thread: queues `fd` (a connected socket, already counted in ServerCore::connections)
  /// to become a connection of this loop with `framing`, over TLS when `tls`. Takes `fd`
  /// only when it returns true; false once the loop has ended. Throws std::bad_alloc.
  bool adopt(net::UniqueFd& fd, ConnectionFraming framing, bool tls);
  /// The loop ends when its last connection closes (Server::serve_connection), not only on
  /// stop. Before run().
  void quit_when_idle() noexcept { quit_when_idle_ = true; }
  /// Unlinks `connection` (it has closed its socket); it is deleted after the current batch
  /// of events, so a stale event for it in the same batch finds it still there, closed.
  void destroy(Connection* connection);
  /// A worker finished the job of `connection` (busy, so alive): the loop resumes it after
  /// waking. Any thread; allocates nothing, so a worker out of memory can still hand back.
  void job_finished(Connection* connection) noexcept;
  /// The buffers of all connections are over max_buffer_memory: sheds this loop's connection
  /// with the most answers unread by its peer (never `except`), so that a few peers that do
  /// not read cannot spend the budget for everyone. True when one was shed. Connections on
  /// other loops are shed by their own loops (after their next events, or at the tick).
  bool shed_unsent(Connection* except = nullptr) noexcept;

 private:
  ServerLoop(ServerCore& core, std::unique_ptr<net::EventLoop> loop);
  void on_tick();
  void after_events(bool woken);
  void reap() noexcept;
  void resume_finished();
  void begin_stop();
  void maybe_quit();
  // Over budget with answers unread somewhere: sheds here if this loop holds one.
  void shed_if_over_budget() noexcept;
  // Over budget even if every connection holding unread answers were shed.
  bool over_budget_unsheddable() const noexcept;
  void end() noexcept;
  void update_clock() noexcept;
  void set_listening(bool on) noexcept;
  // Makes `stream` a connection of this loop (counted in ServerCore::connections already;
  // uncounted again if it cannot be).
  void add_connection(net::Stream stream, std::string peer, ConnectionFraming framing, bool tls);
  // Answers a TLS newcomer over the cap with a 503 (TlsRefusal), or closes it when
  // kMaxTlsRefusals are in flight already.
  void refuse_tls(net::UniqueFd fd, ConnectionFraming framing);
  // Deletes the refusals that have finished (after a batch of events, never inside one).
  void reap_refusals() noexcept;
  // Turns the sockets adopt() queued into connections (or closes them when stopping).
  void take_adopted();
  // The loop has ended: adopt() refuses from now on, and what it queued is closed.
  void close_adoption() noexcept;

  static void bump(std::atomic<uint64_t>& counter) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  std::atomic<uint64_t> bytes_received_{0};
  std::atomic<uint64_t> bytes_sent_{0};
  struct {
    std::array<std::atomic<uint64_t>, 500> answers{};  // by status - 100
    std::atomic<uint64_t> parse_errors{0};
    std::atomic<uint64_t> tls_failures{0};
    std::atomic<uint64_t> refused{0};
  } counts_;
  ServerCore& core_;
  std::unique_ptr<net::EventLoop> loop_;
  Dispatcher dispatcher_;
  std::vector<std::unique_ptr<ListenerWatcher>> listeners_;
  Connection* head_ = nullptr;  // every open connection of this loop (intrusive list)
  Connection* dead_ = nullptr;  // closed, deleted after the batch (linked by `next`)
  // Connections whose worker job is done, linked by Connection::finished_next.
  std::mutex finished_mutex_;
  Connection* finished_ = nullptr;
  // Sockets handed over by adopt(), taken on the loop's thread after a wake-up.
  struct Adopted {
    net::UniqueFd fd;
    ConnectionFraming framing;
    bool tls;
  };
  std::mutex adopt_mutex_;
  std::vector<Adopted> adopted_;
  bool adoption_closed_ = false;  // under adopt_mutex_
  bool quit_when_idle_ = false;
  bool ended_ = false;  // host loop: process() has seen the end
  size_t open_ = 0;
  Clock::time_point resume_accepting_{};  // after EMFILE: accepting pauses until then
  bool accept_paused_ = false;
  bool stop_seen_ = false;
  Clock::time_point stop_deadline_{};
  int64_t date_second_ = -1;
  char date_[30] = {};
  Buffer scratch_;
  std::vector<std::unique_ptr<TlsRefusal>> refusals_;
};

}  // namespace callwire::detail
