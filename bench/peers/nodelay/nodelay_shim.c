/* LD_PRELOAD shim for experiment 3 (bench/startup.py): forces TCP_NODELAY on or off on every
   TCP socket a program connects or accepts, whatever the program itself asks for, so that the
   same unmodified client or server runs with Nagle's algorithm on or off.

   PEERS_NODELAY=1 or 0: the value forced after connect(), accept() and accept4(); a program's
   own setsockopt(IPPROTO_TCP, TCP_NODELAY) then succeeds without effect. Unset: the shim
   changes nothing (the program's own choice stands) and only logs.
   PEERS_NODELAY_LOG=FILE: one line appended per TCP socket connected or accepted,
   "PID FD CALL nodelay=V" with V read back by getsockopt (after forcing it, if forced), and
   one per setsockopt(TCP_NODELAY) of the program, "PID FD setsockopt nodelay=V ignored|set",
   so that the runner can check that the shim took hold and see what the program asks for. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int forced(void) {
  const char* v = getenv("PEERS_NODELAY");
  return v && (v[0] == '0' || v[0] == '1') ? v[0] - '0' : -1;
}

static int real_setsockopt(int fd, int level, int name, const void* value, socklen_t length) {
  static int (*next)(int, int, int, const void*, socklen_t);
  if (!next) next = (int (*)(int, int, int, const void*, socklen_t))dlsym(RTLD_NEXT, "setsockopt");
  return next(fd, level, name, value, length);
}

static int is_tcp(int fd) {
  int type = 0;
  struct sockaddr_storage address;
  socklen_t type_length = sizeof type, length = sizeof address;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_length) != 0 || type != SOCK_STREAM)
    return 0;
  if (getsockname(fd, (struct sockaddr*)&address, &length) != 0) return 0;
  return address.ss_family == AF_INET || address.ss_family == AF_INET6;
}

static void log_line(int fd, const char* call, int value, const char* note) {
  const char* path = getenv("PEERS_NODELAY_LOG");
  if (!path) return;
  char line[128];
  int n = snprintf(line, sizeof line, "%d %d %s nodelay=%d%s\n", (int)getpid(), fd, call,
                   value != 0, note);
  int log = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (log < 0) return;
  if (write(log, line, (size_t)n) != n) { /* a lost line fails the runner's check */
  }
  close(log);
}

/* Forces the option on a new connection, if asked, and logs what getsockopt reads back.
   errno is kept: the caller of connect() may be looking at EINPROGRESS. */
static void force(int fd, const char* call) {
  int value = forced(), saved = errno, got = -1;
  socklen_t length = sizeof got;
  if (fd < 0 || !is_tcp(fd)) return;
  if (value >= 0) real_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, sizeof value);
  getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &got, &length);
  log_line(fd, call, got, "");
  errno = saved;
}

int setsockopt(int fd, int level, int name, const void* value, socklen_t length) {
  if (level == IPPROTO_TCP && name == TCP_NODELAY && value && length >= sizeof(int)) {
    int ignored = forced() >= 0, saved = errno;
    log_line(fd, "setsockopt", *(const int*)value, ignored ? " ignored" : " set");
    errno = saved;
    if (ignored) return 0;
  }
  return real_setsockopt(fd, level, name, value, length);
}

int connect(int fd, const struct sockaddr* address, socklen_t length) {
  static int (*next)(int, const struct sockaddr*, socklen_t);
  if (!next) next = (int (*)(int, const struct sockaddr*, socklen_t))dlsym(RTLD_NEXT, "connect");
  int r = next(fd, address, length);
  if (r == 0 || errno == EINPROGRESS) force(fd, "connect");
  return r;
}

int accept(int fd, struct sockaddr* address, socklen_t* length) {
  static int (*next)(int, struct sockaddr*, socklen_t*);
  if (!next) next = (int (*)(int, struct sockaddr*, socklen_t*))dlsym(RTLD_NEXT, "accept");
  int r = next(fd, address, length);
  force(r, "accept");
  return r;
}

int accept4(int fd, struct sockaddr* address, socklen_t* length, int flags) {
  static int (*next)(int, struct sockaddr*, socklen_t*, int);
  if (!next) next = (int (*)(int, struct sockaddr*, socklen_t*, int))dlsym(RTLD_NEXT, "accept4");
  int r = next(fd, address, length, flags);
  force(r, "accept4");
  return r;
}
