/* The host-loop mode driven by libevent: one event_new(fd, EV_READ|EV_PERSIST) per object and
 * one timer re-armed from the shortest loop timeout after every callback; only the object
 * whose descriptor fired is processed (and all of them on the timer). One thread, no thread
 * started by the library. */
#define _POSIX_C_SOURCE 200809L
#include <event2/event.h>

#include "host_loop_common.h"

struct driver {
  struct scenario s;
  struct event_base* base;
  struct event* timer;
};

static void rearm(struct driver* d) {
  int ms = scenario_timeout(&d->s);
  if (scenario_finished(&d->s)) {
    event_base_loopbreak(d->base);
    return;
  }
  evtimer_del(d->timer);
  if (ms >= 0) {
    struct timeval tv;
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    evtimer_add(d->timer, &tv);
  }
}

static void on_server(evutil_socket_t fd, short what, void* arg) {
  struct driver* d = (struct driver*)arg;
  (void)fd;
  (void)what;
  cw_server_process(d->s.server);
  rearm(d);
}

static void on_client(evutil_socket_t fd, short what, void* arg) {
  struct driver* d = (struct driver*)arg;
  (void)what;
  CHECK_STATUS(cw_client_process(fd == cw_client_loop_fd(d->s.client) ? d->s.client : d->s.silent),
               CW_OK);
  rearm(d);
}

static void on_timer(evutil_socket_t fd, short what, void* arg) {
  struct driver* d = (struct driver*)arg;
  (void)fd;
  (void)what;
  scenario_process(&d->s);
  rearm(d);
}

static void test_libevent_loop_serves_and_calls_in_one_thread(void) {
  struct driver d;
  struct event* ev[3];
  int i, threads = count_threads();
  if (!scenario_start(&d.s)) {
    scenario_end(&d.s);
    return;
  }
  d.base = event_base_new();
  CHECK(d.base != NULL);
  d.timer = evtimer_new(d.base, on_timer, &d);
  ev[0] = event_new(d.base, cw_server_loop_fd(d.s.server), EV_READ | EV_PERSIST, on_server, &d);
  ev[1] = event_new(d.base, cw_client_loop_fd(d.s.client), EV_READ | EV_PERSIST, on_client, &d);
  ev[2] = event_new(d.base, cw_client_loop_fd(d.s.silent), EV_READ | EV_PERSIST, on_client, &d);
  for (i = 0; i < 3; ++i) event_add(ev[i], NULL);
  rearm(&d);
  event_base_dispatch(d.base);
  scenario_check(&d.s);
  CHECK(count_threads() == threads);
  for (i = 0; i < 3; ++i) event_free(ev[i]); /* before the descriptors go */
  event_free(d.timer);
  event_base_free(d.base);
  scenario_end(&d.s);
}

int main(int argc, char** argv) {
  static const struct test_case tests[] = {
      TEST(test_libevent_loop_serves_and_calls_in_one_thread),
  };
  return run_tests(tests, COUNT(tests), argc, argv);
}
