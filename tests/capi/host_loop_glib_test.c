/* The host-loop mode driven by GLib's main loop: g_unix_fd_add(fd, G_IO_IN) per object and a
 * g_timeout_add re-armed from the shortest loop timeout after every callback; only the object
 * whose descriptor fired is processed (and all of them on the timer). The GLib main context
 * of the calling thread; no thread started by the library. */
#define _POSIX_C_SOURCE 200809L
#include <glib-unix.h>
#include <glib.h>

#include "host_loop_common.h"

struct driver {
  struct scenario s;
  GMainLoop* loop;
  guint timer;
};

static gboolean on_timer(gpointer data);

static void rearm(struct driver* d) {
  int ms;
  if (d->timer) g_source_remove(d->timer);
  d->timer = 0;
  if (scenario_finished(&d->s)) {
    g_main_loop_quit(d->loop);
    return;
  }
  ms = scenario_timeout(&d->s);
  if (ms >= 0) d->timer = g_timeout_add((guint)ms, on_timer, d);
}

static gboolean on_timer(gpointer data) {
  struct driver* d = (struct driver*)data;
  d->timer = 0; /* this source ends: returning G_SOURCE_REMOVE */
  scenario_process(&d->s);
  rearm(d);
  return G_SOURCE_REMOVE;
}

static gboolean on_server(gint fd, GIOCondition condition, gpointer data) {
  struct driver* d = (struct driver*)data;
  (void)fd;
  (void)condition;
  cw_server_process(d->s.server);
  rearm(d);
  return G_SOURCE_CONTINUE;
}

static gboolean on_client(gint fd, GIOCondition condition, gpointer data) {
  struct driver* d = (struct driver*)data;
  (void)condition;
  CHECK_STATUS(cw_client_process(fd == cw_client_loop_fd(d->s.client) ? d->s.client : d->s.silent),
               CW_OK);
  rearm(d);
  return G_SOURCE_CONTINUE;
}

static void test_glib_loop_serves_and_calls_in_one_thread(void) {
  struct driver d;
  guint sources[3];
  int i, threads;
  /* GLib may start its own worker threads (not ours): count after it is set up. */
  d.loop = g_main_loop_new(NULL, FALSE);
  d.timer = 0;
  threads = count_threads();
  if (!scenario_start(&d.s)) {
    scenario_end(&d.s);
    g_main_loop_unref(d.loop);
    return;
  }
  sources[0] = g_unix_fd_add(cw_server_loop_fd(d.s.server), G_IO_IN, on_server, &d);
  sources[1] = g_unix_fd_add(cw_client_loop_fd(d.s.client), G_IO_IN, on_client, &d);
  sources[2] = g_unix_fd_add(cw_client_loop_fd(d.s.silent), G_IO_IN, on_client, &d);
  rearm(&d);
  g_main_loop_run(d.loop);
  scenario_check(&d.s);
  CHECK(count_threads() == threads);
  for (i = 0; i < 3; ++i) g_source_remove(sources[i]);
  if (d.timer) g_source_remove(d.timer);
  g_main_loop_unref(d.loop);
  scenario_end(&d.s);
}

int main(int argc, char** argv) {
  static const struct test_case tests[] = {
      TEST(test_glib_loop_serves_and_calls_in_one_thread),
  };
  return run_tests(tests, COUNT(tests), argc, argv);
}
