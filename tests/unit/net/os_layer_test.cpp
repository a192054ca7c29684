// The OS layer's pieces on socketpairs, whichever backend the build chose (epoll, or poll in a
// portable build): the poller's interest and readiness, the wake-up descriptor, sends that
// never raise SIGPIPE, and sockets opened and accepted non-blocking and close-on-exec.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#if !defined(_WIN32)
#include <signal.h>
#endif

#include "http_test_util.hpp"
#include "net/event_loop.hpp"
#include "net/poller.hpp"
#include "net/portable_calls.hpp"
#include "net/wake_fd.hpp"

namespace callwire::net {
namespace {

// Two connected sockets (a socketpair; TCP over loopback on Windows).
struct Pair {
  UniqueFd a, b;
  Pair() {
    int fds[2] = {-1, -1};
    EXPECT_TRUE(testing::socket_pair(fds));
    a.reset(fds[0]);
    b.reset(fds[1]);
  }
};

bool readable(int fd) { return testing::wait_readable(fd, 0); }
// Readable within a second: a byte sent over TCP (Windows' pairs) may take a moment to arrive.
bool readable_soon(int fd) { return testing::wait_readable(fd, 1000); }

TEST(Poller, ReportsWhatIsReadyWithItsData) {
  Poller poller = Poller::create().value();
  Pair one, two;
  int tag_one = 1, tag_two = 2;
  ASSERT_TRUE(poller.add(one.a.get(), kReadable, &tag_one));
  ASSERT_TRUE(poller.add(two.a.get(), kReadable, &tag_two));
  EXPECT_FALSE(poller.add(two.a.get(), kReadable, &tag_two)) << "added twice";
  ReadyEvent events[8];
  EXPECT_EQ(poller.wait(events, 8, 0), 0);
  ASSERT_TRUE(testing::send_all(two.b.get(), "x"));
  ASSERT_EQ(poller.wait(events, 8, 1000), 1);
  // Copied out first: ReadyEvent is packed as epoll's event is (no reference to a member).
  void* data = events[0].data;
  uint32_t bits = events[0].events;
  EXPECT_EQ(data, &tag_two);
  EXPECT_TRUE(bits & kReadable);
  // Writable interest on the other: ready at once (its buffer is empty).
  ASSERT_TRUE(poller.modify(one.a.get(), kWritable, &tag_one));
  ASSERT_EQ(poller.wait(events, 8, 1000), 2);
  // Removed, it is silent; the peer's close shows as readable or hangup on the other.
  poller.remove(two.a.get());
  two.b.reset();
  ASSERT_EQ(poller.wait(events, 8, 1000), 1);
  data = events[0].data;
  EXPECT_EQ(data, &tag_one);
  ASSERT_TRUE(poller.modify(one.a.get(), kReadable, &tag_one));
  one.b.reset();
  ASSERT_EQ(poller.wait(events, 8, 1000), 1);
  bits = events[0].events;
  EXPECT_TRUE(bits & (kReadable | kHangup));
  EXPECT_FALSE(poller.modify(two.a.get(), kReadable, &tag_two)) << "modified after removal";
}

TEST(Poller, ManyReadyAreAllSeenAcrossSmallBatches) {
  Poller poller = Poller::create().value();
  std::vector<Pair> pairs(10);
  std::vector<int> tags(10);
  for (int i = 0; i < 10; ++i) {
    tags[i] = i;
    ASSERT_TRUE(poller.add(pairs[i].a.get(), kReadable, &tags[i]));
    ASSERT_TRUE(testing::send_all(pairs[i].b.get(), "x"));
  }
  // Three at a time, each one read once seen: all ten come, none twice.
  std::vector<int> seen;
  ReadyEvent events[3];
  for (int round = 0; round < 10 && seen.size() < 10; ++round) {
    int n = poller.wait(events, 3, 1000);
    for (int k = 0; k < n; ++k) {
      void* data = events[k].data;
      int i = *static_cast<int*>(data);
      char c;
      ASSERT_EQ(testing::receive_some(pairs[i].a.get(), &c, 1), 1);
      seen.push_back(i);
    }
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(WakeFd, RaisedUntilCleared) {
  WakeFd wake = WakeFd::create().value();
  EXPECT_FALSE(readable(wake.fd()));
  wake.raise();
  wake.raise();  // twice is as once
  EXPECT_TRUE(readable_soon(wake.fd()));
  wake.clear();
  EXPECT_FALSE(readable(wake.fd()));
  for (int i = 0; i < 100000; ++i) wake.raise();  // a full pipe does not block the raiser
  EXPECT_TRUE(readable_soon(wake.fd()));
  wake.clear();
  EXPECT_FALSE(readable(wake.fd()));
  EXPECT_FALSE(testing::inherited_by_children(wake.fd()));
}

TEST(EventLoop, AWakeFromAnotherThreadRunsItsTask) {
  auto loop = EventLoop::create().value();
  bool ran = false;
  loop->post([&] {
    ran = true;
    loop->quit();
  });
  loop->run(
      std::chrono::milliseconds(1000), [] {}, [](bool) {});
  EXPECT_TRUE(ran);
}

#if !defined(_WIN32)  // Windows has no SIGPIPE
TEST(PortableCalls, ASendToAClosedPeerFailsWithoutSigpipe) {
  // SIGPIPE's default action ends the process: the test would not return if one came.
  struct sigaction old_action {};
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &default_action, &old_action);
  Pair pair;
  pair.b.reset();
  char bytes[4096] = {};
  ssize_t n = 0;
  for (int i = 0; i < 4 && n >= 0; ++i) n = send_nosignal(pair.a.get(), bytes, sizeof bytes, false);
  const int err = errno;
  sigaction(SIGPIPE, &old_action, nullptr);
  EXPECT_EQ(n, -1);
  EXPECT_EQ(err, EPIPE);
  sigset_t pending;
  sigpending(&pending);
  EXPECT_FALSE(sigismember(&pending, SIGPIPE)) << "a SIGPIPE left pending";
}
#endif

TEST(PortableCalls, SocketsOpenAndAcceptNonBlockingAndCloseOnExec) {
  UniqueFd listener(open_stream_socket(AF_INET, true));
  ASSERT_TRUE(listener);
  EXPECT_FALSE(testing::inherited_by_children(listener.get()));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(listener.get(), 4), 0);
  sys::SockLen length = sizeof a;
  ASSERT_EQ(getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &length), 0);
  sockaddr_storage peer{};
  sys::SockLen peer_length = sizeof peer;
  EXPECT_EQ(accept_nonblocking(listener.get(), reinterpret_cast<sockaddr*>(&peer), &peer_length),
            -1);
  EXPECT_TRUE(sys::is_transient(sys::last_error()));  // a listener that does not wait
  UniqueFd client(open_stream_socket(AF_INET, false));
  ASSERT_TRUE(client);
  ASSERT_EQ(connect(client.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_TRUE(testing::wait_readable(listener.get(), 5000));
  peer_length = sizeof peer;
  UniqueFd accepted(
      accept_nonblocking(listener.get(), reinterpret_cast<sockaddr*>(&peer), &peer_length));
  ASSERT_TRUE(accepted);
  EXPECT_FALSE(testing::inherited_by_children(accepted.get()));
  // Non-blocking (Windows cannot say so when asked: a read of nothing tells).
  char byte;
  EXPECT_EQ(sys::receive(accepted.get(), &byte, 1), -1);
  EXPECT_TRUE(sys::is_transient(sys::last_error()));
}

}  // namespace
}  // namespace callwire::net
