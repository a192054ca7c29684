// Internal: asynchronous calls pipelined over packet-stream connections
// (ClientOptions::pipeline_depth > 1). A request is written as soon as it is submitted, behind
// those still awaiting their answers; a packet-stream server answers in the order of the
// requests, so each answer belongs to the oldest call still waiting on its connection. No
// HTTP: HTTP/1.1 pipelining is what servers and proxies get most often wrong, and a packet
// carries nothing that could be misread as the end of another.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "callwire/value.hpp"
#include "client/cancel.hpp"
#include "net/address.hpp"
#include "net/event_loop.hpp"

namespace callwire::detail {

struct ClientSettings;

/// Ownership: borrows the loop and the settings (they outlive it); owns its connections and
/// the calls given to it. Thread-safety: everything runs on the loop's thread.
class Pipeline {
 public:
  using Clock = std::chrono::steady_clock;
  using Addresses = std::shared_ptr<const std::vector<net::SocketAddress>>;
  struct Call {
    Buffer request;  ///< one whole packet, from `offset` on
    size_t offset = 0;
    Addresses addresses;  ///< resolved on the caller's thread: the I/O thread never looks up
    Clock::time_point deadline;
    std::function<void(Result<Value>)> done;  ///< runs on the loop's thread, exactly once
    std::unique_ptr<AsyncCancel> cancel;      ///< null: cannot be cancelled
  };

  Pipeline(net::EventLoop& loop, const ClientSettings& settings, size_t max_connections,
           size_t depth);
  /// Closes the connections. Calls still waiting then end with Errc::Stopped.
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// Takes `call`: onto a connection with room (its request written at the next flush), or
  /// into the queue until one has room.
  void submit(Call call);
  /// Writes what the calls submitted since the last flush added (one send per connection for
  /// all of them): the loop calls it after each batch of events and posted tasks.
  void flush();
  /// Ends the calls whose deadline has passed or that were cancelled; drops a connection
  /// nobody waits on any more.
  void sweep(Clock::time_point now);
  /// No call waiting, queued or on a connection.
  bool idle() const noexcept { return queue_.empty() && waiting_ == 0; }
  /// Sends a liveness probe (ESC NOP) on each open connection that awaits no answer; the
  /// loop watches every connection, so one the peer resets is dropped when the reset comes.
  void send_probes();
  /// Connections open or opening.
  size_t connections() const noexcept { return connections_.size(); }

 private:
  struct Connection;
  struct Waiter {
    std::function<void(Result<Value>)> done;  ///< empty once the call has timed out
    Clock::time_point deadline;
    std::unique_ptr<AsyncCancel> cancel;
  };

  // The connection the next queued call goes on, or null (none has room; or none could be
  // opened, with `open_error` set).
  Connection* pick(const Call& call, std::optional<Error>& open_error);
  Connection* open(const Addresses& addresses, Error& error);
  bool connect_next(Connection& c);
  void on_event(Connection& c, uint32_t events);
  void finish_connect(Connection& c);
  void write(Connection& c);
  // Reads and delivers what has come: false when the connection is gone.
  bool read(Connection& c);
  // One answer (a packet's payload) for the oldest waiter: false when the connection broke.
  bool deliver(Connection& c, std::string_view payload);
  void watch(Connection& c, uint32_t events);
  // Ends every call on `c` with `error` and drops it; then moves queued calls on.
  void close(Connection& c, const Error& error);
  void end_call(Waiter& w, Result<Value> result);
  void dispatch();

  net::EventLoop& loop_;
  const ClientSettings& settings_;
  const size_t max_connections_;
  const size_t depth_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::deque<Call> queue_;
  size_t waiting_ = 0;  // calls on connections whose caller still waits
};

}  // namespace callwire::detail
