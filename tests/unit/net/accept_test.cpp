// The calls that moved into src/net from the server and client: taking connections from a
// listener (and what running out of descriptors looks like), telling a socket's peer,
// blocking modes and timeouts, ending a connection, IP literals, and the blocking I/O of a
// CGI program.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "net/address.hpp"
#include "net/file_io.hpp"
#include "net/socket.hpp"

namespace callwire::net {
namespace {

using std::chrono::steady_clock;

UniqueFd loopback_listener() {
  Result<Endpoint> endpoint = parse_endpoint("127.0.0.1:0");
  EXPECT_TRUE(endpoint);
  Result<UniqueFd> fd = listen_on(*endpoint);
  EXPECT_TRUE(fd) << (fd ? "" : fd.error().message);
  return fd ? std::move(*fd) : UniqueFd();
}

UniqueFd connect_to(int listener) {
  Result<Endpoint> endpoint = parse_endpoint("127.0.0.1:" + std::to_string(local_port(listener)));
  Result<std::vector<SocketAddress>> addresses = resolve(*endpoint);
  EXPECT_TRUE(addresses);
  Result<UniqueFd> fd = start_connect(addresses->front(), "the listener");
  EXPECT_TRUE(fd);
  EXPECT_TRUE(wait_fd(fd->get(), true, steady_clock::now() + std::chrono::seconds(5)));
  EXPECT_EQ(finish_connect(fd->get()), 0);
  return std::move(*fd);
}

Accepted accept_within_5s(int listener) {
  EXPECT_TRUE(wait_fd(listener, false, steady_clock::now() + std::chrono::seconds(5)));
  return accept_connection(listener);
}

TEST(AcceptConnection, TakesAWaitingConnectionWithItsPeer) {
  UniqueFd listener = loopback_listener();
  EXPECT_EQ(accept_connection(listener.get()).outcome, Accepted::Outcome::None);  // none yet
  UniqueFd client = connect_to(listener.get());
  Accepted a = accept_within_5s(listener.get());
  ASSERT_EQ(a.outcome, Accepted::Outcome::Connection);
  ASSERT_TRUE(a.fd);
  EXPECT_TRUE(a.peer.starts_with("127.0.0.1:")) << a.peer;
  EXPECT_TRUE(fcntl(a.fd.get(), F_GETFL) & O_NONBLOCK);
  EXPECT_TRUE(fcntl(a.fd.get(), F_GETFD) & FD_CLOEXEC);
  PeerOf peer = peer_of(a.fd.get());
  EXPECT_EQ(peer.text, a.peer);
  EXPECT_TRUE(peer.tcp);
}

// Out of descriptors, accept says so (the server pauses accepting) rather than "nothing".
// In a child process: the limit it lowers is the process's.
TEST(AcceptConnection, SaysWhenOutOfDescriptors) {
  UniqueFd listener = loopback_listener();
  UniqueFd client = connect_to(listener.get());
  ASSERT_TRUE(wait_fd(listener.get(), false, steady_clock::now() + std::chrono::seconds(5)));
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int highest = ::dup(0);  // every number below it is taken or free; none above
    ::close(highest);
    rlimit r{};
    getrlimit(RLIMIT_NOFILE, &r);
    // Fill every free number below the limit, so accept has none left.
    r.rlim_cur = rlim_t(highest) + 1;
    setrlimit(RLIMIT_NOFILE, &r);
    while (::dup(0) >= 0) {
    }
    Accepted a = accept_connection(listener.get());
    _exit(a.outcome == Accepted::Outcome::OutOfDescriptors ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The connection is still there for the parent, which has descriptors.
  EXPECT_EQ(accept_connection(listener.get()).outcome, Accepted::Outcome::Connection);
}

TEST(PeerOf, UnixAndUnknown) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  UniqueFd a(fds[0]), b(fds[1]);
  EXPECT_EQ(peer_of(a.get()).text, "unix");
  EXPECT_FALSE(peer_of(a.get()).tcp);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  UniqueFd r(pipe_fds[0]), w(pipe_fds[1]);
  EXPECT_EQ(peer_of(r.get()).text, "unknown");  // not a socket
  EXPECT_FALSE(ready_adopted_socket(r.get()));
  Result<bool> tcp = ready_adopted_socket(a.get());
  ASSERT_TRUE(tcp);
  EXPECT_FALSE(*tcp);
}

TEST(SocketModes, BlockingTimeoutAndShutdown) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
  UniqueFd a(fds[0]), b(fds[1]);
  set_blocking(a.get(), true);
  EXPECT_FALSE(fcntl(a.get(), F_GETFL) & O_NONBLOCK);
  // A blocking read with a timeout gives up: 20 ms, not forever.
  set_io_timeout(a.get(), std::chrono::milliseconds(20));
  timeval tv{};
  socklen_t length = sizeof tv;
  ASSERT_EQ(getsockopt(a.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, &length), 0);
  EXPECT_GE(tv.tv_sec * 1000000 + tv.tv_usec, 20000);  // rounded up to the kernel's tick
  EXPECT_LE(tv.tv_sec * 1000000 + tv.tv_usec, 30000);
  char byte;
  EXPECT_LT(::recv(a.get(), &byte, 1, 0), 0);
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
  // At least a millisecond (the kernel rounds it up to its tick), never 0, which is forever.
  set_io_timeout(a.get(), std::chrono::microseconds(0));
  ASSERT_EQ(getsockopt(a.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, &length), 0);
  EXPECT_GE(tv.tv_sec * 1000000 + tv.tv_usec, 1000);
  EXPECT_LE(tv.tv_sec * 1000000 + tv.tv_usec, 20000);
  set_blocking(a.get(), false);
  EXPECT_TRUE(fcntl(a.get(), F_GETFL) & O_NONBLOCK);
  // Shut down: the peer reads the end, and the descriptor is still open here.
  shutdown_both(a.get());
  EXPECT_EQ(::recv(b.get(), &byte, 1, 0), 0);
  EXPECT_GE(fcntl(a.get(), F_GETFD), 0);
}

TEST(IpLiteral, FourOrSixteenBytesOrNone) {
  unsigned char bytes[16];
  EXPECT_EQ(parse_ip_literal("127.0.0.1", bytes), 4u);
  EXPECT_EQ(bytes[0], 127);
  EXPECT_EQ(bytes[3], 1);
  EXPECT_EQ(parse_ip_literal("::1", bytes), 16u);
  EXPECT_EQ(bytes[15], 1);
  EXPECT_EQ(parse_ip_literal("[::1]", bytes), 0u);  // no brackets
  EXPECT_EQ(parse_ip_literal("example.org", bytes), 0u);
  EXPECT_EQ(parse_ip_literal("", bytes), 0u);
  EXPECT_EQ(parse_ip_literal(std::string(100, '1'), bytes), 0u);
  EXPECT_EQ(parse_ip_literal(std::string_view("10.0.0.1\0x", 10), bytes), 0u);
}

TEST(FileIo, WritesAllAndReadsExactly) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  UniqueFd r(fds[0]), w(fds[1]);
  EXPECT_TRUE(write_all(w.get(), "hello, world"));
  char got[5];
  ASSERT_TRUE(read_exact(r.get(), got, 5));
  EXPECT_EQ(std::string(got, 5), "hello");
  char rest[16];
  w.reset();  // the input ends before 16 more bytes
  EXPECT_FALSE(read_exact(r.get(), rest, 16));
  EXPECT_FALSE(write_all(-1, "x"));
}

TEST(FileIo, RemovesAFile) {
  std::string path = "/tmp/callwire_net_test_" + std::to_string(getpid());
  UniqueFd f(::open(path.c_str(), O_CREAT | O_WRONLY, 0600));
  ASSERT_TRUE(f);
  remove_file(path);
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
}

}  // namespace
}  // namespace callwire::net
