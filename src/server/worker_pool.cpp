#include "server/worker_pool.hpp"

namespace callwire::detail {

WorkerPool::WorkerPool(unsigned threads, const Registry& registry, const DispatchOptions& options) {
  for (unsigned i = 0; i < threads; ++i)
    dispatchers_.push_back(std::make_unique<Dispatcher>(registry, options));
  for (auto& d : dispatchers_) threads_.emplace_back([this, dp = d.get()] { run(*dp); });
}

WorkerPool::~WorkerPool() { stop_and_join(); }

void WorkerPool::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  ready_.notify_one();
}

void WorkerPool::stop_and_join() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void WorkerPool::add_stats_to(std::vector<MethodStats>& sums) const {
  for (const auto& d : dispatchers_) d->add_stats_to(sums);
}

void WorkerPool::run(Dispatcher& dispatcher) {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job(dispatcher);
  }
}

}  // namespace callwire::detail
