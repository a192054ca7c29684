// Internal: what every event loop of one server shares, read-only while serving except for
// the atomics.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/shared_slot.hpp"
#include "callwire/registry.hpp"
#include "callwire/server.hpp"
#include "http/request_parser.hpp"
#include "http/response_writer.hpp"
#include "net/address.hpp"
#include "net/fd.hpp"
#include "net/tls.hpp"
#include "protocol/dispatcher.hpp"
#include "server/framing.hpp"
#include "server/worker_pool.hpp"

namespace callwire::detail {

struct Listener {
  std::string spec;  // as given in ServerOptions::listen
  std::string host;  // the TCP host it was bound to
  bool unix_socket = false;
  std::string unix_path;   // unlinked when the server stops, unless inherited
  bool inherited = false;  // handed down ("systemd:", "fd:N"): its path is the supervisor's
  uint16_t port = 0;
  bool tls = false;
  ConnectionFraming framing = ConnectionFraming::Http;
  net::UniqueFd fd;
};

struct ServerCore {
  ServerOptions options;
  Registry registry;
  DispatchOptions dispatch;
  http::RequestLimits request_limits;
  // The TLS context new connections take (Server::reload_tls swaps it; a connection keeps the
  // one it started with: OpenSSL counts its references). Null without a certificate.
  SharedSlot<net::TlsContext> tls;
  bool serves_tls = false;  // a certificate was given: HTTP over TCP is TLS
  std::vector<Listener> listeners;
  std::unique_ptr<WorkerPool> pool;  // null: handlers run on the loops
  std::string www_authenticate;      // the 401's WWW-Authenticate value
  // Room kept before each answer's body for its HTTP head, which is written last (once the
  // body's length is known) right-aligned against it, so the body is never copied: the most
  // any head of this server takes (CORS adds a field of the user's length).
  size_t head_room = http::kResponseHeadGap;

  // Server::metrics_text, for the metrics path (set by the server before it serves).
  std::function<std::string()> metrics_text;
  // The wire trace: ServerOptions::trace, or CALLWIRE_TRACE's; empty: off.
  TraceHook trace;
  // ServerOptions::trusted_proxies, parsed.
  std::vector<net::IpRange> trusted_proxies;

  std::atomic<size_t> connections{0};
  // Bytes held by every connection's buffers (their capacities), as each last accounted them.
  std::atomic<size_t> buffer_memory{0};
  // The part of it held by connections with answers waiting for their peer to read: what
  // shedding them would give back (ServerLoop::shed_unsent).
  std::atomic<size_t> unsent_memory{0};
  std::atomic<uint64_t> connections_shed{0};  // for the metrics
  std::atomic<bool> stopping{false};
};

}  // namespace callwire::detail
