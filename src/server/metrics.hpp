// Internal: the server's numbers in Prometheus' text exposition format (version 0.0.4), for
// Server::metrics_text() and the metrics path.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "callwire/registry.hpp"

namespace callwire::detail {

/// What the server's loops count of what they answer and refuse (summed over the loops).
struct ServerCounts {
  std::array<uint64_t, 500> answers{};  ///< by HTTP status, at index status - 100
  uint64_t parse_errors = 0;            ///< documents that were not well-formed (-32700)
  uint64_t tls_failures = 0;            ///< TLS handshakes that failed
  uint64_t refused = 0;                 ///< connections refused (the cap, the memory budget)
};

/// What the server counts beside its methods.
struct ServerGauges {
  size_t connections_open = 0;
  uint64_t bytes_received = 0;
  uint64_t bytes_sent = 0;
  bool stopping = false;
  size_t buffer_memory = 0;
  uint64_t connections_shed = 0;
  ServerCounts counts;
};

/// Appends every metric to `out`: per method (label `method`) callwire_calls_total,
/// callwire_faults_total and the callwire_call_duration_seconds histogram; then
/// callwire_connections_open, callwire_received_bytes_total, callwire_sent_bytes_total,
/// callwire_stopping, callwire_buffer_memory_bytes, callwire_connections_shed_total,
/// callwire_http_responses_total (label `status`; statuses never answered left out),
/// callwire_parse_errors_total, callwire_tls_handshake_failures_total and
/// callwire_connections_refused_total. Methods never called are left out.
void append_prometheus_text(std::string& out, std::span<const MethodStats> methods,
                            const ServerGauges& gauges);

}  // namespace callwire::detail
