/* host_loop_poll: callwire inside a host's own event loop, with no thread of the library's, in
 * C: one plain poll() loop serves sample.add (a host-loop server) and calls it N times
 * asynchronously (a host-loop client), the way a single-threaded host (Kamailio, OpenSIPS, a
 * GUI program) would. docs/event-loop.md explains the mode.
 *
 *   host_loop_poll [N]       (N defaults to 100)
 *
 * Prints "N calls, all correct" and exits 0, or says what went wrong and exits 1. The
 * completion callbacks run inside cw_client_process, on this thread: no mutex is needed. */
#define _POSIX_C_SOURCE 200809L
#include <callwire.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

static cw_status sample_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

struct progress {
  long pending, wrong;
};

static void on_done(cw_status status, const cw_value* result, const cw_error* error,
                    void* user_data) {
  struct progress* p = (struct progress*)user_data;
  int32_t sum = 0;
  if (status != CW_OK || cw_value_get_int(result, &sum) != CW_OK || sum % 2 != 0) {
    fprintf(stderr, "sample.add: %s: %s\n", cw_status_name(status), error->message);
    ++p->wrong;
  }
  --p->pending;
}

/* The shorter of two loop timeouts, -1 meaning none. */
static int shorter(int a, int b) { return a < 0 ? b : b < 0 ? a : a < b ? a : b; }

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 100, i;
  cw_server_options so;
  cw_client_options co;
  cw_server* server = NULL;
  cw_client* client = NULL;
  struct progress progress = {0, 0};
  cw_error err;

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  so.host_loop = 1; /* no thread: this loop drives it */
  if (cw_server_new(&so, &server, &err) != CW_OK ||
      cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", NULL, &err) != CW_OK ||
      cw_server_start(server, &err) != CW_OK) {
    fprintf(stderr, "server: %s\n", err.message);
    cw_server_free(server);
    return 1;
  }
  cw_client_options_init(&co);
  co.host_loop = 1;
  co.max_connections = 4;
  if (cw_client_new(cw_server_url(server), &co, &client, &err) != CW_OK) {
    fprintf(stderr, "client: %s\n", err.message);
    cw_server_free(server);
    return 1;
  }

  /* Only asynchronous calls on this thread: a synchronous call to this server would wait for
   * an answer that only this very loop can produce. */
  for (i = 0; i < n; ++i) {
    cw_value* params[2] = {NULL, NULL};
    cw_value_new_int((int32_t)i, &params[0]);
    cw_value_new_int((int32_t)i, &params[1]);
    if (cw_client_call_async(client, "sample.add", (const cw_value* const*)params, 2, NULL, on_done,
                             &progress, &err) == CW_OK)
      ++progress.pending;
    else
      ++progress.wrong;
    cw_value_free(params[0]); /* the call took copies */
    cw_value_free(params[1]);
  }

  /* The host's loop: two descriptors to read, the shorter timeout, then process both. */
  while (progress.pending > 0) {
    struct pollfd fds[2] = {{0, POLLIN, 0}, {0, POLLIN, 0}};
    fds[0].fd = cw_server_loop_fd(server);
    fds[1].fd = cw_client_loop_fd(client);
    poll(fds, 2, shorter(cw_server_loop_timeout_ms(server), cw_client_loop_timeout_ms(client)));
    cw_server_process(server);
    cw_client_process(client);
  }

  /* Stopping: the client first (nothing in flight now), then the server, driven to its end. */
  cw_client_free(client);
  cw_server_stop(server);
  while (cw_server_process(server)) {
    struct pollfd fd = {0, POLLIN, 0};
    fd.fd = cw_server_loop_fd(server);
    poll(&fd, 1, cw_server_loop_timeout_ms(server));
  }
  cw_server_free(server);
  if (progress.wrong) {
    fprintf(stderr, "%ld of %ld calls failed\n", progress.wrong, n);
    return 1;
  }
  printf("%ld calls, all correct\n", n);
  return 0;
}
