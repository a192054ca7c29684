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
  size_t buffer_memory = 0;
  uint64_t connections_shed = 0;
};

/// Appends every metric to `out`: per method (label `method`) callwire_calls_total,
/// callwire_faults_total and the callwire_call_duration_seconds histogram; then
/// callwire_connections_open, callwire_received_bytes_total, callwire_sent_bytes_total,
/// callwire_stopping, callwire_buffer_memory_bytes and callwire_connections_shed_total. Methods
/// never called are left out.
void append_prometheus_text(std::string& out, std::span<const MethodStats> methods,
                            const ServerGauges& gauges);

}  // namespace callwire::detail
