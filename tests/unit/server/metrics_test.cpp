// The server's numbers in Prometheus' text format (Server::metrics_text): per-method calls,
// faults and latency histograms, connections and bytes, each checked by value, and the whole
// page by Prometheus' own promtool.
#include "server/metrics.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "callwire/client.hpp"
#include "callwire/server.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

// promtool's verdict on `text`: its exit status and what it printed.
std::pair<int, std::string> promtool_check(const std::string& text) {
  char path[] = "/tmp/callwire-metrics-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
  close(fd);
  std::string command = std::string("promtool check metrics < ") + path + " 2>&1";
  FILE* p = popen(command.c_str(), "r");
  std::string said;
  char buf[512];
  while (p && fgets(buf, sizeof buf, p)) said += buf;
  int status = p ? pclose(p) : -1;
  unlink(path);
  return {status, said};
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(Metrics, CountsCallsFaultsLatencyConnectionsAndBytes) {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 2;
  Server server(o);
  ASSERT_TRUE(server.bind("add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(server.bind("slow", [] {
    std::this_thread::sleep_for(30ms);
    return 1;
  }));
  ASSERT_TRUE(server.bind("refuse", []() -> Result<int> { return Error(Errc::Fault, 3, "no"); }));
  ASSERT_TRUE(server.start());
  EXPECT_TRUE(has_line(server.metrics_text(), "callwire_connections_open 0"));

  Client client(server.url());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.call<int>("add", i, 1));
  ASSERT_TRUE(client.call<int>("slow"));
  for (int i = 0; i < 2; ++i) EXPECT_FALSE(client.call<int>("refuse"));
  EXPECT_FALSE(client.call<int>("nonesuch"));  // no method: not counted as one

  std::string text = server.metrics_text();
  EXPECT_TRUE(has_line(text, "callwire_calls_total{method=\"add\"} 3")) << text;
  EXPECT_TRUE(has_line(text, "callwire_faults_total{method=\"add\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "callwire_calls_total{method=\"refuse\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "callwire_faults_total{method=\"refuse\"} 2")) << text;
  EXPECT_EQ(text.find("nonesuch"), std::string::npos);
  // The slow call took at least 30 ms: above the 10 ms bucket, within +Inf.
  EXPECT_TRUE(
      has_line(text, "callwire_call_duration_seconds_bucket{method=\"slow\",le=\"0.01\"} 0"))
      << text;
  EXPECT_TRUE(
      has_line(text, "callwire_call_duration_seconds_bucket{method=\"slow\",le=\"+Inf\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "callwire_call_duration_seconds_count{method=\"add\"} 3")) << text;
  EXPECT_TRUE(has_line(text, "callwire_connections_open 1")) << text;  // the client's, kept
  EXPECT_TRUE(has_line(text, "callwire_stopping 0")) << text;
  EXPECT_EQ(text.find("callwire_received_bytes_total 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("callwire_sent_bytes_total 0\n"), std::string::npos) << text;

  auto [status, said] = promtool_check(text);
  ASSERT_NE(status, -1);
  EXPECT_EQ(status, 0) << "promtool check metrics (Debian's prometheus, which scripts/setup.sh "
                          "installs): "
                       << said << "\n"
                       << text;
}

TEST(Metrics, LabelValuesAreEscaped) {
  MethodStats odd;
  odd.name = "a\"b\\c\nd";
  odd.calls = 1;
  odd.latency_buckets[0] = 1;
  std::vector<MethodStats> methods = {odd};
  std::string text;
  detail::append_prometheus_text(text, methods, {});
  EXPECT_TRUE(has_line(text, "callwire_calls_total{method=\"a\\\"b\\\\c\\nd\"} 1")) << text;
  auto [status, said] = promtool_check(text);
  EXPECT_EQ(status, 0) << said << "\n" << text;
}

// Labels carry the names the server registered, never a name a peer sent: calls to methods
// that do not exist, even answered by a default method, add no label (no cardinality a peer
// can explode, no peer text in the page).
TEST(Metrics, NamesAPeerSentAreNoLabels) {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  Server server(o);
  ASSERT_TRUE(server.registry().set_default_method([](Params, CallContext&) { return Value(1); }));
  ASSERT_TRUE(server.start());
  Client client(server.url());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(client.call("peer" + std::to_string(i) + "\n\"x\\"));
  std::string text = server.metrics_text();
  EXPECT_EQ(text.find("peer"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "callwire_calls_total{method=\"(default method)\"} 20")) << text;
}

}  // namespace
}  // namespace callwire
