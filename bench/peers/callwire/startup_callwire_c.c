/* Experiment 3 (xmlrpc-c's performance page): a program that starts, makes N sample.add calls
   with callwire's C API (one cw_client, so one kept-alive connection) and exits. Every sum is
   checked; a wrong one exits 1. bench/startup.py times the whole process.

   Usage: startup_callwire_c URL N */
#include <callwire.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  cw_client* client = NULL;
  cw_error err;
  long n, i;
  if (argc != 3 || (n = strtol(argv[2], NULL, 10)) <= 0) {
    fprintf(stderr, "usage: %s URL N\n", argv[0]);
    return 2;
  }
  if (cw_client_new(argv[1], NULL, &client, &err) != CW_OK) {
    fprintf(stderr, "startup_callwire_c: %s\n", err.message);
    return 2;
  }
  for (i = 0; i < n; ++i) {
    cw_value *a = NULL, *b = NULL, *sum = NULL;
    int32_t got = 0;
    cw_status st = cw_value_new_int((int32_t)i, &a);
    if (st == CW_OK) st = cw_value_new_int(7, &b);
    if (st == CW_OK) {
      const cw_value* params[2] = {a, b};
      st = cw_client_call(client, "sample.add", params, 2, NULL, &sum, &err);
    }
    if (st == CW_OK) st = cw_value_get_int(sum, &got);
    cw_value_free(a);
    cw_value_free(b);
    cw_value_free(sum);
    if (st != CW_OK || got != i + 7) {
      fprintf(stderr, "startup_callwire_c: call %ld: %s (%s), got %d\n", i, cw_status_name(st),
              st == CW_OK ? "" : err.message, (int)got);
      cw_client_free(client);
      return 1;
    }
  }
  cw_client_free(client);
  return 0;
}
