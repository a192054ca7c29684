/* async_client: many calls in flight at once from one thread, in C. Starts N calls of
 * sample.add(i, i) without waiting, then waits until every completion callback has run and
 * checks each sum.
 *
 *   async_client URL [N]       (N defaults to 100)
 *
 * Prints "N calls, all correct" and exits 0, or says what went wrong and exits 1. The
 * callbacks run on the client's I/O thread, so what they share with main() is guarded by a
 * mutex; at most 4 connections are used (max_connections), the other calls queue for one. */
#define _POSIX_C_SOURCE 200809L
#include <callwire.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct progress {
  pthread_mutex_t lock;
  pthread_cond_t all_done;
  long pending;
  long wrong;
};

/* One call's context: what it was asked, so the callback can check the answer. */
struct pending_call {
  struct progress* progress;
  int32_t operand;
};

static void on_done(cw_status status, const cw_value* result, const cw_error* error,
                    void* user_data) {
  struct pending_call* call = (struct pending_call*)user_data;
  struct progress* p = call->progress;
  int32_t sum = 0;
  int right =
      status == CW_OK && cw_value_get_int(result, &sum) == CW_OK && sum == 2 * call->operand;
  if (!right) {
    fprintf(stderr, "sample.add(%d, %d): %s: %s\n", (int)call->operand, (int)call->operand,
            cw_status_name(status), error->message);
  }
  pthread_mutex_lock(&p->lock);
  if (!right) ++p->wrong;
  if (--p->pending == 0) pthread_cond_signal(&p->all_done);
  pthread_mutex_unlock(&p->lock);
}

int main(int argc, char** argv) {
  cw_client_options options;
  cw_client* client = NULL;
  struct progress progress;
  struct pending_call* calls;
  cw_error err;
  long n = 100, i, started = 0;

  if (argc < 2 || argc > 3 || (argc == 3 && (n = strtol(argv[2], NULL, 10)) <= 0)) {
    fprintf(stderr, "usage: %s URL [N]\n", argv[0]);
    return 2;
  }
  cw_client_options_init(&options);
  options.max_connections = 4;
  if (cw_client_new(argv[1], &options, &client, &err) != CW_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    return 1;
  }
  calls = (struct pending_call*)calloc((size_t)n, sizeof *calls);
  if (!calls) {
    cw_client_free(client);
    return 1;
  }
  pthread_mutex_init(&progress.lock, NULL);
  pthread_cond_init(&progress.all_done, NULL);
  progress.pending = n;
  progress.wrong = 0;

  for (i = 0; i < n; ++i) {
    cw_value* x = NULL;
    const cw_value* params[2];
    calls[i].progress = &progress;
    calls[i].operand = (int32_t)i;
    if (cw_value_new_int((int32_t)i, &x) != CW_OK) break;
    params[0] = x;
    params[1] = x;
    /* The parameters are copied: x can go at once. */
    if (cw_client_call_async(client, "sample.add", params, 2, NULL, on_done, &calls[i], &err) !=
        CW_OK) {
      cw_value_free(x);
      fprintf(stderr, "cannot start call %ld: %s\n", i, err.message);
      break;
    }
    cw_value_free(x);
    ++started;
  }

  pthread_mutex_lock(&progress.lock);
  progress.pending -= n - started; /* the calls never started will not call back */
  while (progress.pending > 0) pthread_cond_wait(&progress.all_done, &progress.lock);
  pthread_mutex_unlock(&progress.lock);

  cw_client_free(client);
  free(calls);
  pthread_mutex_destroy(&progress.lock);
  pthread_cond_destroy(&progress.all_done);
  if (started != n || progress.wrong != 0) {
    fprintf(stderr, "%ld of %ld calls failed\n", progress.wrong + (n - started), n);
    return 1;
  }
  printf("%ld calls, all correct\n", n);
  return 0;
}
