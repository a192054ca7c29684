// The socket calls the server and client share (src/net/socket.hpp), on socketpairs: the
// lingering close's drain, what an idle connection holds, sending without waiting, and
// Stream::close_sending.
#include "net/socket.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "net/stream.hpp"

namespace callwire::net {
namespace {

struct Pair {
  Pair() {
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  }
  ~Pair() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
  void close_peer() {
    ::close(fds[1]);
    fds[1] = -1;
  }
  int fds[2] = {-1, -1};
};

TEST(DrainInput, DropsWhatComesUntilThePeerCloses) {
  Pair p;
  size_t discarded = 0;
  EXPECT_EQ(drain_input(p.fds[0], 1 << 20, discarded), Drain::Pending);  // nothing yet
  EXPECT_EQ(discarded, 0u);
  ASSERT_EQ(::write(p.fds[1], "abcdef", 6), 6);
  EXPECT_EQ(drain_input(p.fds[0], 1 << 20, discarded), Drain::Pending);
  EXPECT_EQ(discarded, 6u);
  ASSERT_EQ(::write(p.fds[1], "gh", 2), 2);
  p.close_peer();
  EXPECT_EQ(drain_input(p.fds[0], 1 << 20, discarded), Drain::Done);
  EXPECT_EQ(discarded, 8u);  // counted across calls
}

TEST(DrainInput, StopsPastItsLimit) {
  Pair p;
  std::string lots(40000, 'x');
  ASSERT_EQ(::write(p.fds[1], lots.data(), lots.size()), ssize_t(lots.size()));
  size_t discarded = 0;
  EXPECT_EQ(drain_input(p.fds[0], 1000, discarded), Drain::Done);  // the peer is still there
  EXPECT_GT(discarded, 1000u);
}

TEST(IdleConnections, PeekSendAndCloseSending) {
  Pair p;
  EXPECT_EQ(peek_idle(p.fds[0]), IdleState::Quiet);
  EXPECT_TRUE(send_now(p.fds[1], "x"));
  EXPECT_EQ(peek_idle(p.fds[0]), IdleState::Data);
  EXPECT_EQ(peek_idle(p.fds[0]), IdleState::Data);  // peeked, not read

  // close_sending ends one direction: the peer reads EOF, and can still send.
  Stream stream{UniqueFd(::dup(p.fds[0]))};
  stream.close_sending();
  char c = 0;
  EXPECT_EQ(::read(p.fds[1], &c, 1), 0);
  EXPECT_TRUE(send_now(p.fds[1], "y"));
  p.close_peer();
  size_t discarded = 0;
  EXPECT_EQ(drain_input(p.fds[0], 1 << 20, discarded), Drain::Done);
  EXPECT_EQ(discarded, 2u);
  EXPECT_EQ(peek_idle(p.fds[0]), IdleState::Closed);
}

}  // namespace
}  // namespace callwire::net
