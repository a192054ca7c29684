/* What the host-loop tests share (tests/capi/host_loop_*_test.c): a host-loop server and two
 * host-loop clients (one calling the server, one calling a silent peer that never answers), a
 * scenario of asynchronous calls run by whatever loop the test drives (poll(), libevent,
 * GLib), and a count of the process's threads to prove the library started none.
 *
 * The scenario: kAddCalls calls of sample.add (each answer checked), one call of a method that
 * faults, one call to the silent peer that must end by its deadline (CW_TIMEOUT), and one that
 * is cancelled with cw_cancel_request from inside a completion callback (CW_CANCELLED). All
 * callbacks run inside cw_client_process, on the loop's thread. */
#ifndef CALLWIRE_TESTS_CAPI_HOST_LOOP_COMMON_H
#define CALLWIRE_TESTS_CAPI_HOST_LOOP_COMMON_H

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "callwire.h"
#include "test_runner.h"

enum { kAddCalls = 200, kScenarioCalls = kAddCalls + 3 };

/* The entries of /proc/self/task: the process's threads. */
static int count_threads(void) {
  int n = 0;
  struct dirent* e;
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

static cw_status hl_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

static cw_status hl_fault(cw_call* call, void* user_data) {
  (void)user_data;
  return cw_call_fault(call, 42, "a fault on purpose");
}

/* A host-loop server on 127.0.0.1, port 0, started. */
static cw_server* hl_server_new(void) {
  cw_server_options o;
  cw_server* server = NULL;
  cw_error err;
  cw_server_options_init(&o);
  o.listen = "127.0.0.1:0";
  o.host_loop = 1;
  CHECK_STATUS(cw_server_new(&o, &server, &err), CW_OK);
  if (!server) return NULL;
  CHECK_STATUS(cw_server_add_method(server, "sample.add", hl_add, NULL, "i:ii", NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "fault", hl_fault, NULL, NULL, NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_OK);
  if (err.status != CW_OK) fprintf(stderr, "cw_server_start: %s\n", err.message);
  return server;
}

static cw_client* hl_client_new(const char* url) {
  cw_client_options o;
  cw_client* client = NULL;
  cw_error err;
  cw_client_options_init(&o);
  o.host_loop = 1;
  o.max_connections = 4;
  CHECK_STATUS(cw_client_new(url, &o, &client, &err), CW_OK);
  return client;
}

/* A peer that accepts connections (the kernel's backlog does) and never answers. */
static int silent_peer(char* url, size_t size) {
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, (struct sockaddr*)&a, &len) != 0) {
    CHECK(!"silent peer");
    return -1;
  }
  snprintf(url, size, "http://127.0.0.1:%u/RPC2", (unsigned)ntohs(a.sin_port));
  return fd;
}

struct scenario {
  cw_server* server;
  cw_client* client; /* calls the server */
  cw_client* silent; /* calls the silent peer */
  int silent_fd;
  cw_cancel* cancel;
  int done, ok, sum, want_sum, faults, timeouts, cancelled, other;
};

static void on_add(cw_status status, const cw_value* result, const cw_error* error, void* data) {
  struct scenario* s = (struct scenario*)data;
  int32_t n = 0;
  ++s->done;
  if (status == CW_OK && cw_value_get_int(result, &n) == CW_OK) {
    ++s->ok;
    s->sum += n;
  } else {
    fprintf(stderr, "sample.add: %s: %s\n", cw_status_name(status), error->message);
    ++s->other;
  }
  /* Cancelled from inside the loop, half way through. */
  if (s->ok == kAddCalls / 2) cw_cancel_request(s->cancel);
}

static void on_other(cw_status status, const cw_value* result, const cw_error* error, void* data) {
  struct scenario* s = (struct scenario*)data;
  (void)result;
  ++s->done;
  if (status == CW_FAULT && error->fault_code == 42)
    ++s->faults;
  else if (status == CW_TIMEOUT)
    ++s->timeouts;
  else if (status == CW_CANCELLED)
    ++s->cancelled;
  else
    ++s->other;
}

/* What an idle server's loop says: -1 (sleep on the descriptor alone) where that descriptor
 * shows every socket (epoll); at most 5 ms where none can (poll: docs/porting.md), so the
 * host calls in to see new connections. */
static int idle_server_timeout_ok(int timeout_ms) {
#if CALLWIRE_LOOP_FD_SHOWS_ALL
  return timeout_ms == -1;
#else
  return timeout_ms >= 0 && timeout_ms <= 5;
#endif
}

/* Makes the server and clients and starts every call; the loop then runs until
 * scenario_finished(). */
static int scenario_start(struct scenario* s) {
  char url[64];
  cw_call_options timeout_options, cancel_options;
  cw_error err;
  int i;
  memset(s, 0, sizeof *s);
  s->silent_fd = silent_peer(url, sizeof url);
  s->server = hl_server_new();
  if (!s->server || s->silent_fd < 0) return 0;
  s->client = hl_client_new(cw_server_url(s->server));
  s->silent = hl_client_new(url);
  if (!s->client || !s->silent || cw_cancel_new(&s->cancel) != CW_OK) return 0;
  CHECK(cw_server_loop_fd(s->server) >= 0);
  CHECK(idle_server_timeout_ok(cw_server_loop_timeout_ms(s->server))); /* no connection */
  CHECK(cw_client_loop_fd(s->client) >= 0);
  CHECK(cw_client_loop_timeout_ms(s->client) == -1); /* nothing pending yet */
  for (i = 0; i < kAddCalls; ++i) {
    const cw_arg args[] = {cw_arg_int(i), cw_arg_int(1)};
    cw_value* p[2];
    s->want_sum += i + 1;
    cw_value_build(&args[0], &p[0], NULL);
    cw_value_build(&args[1], &p[1], NULL);
    CHECK_STATUS(cw_client_call_async(s->client, "sample.add", (const cw_value* const*)p, 2, NULL,
                                      on_add, s, &err),
                 CW_OK);
    cw_value_free(p[0]);
    cw_value_free(p[1]);
  }
  CHECK(cw_client_loop_timeout_ms(s->client) == 0); /* calls to start */
  CHECK_STATUS(cw_client_call_async(s->client, "fault", NULL, 0, NULL, on_other, s, &err), CW_OK);
  memset(&timeout_options, 0, sizeof timeout_options);
  timeout_options.struct_size = sizeof timeout_options;
  timeout_options.timeout_ms = 300;
  CHECK_STATUS(
      cw_client_call_async(s->silent, "never", NULL, 0, &timeout_options, on_other, s, &err),
      CW_OK);
  memset(&cancel_options, 0, sizeof cancel_options);
  cancel_options.struct_size = sizeof cancel_options;
  cancel_options.timeout_ms = 60000;
  cancel_options.cancel = s->cancel;
  CHECK_STATUS(
      cw_client_call_async(s->silent, "never", NULL, 0, &cancel_options, on_other, s, &err), CW_OK);
  return 1;
}

static int scenario_finished(const struct scenario* s) { return s->done >= kScenarioCalls; }

static void scenario_check(const struct scenario* s) {
  CHECK(s->done == kScenarioCalls);
  CHECK(s->ok == kAddCalls && s->sum == s->want_sum);
  CHECK(s->faults == 1);
  CHECK(s->timeouts == 1);
  CHECK(s->cancelled == 1);
  CHECK(s->other == 0);
  if (s->done != kScenarioCalls || s->other)
    fprintf(stderr, "done %d ok %d faults %d timeouts %d cancelled %d other %d\n", s->done, s->ok,
            s->faults, s->timeouts, s->cancelled, s->other);
}

/* Runs every pending piece of work of the three objects (what a loop does on any wake-up). */
static void scenario_process(struct scenario* s) {
  cw_server_process(s->server);
  CHECK_STATUS(cw_client_process(s->client), CW_OK);
  CHECK_STATUS(cw_client_process(s->silent), CW_OK);
}

/* The shortest of the three timeouts; -1 when none. */
static int scenario_timeout(struct scenario* s) {
  int t[3], i, best = -1;
  t[0] = cw_server_loop_timeout_ms(s->server);
  t[1] = cw_client_loop_timeout_ms(s->client);
  t[2] = cw_client_loop_timeout_ms(s->silent);
  for (i = 0; i < 3; ++i)
    if (t[i] >= 0 && (best < 0 || t[i] < best)) best = t[i];
  return best;
}

/* The clients freed, then the server stopped and driven to its end, as a host does. */
static void scenario_end(struct scenario* s) {
  cw_client_free(s->client);
  cw_client_free(s->silent);
  cw_cancel_free(s->cancel);
  if (s->server) {
    int turns = 0;
    cw_server_stop(s->server);
    while (cw_server_process(s->server) && ++turns < 100000) {
      struct pollfd p;
      p.fd = cw_server_loop_fd(s->server);
      p.events = POLLIN;
      p.revents = 0;
      poll(&p, 1, cw_server_loop_timeout_ms(s->server));
    }
    CHECK(cw_server_process(s->server) == 0);
    CHECK(cw_server_loop_timeout_ms(s->server) == -1);
    cw_server_free(s->server);
  }
  if (s->silent_fd >= 0) close(s->silent_fd);
}

#endif
