// The host-loop mode from C++ (ClientOptions::host_loop, ServerOptions::host_loop): a server
// and clients driven by the test's own poll() loop on one thread, with no thread started by
// the library; pipelined packet-stream calls; synchronous calls beside it; stopping from a
// handler; the destructor with calls in flight; the options refused.
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "net/address.hpp"
#include "net/event_loop.hpp"
#include "net/lookup.hpp"

namespace callwire {
namespace {

using namespace std::chrono_literals;

// Whether a loop's one descriptor shows every socket (epoll), so an idle host may sleep on it
// alone; with poll(2) it wakes only for posted work, and a host calls in every few
// milliseconds instead (docs/porting.md).
bool loop_fd_shows_all() {
  static const bool shows = net::EventLoop::create().value()->fd_shows_all_events();
  return shows;
}

// What an idle server's loop_timeout() says: -1, or (poll) at most 5 ms.
void expect_idle_server_timeout(std::chrono::milliseconds t) {
  if (loop_fd_shows_all()) {
    EXPECT_EQ(t, -1ms);
  } else {
    EXPECT_GE(t.count(), 0);
    EXPECT_LE(t.count(), 5);
  }
}

// The process's threads (Linux's /proc/self/task); -1 where there is no /proc.
int count_threads() {
  int n = 0;
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

std::unique_ptr<Server> host_server(std::string listen = "127.0.0.1:0") {
  ServerOptions o;
  o.listen = {std::move(listen)};
  o.host_loop = true;
  o.enable_shutdown = true;
  auto server = std::make_unique<Server>(o);
  EXPECT_TRUE(server->bind("sample.add", [](int a, int b) { return a + b; }));
  EXPECT_TRUE(server->start());
  return server;
}

ClientOptions host_client_options() {
  ClientOptions o;
  o.host_loop = true;
  o.max_connections = 4;
  return o;
}

// One turn of a poll() loop over a server and clients, as a host runs it.
void pump(Server* server, std::vector<Client*> clients) {
  std::vector<pollfd> fds;
  int timeout = -1;
  auto shortest = [&](std::chrono::milliseconds t) {
    if (t.count() >= 0 && (timeout < 0 || t.count() < timeout)) timeout = int(t.count());
  };
  if (server) {
    fds.push_back({server->loop_fd(), POLLIN, 0});
    shortest(server->loop_timeout());
  }
  for (Client* c : clients) {
    fds.push_back({c->loop_fd(), POLLIN, 0});
    shortest(c->loop_timeout());
  }
  ::poll(fds.data(), fds.size(), timeout);
  if (server) server->process();
  for (Client* c : clients) c->process();
}

template <class Done>
void pump_until(Server* server, std::vector<Client*> clients, Done done) {
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!done() && std::chrono::steady_clock::now() < deadline) pump(server, clients);
  ASSERT_TRUE(done());
}

TEST(HostLoop, ServerAndClientInOneThreadStartNoThread) {
  const int threads = count_threads();
  if (threads < 0) GTEST_SKIP() << "Linux only: counts /proc/self/task";
  auto server = host_server();
  Client client(server->url(), host_client_options());
  ASSERT_GE(server->loop_fd(), 0);
  ASSERT_GE(client.loop_fd(), 0);
  EXPECT_EQ(client.loop_timeout(), -1ms);              // nothing pending
  expect_idle_server_timeout(server->loop_timeout());  // no connection to time out

  const std::thread::id host = std::this_thread::get_id();
  int done = 0, sum = 0, want = 0;
  bool all_on_host = true;
  for (int i = 0; i < 100; ++i) {
    want += i + 2;
    client.async_call<int>(
        [&](Result<int> r) {
          all_on_host &= std::this_thread::get_id() == host;
          ++done;
          if (r) sum += *r;
        },
        "sample.add", i, 2);
  }
  EXPECT_EQ(client.loop_timeout(), 0ms);  // calls to start
  // A call started in a completion callback runs too.
  Result<Value> chained = Error(Errc::Timeout, "not yet");
  bool chained_done = false;
  client.async_call("sample.add", {Value(1), Value(1)}, [&](Result<Value> r) {
    client.async_call("no.such.method", {}, [&](Result<Value> inner) {
      chained = std::move(inner);
      chained_done = true;
    });
    EXPECT_EQ(r->as_int(), 2);
  });
  pump_until(server.get(), {&client}, [&] { return done == 100 && chained_done; });
  EXPECT_EQ(sum, want);
  EXPECT_TRUE(all_on_host);
  ASSERT_FALSE(chained);
  EXPECT_EQ(chained.error().code, Errc::Fault);
  EXPECT_EQ(chained.error().fault_code, -32601);
  EXPECT_EQ(count_threads(), threads);
  EXPECT_EQ(client.loop_timeout(), -1ms);
  // The kept-alive connections have idle timeouts: the server's sweep wants its tick.
  EXPECT_GE(server->loop_timeout().count(), 0);
  EXPECT_LE(server->loop_timeout().count(), 101);
}

TEST(HostLoop, AHostNameIsLookedUpWithoutAThread) {
  const int threads = count_threads();
  if (threads < 0) GTEST_SKIP() << "Linux only: counts /proc/self/task";
  // The lookup thread's resolver, replaced: it must never be called (no lookup thread).
  std::atomic<int> thread_lookups{0};
  net::set_resolver_for_testing([&](const net::Endpoint& e) {
    ++thread_lookups;
    return net::resolve(e);
  });
  auto server = host_server();
  Client client("http://localhost:" + std::to_string(server->port()) + "/RPC2",
                host_client_options());
  int done = 0, ok = 0;
  for (int i = 0; i < 10; ++i)
    client.async_call("sample.add", {Value(i), Value(i)}, [&](Result<Value> r) {
      ++done;
      if (r) ++ok;
    });
  pump_until(server.get(), {&client}, [&] { return done == 10; });
  EXPECT_EQ(ok, 10);
  EXPECT_EQ(count_threads(), threads);
  EXPECT_EQ(thread_lookups.load(), 0);
  // A threaded client uses the lookup thread (the check above can see one).
  Client threaded("http://localhost:" + std::to_string(server->port()) + "/RPC2");
  auto answer = threaded.async_call("sample.add", {Value(1), Value(1)});
  while (answer.wait_for(0ms) != std::future_status::ready) pump(server.get(), {});
  EXPECT_TRUE(answer.get());
  EXPECT_GE(thread_lookups.load(), 1);
  net::set_resolver_for_testing(nullptr);
}

TEST(HostLoop, CancellationAndDeadlineEndInProcess) {
  // A peer that never answers: the listening socket's backlog accepts, nobody reads.
  ServerOptions so;
  so.listen = {"127.0.0.1:0"};
  so.host_loop = true;
  Server silent(so);  // started, never processed: its connections wait in the backlog
  ASSERT_TRUE(silent.start());
  Client client(silent.url(), host_client_options());
  std::stop_source stop;
  CallOptions cancellable;
  cancellable.cancel = stop.get_token();
  CallOptions short_deadline;
  short_deadline.timeout = 200ms;
  std::optional<Result<Value>> cancelled, timed_out;
  const auto started = std::chrono::steady_clock::now();
  client.async_call(
      "x", {}, [&](Result<Value> r) { cancelled = std::move(r); }, cancellable);
  client.async_call(
      "x", {}, [&](Result<Value> r) { timed_out = std::move(r); }, short_deadline);
  client.process();  // starts both: they connect, send, and wait for an answer
  client.process();
  EXPECT_FALSE(cancelled);
  EXPECT_FALSE(timed_out);
  // Until the earliest deadline (200 ms from the start), not every tick of the sweep: the
  // other call's deadline is 30 s away. With poll, every few milliseconds all the same.
  if (loop_fd_shows_all()) {
    EXPECT_GT(client.loop_timeout().count(), 100);
  }
  EXPECT_LE(client.loop_timeout().count(), loop_fd_shows_all() ? 200 : 5);
  stop.request_stop();  // wakes the client's descriptor
  pollfd p{client.loop_fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 1000), 1);
  pump_until(nullptr, {&client}, [&] { return cancelled.has_value(); });
  EXPECT_EQ(cancelled->error().code, Errc::Cancelled);
  EXPECT_FALSE(timed_out);
  pump_until(nullptr, {&client}, [&] { return timed_out.has_value(); });
  EXPECT_EQ(timed_out->error().code, Errc::Timeout);
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_GE(took, 195ms);
  EXPECT_LT(took, 2s);
  EXPECT_EQ(client.loop_timeout(), -1ms);  // nothing pending: no wake-ups
}

TEST(HostLoop, AServerIdleForLongTimesANewcomerFromNow) {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.host_loop = true;
  o.request_timeout = 150ms;
  o.idle_timeout = 150ms;
  Server server(o);
  ASSERT_TRUE(server.bind("sample.add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(server.start());
  EXPECT_TRUE(server.process());
  expect_idle_server_timeout(server.loop_timeout());
  // The host sleeps on the descriptor alone, longer than the timeouts (as a host does when
  // told -1); then a connection comes, accepted in one process() and its request read in a
  // later one: its timeout counts from its arrival, not from when the server last woke.
  std::this_thread::sleep_for(400ms);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(server.port());
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  pollfd p{server.loop_fd(), POLLIN, 0};
  if (loop_fd_shows_all()) {
    ASSERT_EQ(::poll(&p, 1, 5000), 1);
  } else {  // the descriptor cannot show it: the host calls in when told to
    ::poll(&p, 1, int(server.loop_timeout().count()));
  }
  EXPECT_TRUE(server.process());  // accepts
  EXPECT_TRUE(server.process());
  std::string body =
      "<?xml version=\"1.0\"?><methodCall><methodName>sample.add</methodName><params>"
      "<param><value><int>2</int></value></param><param><value><int>3</int></value></param>"
      "</params></methodCall>";
  std::string request =
      "POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL), ssize_t(request.size()));
  std::string answer;
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (answer.find("</methodResponse>") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    pollfd fds[2] = {{server.loop_fd(), POLLIN, 0}, {fd, POLLIN, 0}};
    ::poll(fds, 2, int(server.loop_timeout().count()));
    server.process();
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) break;  // closed: timed out on a stale clock
    if (n > 0) answer.append(buf, size_t(n));
  }
  ::close(fd);
  EXPECT_NE(answer.find("<int>5</int>"), std::string::npos) << answer;
}

TEST(HostLoop, PipelinedPacketStreamCalls) {
  auto server = host_server("pstream://127.0.0.1:0");
  ClientOptions o = host_client_options();
  o.max_connections = 2;
  o.pipeline_depth = 8;
  Client client(server->url(), o);
  int done = 0, ok = 0;
  for (int i = 0; i < 50; ++i)
    client.async_call("sample.add", {Value(i), Value(1)}, [&, i](Result<Value> r) {
      ++done;
      if (r && r->as_int() == i + 1) ++ok;
    });
  pump_until(server.get(), {&client}, [&] { return done == 50; });
  EXPECT_EQ(ok, 50);
  EXPECT_EQ(client.probe(), 2u);  // the pipeline's connections, on the host's thread
}

TEST(HostLoop, SynchronousCallsStillWorkBesideIt) {
  auto server = host_server();
  Client client(server->url(), host_client_options());
  // The synchronous call waits on its own connection: the server must be served meanwhile,
  // so it is made from another thread here (on the host's thread it would wait for itself).
  std::optional<Result<int>> answer;
  std::atomic<bool> finished{false};
  std::thread caller([&] {
    answer = client.call<int>("sample.add", 20, 22);
    finished = true;
  });
  while (!finished) pump(server.get(), {});
  caller.join();
  ASSERT_TRUE(*answer);
  EXPECT_EQ(**answer, 42);
}

TEST(HostLoop, StopFromAHandlerEndsProcess) {
  auto server = host_server();
  Client client(server->url(), host_client_options());
  bool answered = false;
  client.async_call("system.shutdown", {Value("bye")}, [&](Result<Value> r) {
    EXPECT_TRUE(r);
    answered = true;
  });
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (server->process() && std::chrono::steady_clock::now() < deadline) pump(nullptr, {&client});
  EXPECT_FALSE(server->process());  // stopped, and stays so
  EXPECT_EQ(server->loop_timeout(), -1ms);
  EXPECT_TRUE(answered);
  server->wait();  // returns at once
}

TEST(HostLoop, ClientDestructorEndsCallsInFlightOnItsThread) {
  auto server = host_server();
  std::thread serving([s = server.get()] {
    while (s->process()) {
      pollfd p{s->loop_fd(), POLLIN, 0};
      ::poll(&p, 1, int(s->loop_timeout().count()));
    }
  });
  int done = 0;
  {
    Client client(server->url(), host_client_options());
    for (int i = 0; i < 5; ++i)
      client.async_call("sample.add", {Value(i), Value(i)}, [&](Result<Value> r) {
        EXPECT_TRUE(r);
        ++done;
      });
  }  // never processed: the destructor drives the calls to their end
  EXPECT_EQ(done, 5);
  server->stop();
  serving.join();
}

TEST(HostLoop, OptionsRefused) {
  for (auto [threads, handler_threads] : {std::pair{2u, 0u}, std::pair{1u, 1u}}) {
    ServerOptions o;
    o.listen = {"127.0.0.1:0"};
    o.host_loop = true;
    o.threads = threads;
    o.handler_threads = handler_threads;
    Server server(o);
    Status s = server.start();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::InvalidArgument);
    EXPECT_EQ(server.loop_fd(), -1);
    EXPECT_FALSE(server.process());
  }
  std::vector<std::string> urls = {"http://127.0.0.1:1/RPC2", "http://127.0.0.1:2/RPC2"};
  auto group = Client::create_group(urls, host_client_options());
  ASSERT_FALSE(group);
  EXPECT_EQ(group.error().code, Errc::InvalidArgument);
  Server threaded;  // no host_loop
  EXPECT_EQ(threaded.loop_fd(), -1);
  EXPECT_FALSE(threaded.process());
  Client client("http://127.0.0.1:1/RPC2");
  EXPECT_EQ(client.loop_fd(), -1);
  EXPECT_EQ(client.loop_timeout(), -1ms);
  client.process();  // does nothing
}

}  // namespace
}  // namespace callwire
