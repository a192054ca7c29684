// The server's numbers in Prometheus' text format (Server::metrics_text): per-method calls,
// faults and latency histograms, connections and bytes, each checked by value, and the whole
// page by Prometheus' own promtool.
#include "server/metrics.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "http_test_util.hpp"
#include "test_cert.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

// Whether Prometheus' promtool can check the page here: Debian's (scripts/setup.sh installs
// it); a Windows test under Wine checks the values only.
#if defined(_WIN32)
constexpr bool kHavePromtool = false;
#else
constexpr bool kHavePromtool = true;
#endif

// promtool's verdict on `text`: its exit status and what it printed.
std::pair<int, std::string> promtool_check(const std::string& text) {
  if (!kHavePromtool) return {0, "promtool not run on this system"};
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

// Answers by HTTP status, documents that were not well-formed, refused connections and failed
// TLS handshakes, each counted by value; the page still passes promtool.
TEST(Metrics, CountsAnswersByStatusParseErrorsRefusalsAndTlsFailures) {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  o.max_connections = 3;
  o.paths = {"/RPC2"};
  Server server(o);
  ASSERT_TRUE(server.bind("add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(server.start());
  {
    Client client(server.url());
    ASSERT_TRUE(client.call<int>("add", 1, 2));
    ASSERT_TRUE(client.call<int>("add", 3, 4));
    {
      testing::RawSocket bad(server.port());
      ASSERT_TRUE(bad.send(testing::post("<methodCall><methodName>add</methodName>")));
      EXPECT_NE(bad.read_responses(1).find("-32700"), std::string::npos);
      testing::RawSocket lost(server.port());
      ASSERT_TRUE(lost.send("POST /elsewhere HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"));
      EXPECT_TRUE(lost.read_all().starts_with("HTTP/1.1 404"));
    }
    std::this_thread::sleep_for(200ms);  // the server has seen both close
    // The client's kept connection and two held open: a fourth is refused.
    testing::RawSocket held(server.port()), held_too(server.port());
    ASSERT_TRUE(held.connected() && held_too.connected());
    std::this_thread::sleep_for(100ms);  // the loop has taken it
    testing::RawSocket refused(server.port());
    EXPECT_TRUE(refused.read_all().starts_with("HTTP/1.1 503")) << "the cap";
  }
  std::string text = server.metrics_text();
  EXPECT_TRUE(has_line(text, "callwire_http_responses_total{status=\"200\"} 3")) << text;
  EXPECT_TRUE(has_line(text, "callwire_http_responses_total{status=\"404\"} 1")) << text;
  EXPECT_EQ(text.find("callwire_http_responses_total{status=\"500\"}"), std::string::npos);
  EXPECT_TRUE(has_line(text, "callwire_parse_errors_total 1")) << text;
  EXPECT_TRUE(has_line(text, "callwire_connections_refused_total 1")) << text;
  EXPECT_TRUE(has_line(text, "callwire_tls_handshake_failures_total 0")) << text;
  auto [status, said] = promtool_check(text);
  EXPECT_EQ(status, 0) << said << "\n" << text;
}

// The access log's duration is the answer's own, for error answers too (it was measured from
// the loop's cached clock: 0 to 100 ms whatever the answer took), and each entry says when.
TEST(AccessLog, DurationsAreTrueAndEntriesAreTimed) {
  std::mutex mutex;
  std::vector<AccessLogEntry> entries;
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  o.paths = {"/RPC2"};
  o.access_log = [&](const AccessLogEntry& e) {
    std::lock_guard lock(mutex);
    AccessLogEntry copy = e;
    copy.peer = copy.user = copy.method = {};  // views: not kept
    entries.push_back(copy);
  };
  Server server(o);
  ASSERT_TRUE(server.bind("add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(server.start());
  const auto before = std::chrono::system_clock::now();
  for (int i = 0; i < 20; ++i) {
    testing::RawSocket lost(server.port());
    ASSERT_TRUE(lost.send("POST /elsewhere HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"));
    EXPECT_TRUE(lost.read_all().starts_with("HTTP/1.1 404"));
    std::this_thread::sleep_for(7ms);  // spread over the loop's 100 ms tick
  }
  const auto after = std::chrono::system_clock::now();
  std::lock_guard lock(mutex);
  ASSERT_EQ(entries.size(), 20u);
  int slow = 0;
  for (const AccessLogEntry& e : entries) {
    EXPECT_EQ(e.http_status, 404);
    if (e.duration > 5ms) ++slow;  // a busy machine may be slow once or twice, not often
    EXPECT_GE(e.time, before);
    EXPECT_LE(e.time, after);
  }
  EXPECT_LE(slow, 3);
}

// A renewed certificate without a restart: reload_tls reads the files again; new connections
// get the new certificate, one already open keeps its own; a bad file changes nothing.
TEST(TlsReload, NewConnectionsGetTheNewCertificate) {
  auto base =
      std::filesystem::temp_directory_path() / ("callwire-reload-" + std::to_string(getpid()));
  std::filesystem::create_directories(base / "old");
  std::filesystem::create_directories(base / "new");
  std::filesystem::create_directories(base / "served");
  testing::TestCert old_cert = testing::make_test_cert(base / "old");
  testing::TestCert new_cert = testing::make_test_cert(base / "new");
  ASSERT_TRUE(old_cert.ok && new_cert.ok);
  const auto served_cert = base / "served" / "cert.pem", served_key = base / "served" / "key.pem";
  auto serve = [&](const testing::TestCert& c) {
    // Removed first: MinGW's libstdc++ 12 refuses overwrite_existing with "File exists".
    std::filesystem::remove(served_cert);
    std::filesystem::remove(served_key);
    std::filesystem::copy_file(c.cert_file, served_cert,
                               std::filesystem::copy_options::overwrite_existing);
    std::filesystem::copy_file(c.key_file, served_key,
                               std::filesystem::copy_options::overwrite_existing);
  };
  serve(old_cert);
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  o.tls.cert_file = served_cert.string();
  o.tls.key_file = served_key.string();
  Server server(o);
  ASSERT_TRUE(server.bind("add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(server.start());
  auto trusting = [&](const testing::TestCert& c) {
    ClientOptions co;
    co.tls.ca_file = c.cert_file;
    return Client(server.url(), co);
  };
  Client kept = trusting(old_cert);  // its connection stays open across the reload
  ASSERT_TRUE(kept.call<int>("add", 1, 2));
  EXPECT_EQ(trusting(new_cert).call<int>("add", 1, 2).error().code, Errc::TlsError);

  serve(new_cert);
  Status reloaded = server.reload_tls();
  ASSERT_TRUE(reloaded) << reloaded.error().message;
  EXPECT_TRUE(trusting(new_cert).call<int>("add", 1, 2));
  EXPECT_EQ(trusting(old_cert).call<int>("add", 1, 2).error().code, Errc::TlsError);
  EXPECT_TRUE(kept.call<int>("add", 3, 4)) << "an open connection keeps its certificate";

  // A broken key: refused, and the server goes on with the new certificate.
  { std::ofstream(served_key) << "not a key"; }
  Status broken = server.reload_tls();
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, Errc::TlsError) << broken.error().message;
  EXPECT_TRUE(trusting(new_cert).call<int>("add", 1, 2));

  ServerOptions plain;
  plain.listen = {"127.0.0.1:0"};
  Server no_tls(plain);
  ASSERT_TRUE(no_tls.start());
  EXPECT_EQ(no_tls.reload_tls().error().code, Errc::InvalidArgument);
  std::filesystem::remove_all(base);
}

TEST(Metrics, CountsFailedTlsHandshakes) {
  auto dir =
      std::filesystem::temp_directory_path() / ("callwire-metrics-tls-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  testing::TestCert cert = testing::make_test_cert(dir);
  ASSERT_TRUE(cert.ok);
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  o.tls.cert_file = cert.cert_file;
  o.tls.key_file = cert.key_file;
  Server server(o);
  ASSERT_TRUE(server.start());
  // A handshake record that is not one, from a peer that stays to hear the refusal: the
  // failure is the server's to see (a real client that gives up may reset the connection
  // first, which is a peer gone, not a failed handshake).
  testing::RawSocket bad(server.port());
  ASSERT_TRUE(bad.send(std::string("\x16\x03\x01\x00\x05hello", 10)));
  bad.read_all();  // until the server closes: it counted the failure before
  std::string text;
  for (int i = 0; i < 250; ++i) {
    text = server.metrics_text();
    if (has_line(text, "callwire_tls_handshake_failures_total 1")) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(has_line(text, "callwire_tls_handshake_failures_total 1")) << text;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace callwire
