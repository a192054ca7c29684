#include "net/event_loop.hpp"

#include <algorithm>
#include <memory>

namespace callwire::net {

Result<std::unique_ptr<EventLoop>> EventLoop::create() {
  auto poller = Poller::create();
  if (!poller) return poller.error();
  auto wake = WakeFd::create();
  if (!wake) return wake.error();
  if (!poller->add(wake->fd(), kReadable, nullptr))  // null: the wake-up
    return Error(Errc::InvalidArgument, "cannot watch the event loop's wake-up");
  return std::unique_ptr<EventLoop>(new EventLoop(std::move(*poller), std::move(*wake)));
}

bool EventLoop::add(int fd, uint32_t events, Watcher* watcher) noexcept {
  return poller_.add(fd, events, watcher);
}

bool EventLoop::modify(int fd, uint32_t events, Watcher* watcher) noexcept {
  return poller_.modify(fd, events, watcher);
}

void EventLoop::remove(int fd) noexcept { poller_.remove(fd); }

void EventLoop::wake() noexcept { wake_.raise(); }

void EventLoop::post(std::function<void()> task) {
  bool first;
  {
    std::lock_guard lock(tasks_mutex_);
    first = tasks_.empty();
    tasks_.push_back(std::move(task));
  }
  // Tasks already waiting have woken the loop, which takes all of them at once after reading
  // the wake-up: one system call per burst of posts, not per post.
  if (first) wake();
}

inline bool EventLoop::dispatch(const ReadyEvent* events, int n,
                                std::vector<std::function<void()>>& tasks) {
  bool woken = false;
  for (int i = 0; i < n; ++i) {
    if (events[i].data == nullptr) {
      woken = true;
      continue;
    }
    static_cast<Watcher*>(events[i].data)->on_event(events[i].events);
  }
  if (woken) {
    wake_.clear();
    {
      std::lock_guard lock(tasks_mutex_);
      tasks.swap(tasks_);
    }
    for (auto& task : tasks) task();
    tasks.clear();
  }
  return woken;
}

void EventLoop::run(std::chrono::milliseconds tick, const std::function<void()>& on_tick,
                    const std::function<void(bool woken)>& after_events) {
  using Clock = std::chrono::steady_clock;
  constexpr int kMaxEvents = 256;
  ReadyEvent events[kMaxEvents];
  std::vector<std::function<void()>> tasks;
  now_ = Clock::now();
  auto next_tick = now_ + tick;
  quit_ = false;
  while (!quit_) {
    int timeout = 0;
    if (next_tick > now_)
      timeout = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - now_).count() + 1);
    int n = poller_.wait(events, kMaxEvents, timeout);
    now_ = Clock::now();  // one clock read per turn, before the events it times
    bool woken = dispatch(events, n, tasks);
    after_events(woken);
    if (now_ >= next_tick) {
      on_tick();
      now_ = Clock::now();
      next_tick = now_ + tick;
    }
  }
}

bool EventLoop::run_once(std::chrono::milliseconds tick, const std::function<void()>& on_tick,
                         const std::function<void(bool woken)>& after_events) {
  using Clock = std::chrono::steady_clock;
  constexpr int kMaxEvents = 64;  // the descriptor stays readable: the host comes back for more
  ReadyEvent events[kMaxEvents];
  std::vector<std::function<void()>> tasks;
  int n = poller_.wait(events, kMaxEvents, 0);
  now_ = Clock::now();  // before the events it times
  if (next_tick_ == Clock::time_point{}) next_tick_ = now_ + tick;
  bool woken = dispatch(events, n, tasks);
  after_events(woken);
  if (now_ >= next_tick_) {
    on_tick();
    now_ = Clock::now();
    next_tick_ = now_ + tick;
  }
  return !quit_;
}

std::chrono::milliseconds EventLoop::next_timeout(std::chrono::milliseconds tick) {
  using namespace std::chrono;
  if (has_tasks()) return milliseconds(0);
  // Without a pollable poller the host cannot see the sockets: it must call in often.
  const milliseconds most = poller_.fd() >= 0 ? tick : std::min(tick, kPollHostTick);
  if (next_tick_ == steady_clock::time_point{}) return most;
  auto left = next_tick_ - steady_clock::now();
  if (left <= steady_clock::duration::zero()) return milliseconds(0);
  return std::min(most, duration_cast<milliseconds>(left) + milliseconds(1));  // not before it
}

bool EventLoop::has_tasks() {
  std::lock_guard lock(tasks_mutex_);
  return !tasks_.empty();
}

}  // namespace callwire::net
