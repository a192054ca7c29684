// Internal: the server's numbers in Prometheus' text exposition format (version 0.0.4), for
// Server::metrics_text() and the metrics path.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "callwire/registry.hpp"

namespace callwire::detail {

/// What the server counts beside its methods.
struct ServerGauges {
  size_t connections_open = 0;
  uint64_t bytes_received = 0;
  uint64_t bytes_sent = 0;
  bool stopping = false;
};

/// Appends every metric to `out`: per method (label `method`) callwire_calls_total,
/// callwire_faults_total and the callwire_call_duration_seconds histogram; then
/// callwire_connections_open, callwire_received_bytes_total, callwire_sent_bytes_total and
/// callwire_stopping. Methods never called are left out.
void append_prometheus_text(std::string& out, std::span<const MethodStats> methods,
                            const ServerGauges& gauges);

}  // namespace callwire::detail
