#include "callwire/client.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

#include "base/transports.hpp"
#include "callwire/json.hpp"
#include "client/async_engine.hpp"
#include "client/cancel.hpp"
#include "client/client_connection.hpp"
#include "client/connection_pool.hpp"
#include "client/failover.hpp"
#include "client/framing.hpp"
#include "client/proxy.hpp"
#include "client/url.hpp"
#include "http/basic_auth.hpp"
#include "http/gzip.hpp"
#include "json/result_writer.hpp"
#include "net/lookup.hpp"
#include "net/socket.hpp"
#include "trace/wire_trace.hpp"
#include "xml/result_writer.hpp"

namespace callwire {

namespace {

using Clock = std::chrono::steady_clock;
using detail::AsyncEngine;
using detail::ClientConnection;

// Room before the XML for the request head, written once the body's length is known.
constexpr size_t kRequestHeadRoom = 512;

Value array_of(std::span<const Value> items) {
  Value a = Value::array();
  a.reserve(items.size());
  for (const Value& v : items) a.push_back(v);
  return a;
}

// A call's params: positional, or (call_named) one struct of them by name.
struct CallParams {
  CallParams(std::span<const Value> values) noexcept : positional(values) {}  // NOLINT: implicit
  explicit CallParams(const Value& by_name) noexcept : positional(&by_name, 1), named(&by_name) {}
  explicit CallParams(const CallArguments& args) noexcept : typed(&args) {}
  std::span<const Value> positional;  // XML-RPC sends a by-name struct as the one param
  const Value* named = nullptr;
  const CallArguments* typed = nullptr;  // call<R>'s, written straight into the request
};

// Writes `args` through `writer` (a request's ResultWriter) and ends it.
template <class Writer>
Status write_typed_params(Writer& writer, const CallArguments& args) {
  try {
    args.write(writer);
  } catch (const Exception& e) {
    writer.discard();
    return e.error();
  }
  return writer.finish();
}

}  // namespace

std::optional<std::string_view> HttpHead::field(std::string_view name) const noexcept {
  for (const auto& [n, value] : fields)
    if (http::iequals(n, name)) return std::string_view(value);
  return std::nullopt;
}

struct CALLWIRE_LOCAL Client::Impl {
  std::string url_text;
  detail::ClientUrl url;
  ClientOptions options;
  std::unique_ptr<net::TlsContext> tls;
  std::optional<detail::ProxyRoute> proxy;         // ClientOptions::proxy, or the environment's
  std::unique_ptr<detail::ClientFraming> framing;  // heads and answer parsers, whatever the framing
  detail::ClientSettings settings;

  std::unique_ptr<detail::ConnectionPool> pool;  // made by create(): it needs the settings
  // Client::adopt: the connection given, until a connection takes it.
  std::atomic<int> adopted_fd{-1};
  bool adopted = false;

  std::mutex async_mutex;
  // Asynchronous calls started and not yet ended (their `done` not yet run): what
  // wait_async waits for.
  std::atomic<size_t> pending{0};
  std::mutex pending_mutex;  // for all_ended only: taken when the last call ends
  std::condition_variable all_ended;
  void call_started() { pending.fetch_add(1); }
  void call_ended() {
    if (pending.fetch_sub(1) != 1) return;
    std::lock_guard lock(pending_mutex);
    all_ended.notify_all();
  }
  std::unique_ptr<AsyncEngine> async;
  // Client::create_group: the servers' clients; every call goes through it.
  std::unique_ptr<detail::Failover> group;

  ~Impl();
  std::unique_ptr<ClientConnection> take() { return pool->take(); }
  void give_back(std::unique_ptr<ClientConnection> c) { pool->give_back(std::move(c)); }
  std::atomic<uint64_t> next_id{1};  // JSON-RPC ids
  // ClientOptions::interrupt, or what set_interrupt set since.
  std::atomic<const volatile std::sig_atomic_t*> interrupt{nullptr};

  bool json() const noexcept { return settings.protocol == Protocol::JsonRpc; }
  // Writes the whole request into `out`, its body by `write_body(Buffer&) -> Status`, its head
  // by way of `head_bytes`; returns where it starts.
  template <class WriteBody>
  Result<size_t> build_request(Buffer& out, Buffer& head_bytes, WriteBody write_body,
                               const CallOptions& call, Clock::time_point deadline);
  template <class WriteBody>
  Result<size_t> build_request(ClientConnection& c, WriteBody write_body, const CallOptions& call,
                               Clock::time_point deadline) {
    return build_request(c.request(), c.head_scratch(), write_body, call, deadline);
  }
  // Hands one request, as sent, to the wire trace.
  void trace_request(std::string_view bytes) const;
  // An XML-RPC call's body.
  Status write_xml_call(Buffer& out, std::string_view method, std::span<const Value> params) const {
    xml::WriterOptions writer;
    writer.dialect = options.dialect;
    return xml::write_call(out, method, params, writer);
  }
  // A typed call's, its arguments written straight: out of line, or the Value calls' lambdas
  // grow past inlining (58 more instructions a sample.add).
  [[gnu::noinline]] static Status write_json_call(Buffer& out, std::string_view id,
                                                  std::string_view method,
                                                  const CallArguments& args) {
    json::ResultWriter writer(out, json::ResultWriter::Call{method}, id);
    return write_typed_params(writer, args);
  }
  [[gnu::noinline]] Status write_xml_call(Buffer& out, std::string_view method,
                                          const CallArguments& args) const {
    xml::WriterOptions writer_options;
    writer_options.dialect = options.dialect;
    xml::ResultWriter writer(out, writer_options, xml::ResultWriter::Call{method});
    return write_typed_params(writer, args);
  }
  // The request of one call (`notification`: JSON-RPC's, without id), and what its answer
  // must be.
  Result<size_t> build_call(ClientConnection& c, std::string_view method, CallParams params,
                            const CallOptions& call, Clock::time_point deadline,
                            bool notification = false);
  // Sends the request built in `c` and waits for its answer, as `call` says (its head out,
  // cancellation, resend); `batch_out`: a JSON-RPC batch's results go there.
  Result<Value> exchange(std::unique_ptr<ClientConnection> c, size_t offset,
                         Clock::time_point deadline, const CallOptions& call,
                         std::vector<CallResult>* batch_out = nullptr);
  Clock::time_point deadline_of(const CallOptions& call) const {
    return Clock::now() + (call.timeout.count() > 0 ? call.timeout : options.timeout);
  }
  // `sink`: an XML-RPC result goes there as it is read (the Value returned is then nil).
  Result<Value> call_sync(std::string_view method, CallParams params, const CallOptions& call,
                          ValueSink* sink = nullptr);
  AsyncEngine& engine();

  // Pipelined asynchronous calls (pipeline_depth > 1): the server's addresses, resolved on a
  // caller's thread once (again after a failure), within that call's deadline, and shared by
  // the calls (which wait for that first lookup meanwhile).
  bool pipelined() const noexcept { return options.pipeline_depth > 1; }
  std::mutex addresses_mutex;
  detail::Pipeline::Addresses addresses;
  Result<detail::Pipeline::Addresses> resolved_addresses(Clock::time_point deadline);
  void async_call_pipelined(std::string_view method, std::span<const Value> params,
                            std::function<void(Result<Value>)> done, const CallOptions& call);
};

Client::Impl::~Impl() {
  async.reset();
  if (int fd = adopted_fd.exchange(-1); fd >= 0) net::UniqueFd closed(fd);  // never used
}

AsyncEngine& Client::Impl::engine() {
  std::lock_guard lock(async_mutex);
  if (!async)
    async = std::make_unique<AsyncEngine>(*pool, options.max_connections, options.pipeline_depth,
                                          options.host_loop);
  return *async;
}

Result<detail::Pipeline::Addresses> Client::Impl::resolved_addresses(Clock::time_point deadline) {
  std::lock_guard lock(addresses_mutex);
  if (addresses) return addresses;
  // With a host loop no lookup thread is started: the lookup blocks the caller instead.
  auto found =
      options.host_loop ? net::resolve(url.endpoint) : net::resolve_until(url.endpoint, deadline);
  if (!found && found.error().code == Errc::Timeout) return found.error();
  if (!found) return Error(Errc::ConnectFailed, found.error().message);
  if (found->empty())
    return Error(Errc::ConnectFailed, "no address for " + url.endpoint.to_string());
  addresses = std::make_shared<const std::vector<net::SocketAddress>>(std::move(*found));
  return addresses;
}

void Client::Impl::async_call_pipelined(std::string_view method, std::span<const Value> params,
                                        std::function<void(Result<Value>)> done,
                                        const CallOptions& call_options) {
  AsyncEngine& io = engine();
  auto fail = [&](Error error) {
    if (!io.ok()) return done(std::move(error));
    io.post([done = std::move(done), error = std::move(error)] { done(error); });
  };
  if (!io.ok()) return fail(Error(Errc::InvalidArgument, "cannot start the client's I/O thread"));
  detail::Pipeline::Call call;
  call.deadline = deadline_of(call_options);
  thread_local Buffer head;  // the packet's start, built and copied in: kept, not remade per call
  auto offset = build_request(
      call.request, head, [&](Buffer& out) { return write_xml_call(out, method, params); },
      call_options, call.deadline);
  if (!offset) return fail(offset.error());
  call.offset = *offset;
  if (!adopted) {  // an adopted connection has no address to resolve
    auto to = resolved_addresses(call.deadline);
    if (!to) return fail(to.error());
    call.addresses = std::move(*to);
  }
  call.done = std::move(done);
  if (call_options.response_head) *call_options.response_head = HttpHead();  // no head here
  call.cancel = detail::AsyncCancel::watch(call_options.cancel, [&io] { io.poke(); });
  io.submit_pipelined(std::move(call));
}

template <class WriteBody>
Result<size_t> Client::Impl::build_request(Buffer& out, Buffer& head_bytes, WriteBody write_body,
                                           const CallOptions& call, Clock::time_point deadline) {
  out.clear();
  out.prepare(kRequestHeadRoom + 256);
  out.commit(kRequestHeadRoom);
  if (Status s = write_body(out); !s) return s.error();

  bool gzipped = false;
  size_t body_size = out.size() - kRequestHeadRoom;
  if (options.gzip_request_min_size && body_size >= options.gzip_request_min_size &&
      framing->transport().carries_fields) {
    Buffer z;
    if (http::gzip_compress(out.view().substr(kRequestHeadRoom), z) && z.size() < body_size) {
      out.truncate(kRequestHeadRoom);
      out.append(z.view());
      body_size = z.size();
      gzipped = true;
    }
  }
  head_bytes.clear();
  detail::RequestFacts facts;
  facts.body_size = body_size;
  facts.gzipped = gzipped;
  std::vector<http::Header> call_headers;
  for (const auto& [name, value] : call.headers) call_headers.push_back({name, value});
  facts.headers = call_headers;
  if (options.send_timeout) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    facts.timeout_ms = std::clamp<int64_t>(left.count(), 0, 999999999);
  }
  if (Status s = framing->append_head(head_bytes, facts); !s) return s.error();
  size_t start = 0;
  if (head_bytes.size() <= kRequestHeadRoom) {
    start = kRequestHeadRoom - head_bytes.size();
    // JSON lines have no head: an empty Buffer's data() may be null, which memcpy must not see.
    if (!head_bytes.empty()) std::memcpy(out.data() + start, head_bytes.data(), head_bytes.size());
    framing->finish_request(out, kRequestHeadRoom);
  } else {
    // A head longer than the room (many extra fields): one copy of the body.
    const size_t body_offset = head_bytes.size();
    head_bytes.append(out.view().substr(kRequestHeadRoom));
    std::swap(out, head_bytes);
    framing->finish_request(out, body_offset);
  }
  if (settings.trace) trace_request(out.view().substr(start));
  return start;
}

void Client::Impl::trace_request(std::string_view bytes) const {
  trace::Shown shown;
  trace::show_sent(url.framing, bytes, options.max_response_size, shown);
  trace::emit(settings.trace, TraceKind::ClientRequest, url_text, shown.head, shown.body);
}

Result<size_t> Client::Impl::build_call(ClientConnection& c, std::string_view method,
                                        CallParams params, const CallOptions& call,
                                        Clock::time_point deadline, bool notification) {
  if (!json()) {
    return build_request(
        c,
        [&](Buffer& out) {
          return params.typed ? write_xml_call(out, method, *params.typed)
                              : write_xml_call(out, method, params.positional);
        },
        call, deadline);
  }
  uint64_t id = notification ? 0 : next_id.fetch_add(1, std::memory_order_relaxed);
  c.expect_json(id, notification ? 0 : 1, false);
  return build_request(
      c,
      [&](Buffer& out) {
        char text[24];
        size_t n =
            notification ? 0 : size_t(std::to_chars(text, text + sizeof text, id).ptr - text);
        std::string_view id(text, n);
        if (params.typed) return write_json_call(out, id, method, *params.typed);
        return params.named ? json::write_call(out, id, method, *params.named)
                            : json::write_call(out, id, method, params.positional);
      },
      call, deadline);
}

Result<Value> Client::Impl::call_sync(std::string_view method, CallParams params,
                                      const CallOptions& call, ValueSink* sink) {
  Clock::time_point deadline = deadline_of(call);
  std::unique_ptr<ClientConnection> c = take();
  auto offset = build_call(*c, method, params, call, deadline);
  if (!offset) {
    give_back(std::move(c));
    return offset.error();
  }
  c->set_result_sink(sink);
  return exchange(std::move(c), *offset, deadline, call);
}

Result<Value> Client::Impl::exchange(std::unique_ptr<ClientConnection> c, size_t offset,
                                     Clock::time_point deadline, const CallOptions& call,
                                     std::vector<CallResult>* batch_out) {
  if (call.response_head) *call.response_head = HttpHead();
  detail::SyncCancel cancel(call.cancel);
  const volatile std::sig_atomic_t* const interrupt = this->interrupt.load();
  if (cancel.requested() || (interrupt && *interrupt)) {
    give_back(std::move(c));  // nothing sent: the connection stays good for the next call
    return cancel.requested() ? detail::cancelled_error() : detail::interrupted_error();
  }
  c->set_head_out(call.response_head);
  // A cancellable or interruptible call polls its socket (beside the waker, or in slices that
  // look at the flag: a signal may wake another thread, never this one); the others block in
  // send and recv (where a timed-out blocking read leaves the socket usable: not Windows).
  constexpr std::chrono::milliseconds kInterruptSlice{50};
  std::optional<Clock::time_point> blocking_until;
  if (!cancel.watching() && !interrupt && net::sys::kTimedBlockingReads) blocking_until = deadline;
  for (int attempt = 0;; ++attempt) {
    c->begin(offset, blocking_until);
    bool ended = false;
    while (!ended) {
      ClientConnection::Wait w = c->step();
      if (w == ClientConnection::Wait::None) break;
      const Clock::time_point until =
          interrupt ? std::min(deadline, Clock::now() + kInterruptSlice) : deadline;
      const net::WaitResult waited =
          net::wait_fd(c->fd(), w == ClientConnection::Wait::Write, until, cancel.wake_fd());
      if (interrupt && *interrupt)
        c->fail(detail::interrupted_error());
      else if (waited == net::WaitResult::Ready)
        continue;
      else if (waited == net::WaitResult::Timeout && until < deadline)
        continue;  // a slice, not the deadline
      else if (waited == net::WaitResult::Timeout)
        c->fail(Error(Errc::Timeout, "no answer before the deadline"));
      else
        c->fail(detail::cancelled_error());
      ended = true;
    }
    if (!ended && c->stale() && attempt == 0 && call.resend_if_stale && Clock::now() < deadline)
      continue;  // a fresh connection
    break;
  }
  Result<Value> result = std::move(c->result());
  if (result && batch_out) *batch_out = std::move(c->batch_results());
  c->set_result_sink(nullptr);
  c->set_head_out(nullptr);
  give_back(std::move(c));
  return result;
}

Result<Client> Client::create(std::string_view url, ClientOptions options) {
  auto impl = std::make_unique<Impl>();
  auto parsed = detail::parse_client_url(url, options.unix_path);
  if (!parsed) return parsed.error();
  impl->url_text = std::string(url);
  impl->url = std::move(*parsed);
  impl->options = std::move(options);
  return finish_create(std::move(impl));
}

Result<Client> Client::create_group(std::span<const std::string> urls, ClientOptions options,
                                    FailoverOptions failover) {
  if (urls.empty()) return Error(Errc::InvalidArgument, "create_group: no URL");
  if (options.pipeline_depth > 1)
    return Error(Errc::InvalidArgument, "create_group: pipeline_depth above 1 is not spread");
  if (options.host_loop)  // one descriptor per member would have to be watched
    return Error(Errc::InvalidArgument, "create_group: host_loop is not supported");
  std::vector<Client> members;
  members.reserve(urls.size());
  for (const std::string& url : urls) {
    auto member = create(url, options);
    if (!member) return Error(member.error().code, url + ": " + member.error().message);
    members.push_back(std::move(*member));
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->settings.protocol = members.front().protocol();
  impl->group =
      std::make_unique<detail::Failover>(std::move(members), std::move(failover), options.timeout);
  impl->url_text = impl->group->urls();
  return Client(std::move(impl));
}

Result<Client> Client::adopt(int fd, ConnectionFraming framing, ClientOptions options) {
  if (fd < 0) return Error(Errc::InvalidArgument, "a negative file descriptor");
  net::UniqueFd owned(fd);
  auto impl = std::make_unique<Impl>();
  detail::ClientUrl& u = impl->url;
  if (!detail::is_transport(framing))
    return Error(Errc::InvalidArgument, "unknown connection framing");
  const detail::Transport& transport = detail::transport_of(framing);
  // Its opening handshake belongs to each new connection, and a given one is handed from
  // call to call as it is.
  if (transport.http_upgrade)
    return Error(Errc::InvalidArgument,
                 "a given descriptor cannot carry WebSocket: connect with a ws:// URL");
  u.framing = framing;
  u.json_rpc = transport.json_only;
  // "pstream+fd:7", for the trace and messages.
  impl->url_text = std::string(detail::scheme_name(transport)) + "+fd:" + std::to_string(fd);
  if (Result<bool> ready = net::ready_adopted_socket(fd); !ready) return ready.error();
  // What the connection-opening paths would say of it (messages only: nothing connects).
  u.endpoint.kind = net::Endpoint::Kind::Unix;
  u.endpoint.path = "(descriptor " + std::to_string(fd) + ")";
  u.host = "localhost";
  u.path = options.unix_path;
  options.max_connections = 1;
  impl->options = std::move(options);
  impl->adopted = true;
  impl->adopted_fd.store(owned.release());
  return finish_create(std::move(impl));
}

Result<Client> Client::finish_create(std::unique_ptr<Impl> impl) {
  const ClientOptions& o = impl->options;
  if (o.max_connections == 0) return Error(Errc::InvalidArgument, "max_connections is 0");
  if (o.pipeline_depth == 0) return Error(Errc::InvalidArgument, "pipeline_depth is 0");
  const detail::Transport& transport = detail::transport_of(impl->url.framing);
  if (o.send_timeout && !transport.carries_fields)
    return Error(Errc::InvalidArgument,
                 "send_timeout needs a header field, which cannot travel "
                 "over " +
                     std::string(transport.name));
  if (o.pipeline_depth > 1 && impl->url.framing != ConnectionFraming::Pstream)
    return Error(Errc::InvalidArgument,
                 "pipeline_depth above 1 needs a packet stream (pstream://, pstream+unix:)");
  std::string user = o.user.empty() ? impl->url.user : o.user;
  std::string password = o.user.empty() ? impl->url.password : o.password;
  std::string authorization = o.authorization;
  if (!authorization.empty() && !user.empty())
    return Error(Errc::InvalidArgument,
                 "both an Authorization value and Basic credentials (user, or in the URL)");
  if (!user.empty()) {
    auto value = http::make_basic_auth(user, password);
    if (!value) return value.error();
    authorization = std::move(*value);
  }
  auto proxy = detail::choose_proxy(impl->url, o.proxy, o.proxy_from_environment, o.user_agent,
                                    [](const char* name) { return std::getenv(name); });
  if (!proxy) return proxy.error();
  impl->proxy = std::move(*proxy);
  if (impl->url.tls) {
    auto tls = net::TlsContext::create(o.tls, net::TlsSide::of_client(o.verify_peer));
    if (!tls) return tls.error();
    impl->tls = std::move(*tls);
  }
  std::vector<std::pair<std::string, std::string>> headers(o.headers.begin(), o.headers.end());
  const Protocol protocol = impl->url.json_rpc ? Protocol::JsonRpc : o.protocol;
  auto framing = detail::make_client_framing(
      impl->url, protocol == Protocol::JsonRpc ? "application/json" : "text/xml", o.accept_gzip,
      std::move(authorization), o.user_agent, std::move(headers),
      impl->proxy ? &*impl->proxy : nullptr, &impl->options.on_notification);
  if (!framing) return framing.error();
  impl->framing = std::move(*framing);
  detail::ClientSettings& s = impl->settings;
  s.url = &impl->url;
  s.framing = impl->framing.get();
  s.tls = impl->tls.get();
  s.proxy = impl->proxy ? &*impl->proxy : nullptr;
  s.lookup_inline = o.host_loop;
  s.response_limits.max_body = o.max_response_size;
  // One knob: the readers' document and string limits follow max_response_size unless set
  // lower.
  s.reader_limits = o.reader_limits.following(o.max_response_size);
  s.json_limits = o.json_limits.following(o.max_response_size);
  s.protocol = protocol;
  s.max_response_size = o.max_response_size;
  s.trace = trace::chosen(o.trace);
  impl->interrupt.store(o.interrupt);
  s.url_text = impl->url_text;
  // A host loop's promise is that no thread is started: notifications wait for a call there.
  s.watch_idle = detail::transport_of(impl->url.framing).http_upgrade &&
                 o.on_notification != nullptr && !o.host_loop;
  if (impl->adopted) s.adopted_fd = &impl->adopted_fd;
  impl->pool = std::make_unique<detail::ConnectionPool>(impl->settings, o.max_connections);
  return Client(std::move(impl));
}

Client::Client(std::string_view url, ClientOptions options) {
  auto made = create(url, std::move(options));
  if (!made) throw Exception(made.error());
  impl_ = std::move(made->impl_);
}

Client::Client(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;
Client::~Client() = default;

const std::string& Client::url() const noexcept { return impl_->url_text; }

Protocol Client::protocol() const noexcept { return impl_->settings.protocol; }

Status Client::notify(std::string_view method, std::span<const Value> params,
                      const CallOptions& options) {
  Impl& m = *impl_;
  if (m.group)
    return m.group->run<Status>(method, options, [&](Client& c, const CallOptions& o) {
      return c.notify(method, params, o);
    });
  if (!m.json()) {
    auto r = m.call_sync(method, params, options);  // XML-RPC has no notifications
    if (!r) return r.error();
    return Status();
  }
  Clock::time_point deadline = m.deadline_of(options);
  std::unique_ptr<ClientConnection> c = m.take();
  auto offset = m.build_call(*c, method, params, options, deadline, true);
  if (!offset) {
    m.give_back(std::move(c));
    return offset.error();
  }
  auto r = m.exchange(std::move(c), *offset, deadline, options);
  if (!r) return r.error();
  return Status();
}

Batch& Batch::call(std::string_view method, std::span<const Value> params) {
  entries_.push_back({MethodCall{std::string(method), array_of(params)}, false});
  ++calls_;
  return *this;
}

Batch& Batch::notify(std::string_view method, std::span<const Value> params) {
  entries_.push_back({MethodCall{std::string(method), array_of(params)}, true});
  return *this;
}

Batch& Batch::call_named(std::string_view method, const Value& named) {
  return add_named(method, named, false);
}

Batch& Batch::notify_named(std::string_view method, const Value& named) {
  return add_named(method, named, true);
}

Batch& Batch::add_named(std::string_view method, const Value& named, bool notification) {
  entries_.push_back({MethodCall{std::string(method), named}, notification});
  calls_ += !notification;
  return *this;
}

Result<std::vector<CallResult>> Batch::send(const CallOptions& options) {
  Result<std::vector<CallResult>> all = invalid_ ? Result<std::vector<CallResult>>(*invalid_)
                                                 : client_->send_batch(entries_, options);
  if (outcome_) *outcome_ = all;  // what the typed calls' get() read
  return all;
}

Result<std::vector<CallResult>> Client::send_batch(std::span<const Batch::Entry> entries,
                                                   const CallOptions& options) {
  if (entries.empty()) return std::vector<CallResult>();
  if (impl_->group)  // one request: moved on when not reached, or when "system.multicall" may
    return impl_->group->run<Result<std::vector<CallResult>>>(
        "system.multicall", options,
        [&](Client& c, const CallOptions& o) { return c.send_batch(entries, o); });
  for (size_t i = 0; i < entries.size(); ++i) {
    const Value& params = entries[i].call.params;
    if (!params.is_array() && !params.is_struct())
      return Error(Errc::InvalidArgument, "batch entry " + std::to_string(i + 1) + " (" +
                                              entries[i].call.method_name +
                                              "): parameters by name must be a struct, got " +
                                              std::string(type_name(params.type())));
  }
  Impl& m = *impl_;
  if (!m.json()) {
    // One system.multicall; the notifications' results are dropped. Parameters by name go as
    // the call's one struct parameter, as call_named sends them.
    std::vector<MethodCall> calls;
    calls.reserve(entries.size());
    for (const Batch::Entry& e : entries) {
      calls.push_back(e.call);
      if (e.call.params.is_struct()) calls.back().params = Value::array({e.call.params});
    }
    auto all = multicall(calls, options);
    if (!all) return all.error();
    std::vector<CallResult> out;
    for (size_t i = 0; i < entries.size(); ++i)
      if (!entries[i].notification) out.push_back(std::move((*all)[i]));
    return out;
  }
  size_t calls = 0;
  for (const Batch::Entry& e : entries) calls += !e.notification;
  const uint64_t first = m.next_id.fetch_add(calls, std::memory_order_relaxed);
  Clock::time_point deadline = m.deadline_of(options);
  std::unique_ptr<ClientConnection> c = m.take();
  c->expect_json(first, calls, true);
  auto offset = m.build_request(
      *c,
      [&](Buffer& out) -> Status {
        uint64_t id = first;
        char text[24];
        for (size_t i = 0; i < entries.size(); ++i) {
          out.push_back(i == 0 ? '[' : ',');
          size_t n = entries[i].notification
                         ? 0
                         : size_t(std::to_chars(text, text + sizeof text, id++).ptr - text);
          if (Status s = json::write_call(out, std::string_view(text, n),
                                          entries[i].call.method_name, entries[i].call.params);
              !s)
            return Error(s.error().code, "batch entry " + std::to_string(i + 1) + " (" +
                                             entries[i].call.method_name +
                                             "): " + s.error().message);
        }
        out.push_back(']');
        return Status();
      },
      options, deadline);
  if (!offset) {
    m.give_back(std::move(c));
    return offset.error();
  }
  std::vector<CallResult> out;
  auto r = m.exchange(std::move(c), *offset, deadline, options, calls ? &out : nullptr);
  if (!r) return r.error();
  return out;
}

Result<Value> Client::call(std::string_view method, std::span<const Value> params,
                           const CallOptions& options) {
  if (impl_->group)
    return impl_->group->run<Result<Value>>(method, options, [&](Client& c, const CallOptions& o) {
      return c.call(method, params, o);
    });
  return impl_->call_sync(method, params, options);
}

Result<Value> Client::call_named(std::string_view method, const Value& named,
                                 const CallOptions& options) {
  if (!named.is_struct())
    return Error(Errc::InvalidArgument, std::string(method) + ": call_named takes a struct, got " +
                                            std::string(type_name(named.type())));
  if (impl_->group)
    return impl_->group->run<Result<Value>>(method, options, [&](Client& c, const CallOptions& o) {
      return c.call_named(method, named, o);
    });
  return impl_->call_sync(method, CallParams(named), options);
}

Status Client::call_reading(std::string_view method, std::span<const Value> params, ValueSink& sink,
                            const CallOptions& options) {
  if (impl_->group)
    return impl_->group->run<Status>(method, options, [&](Client& c, const CallOptions& o) {
      return c.call_reading(method, params, sink, o);
    });
  Result<Value> r = impl_->call_sync(method, params, options, &sink);
  if (!r) return r.error();
  return Status();
}

Result<Value> Client::call_typed(std::string_view method, const CallArguments& args,
                                 ValueSink* sink, const CallOptions& options) {
  if (impl_->group)
    return impl_->group->run<Result<Value>>(method, options, [&](Client& c, const CallOptions& o) {
      return c.call_typed(method, args, sink, o);
    });
  return impl_->call_sync(method, CallParams(args), options, sink);
}

void Client::async_call(std::string_view method, std::vector<Value> params,
                        std::function<void(Result<Value>)> given, const CallOptions& options) {
  Impl& m = *impl_;
  // Counted until its `done` has run (whatever it throws), for wait_async. The client outlives
  // its calls: its destructor waits for them.
  m.call_started();
  auto done = [&m, given = std::move(given)](Result<Value> r) {
    struct Ended {
      Impl& m;
      ~Ended() { m.call_ended(); }
    } ended{m};
    given(std::move(r));
  };
  if (m.group) {
    m.group->run_async(
        std::string(method), options,
        [method = std::string(method), params = std::move(params)](Client& c, const CallOptions& o,
                                                                   detail::Failover::Done each) {
          c.async_call(method, params, std::move(each), o);
        },
        std::move(done));
    return;
  }
  if (m.pipelined()) {
    m.async_call_pipelined(method, params, std::move(done), options);
    return;
  }
  AsyncEngine::Call call;
  call.deadline = m.deadline_of(options);
  call.connection = m.take();
  auto offset = m.build_call(*call.connection, method, std::span<const Value>(params), options,
                             call.deadline);
  if (!offset) {
    m.give_back(std::move(call.connection));
    // As documented: `done` runs on the I/O thread, even for an error found here.
    run_on_io_thread([done = std::move(done), error = offset.error()] { done(error); });
    return;
  }
  AsyncEngine& engine = m.engine();
  if (!engine.ok()) {
    m.give_back(std::move(call.connection));  // unused: back to the pool, not dropped
    done(Error(Errc::InvalidArgument, "cannot start the client's I/O thread"));
    return;
  }
  call.offset = *offset;
  call.retried = !options.resend_if_stale;  // no resend: as if it had had its one
  if (options.response_head) *options.response_head = HttpHead();
  call.connection->set_head_out(options.response_head);
  call.done = std::move(done);
  call.cancel = detail::AsyncCancel::watch(options.cancel, [&engine] { engine.poke(); });
  engine.submit(std::move(call));
}

size_t Client::probe(std::chrono::milliseconds wait) {
  Impl& m = *impl_;
  if (m.group) return m.group->probe(wait);
  const bool packet = m.url.framing == ConnectionFraming::Pstream;
  const Clock::time_point deadline = Clock::now() + wait;
  AsyncEngine* io = nullptr;
  {
    std::lock_guard lock(m.async_mutex);
    if (m.async && m.async->ok()) io = m.async.get();
  }
  bool pipeline_probed = false;
  if (io && packet)
    io->with_pipeline([&](detail::Pipeline* p) {
      if (!p || p->connections() == 0) return;
      p->send_probes();
      pipeline_probed = true;
    });
  size_t open = m.pool->probe(m.framing->idle_probe(), deadline);
  // The pipeline's loop watches its connections itself: give resets the same time to come.
  if (pipeline_probed) std::this_thread::sleep_until(deadline);
  if (io) io->with_pipeline([&](detail::Pipeline* p) { open += p ? p->connections() : 0; });
  return open;
}

void Client::run_on_io_thread(std::function<void()> task) {
  if (impl_->group) return impl_->group->first().run_on_io_thread(std::move(task));
  AsyncEngine& engine = impl_->engine();
  if (!engine.ok()) {
    task();
    return;
  }
  engine.post(std::move(task));
}

int Client::loop_fd() {
  if (!impl_->options.host_loop) return -1;
  AsyncEngine& engine = impl_->engine();
  return engine.ok() ? engine.fd() : -1;
}

std::chrono::milliseconds Client::loop_timeout() {
  if (!impl_->options.host_loop) return std::chrono::milliseconds(-1);
  AsyncEngine& engine = impl_->engine();
  return std::chrono::milliseconds(engine.ok() ? engine.timeout_ms() : -1);
}

void Client::set_interrupt(const volatile std::sig_atomic_t* flag) noexcept {
  impl_->interrupt.store(flag);
  if (impl_->group)
    for (Client& member : impl_->group->members()) member.set_interrupt(flag);
}

Status Client::wait_async(std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  const Clock::time_point deadline = Clock::now() + timeout;
  const volatile std::sig_atomic_t* interrupt = m.interrupt.load();
  constexpr std::chrono::milliseconds kSlice{50};  // how often the interrupt flag is looked at
  for (;;) {
    if (m.pending.load() == 0) return {};
    if (interrupt && *interrupt) return detail::interrupted_error();
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return Error(Errc::Timeout, "asynchronous calls still in flight");
    const Clock::time_point until = std::min(deadline, now + kSlice);
    if (m.options.host_loop) {
      // No thread of ours runs the calls: run them here, as xmlrpc-c's event_loop_finish does.
      const std::chrono::milliseconds loop_wait = loop_timeout();  // -1: only the descriptor
      auto wait = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(until - now),
                           loop_wait.count() < 0 ? kSlice : loop_wait);
      if (loop_fd() >= 0) static_cast<void>(net::wait_fd(loop_fd(), false, Clock::now() + wait));
      process();
      continue;
    }
    std::unique_lock lock(m.pending_mutex);
    m.all_ended.wait_until(lock, until, [&m] { return m.pending.load() == 0; });
  }
}

void Client::process() {
  if (!impl_->options.host_loop) return;
  AsyncEngine& engine = impl_->engine();
  if (engine.ok()) engine.process();
}

std::future<Result<Value>> Client::async_call(std::string_view method, std::vector<Value> params,
                                              const CallOptions& options) {
  auto promise = std::make_shared<std::promise<Result<Value>>>();
  std::future<Result<Value>> future = promise->get_future();
  async_call(
      method, std::move(params), [promise](Result<Value> r) { promise->set_value(std::move(r)); },
      options);
  return future;
}

Result<std::vector<CallResult>> Client::multicall(std::span<const MethodCall> calls,
                                                  const CallOptions& options) {
  Value list = Value::array();
  list.reserve(calls.size());
  for (const MethodCall& c : calls)
    list.push_back(Value::structure({{"methodName", Value(c.method_name)}, {"params", c.params}}));
  Value param[] = {std::move(list)};
  auto answer = call("system.multicall", param, options);
  if (!answer) return answer.error();
  if (!answer->is_array() || answer->size() != calls.size())
    return Error(
        Errc::BadResponse,
        "system.multicall answered " +
            std::string(answer->is_array() ? "with " + std::to_string(answer->size()) + " entries"
                                           : "not an array") +
            " for " + std::to_string(calls.size()) + " calls");
  auto fault_of = [](const Value& entry) -> std::optional<Error> {
    if (!entry.is_struct()) return std::nullopt;
    const Value* code = entry.find("faultCode");
    const Value* string = entry.find("faultString");
    if (!code || !string || !code->is_integer() || !string->is_string()) return std::nullopt;
    int64_t c = *code->try_as_i8();
    return Error(Errc::Fault, static_cast<int32_t>(c), std::string(string->as_string()));
  };
  // The spec wraps each result in a one-element array; supervisord sends bare results. The
  // answer is read as wrapped only when every entry that is not a fault is wrapped.
  bool wrapped = true;
  for (const Value& entry : answer->as_array())
    if (!fault_of(entry) && !(entry.is_array() && entry.size() == 1)) wrapped = false;
  std::vector<CallResult> out;
  out.reserve(calls.size());
  for (Value& entry : answer->as_array()) {
    if (auto fault = fault_of(entry))
      out.push_back(std::move(*fault));
    else if (wrapped)
      out.push_back(std::move(entry.as_array()[0]));
    else
      out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace callwire
