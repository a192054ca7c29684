#include "client/pipeline.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "callwire/xml.hpp"
#include "client/client_connection.hpp"
#include "client/url.hpp"
#include "net/socket.hpp"
#include "net/stream.hpp"
#include "pstream/pstream.hpp"
#include "trace/wire_trace.hpp"

namespace callwire::detail {

namespace {

constexpr size_t kReadChunk = 16 * 1024;

}  // namespace

struct Pipeline::Connection final : net::Watcher {
  Connection(Pipeline& owner, const ClientSettings& settings, Addresses to)
      : pipeline(owner),
        addresses(std::move(to)),
        decoder(settings.max_response_size),
        reader(settings.reader_limits) {}
  void on_event(uint32_t events) override { pipeline.on_event(*this, events); }

  Pipeline& pipeline;
  Addresses addresses;
  size_t next_address = 0;
  net::Stream stream;
  bool connected = false;
  uint32_t interest = 0;  // as registered with the loop; 0: not registered
  Buffer out;             // requests not yet sent, from `sent` on
  size_t sent = 0;
  Buffer in;
  pstream::Decoder decoder;
  xml::Reader reader;
  std::deque<Waiter> waiters;  // in the order their requests were written
  size_t live = 0;             // waiters whose caller still waits
};

Pipeline::Pipeline(net::EventLoop& loop, const ClientSettings& settings, size_t max_connections,
                   size_t depth)
    : loop_(loop), settings_(settings), max_connections_(max_connections), depth_(depth) {}

Pipeline::~Pipeline() {
  Error stopped(Errc::Stopped, "the client is gone");
  while (!connections_.empty()) close(*connections_.back(), stopped);
  for (Call& call : queue_) call.done(stopped);
}

void Pipeline::submit(Call call) {
  queue_.push_back(std::move(call));
  dispatch();
}

void Pipeline::dispatch() {
  while (!queue_.empty()) {
    std::optional<Error> open_error;
    Connection* c = pick(queue_.front(), open_error);
    if (open_error) {
      Call call = std::move(queue_.front());
      queue_.pop_front();
      call.done(*open_error);
      continue;
    }
    if (!c) return;
    Call call = std::move(queue_.front());
    queue_.pop_front();
    c->out.append(call.request.view().substr(call.offset));
    c->waiters.push_back({std::move(call.done), call.deadline, std::move(call.cancel)});
    ++c->live;
    ++waiting_;
  }
}

Pipeline::Connection* Pipeline::pick(const Call& call, std::optional<Error>& open_error) {
  // The least busy connection; a new one rather than queueing behind answers still awaited,
  // while there may be more; beyond that, pipelined up to the depth.
  Connection* best = nullptr;
  for (auto& c : connections_)
    if (!best || c->waiters.size() < best->waiters.size()) best = c.get();
  if (best && best->waiters.empty()) return best;
  if (connections_.size() < max_connections_) {
    Error error;
    if (Connection* fresh = open(call.addresses, error)) return fresh;
    if (!best) {
      open_error = std::move(error);
      return nullptr;
    }
  }
  return best && best->waiters.size() < depth_ ? best : nullptr;
}

Pipeline::Connection* Pipeline::open(const Addresses& addresses, Error& error) {
  auto c = std::make_unique<Connection>(*this, settings_, addresses);
  if (settings_.adopted_fd) {  // Client::adopt: the one connection there is
    Result<net::UniqueFd> fd = take_adopted(*settings_.adopted_fd);
    if (!fd) {
      error = fd.error();
      return nullptr;
    }
    c->stream = net::Stream(std::move(*fd));
    c->connected = true;
    watch(*c, net::kReadable);
    if (!c->interest) {
      error = Error(Errc::ConnectionClosed, "cannot watch the connection this client was given");
      return nullptr;
    }
    connections_.push_back(std::move(c));
    return connections_.back().get();
  }
  if (!connect_next(*c)) {
    error = Error(Errc::ConnectFailed,
                  "no address of " + settings_.url->endpoint.to_string() + " takes a connection");
    return nullptr;
  }
  connections_.push_back(std::move(c));
  return connections_.back().get();
}

bool Pipeline::connect_next(Connection& c) {
  if (c.interest) loop_.remove(c.stream.fd());
  c.interest = 0;
  c.stream = net::Stream();
  while (c.addresses && c.next_address < c.addresses->size()) {
    auto fd =
        net::start_connect((*c.addresses)[c.next_address++], settings_.url->endpoint.to_string());
    if (!fd) continue;
    c.stream = net::Stream(std::move(*fd));
    watch(c, net::kWritable);  // writable once connected (or refused)
    if (c.interest) return true;
    c.stream = net::Stream();
  }
  return false;
}

void Pipeline::watch(Connection& c, uint32_t events) {
  if (c.interest == events) return;
  bool ok =
      c.interest ? loop_.modify(c.stream.fd(), events, &c) : loop_.add(c.stream.fd(), events, &c);
  c.interest = ok ? events : 0;
}

void Pipeline::on_event(Connection& c, uint32_t events) {
  if (!c.connected) {
    finish_connect(c);
    return;
  }
  if ((events & (net::kReadable | net::kHangup | net::kError)) && !read(c)) return;  // closed
  if (events & net::kWritable) write(c);
}

void Pipeline::finish_connect(Connection& c) {
  if (int err = net::finish_connect(c.stream.fd()); err != 0) {
    if (connect_next(c)) return;
    close(c, Error(Errc::ConnectFailed,
                   net::errno_message("connect to " + settings_.url->endpoint.to_string(), err)));
    return;
  }
  c.connected = true;
  watch(c, net::kReadable);
  write(c);
}

void Pipeline::flush() {
  for (size_t i = 0; i < connections_.size();) {
    Connection& c = *connections_[i];
    bool pending = c.connected && c.sent < c.out.size() && !(c.interest & net::kWritable);
    if (pending) write(c);  // may close c (and so shift the list)
    if (i < connections_.size() && connections_[i].get() == &c) ++i;
  }
}

void Pipeline::write(Connection& c) {
  while (c.sent < c.out.size()) {
    net::IoResult r = c.stream.write(c.out.data() + c.sent, c.out.size() - c.sent);
    if (r.status == net::IoStatus::Ok) {
      c.sent += r.n;
      continue;
    }
    if (r.status == net::IoStatus::WantWrite || r.status == net::IoStatus::WantRead) {
      watch(c, net::kReadable | net::kWritable);
      return;
    }
    close(c, Error(Errc::ConnectionClosed,
                   "sending the request: " + (c.stream.error().empty()
                                                  ? std::string("connection closed")
                                                  : c.stream.error())));
    return;
  }
  c.out.clear();
  c.sent = 0;
  watch(c, net::kReadable);
}

bool Pipeline::read(Connection& c) {
  for (int reads = 0;; ++reads) {
    // The descriptor stays readable (the loop is level-triggered): the loop comes back for more.
    if (reads >= kReadsPerTurn && !c.stream.has_buffered_input()) return true;
    char* dst = c.in.prepare(kReadChunk);
    net::IoResult r = c.stream.read(dst, kReadChunk);
    if (r.status == net::IoStatus::WantRead || r.status == net::IoStatus::WantWrite) return true;
    if (r.status == net::IoStatus::Eof) {
      Status ended = c.decoder.finish(c.in.view());
      if (!ended)
        close(c, ended.error());
      else
        close(c,
              Error(Errc::ConnectionClosed, "the server closed the connection before answering"));
      return false;
    }
    if (r.status == net::IoStatus::Error) {
      close(c, Error(Errc::ConnectionClosed, "receiving the response: " + c.stream.error()));
      return false;
    }
    c.in.commit(r.n);
    size_t used = 0;
    for (;;) {
      Result<pstream::Decoded> d = c.decoder.decode(c.in.view().substr(used));
      if (!d) {
        // The answer being read is the oldest call's: it gets the cause, the calls behind it
        // only lose their connection.
        Errc code = d.error().code == Errc::LimitExceeded ? Errc::LimitExceeded : Errc::BadResponse;
        for (Waiter& w : c.waiters)
          if (w.done) {
            --c.live;
            end_call(w, Error(code, d.error().message));
            break;
          }
        close(c, Error(Errc::ConnectionClosed, "the connection was closed after a broken answer"));
        return false;
      }
      if (d->packet && !deliver(c, d->payload)) return false;
      used += d->consumed;
      if (!d->packet) break;
    }
    // Keep only what the decoder left unconsumed (a partial packet or control word).
    c.in.drop_front(used);
    dispatch();  // answered calls made room
  }
}

bool Pipeline::deliver(Connection& c, std::string_view payload) {
  if (c.waiters.empty()) {
    close(c, Error(Errc::BadResponse, "pstream: an answer to no call"));
    return false;
  }
  if (settings_.trace)
    trace::emit(settings_.trace, TraceKind::ClientAnswer, settings_.url_text, {}, payload);
  Waiter w = std::move(c.waiters.front());
  c.waiters.pop_front();
  if (!w.done) return true;  // timed out: its answer is dropped, the rest stay in step
  --c.live;
  end_call(w, xml_answer(c.reader, payload));
  return true;
}

void Pipeline::end_call(Waiter& w, Result<Value> result) {
  --waiting_;
  auto done = std::move(w.done);
  w.done = nullptr;
  w.cancel.reset();  // its answer, if it comes, is dropped all the same
  done(std::move(result));
}

void Pipeline::close(Connection& c, const Error& error) {
  if (c.interest) loop_.remove(c.stream.fd());
  c.interest = 0;
  auto it = std::find_if(connections_.begin(), connections_.end(),
                         [&](const auto& p) { return p.get() == &c; });
  std::unique_ptr<Connection> owned = std::move(*it);
  connections_.erase(it);
  for (Waiter& w : owned->waiters)
    if (w.done) end_call(w, error);
  owned.reset();
  dispatch();
}

void Pipeline::sweep(Clock::time_point now) {
  for (size_t i = 0; i < connections_.size();) {
    Connection& c = *connections_[i];
    for (Waiter& w : c.waiters) {
      if (!w.done) continue;
      if (auto error =
              call_ended(now, w.deadline, w.cancel.get(), "no answer before the deadline")) {
        --c.live;
        end_call(w, std::move(*error));
      }
    }
    if (!c.waiters.empty() && c.live == 0) {
      // Nobody waits for what is still due on it (a stuck server, a lost network): the next
      // calls go on a fresh connection instead of behind those answers.
      close(c, Error(Errc::Timeout, "no answer before the deadline"));
      continue;
    }
    ++i;
  }
  for (auto it = queue_.begin(); it != queue_.end();) {
    auto error =
        call_ended(now, it->deadline, it->cancel.get(), "no connection free before the deadline");
    if (!error) {
      ++it;
      continue;
    }
    auto done = std::move(it->done);
    it = queue_.erase(it);
    done(std::move(*error));
  }
}

void Pipeline::send_probes() {
  for (auto& c : connections_)
    if (c->connected && c->waiters.empty()) pstream::append_nop(c->out);
  flush();
}

}  // namespace callwire::detail
