/* host_loop_libevent: callwire inside a libevent program, with no thread of the library's:
 * a host-loop server serving sample.add and a host-loop client calling it N times, both driven
 * by one event_base. Each object's descriptor gets a persistent read event that calls its
 * process function; one timer, re-armed after every callback from the loop timeouts, sweeps
 * deadlines. docs/event-loop.md explains the mode.
 *
 *   host_loop_libevent [N]     (N defaults to 100)
 *
 * Prints "N calls, all correct" and exits 0, or says what went wrong and exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <callwire.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>

static cw_status sample_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

struct app {
  struct event_base* base;
  struct event* timer;
  cw_server* server;
  cw_client* client;
  long pending, wrong;
};

static void on_done(cw_status status, const cw_value* result, const cw_error* error,
                    void* user_data) {
  struct app* app = (struct app*)user_data;
  int32_t sum = 0;
  if (status != CW_OK || cw_value_get_int(result, &sum) != CW_OK || sum % 2 != 0) {
    fprintf(stderr, "sample.add: %s: %s\n", cw_status_name(status), error->message);
    ++app->wrong;
  }
  if (--app->pending == 0) event_base_loopbreak(app->base);
}

/* After any callback: the timer set to the shorter of the two loop timeouts (none: off). */
static void rearm(struct app* app) {
  int s = cw_server_loop_timeout_ms(app->server), c = cw_client_loop_timeout_ms(app->client);
  int ms = s < 0 ? c : c < 0 ? s : s < c ? s : c;
  evtimer_del(app->timer);
  if (ms >= 0) {
    struct timeval tv;
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    evtimer_add(app->timer, &tv);
  }
}

static void on_server_fd(evutil_socket_t fd, short what, void* arg) {
  (void)fd;
  (void)what;
  cw_server_process(((struct app*)arg)->server);
  rearm((struct app*)arg);
}

static void on_client_fd(evutil_socket_t fd, short what, void* arg) {
  (void)fd;
  (void)what;
  cw_client_process(((struct app*)arg)->client);
  rearm((struct app*)arg);
}

static void on_timer(evutil_socket_t fd, short what, void* arg) {
  struct app* app = (struct app*)arg;
  (void)fd;
  (void)what;
  cw_server_process(app->server);
  cw_client_process(app->client);
  rearm(app);
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 100, i;
  struct app app = {NULL, NULL, NULL, NULL, 0, 0};
  struct event *server_ev, *client_ev;
  cw_server_options so;
  cw_client_options co;
  cw_error err;

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  so.host_loop = 1;
  if (cw_server_new(&so, &app.server, &err) != CW_OK ||
      cw_server_add_method(app.server, "sample.add", sample_add, NULL, "i:ii", NULL, &err) !=
          CW_OK ||
      cw_server_start(app.server, &err) != CW_OK) {
    fprintf(stderr, "server: %s\n", err.message);
    cw_server_free(app.server);
    return 1;
  }
  cw_client_options_init(&co);
  co.host_loop = 1;
  co.max_connections = 4;
  if (cw_client_new(cw_server_url(app.server), &co, &app.client, &err) != CW_OK) {
    fprintf(stderr, "client: %s\n", err.message);
    cw_server_free(app.server);
    return 1;
  }

  app.base = event_base_new();
  app.timer = evtimer_new(app.base, on_timer, &app);
  server_ev =
      event_new(app.base, cw_server_loop_fd(app.server), EV_READ | EV_PERSIST, on_server_fd, &app);
  client_ev =
      event_new(app.base, cw_client_loop_fd(app.client), EV_READ | EV_PERSIST, on_client_fd, &app);
  event_add(server_ev, NULL);
  event_add(client_ev, NULL);

  for (i = 0; i < n; ++i) {
    cw_value* params[2] = {NULL, NULL};
    cw_value_new_int((int32_t)i, &params[0]);
    cw_value_new_int((int32_t)i, &params[1]);
    if (cw_client_call_async(app.client, "sample.add", (const cw_value* const*)params, 2, NULL,
                             on_done, &app, &err) == CW_OK)
      ++app.pending;
    else
      ++app.wrong;
    cw_value_free(params[0]);
    cw_value_free(params[1]);
  }
  rearm(&app);
  if (app.pending > 0) event_base_dispatch(app.base);

  /* The events go before the objects whose descriptors they watch. */
  event_free(client_ev);
  event_free(app.timer);
  cw_client_free(app.client);
  cw_server_stop(app.server);
  cw_server_wait(app.server); /* drives the stopped server to its end (it is no longer watched) */
  event_free(server_ev);
  event_base_free(app.base);
  cw_server_free(app.server);
  if (app.wrong) {
    fprintf(stderr, "%ld of %ld calls failed\n", app.wrong, n);
    return 1;
  }
  printf("%ld calls, all correct\n", n);
  return 0;
}
