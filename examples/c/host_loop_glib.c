/* host_loop_glib: callwire inside a GLib (GTK, GIO) program, with no thread of the library's:
 * a host-loop server serving sample.add and a host-loop client calling it N times, both driven
 * by the default GMainContext. Each object's descriptor is a g_unix_fd_add source calling its
 * process function; one g_timeout_add, re-armed after every callback from the loop timeouts,
 * sweeps deadlines. docs/event-loop.md explains the mode.
 *
 *   host_loop_glib [N]     (N defaults to 100)
 *
 * Prints "N calls, all correct" and exits 0, or says what went wrong and exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <callwire.h>
#include <glib-unix.h>
#include <glib.h>
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
  GMainLoop* loop;
  guint timer; /* 0: none */
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
  if (--app->pending == 0) g_main_loop_quit(app->loop);
}

static gboolean on_timer(gpointer data);

/* After any callback: the timer set to the shorter of the two loop timeouts (none: off). */
static void rearm(struct app* app) {
  int s = cw_server_loop_timeout_ms(app->server), c = cw_client_loop_timeout_ms(app->client);
  int ms = s < 0 ? c : c < 0 ? s : s < c ? s : c;
  if (app->timer) g_source_remove(app->timer);
  app->timer = ms >= 0 ? g_timeout_add((guint)ms, on_timer, app) : 0;
}

static gboolean on_timer(gpointer data) {
  struct app* app = (struct app*)data;
  app->timer = 0; /* this source ends (G_SOURCE_REMOVE) */
  cw_server_process(app->server);
  cw_client_process(app->client);
  rearm(app);
  return G_SOURCE_REMOVE;
}

static gboolean on_server_fd(gint fd, GIOCondition condition, gpointer data) {
  (void)fd;
  (void)condition;
  cw_server_process(((struct app*)data)->server);
  rearm((struct app*)data);
  return G_SOURCE_CONTINUE;
}

static gboolean on_client_fd(gint fd, GIOCondition condition, gpointer data) {
  (void)fd;
  (void)condition;
  cw_client_process(((struct app*)data)->client);
  rearm((struct app*)data);
  return G_SOURCE_CONTINUE;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 100, i;
  struct app app = {NULL, 0, NULL, NULL, 0, 0};
  guint server_source, client_source;
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

  app.loop = g_main_loop_new(NULL, FALSE);
  server_source = g_unix_fd_add(cw_server_loop_fd(app.server), G_IO_IN, on_server_fd, &app);
  client_source = g_unix_fd_add(cw_client_loop_fd(app.client), G_IO_IN, on_client_fd, &app);

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
  if (app.pending > 0) g_main_loop_run(app.loop);

  /* The sources go before the objects whose descriptors they watch. */
  g_source_remove(client_source);
  g_source_remove(server_source);
  if (app.timer) g_source_remove(app.timer);
  cw_client_free(app.client);
  cw_server_stop(app.server);
  cw_server_wait(app.server); /* drives the stopped server to its end */
  cw_server_free(app.server);
  g_main_loop_unref(app.loop);
  if (app.wrong) {
    fprintf(stderr, "%ld of %ld calls failed\n", app.wrong, n);
    return 1;
  }
  printf("%ld calls, all correct\n", n);
  return 0;
}
