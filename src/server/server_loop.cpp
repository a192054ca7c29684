#include "server/server_loop.hpp"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <new>
#include <utility>

#include "base/utc_time.hpp"
#include "net/address.hpp"
#include "net/socket.hpp"
#include "server/connection.hpp"

namespace callwire::detail {

namespace {
// What a refused TLS newcomer may still send (its request) before its connection is closed.
constexpr size_t kRefusalDrainBytes = 64 * 1024;
}  // namespace

void ListenerWatcher::on_event(uint32_t) { loop_.accept_from(*this); }

Result<std::unique_ptr<ServerLoop>> ServerLoop::create(ServerCore& core) {
  auto loop = net::EventLoop::create();
  if (!loop) return loop.error();
  return std::unique_ptr<ServerLoop>(new ServerLoop(core, std::move(*loop)));
}

ServerLoop::ServerLoop(ServerCore& core, std::unique_ptr<net::EventLoop> loop)
    : core_(core), loop_(std::move(loop)), dispatcher_(core.registry, core.dispatch) {
  for (const Listener& l : core_.listeners)
    listeners_.push_back(std::make_unique<ListenerWatcher>(*this, l));
  update_clock();
}

ServerLoop::~ServerLoop() {
  reap();
  while (head_) {
    Connection* c = head_;
    head_ = c->next;
    delete c;
  }
}

void ServerLoop::update_clock() noexcept {
  loop_->refresh_now();
  std::time_t t = std::time(nullptr);
  if (t == date_second_) return;
  date_second_ = t;
  std::tm tm = utc_time(t);
  std::strftime(date_, sizeof date_, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

void ServerLoop::set_listening(bool on) noexcept {
  for (auto& l : listeners_) {
    if (on == l->registered) continue;
    if (on) {
      // net::kExclusive: a new connection wakes one loop, not all of them.
      l->registered = loop_->add(l->listener().fd.get(), net::kReadable | net::kExclusive, l.get());
    } else {
      loop_->remove(l->listener().fd.get());
      l->registered = false;
    }
  }
}

void ServerLoop::run() {
  begin();
  if (open_ > 0 || !(stop_seen_ || quit_when_idle_))
    loop_->run(
        kTick, [this] { on_tick(); }, [this](bool woken) { after_events(woken); });
  end();
}

void ServerLoop::begin() {
  set_listening(true);
  if (core_.stopping.load()) begin_stop();
  take_adopted();
}

bool ServerLoop::process() {
  if (ended_) return false;
  // The host may have slept for long (host_timeout() -1): what happens now must not be timed
  // from a stale clock (a new connection would look idle for that long).
  update_clock();
  bool more = (open_ > 0 || !(stop_seen_ || quit_when_idle_)) &&
              loop_->run_once(
                  kTick, [this] { on_tick(); }, [this](bool woken) { after_events(woken); });
  if (!more) end();
  return more;
}

std::chrono::milliseconds ServerLoop::host_timeout() {
  if (ended_) return std::chrono::milliseconds(-1);
  // Nothing pending: the descriptor wakes the host for whatever comes, if it can show it.
  if (open_ == 0 && refusals_.empty() && !accept_paused_ && !stop_seen_ && !loop_->has_tasks() &&
      loop_->fd_shows_all_events())
    return std::chrono::milliseconds(-1);
  return loop_->next_timeout(kTick);
}

void ServerLoop::end() noexcept {
  if (ended_) return;
  ended_ = true;
  set_listening(false);
  close_adoption();
}

void ServerLoop::accept_from(ListenerWatcher& watcher) {
  const Listener& listener = watcher.listener();
  // A batch per wake-up: enough to drain a burst, bounded so connections already open are
  // served between batches.
  for (int i = 0; i < 64; ++i) {
    net::Accepted accepted = net::accept_connection(listener.fd.get());
    if (accepted.outcome == net::Accepted::Outcome::OutOfDescriptors) {
      // Stop accepting for a moment instead of spinning on the listener (level-triggered, it
      // stays readable). Open connections are unaffected.
      set_listening(false);
      accept_paused_ = true;
      resume_accepting_ = now() + std::chrono::milliseconds(200);
    }
    if (accepted.outcome != net::Accepted::Outcome::Connection) return;
    net::UniqueFd& owned = accepted.fd;
    // At the connection cap, or with the buffer memory spent by what shedding cannot give
    // back: refuse the newcomer, never an established connection, and tell it why (over TLS
    // after a handshake, a few at a time). Memory held by answers their peers do not read is
    // shed for newcomers instead (shed_if_over_budget), so a few such peers lock nobody out.
    bool over_memory = over_budget_unsheddable();
    if (core_.connections.fetch_add(1) >= core_.options.max_connections || over_memory) {
      core_.connections.fetch_sub(1);
      count_refused();
      if (listener.tls)
        refuse_tls(std::move(owned), listener.framing);
      else
        net::refuse_connection(std::move(owned), over_capacity_answer(listener.framing));
      continue;
    }
    if (!listener.unix_socket) net::set_nodelay(owned.get());
    add_connection(net::Stream(std::move(owned)), std::move(accepted.peer), listener.framing,
                   listener.tls);
  }
}

bool TlsRefusal::start() {
  interest_ = net::kReadable;
  if (!loop_.events().add(stream_.fd(), interest_, this)) return false;
  drive();  // the ClientHello is often there already
  return true;
}

void TlsRefusal::on_event(uint32_t) {
  if (!done_) drive();
}

void TlsRefusal::drive() {
  while (!lingering_ && sent_ < answer_.size()) {
    // The first write runs the server side of the handshake.
    net::IoResult r = stream_.write(answer_.data() + sent_, answer_.size() - sent_);
    if (r.status == net::IoStatus::Ok) {
      sent_ += r.n;
      continue;
    }
    if (r.status == net::IoStatus::WantRead || r.status == net::IoStatus::WantWrite) {
      uint32_t want = r.status == net::IoStatus::WantRead ? net::kReadable : net::kWritable;
      if (want != interest_ && loop_.events().modify(stream_.fd(), want, this)) interest_ = want;
      return;
    }
    finish();  // a failed handshake, or the peer left
    return;
  }
  if (!lingering_) {
    stream_.close_sending();
    lingering_ = true;
    if (interest_ != net::kReadable && loop_.events().modify(stream_.fd(), net::kReadable, this))
      interest_ = net::kReadable;
  }
  // Whatever the peer still sends (its request) is dropped until it closes: closing with
  // unread bytes would reset the connection, and the peer could lose the 503 to it.
  if (net::drain_input(stream_.fd(), kRefusalDrainBytes, discarded_) == net::Drain::Done) finish();
}

void TlsRefusal::finish() noexcept {
  if (done_) return;
  done_ = true;
  loop_.events().remove(stream_.fd());
  stream_ = net::Stream();  // closes the socket
}

void ServerLoop::add_counts(ServerCounts& to) const noexcept {
  for (size_t i = 0; i < to.answers.size(); ++i)
    to.answers[i] += counts_.answers[i].load(std::memory_order_relaxed);
  to.parse_errors += counts_.parse_errors.load(std::memory_order_relaxed);
  to.tls_failures += counts_.tls_failures.load(std::memory_order_relaxed);
  to.refused += counts_.refused.load(std::memory_order_relaxed);
}

void ServerLoop::refuse_tls(net::UniqueFd fd, ConnectionFraming framing) {
  if (refusals_.size() >= kMaxTlsRefusals || stop_seen_) return;  // closed as it goes
  std::string_view answer = over_capacity_answer(framing);
  if (answer.empty()) return;
  net::set_nodelay(fd.get());
  net::Stream stream(std::move(fd));
  if (!stream.start_tls(*core_.tls.load(), true)) return;
  try {
    auto refusal =
        std::make_unique<TlsRefusal>(*this, std::move(stream), answer, now() + kTlsRefusalTime);
    refusals_.reserve(kMaxTlsRefusals);
    if (!refusal->start()) return;
    refusals_.push_back(std::move(refusal));  // reserved: cannot throw
  } catch (const std::bad_alloc&) {
    // out of memory: this newcomer is just closed
  }
}

void ServerLoop::reap_refusals() noexcept {
  std::erase_if(refusals_, [](const std::unique_ptr<TlsRefusal>& r) { return r->done(); });
}

void ServerLoop::add_connection(net::Stream stream, std::string peer, ConnectionFraming framing,
                                bool tls) {
  if (tls && !stream.start_tls(*core_.tls.load(), true)) {
    core_.connections.fetch_sub(1);
    return;
  }
  Connection* c = nullptr;
  try {
    c = new Connection(*this, std::move(stream), std::move(peer), framing);
  } catch (const std::bad_alloc&) {
    core_.connections.fetch_sub(1);  // out of memory: refuse this one, serve the rest
    return;
  }
  c->next = head_;
  if (head_) head_->prev = c;
  head_ = c;
  ++open_;
  if (!c->start()) c->close();
}

bool ServerLoop::adopt(net::UniqueFd& fd, ConnectionFraming framing, bool tls) {
  {
    std::lock_guard lock(adopt_mutex_);
    if (adoption_closed_) return false;
    adopted_.push_back({std::move(fd), framing, tls});
  }
  loop_->wake();
  return true;
}

void ServerLoop::take_adopted() {
  std::vector<Adopted> list;
  {
    std::lock_guard lock(adopt_mutex_);
    list.swap(adopted_);
  }
  for (Adopted& a : list) {
    if (stop_seen_) {  // too late: closed unserved, as a listener stops accepting
      core_.connections.fetch_sub(1);
      continue;
    }
    net::PeerOf peer = net::peer_of(a.fd.get());
    if (peer.tcp) net::set_nodelay(a.fd.get());
    add_connection(net::Stream(std::move(a.fd)), std::move(peer.text), a.framing, a.tls);
  }
}

void ServerLoop::close_adoption() noexcept {
  std::lock_guard lock(adopt_mutex_);
  adoption_closed_ = true;
  core_.connections.fetch_sub(adopted_.size());
  adopted_.clear();
}

void ServerLoop::destroy(Connection* c) {
  if (c->prev)
    c->prev->next = c->next;
  else
    head_ = c->next;
  if (c->next) c->next->prev = c->prev;
  c->prev = nullptr;
  c->next = dead_;  // a list of its own: closing must not allocate (it runs on bad_alloc)
  dead_ = c;
  --open_;
  core_.connections.fetch_sub(1);
  if (stop_seen_ || quit_when_idle_) maybe_quit();
}

bool ServerLoop::over_budget_unsheddable() const noexcept {
  size_t used = core_.buffer_memory.load(std::memory_order_relaxed);
  size_t unsent = core_.unsent_memory.load(std::memory_order_relaxed);
  return used - std::min(used, unsent) >= core_.options.max_buffer_memory;
}

bool ServerLoop::shed_unsent(Connection* except) noexcept {
  Connection* largest = nullptr;
  size_t most = 0;
  for (Connection* c = head_; c; c = c->next)
    if (c != except && c->unsent_bytes() > most) {
      most = c->unsent_bytes();
      largest = c;
    }
  if (!largest) return false;
  largest->shed();
  return true;
}

void ServerLoop::shed_if_over_budget() noexcept {
  // Two relaxed loads after each batch of events: cheap enough for the hot path.
  if (core_.buffer_memory.load(std::memory_order_relaxed) <= core_.options.max_buffer_memory ||
      core_.unsent_memory.load(std::memory_order_relaxed) == 0)
    return;
  shed_unsent();
}

void ServerLoop::on_tick() {
  update_clock();
  shed_if_over_budget();
  if (accept_paused_ && !stop_seen_ && now() >= resume_accepting_) {
    accept_paused_ = false;
    set_listening(true);
  }
  for (auto& r : refusals_)
    if (now() >= r->deadline()) r->finish();
  reap_refusals();
  bool past_grace = stop_seen_ && now() >= stop_deadline_;
  if (past_grace) set_listening(false);
  for (Connection* c = head_; c;) {
    Connection* next = c->next;  // sweep may destroy c
    if (past_grace && !c->busy())
      c->close();
    else
      c->sweep(now());
    c = next;
  }
  if (stop_seen_) maybe_quit();
}

void ServerLoop::job_finished(Connection* connection) noexcept {
  {
    std::lock_guard lock(finished_mutex_);
    connection->finished_next = finished_;
    finished_ = connection;
  }
  loop_->wake();
}

void ServerLoop::resume_finished() {
  Connection* list;
  {
    std::lock_guard lock(finished_mutex_);
    list = std::exchange(finished_, nullptr);
  }
  while (list) {
    Connection* c = list;
    list = c->finished_next;
    c->finished_next = nullptr;
    c->resume_after_job();
  }
}

void ServerLoop::after_events(bool woken) {
  if (woken) {
    resume_finished();
    take_adopted();
  }
  reap();
  shed_if_over_budget();
  if (!refusals_.empty()) reap_refusals();
  if (woken) {
    update_clock();
    if (core_.stopping.load() && !stop_seen_) begin_stop();
  }
}

void ServerLoop::reap() noexcept {
  while (Connection* c = dead_) {
    dead_ = c->next;
    delete c;
  }
}

void ServerLoop::begin_stop() {
  stop_seen_ = true;
  stop_deadline_ = now() + core_.options.stop_grace;
  // With a health path, newcomers through the grace are served (each answer closing its
  // connection), so that health checks hear 503 while calls in flight finish, instead of a
  // refused or unanswered connection; on_tick stops accepting when the grace is over.
  if (core_.options.health_path.empty()) set_listening(false);
  for (auto& r : refusals_) r->finish();
  for (Connection* c = head_; c;) {
    Connection* next = c->next;
    c->on_stop();
    c = next;
  }
  maybe_quit();
}

void ServerLoop::maybe_quit() {
  if (open_ == 0) loop_->quit();
}

}  // namespace callwire::detail
