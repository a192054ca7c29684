// Internal: the optional pool that runs handlers off the event loops, so a slow handler never
// stalls the other connections of its loop. Each worker has its own Dispatcher (dispatchers
// are per thread).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "callwire/registry.hpp"
#include "protocol/dispatcher.hpp"

namespace callwire::detail {

/// Ownership: borrows the registry (must outlive the pool). Thread-safety: submit() from any
/// thread; stop_and_join() once, from the owner.
class WorkerPool {
 public:
  using Job = std::function<void(Dispatcher&)>;

  WorkerPool(unsigned threads, const Registry& registry, const DispatchOptions& options);
  ~WorkerPool();

  void submit(Job job);
  /// Runs the jobs already queued, then ends the threads.
  void stop_and_join();
  /// Every worker's counters (see Dispatcher::add_stats_to).
  void add_stats_to(std::vector<MethodStats>& sums) const;

 private:
  void run(Dispatcher& dispatcher);

  std::vector<std::unique_ptr<Dispatcher>> dispatchers_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
};

}  // namespace callwire::detail
