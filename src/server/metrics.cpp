#include "server/metrics.hpp"

#include <charconv>
#include <cstdio>

namespace callwire::detail {

namespace {

// A label value as the format wants it: backslash, double quote and line feed escaped.
void append_label(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

void append_number(std::string& out, uint64_t n) {
  char text[24];
  auto end = std::to_chars(text, text + sizeof text, n).ptr;
  out.append(text, end);
}

void append_seconds(std::string& out, double seconds) {
  char text[32];
  int n = std::snprintf(text, sizeof text, "%.9g", seconds);
  out.append(text, size_t(n));
}

void header(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

// `name{method="M"<extra>} value`
void sample(std::string& out, const char* name, std::string_view method, std::string_view extra,
            auto value) {
  out += name;
  out += "{method=\"";
  append_label(out, method);
  out += '"';
  out += extra;
  out += "} ";
  if constexpr (std::is_floating_point_v<decltype(value)>) {
    append_seconds(out, value);
  } else {
    append_number(out, value);
  }
  out += '\n';
}

void plain(std::string& out, const char* name, const char* type, const char* help, uint64_t value) {
  header(out, name, type, help);
  out += name;
  out += ' ';
  append_number(out, value);
  out += '\n';
}

}  // namespace

void append_prometheus_text(std::string& out, std::span<const MethodStats> methods,
                            const ServerGauges& gauges) {
  header(out, "callwire_calls_total", "counter", "Calls answered, by method.");
  for (const MethodStats& m : methods)
    if (m.calls) sample(out, "callwire_calls_total", m.name, {}, m.calls);
  header(out, "callwire_faults_total", "counter", "Calls answered with a fault, by method.");
  for (const MethodStats& m : methods)
    if (m.calls) sample(out, "callwire_faults_total", m.name, {}, m.faults);
  header(out, "callwire_call_duration_seconds", "histogram",
         "Time from a call's dispatch to its result, by method.");
  for (const MethodStats& m : methods) {
    if (!m.calls) continue;
    uint64_t cumulative = 0;
    for (size_t b = 0; b < m.latency_buckets.size(); ++b) {
      cumulative += m.latency_buckets[b];
      std::string le = ",le=\"";
      if (b < MethodStats::kLatencyBounds.size())
        append_seconds(le, double(MethodStats::kLatencyBounds[b].count()) / 1e6);
      else
        le += "+Inf";
      le += '"';
      sample(out, "callwire_call_duration_seconds_bucket", m.name, le, cumulative);
    }
    sample(out, "callwire_call_duration_seconds_sum", m.name, {},
           double(m.total_time.count()) / 1e9);
    sample(out, "callwire_call_duration_seconds_count", m.name, {}, cumulative);
  }
  plain(out, "callwire_connections_open", "gauge", "Connections open now.",
        gauges.connections_open);
  plain(out, "callwire_received_bytes_total", "counter", "Bytes read from connections.",
        gauges.bytes_received);
  plain(out, "callwire_sent_bytes_total", "counter", "Bytes written to connections.",
        gauges.bytes_sent);
  plain(out, "callwire_stopping", "gauge", "1 while the server stops (draining), else 0.",
        gauges.stopping ? 1 : 0);
  plain(out, "callwire_buffer_memory_bytes", "gauge",
        "Bytes held by all connections' buffers (ServerOptions::max_buffer_memory bounds it).",
        gauges.buffer_memory);
  plain(out, "callwire_connections_shed_total", "counter",
        "Connections closed for answers unread while the buffers were over budget.",
        gauges.connections_shed);
  const ServerCounts& c = gauges.counts;
  header(out, "callwire_http_responses_total", "counter",
         "Answers sent, by HTTP status (a packet stream's and JSON lines' count as 200).");
  for (size_t i = 0; i < c.answers.size(); ++i) {
    if (c.answers[i] == 0) continue;
    out += "callwire_http_responses_total{status=\"";
    append_number(out, i + 100);
    out += "\"} ";
    append_number(out, c.answers[i]);
    out += '\n';
  }
  plain(out, "callwire_parse_errors_total", "counter",
        "Documents that were not well-formed XML or JSON (answered -32700).", c.parse_errors);
  plain(out, "callwire_tls_handshake_failures_total", "counter",
        "TLS handshakes that failed (an untrusted or expired certificate, no shared cipher).",
        c.tls_failures);
  plain(out, "callwire_connections_refused_total", "counter",
        "Connections refused at the connection cap or over the buffer budget.", c.refused);
}

}  // namespace callwire::detail
