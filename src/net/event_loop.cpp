#include "net/event_loop.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "net/address.hpp"

namespace callwire::net {

Result<std::unique_ptr<EventLoop>> EventLoop::create() {
  UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll) return Error(Errc::InvalidArgument, errno_message("epoll_create1", errno));
  UniqueFd wake(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake) return Error(Errc::InvalidArgument, errno_message("eventfd", errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // the wake-up
  if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, wake.get(), &ev) != 0)
    return Error(Errc::InvalidArgument, errno_message("epoll_ctl", errno));
  return std::unique_ptr<EventLoop>(new EventLoop(std::move(epoll), std::move(wake)));
}

bool EventLoop::add(int fd, uint32_t events, Watcher* watcher) noexcept {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = watcher;
  return epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool EventLoop::modify(int fd, uint32_t events, Watcher* watcher) noexcept {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = watcher;
  return epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &ev) == 0;
}

void EventLoop::remove(int fd) noexcept { epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr); }

void EventLoop::wake() noexcept {
  uint64_t one = 1;
  ssize_t rc = ::write(wake_fd_.get(), &one, sizeof one);
  (void)rc;  // EAGAIN: the counter is already non-zero, the loop will wake anyway
}

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

inline bool EventLoop::dispatch(const epoll_event* events, int n,
                                std::vector<std::function<void()>>& tasks) {
  bool woken = false;
  for (int i = 0; i < n; ++i) {
    if (events[i].data.ptr == nullptr) {
      woken = true;
      continue;
    }
    static_cast<Watcher*>(events[i].data.ptr)->on_event(events[i].events);
  }
  if (woken) {
    uint64_t count;
    ssize_t rc = ::read(wake_fd_.get(), &count, sizeof count);
    (void)rc;
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
  epoll_event events[kMaxEvents];
  std::vector<std::function<void()>> tasks;
  auto now = Clock::now();
  auto next_tick = now + tick;
  quit_ = false;
  while (!quit_) {
    int timeout = 0;
    if (next_tick > now)
      timeout = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - now).count() + 1);
    int n = epoll_wait(epoll_.get(), events, kMaxEvents, timeout);
    bool woken = dispatch(events, n, tasks);
    after_events(woken);
    now = Clock::now();  // one clock read per turn of the loop
    if (now >= next_tick) {
      on_tick();
      now = Clock::now();
      next_tick = now + tick;
    }
  }
}

bool EventLoop::run_once(std::chrono::milliseconds tick, const std::function<void()>& on_tick,
                         const std::function<void(bool woken)>& after_events) {
  using Clock = std::chrono::steady_clock;
  constexpr int kMaxEvents = 64;  // the descriptor stays readable: the host comes back for more
  epoll_event events[kMaxEvents];
  std::vector<std::function<void()>> tasks;
  if (next_tick_ == Clock::time_point{}) next_tick_ = Clock::now() + tick;
  int n = epoll_wait(epoll_.get(), events, kMaxEvents, 0);
  bool woken = dispatch(events, n, tasks);
  after_events(woken);
  auto now = Clock::now();
  if (now >= next_tick_) {
    on_tick();
    next_tick_ = Clock::now() + tick;
  }
  return !quit_;
}

std::chrono::milliseconds EventLoop::next_timeout(std::chrono::milliseconds tick) {
  using namespace std::chrono;
  if (has_tasks()) return milliseconds(0);
  if (next_tick_ == steady_clock::time_point{}) return tick;
  auto left = next_tick_ - steady_clock::now();
  if (left <= steady_clock::duration::zero()) return milliseconds(0);
  return duration_cast<milliseconds>(left) + milliseconds(1);  // not a little before it
}

bool EventLoop::has_tasks() {
  std::lock_guard lock(tasks_mutex_);
  return !tasks_.empty();
}

}  // namespace callwire::net
