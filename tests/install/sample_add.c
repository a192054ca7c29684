/* The C twin of sample_add.cpp, built as C99 against an installed callwire.h
 * (tests/install/run.sh): a server on 127.0.0.1:0 with sample.add, one call to it, the answer
 * checked. Exits 0 only on 3 + 5 = 8. */
#include <callwire.h>
#include <stdio.h>
#include <string.h>

static cw_status add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

int main(void) {
  cw_server_options options;
  cw_server* server = NULL;
  cw_client* client = NULL;
  cw_value *a = NULL, *b = NULL, *sum = NULL;
  const cw_value* params[2];
  cw_error err;
  int32_t n = 0;
  int ok = 0;

  cw_server_options_init(&options);
  options.listen = "127.0.0.1:0";
  if (cw_server_new(&options, &server, &err) == CW_OK &&
      cw_server_add_method(server, "sample.add", add, NULL, "i:ii", "Adds.", &err) == CW_OK &&
      cw_server_start(server, &err) == CW_OK &&
      cw_client_new(cw_server_url(server), NULL, &client, &err) == CW_OK &&
      cw_value_new_int(3, &a) == CW_OK && cw_value_new_int(5, &b) == CW_OK) {
    params[0] = a;
    params[1] = b;
    if (cw_client_call(client, "sample.add", params, 2, NULL, &sum, &err) == CW_OK &&
        cw_value_get_int(sum, &n) == CW_OK && n == 8) {
      ok = 1;
    }
  }
  if (!ok) fprintf(stderr, "C consumer failed: %s (got %d)\n", err.message, (int)n);
  cw_value_free(sum);
  cw_value_free(b);
  cw_value_free(a);
  cw_client_free(client);
  cw_server_free(server);
  /* The headers and the library that runs are the same version here. */
  if (ok && strcmp(callwire_version(), CALLWIRE_VERSION_STRING) != 0) {
    fprintf(stderr, "C consumer: library %s, headers %s\n", callwire_version(),
            CALLWIRE_VERSION_STRING);
    ok = 0;
  }
  if (ok) printf("C: 3 + 5 = 8 (callwire %s)\n", callwire_version());
  return ok ? 0 : 1;
}
