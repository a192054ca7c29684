/* After: the same server with callwire's C API. docs/migrating-from-xmlrpc-c.md sets it beside
 * server_xmlrpc_c.c; both are compiled by `make test`. */
#include <callwire.h>
#include <stdio.h>

static cw_status sample_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

int main(void) {
  cw_server_options options;
  cw_server* server = NULL;
  cw_error err;

  cw_server_options_init(&options);
  options.listen = "0.0.0.0:8080";
  if (cw_server_new(&options, &server, &err) != CW_OK ||
      cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", "Adds two integers.",
                           &err) != CW_OK ||
      cw_server_run(server, &err) != CW_OK) { /* serves until cw_server_stop */
    fprintf(stderr, "%s\n", err.message);
    cw_server_free(server);
    return 1;
  }
  cw_server_free(server);
  return 0;
}
