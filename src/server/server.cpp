#include "callwire/server.hpp"

#include <algorithm>
#include <atomic>
#include <new>
#include <optional>
#include <thread>

#include "base/transports.hpp"
#include "http/basic_auth.hpp"
#include "http/response_writer.hpp"
#include "http/syntax.hpp"
#include "net/address.hpp"
#include "net/file_io.hpp"
#include "net/socket.hpp"
#include "server/inherited_listeners.hpp"
#include "server/metrics.hpp"
#include "server/server_core.hpp"
#include "server/server_loop.hpp"
#include "trace/wire_trace.hpp"

namespace callwire {

bool constant_time_equal(std::string_view given, std::string_view expected) noexcept {
  // Every byte of the longer one is read whatever the contents; only the lengths steer the
  // loop. The accumulator is volatile so the compiler cannot stop at the first difference.
  volatile unsigned char diff = given.size() != expected.size();
  size_t n = given.size() > expected.size() ? given.size() : expected.size();
  for (size_t i = 0; i < n; ++i) {
    unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    unsigned char e = i < expected.size() ? static_cast<unsigned char>(expected[i]) : 0;
    diff = diff | (g ^ e);
  }
  return diff == 0;
}

struct CALLWIRE_LOCAL Server::Impl {
  detail::ServerCore core;
  std::vector<std::unique_ptr<detail::ServerLoop>> loops;
  std::vector<std::thread> threads;
  std::atomic<bool> started{false};
  bool joined = false;
  std::atomic<size_t> next_loop{0};  // adopt_connection hands sockets out round-robin

  // What start() and serve_connection() share: the options checked, the core set up.
  Status prepare(Server& server, bool with_listeners);
  // Checks a socket handed to the server and readies it: whether it gets TLS, or the error.
  Result<bool> ready_connection(int fd, ConnectionFraming framing);
  Status open_listeners();
  void close_listeners() noexcept;
};

namespace {

// Enough descriptors for max_connections: raise the soft limit toward the hard one (never
// lower it). A library changing a process limit is unusual; a server that cannot accept its
// configured connections is worse, and the soft limit exists to be raised by programs.
void raise_fd_limit(size_t wanted) noexcept { net::raise_descriptor_limit(wanted); }

Status check_options(const ServerOptions& o, bool with_listeners) {
  if (with_listeners && o.listen.empty()) return Error(Errc::InvalidArgument, "no listen address");
  if (o.paths.empty()) return Error(Errc::InvalidArgument, "no request path to serve");
  if (o.max_connections == 0) return Error(Errc::InvalidArgument, "max_connections is 0");
  if (o.max_buffer_memory == 0) return Error(Errc::InvalidArgument, "max_buffer_memory is 0");
  if (o.max_pending_output == 0) return Error(Errc::InvalidArgument, "max_pending_output is 0");
  if (o.max_body == 0 || o.max_header_bytes < 256)
    return Error(Errc::InvalidArgument, "max_body must be > 0 and max_header_bytes >= 256");
  if (o.tls.cert_file.empty() != o.tls.key_file.empty())
    return Error(Errc::InvalidArgument,
                 "ServerOptions::tls: TLS needs both tls.cert_file and tls.key_file");
  auto bad_path = [](const std::string& path) {
    return !path.empty() && (path[0] != '/' || std::any_of(path.begin(), path.end(), [](char c) {
                               return c <= ' ' || c == '?' || c == 0x7f;
                             }));
  };
  if (bad_path(o.health_path))
    return Error(Errc::InvalidArgument, "health_path must be '/' and visible ASCII, no query");
  if (bad_path(o.metrics_path))
    return Error(Errc::InvalidArgument, "metrics_path must be '/' and visible ASCII, no query");
  if (!o.metrics_path.empty() && o.metrics_path == o.health_path)
    return Error(Errc::InvalidArgument, "metrics_path and health_path are the same");
  if (o.tls.min_version != TlsVersion::Tls1_2 && o.tls.min_version != TlsVersion::Tls1_3)
    return Error(Errc::InvalidArgument, "tls.min_version: TLS 1.2 or 1.3 only");
  return {};
}

// Why a transport cannot serve this server, if it cannot: credentials travel in header
// fields, which a packet or a JSON line has no room for.
Status can_serve(const detail::Transport& t, const ServerOptions& o, std::string_view what) {
  if (o.authenticate && !t.carries_fields && !t.http_upgrade)
    return Error(Errc::InvalidArgument, std::string(what) + ": credentials cannot travel over " +
                                            std::string(t.name) +
                                            "; authentication needs HTTP or SCGI");
  return {};
}

}  // namespace

Result<bool> Server::Impl::ready_connection(int fd, ConnectionFraming framing) {
  if (!detail::is_transport(framing))
    return Error(Errc::InvalidArgument, "unknown connection framing");
  if (Status s = can_serve(detail::transport_of(framing), core.options, "a connection"); !s)
    return s.error();
  Result<bool> tcp = net::ready_adopted_socket(fd);
  if (!tcp) return tcp.error();
  // As the listeners: TLS for HTTP over TCP when there is a certificate.
  return core.serves_tls && !detail::transport_of(framing).tls_scheme.empty() && *tcp;
}

Status Server::Impl::open_listeners() {
  const ServerOptions& o = core.options;
  std::optional<std::vector<net::InheritedSocket>> systemd;  // read on the first "systemd:"
  for (const std::string& spec : o.listen) {
    if (detail::is_inherited_listener(spec)) {
      if (Status s = detail::add_inherited_listeners(core, spec, systemd); !s) return s;
      continue;
    }
    // HTTP's listen on "HOST:PORT" or "unix:PATH"; every other transport's on its schemes
    // (detail::kTransports): "scgi://HOST:PORT", "scgi+unix:PATH", and so on.
    std::string address = spec;
    ConnectionFraming framing = ConnectionFraming::Http;
    if (detail::SchemeMatch m = detail::match_scheme(spec, false); m.transport) {
      if (Status s = can_serve(*m.transport, o, spec); !s) return s.error();
      framing = m.transport->framing;
      address = (m.unix_socket ? "unix:" : "") + std::string(m.rest);
    }
    auto endpoint = net::parse_endpoint(address);
    if (!endpoint) return endpoint.error();
    auto fd = net::listen_on(*endpoint, o.reuse_port);
    if (!fd) return fd.error();
    detail::Listener l;
    l.spec = spec;
    l.unix_socket = endpoint->kind == net::Endpoint::Kind::Unix;
    l.unix_path = endpoint->path;
    l.host = endpoint->host;
    l.port = l.unix_socket ? 0 : net::local_port(fd->get());
    // TLS on HTTP and WebSocket TCP listeners; a Unix socket is local and stays plain, and
    // SCGI comes from a web server that terminated TLS already.
    l.framing = framing;
    l.tls = core.serves_tls && !l.unix_socket && !detail::transport_of(framing).tls_scheme.empty();
    l.fd = std::move(*fd);
    core.listeners.push_back(std::move(l));
  }
  return {};
}

void Server::Impl::close_listeners() noexcept {
  for (detail::Listener& l : core.listeners) {
    l.fd.reset();
    if (l.unix_socket && !l.inherited) net::remove_file(l.unix_path);
  }
}

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->core.options = std::move(options);
  impl_->core.trace = trace::chosen(impl_->core.options.trace);
}

Server::~Server() {
  stop();
  wait();
}

Registry& Server::registry() noexcept { return impl_->core.registry; }

Status Server::add_method(std::string name, Handler handler, MethodInfo info) {
  return impl_->core.registry.add(std::move(name), std::move(handler), std::move(info));
}

namespace {

// A TLS context from the options' files, read now.
Result<std::shared_ptr<net::TlsContext>> tls_context(const ServerOptions& o) {
  auto tls = net::TlsContext::create(o.tls, net::TlsSide::of_server(o.client_cert_optional));
  if (!tls) return tls.error();
  return std::shared_ptr<net::TlsContext>(std::move(*tls));
}

}  // namespace

Status Server::reload_tls() {
  detail::ServerCore& core = impl_->core;
  if (!core.serves_tls)
    return Error(Errc::InvalidArgument, "reload_tls: this server serves no TLS (no certificate)");
  auto tls = tls_context(core.options);
  if (!tls) return tls.error();
  core.tls.store(std::move(*tls));
  return {};
}

Status Server::Impl::prepare(Server& server, bool with_listeners) {
  if (started.load()) return Error(Errc::InvalidArgument, "the server was already started");
  const ServerOptions& o = core.options;
  if (Status s = check_options(o, with_listeners); !s) return s;
  core.metrics_text = [&server] { return server.metrics_text(); };
  core.trusted_proxies.clear();
  for (const std::string& entry : o.trusted_proxies) {
    auto range = net::parse_ip_range(entry);
    if (!range) return Error(Errc::InvalidArgument, "trusted_proxies: " + range.error().message);
    core.trusted_proxies.push_back(*range);
  }

  core.request_limits.max_header_bytes = o.max_header_bytes;
  core.request_limits.max_body = o.max_body;
  detail::XmlRpcOptions& xml_rpc = core.dispatch.xml_rpc;
  // One knob: the readers' document and string limits follow max_body unless set lower.
  xml_rpc.limits = o.reader_limits.following(o.max_body);
  xml_rpc.limits_option = "ServerOptions::reader_limits";
  xml_rpc.dialect = o.dialect;
  json::JsonLimits& json_limits = core.dispatch.json_rpc.limits;
  json_limits = o.json_limits.following(o.max_body);
  core.dispatch.json_rpc.limits_option = "ServerOptions::json_limits";
  core.dispatch.core.introspection = o.introspection;
  core.dispatch.core.max_multicall_calls = o.max_multicall_calls;
  if (o.on_shutdown)
    core.dispatch.core.on_shutdown = o.on_shutdown;
  else if (o.enable_shutdown)
    core.dispatch.core.on_shutdown = [&server](std::string_view) { server.stop(); };
  if (o.cors_allow_origin.size() > 1024 || !http::syntax::is_field_value(o.cors_allow_origin))
    return Error(Errc::InvalidArgument,
                 "cors_allow_origin must be a header field value of at most 1024 bytes");
  core.head_room =
      http::kResponseHeadGap + (o.cors_allow_origin.empty() ? 0 : 32 + o.cors_allow_origin.size());
  if (o.authenticate) {
    auto challenge = http::make_basic_challenge(o.realm);
    if (!challenge) return challenge.error();
    core.www_authenticate = *challenge;
  }
  if (!o.tls.cert_file.empty()) {
    auto tls = tls_context(o);
    if (!tls) return tls.error();
    core.tls.store(std::move(*tls));
    core.serves_tls = true;
  }
  core.registry.freeze();
  raise_fd_limit(o.max_connections + 64);
  return {};
}

Status Server::start() {
  Impl& m = *impl_;
  if (m.core.options.host_loop && !m.started.load() &&
      (m.core.options.threads > 1 || m.core.options.handler_threads > 0))
    return Error(Errc::InvalidArgument,
                 "host_loop: the host's loop is the server's only one (threads 0 or 1, "
                 "handler_threads 0)");
  if (Status s = m.prepare(*this, true); !s) return s;
  detail::ServerCore& core = m.core;
  const ServerOptions& o = core.options;
  if (Status s = m.open_listeners(); !s) {
    m.close_listeners();
    core.listeners.clear();
    return s;
  }
  unsigned threads = o.host_loop ? 1
                     : o.threads ? o.threads
                                 : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < threads; ++i) {
    auto loop = detail::ServerLoop::create(core);
    if (!loop) {
      m.loops.clear();
      m.close_listeners();
      core.listeners.clear();
      return loop.error();
    }
    m.loops.push_back(std::move(*loop));
  }
  if (o.handler_threads)
    core.pool =
        std::make_unique<detail::WorkerPool>(o.handler_threads, core.registry, core.dispatch);
  m.started.store(true);
  if (o.host_loop) {
    m.loops.front()->begin();  // listening from here; the host's process() serves
    return {};
  }
  for (auto& loop : m.loops) m.threads.emplace_back([l = loop.get()] { l->run(); });
  return {};
}

Status Server::adopt_connection(int fd, ConnectionFraming framing) {
  Impl& m = *impl_;
  if (fd < 0) return Error(Errc::InvalidArgument, "a negative file descriptor");
  net::UniqueFd owned(fd);
  if (!m.started.load() || m.loops.empty())
    return Error(Errc::InvalidArgument, "adopt_connection needs a started server");
  if (m.core.stopping.load()) return Error(Errc::Stopped, "the server is stopping");
  Result<bool> tls = m.ready_connection(fd, framing);
  if (!tls) return tls.error();
  if (m.core.connections.fetch_add(1) >= m.core.options.max_connections) {
    m.core.connections.fetch_sub(1);
    return Error(Errc::LimitExceeded, "max_connections are open already");
  }
  detail::ServerLoop& loop = *m.loops[m.next_loop.fetch_add(1) % m.loops.size()];
  bool taken = false;
  try {
    taken = loop.adopt(owned, framing, *tls);
  } catch (const std::bad_alloc&) {
    m.core.connections.fetch_sub(1);
    return Error(Errc::NoMemory, "out of memory");
  }
  if (taken) return {};
  m.core.connections.fetch_sub(1);
  return Error(Errc::Stopped, "the server has stopped");
}

Status Server::serve_connection(int fd, ConnectionFraming framing) {
  Impl& m = *impl_;
  if (fd < 0) return Error(Errc::InvalidArgument, "a negative file descriptor");
  net::UniqueFd owned(fd);
  if (Status s = m.prepare(*this, false); !s) return s;
  detail::ServerCore& core = m.core;
  Result<bool> tls = m.ready_connection(fd, framing);
  if (!tls) return tls.error();
  auto loop = detail::ServerLoop::create(core);
  if (!loop) return loop.error();
  detail::ServerLoop& l = **loop;
  l.quit_when_idle();
  core.connections.fetch_add(1);
  l.adopt(owned, framing, *tls);  // a loop that has not run yet takes it
  m.loops.push_back(std::move(*loop));
  if (core.options.handler_threads)
    core.pool = std::make_unique<detail::WorkerPool>(core.options.handler_threads, core.registry,
                                                     core.dispatch);
  // From here stop() reaches the loop; it notices a stop that came earlier when it starts.
  m.started.store(true);
  l.run();
  wait();  // no thread to join: the pool, and the server marked spent
  return {};
}

void Server::wait() {
  Impl& m = *impl_;
  if (!m.started.load() || m.joined) return;
  if (m.core.options.host_loop && !m.loops.empty()) {
    // Nobody else drives the loop: drive it here, as a host would, until it has ended.
    detail::ServerLoop& loop = *m.loops.front();
    while (loop.process()) {
      net::wait_fd(loop.events().fd(), false,
                   std::chrono::steady_clock::now() + loop.host_timeout());
    }
  }
  for (auto& t : m.threads) t.join();
  m.joined = true;
  if (m.core.pool) m.core.pool->stop_and_join();
  m.close_listeners();
}

Status Server::run() {
  if (Status s = start(); !s) return s;
  wait();
  return {};
}

void Server::stop() noexcept {
  Impl& m = *impl_;
  m.core.stopping.store(true);
  if (!m.started.load()) return;
  for (auto& loop : m.loops) loop->wake();
}

int Server::loop_fd() const noexcept {
  const Impl& m = *impl_;
  if (!m.core.options.host_loop || !m.started.load() || m.loops.empty()) return -1;
  return m.loops.front()->events().fd();
}

std::chrono::milliseconds Server::loop_timeout() {
  Impl& m = *impl_;
  if (loop_fd() < 0) return std::chrono::milliseconds(-1);
  return m.loops.front()->host_timeout();
}

bool Server::process() {
  Impl& m = *impl_;
  if (loop_fd() < 0) return false;
  return m.loops.front()->process();
}

uint16_t Server::port(size_t index) const {
  const auto& l = impl_->core.listeners;
  return index < l.size() ? l[index].port : 0;
}

std::string Server::url(size_t index) const {
  const auto& ls = impl_->core.listeners;
  if (index >= ls.size()) return {};
  const detail::Listener& l = ls[index];
  const std::string& path = impl_->core.options.paths.front();
  const detail::Transport& t = detail::transport_of(l.framing);
  if (l.unix_socket) return std::string(t.unix_scheme) + l.unix_path;
  std::string host = l.host;
  if (host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  const std::string_view scheme = l.tls ? t.tls_scheme : t.tcp_scheme;
  return std::string(scheme) + host + ":" + std::to_string(l.port) + (t.has_path ? path : "");
}

std::string Server::metrics_text() const {
  const Impl& m = *impl_;
  std::vector<MethodStats> methods = method_stats();
  detail::ServerGauges gauges;
  if (m.started.load()) {
    gauges.connections_open = m.core.connections.load(std::memory_order_relaxed);
    for (const auto& loop : m.loops) {
      gauges.bytes_received += loop->bytes_received();
      gauges.bytes_sent += loop->bytes_sent();
    }
    gauges.stopping = m.core.stopping.load();
    gauges.buffer_memory = m.core.buffer_memory.load(std::memory_order_relaxed);
    gauges.connections_shed = m.core.connections_shed.load(std::memory_order_relaxed);
    for (const auto& loop : m.loops) loop->add_counts(gauges.counts);
  }
  std::string out;
  detail::append_prometheus_text(out, methods, gauges);
  return out;
}

std::vector<MethodStats> Server::method_stats() const {
  std::vector<MethodStats> sums;
  if (!impl_->started.load()) return sums;
  for (const auto& loop : impl_->loops) loop->dispatcher().add_stats_to(sums);
  if (impl_->core.pool) impl_->core.pool->add_stats_to(sums);
  return sums;
}

}  // namespace callwire
