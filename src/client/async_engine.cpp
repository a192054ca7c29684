#include "client/async_engine.hpp"

#include <algorithm>
#include <future>

namespace callwire::detail {

AsyncEngine::AsyncEngine(ConnectionPool& pool, size_t max_in_flight, size_t pipeline_depth,
                         bool host_loop)
    : pool_(pool), max_in_flight_(max_in_flight), host_loop_(host_loop) {
  auto loop = net::EventLoop::create();
  if (loop) loop_ = std::move(*loop);
  if (!loop_) return;
  if (pipeline_depth > 1)
    pipeline_ = std::make_unique<Pipeline>(*loop_, pool.settings(), max_in_flight, pipeline_depth);
  if (!host_loop_) thread_ = std::thread([this] { run_loop(); });
}

void AsyncEngine::run_loop() {
  loop_->run(
      kTick, [this] { sweep(); },
      [this](bool) {
        // The requests of every call posted in this round leave together.
        if (pipeline_) pipeline_->flush();
        quit_when_done();
      });
}

int AsyncEngine::timeout_ms() {
  const bool pipelining = pipeline_ && !pipeline_->idle();
  if (active_.empty() && queue_.empty() && !pipelining && !loop_->has_tasks())
    return -1;  // a call posted later, or a cancellation, wakes fd() anyway
  // The sweep only has deadlines to find (cancellations wake fd()): a host may sleep until the
  // earliest, and the sweep runs then if its tick is due too. The pipeline's deadlines are
  // not looked at: its calls are swept every tick.
  auto tick = loop_->next_timeout(kTick);
  // Without a descriptor that shows the sockets (poll), the host must come back every tick.
  if (tick.count() == 0 || pipelining || !loop_->fd_shows_all_events())
    return static_cast<int>(tick.count());
  auto earliest = Clock::time_point::max();
  for (const Active* a : active_) earliest = std::min(earliest, a->call->deadline);
  for (const auto& call : queue_) earliest = std::min(earliest, call->deadline);
  auto left = earliest - Clock::now();
  if (left <= Clock::duration::zero()) return static_cast<int>(tick.count());
  auto until_deadline = std::chrono::ceil<std::chrono::milliseconds>(left);
  return static_cast<int>(std::max(tick, until_deadline).count());
}

void AsyncEngine::process() {
  loop_->run_once(
      kTick, [this] { sweep(); },
      [this](bool) {
        if (pipeline_) pipeline_->flush();
      });
}

AsyncEngine::~AsyncEngine() {
  if (!loop_) return;
  loop_->post([this] {
    stopping_ = true;
    quit_when_done();
  });
  if (host_loop_)
    run_loop();  // as the thread would: the calls in flight end here, by their deadlines
  else
    thread_.join();
  pipeline_.reset();
}

void AsyncEngine::quit_when_done() {
  if (stopping_ && active_.empty() && queue_.empty() && (!pipeline_ || pipeline_->idle()))
    loop_->quit();
}

void AsyncEngine::submit_pipelined(Pipeline::Call call) {
  auto* c = new Pipeline::Call(std::move(call));
  loop_->post([this, c] {
    std::unique_ptr<Pipeline::Call> owned(c);
    pipeline_->submit(std::move(*owned));
  });
}

void AsyncEngine::with_pipeline(const std::function<void(Pipeline*)>& task) {
  if (host_loop_) return task(pipeline_.get());
  std::promise<void> ran;
  loop_->post([&] {
    task(pipeline_.get());
    ran.set_value();
  });
  ran.get_future().wait();
}

void AsyncEngine::submit(Call call) {
  auto* c = new Call(std::move(call));
  loop_->post([this, c] {
    queue_.push_back(std::unique_ptr<Call>(c));
    start_queued();
  });
}

void AsyncEngine::start_queued() {
  while (!queue_.empty() && active_.size() < max_in_flight_) {
    if (queue_.front()->cancel && queue_.front()->cancel->requested()) {
      std::unique_ptr<Call> call = std::move(queue_.front());
      queue_.pop_front();
      end_unstarted(*call, cancelled_error());
      continue;
    }
    auto* a = new Active;
    a->engine = this;
    a->call = std::move(queue_.front());
    queue_.pop_front();
    active_.push_back(a);
    a->call->connection->begin(a->call->offset);
    advance(a);
  }
}

void AsyncEngine::advance(Active* a) {
  ClientConnection& c = *a->call->connection;
  ClientConnection::Wait w = c.step();
  if (w == ClientConnection::Wait::None) {
    finish(a);
    return;
  }
  uint32_t events = w == ClientConnection::Wait::Read ? net::kReadable : net::kWritable;
  if (a->registered_fd != c.fd()) {
    if (a->registered_fd >= 0) loop_->remove(a->registered_fd);
    a->registered_fd = c.fd();
    a->interest = events;
    if (!loop_->add(c.fd(), events, a)) {
      c.fail(Error(Errc::ConnectFailed, "cannot watch the socket"));
      finish(a);
    }
  } else if (a->interest != events) {
    a->interest = events;
    loop_->modify(c.fd(), events, a);
  }
}

void AsyncEngine::finish(Active* a) {
  if (a->registered_fd >= 0) loop_->remove(a->registered_fd);
  a->registered_fd = -1;
  std::unique_ptr<Call> call = std::move(a->call);
  std::erase(active_, a);
  delete a;
  ClientConnection& c = *call->connection;
  if (c.stale() && !call->retried && Clock::now() < call->deadline) {
    // A kept-alive connection the server had closed: once more on a fresh one, to the
    // same addresses (no name lookup on this thread).
    call->retried = true;
    c.reuse_addresses();
    queue_.push_front(std::move(call));
    start_queued();
    return;
  }
  Result<Value> result = std::move(c.result());
  c.set_head_out(nullptr);
  pool_.give_back(std::move(call->connection));
  call->done(std::move(result));
  start_queued();
  quit_when_done();
}

void AsyncEngine::end_unstarted(Call& call, Error error) {
  call.connection->set_head_out(nullptr);
  pool_.give_back(std::move(call.connection));  // nothing sent on it: still good
  call.done(std::move(error));
}

void AsyncEngine::sweep() {
  auto now = Clock::now();
  if (pipeline_) pipeline_->sweep(now);
  std::vector<std::pair<Active*, Error>> ending;
  for (Active* a : active_)
    if (auto error = call_ended(now, a->call->deadline, a->call->cancel.get(),
                                "no answer before the deadline"))
      ending.emplace_back(a, std::move(*error));
  for (auto& [a, error] : ending) {
    a->call->connection->fail(std::move(error));
    a->call->retried = true;
    finish(a);
  }
  for (auto it = queue_.begin(); it != queue_.end();) {
    auto error = call_ended(now, (*it)->deadline, (*it)->cancel.get(),
                            "no connection free before the deadline");
    if (!error) {
      ++it;
      continue;
    }
    std::unique_ptr<Call> owned = std::move(*it);
    it = queue_.erase(it);
    end_unstarted(*owned, std::move(*error));
  }
  quit_when_done();
}

}  // namespace callwire::detail
