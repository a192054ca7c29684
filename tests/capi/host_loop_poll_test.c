/* The host-loop mode from C with a plain poll() loop: a server and two clients driven by one
 * thread, no thread started by the library; the options it refuses; and fork(): a child made
 * after a host-loop server exists calls it with objects of its own while the parent pumps. */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "host_loop_common.h"

/* One turn of a poll() loop over the three descriptors. */
static void poll_once(struct scenario* s) {
  struct pollfd p[3];
  int i;
  p[0].fd = cw_server_loop_fd(s->server);
  p[1].fd = cw_client_loop_fd(s->client);
  p[2].fd = cw_client_loop_fd(s->silent);
  for (i = 0; i < 3; ++i) {
    p[i].events = POLLIN;
    p[i].revents = 0;
  }
  poll(p, 3, scenario_timeout(s));
  /* Processing an object whose descriptor is not readable is harmless (and finds its
   * timeouts): a host may process only the ready ones, as the libevent test does. */
  scenario_process(s);
}

static void test_poll_loop_serves_and_calls_in_one_thread(void) {
  struct scenario s;
  int threads = count_threads(), turns = 0;
  CHECK(threads >= 1);
  if (!scenario_start(&s)) {
    scenario_end(&s);
    return;
  }
  while (!scenario_finished(&s) && ++turns < 1000000) poll_once(&s);
  scenario_check(&s);
  CHECK(count_threads() == threads); /* the library started none */
  /* Idle again: nothing pending, so no timeout: the host sleeps on the descriptors alone. */
  CHECK(cw_client_loop_timeout_ms(s.client) == -1);
  CHECK(cw_client_loop_timeout_ms(s.silent) == -1);
  scenario_end(&s);
  CHECK(count_threads() == threads);
}

static void test_host_loop_refusals(void) {
  cw_server_options o;
  cw_server* server = NULL;
  cw_client* client = NULL;
  cw_error err;
  cw_server_options_init(&o);
  o.listen = "127.0.0.1:0";
  o.host_loop = 1;
  o.threads = 2;
  CHECK_STATUS(cw_server_new(&o, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT);
  CHECK(cw_server_loop_fd(server) == -1);
  CHECK(cw_server_process(server) == 0);
  cw_server_free(server);
  o.threads = 1;
  o.handler_threads = 2;
  CHECK_STATUS(cw_server_new(&o, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT);
  cw_server_free(server);

  /* Without host_loop there is nothing for a host to drive. */
  CHECK_STATUS(cw_client_new("http://127.0.0.1:1/RPC2", NULL, &client, &err), CW_OK);
  CHECK(cw_client_loop_fd(client) == -1);
  CHECK(cw_client_loop_timeout_ms(client) == -1);
  CHECK_STATUS(cw_client_process(client), CW_INVALID_ARGUMENT);
  cw_client_free(client);
  CHECK_STATUS(cw_client_process(NULL), CW_INVALID_ARGUMENT);
  CHECK(cw_server_loop_fd(NULL) == -1 && cw_server_process(NULL) == 0);
}

/* cw_server_wait drives a stopped host-loop server to its end itself. */
static void test_wait_drives_a_stopped_server(void) {
  cw_server* server = hl_server_new();
  if (!server) return;
  CHECK(cw_server_process(server) == 1);
  cw_server_stop(server);
  cw_server_wait(server);
  CHECK(cw_server_process(server) == 0);
  cw_server_free(server);
}

/* What the child does: its own clients (the parent's objects are neither used nor freed
 * here), one synchronous call and one asynchronous host-loop call driven by poll(). */
static void child_done(cw_status status, const cw_value* result, const cw_error* error,
                       void* data) {
  int32_t n = 0;
  (void)error;
  *(int*)data = status == CW_OK && cw_value_get_int(result, &n) == CW_OK ? n : -1;
}

static int child_main(const char* url) {
  cw_client* sync_client = NULL;
  cw_client* async_client = NULL;
  cw_client_options o;
  cw_value* result = NULL;
  cw_error err;
  int32_t n = 0;
  int answer = 0, turns = 0;
  const cw_arg args[] = {cw_arg_int(2), cw_arg_int(3)};
  cw_value* p[2];
  if (cw_client_new(url, NULL, &sync_client, &err) != CW_OK) return 10;
  cw_value_build(&args[0], &p[0], NULL);
  cw_value_build(&args[1], &p[1], NULL);
  if (cw_client_call(sync_client, "sample.add", (const cw_value* const*)p, 2, NULL, &result,
                     &err) != CW_OK) {
    fprintf(stderr, "child: %s\n", err.message);
    return 11;
  }
  if (cw_value_get_int(result, &n) != CW_OK || n != 5) return 12;
  cw_value_free(result);
  cw_client_free(sync_client);

  cw_client_options_init(&o);
  o.host_loop = 1;
  if (cw_client_new(url, &o, &async_client, &err) != CW_OK) return 13;
  if (cw_client_call_async(async_client, "sample.add", (const cw_value* const*)p, 2, NULL,
                           child_done, &answer, &err) != CW_OK)
    return 14;
  while (answer == 0 && ++turns < 100000) {
    struct pollfd pf;
    pf.fd = cw_client_loop_fd(async_client);
    pf.events = POLLIN;
    pf.revents = 0;
    poll(&pf, 1, cw_client_loop_timeout_ms(async_client));
    cw_client_process(async_client);
  }
  cw_client_free(async_client);
  cw_value_free(p[0]);
  cw_value_free(p[1]);
  return answer == 5 ? 0 : 15;
}

static void test_fork_child_calls_parent_host_loop_server(void) {
  cw_server* server = hl_server_new();
  pid_t child;
  int status = -1, turns = 0;
  if (!server) return;
  fflush(stdout); /* nothing buffered twice */
  fflush(stderr);
  child = fork();
  if (child == 0) _exit(child_main(cw_server_url(server))); /* the URL string is plain memory */
  CHECK(child > 0);
  if (child < 0) {
    cw_server_free(server);
    return;
  }
  for (;;) {
    struct pollfd p;
    pid_t got = waitpid(child, &status, WNOHANG);
    if (got == child) break;
    if (++turns > 20000) { /* about 20 s at most: the child hangs */
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      CHECK(!"the child did not finish");
      break;
    }
    p.fd = cw_server_loop_fd(server);
    p.events = POLLIN;
    p.revents = 0;
    poll(&p, 1, 1); /* short: the child's exit is not on the descriptor */
    cw_server_process(server);
  }
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fprintf(stderr, "child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  cw_server_stop(server);
  cw_server_wait(server);
  cw_server_free(server);
}

int main(int argc, char** argv) {
  static const struct test_case tests[] = {
      TEST(test_poll_loop_serves_and_calls_in_one_thread),
      TEST(test_host_loop_refusals),
      TEST(test_wait_drives_a_stopped_server),
      TEST(test_fork_child_calls_parent_host_loop_server),
  };
  return run_tests(tests, COUNT(tests), argc, argv);
}
