/* After: the same call with callwire's C API. Compiled by `make test`. */
#include <callwire.h>
#include <stdio.h>

int main(void) {
  cw_client* client = NULL;
  cw_value* result = NULL;
  cw_error err;
  int32_t sum = 0;
  int failed = 1;

  if (cw_client_new("http://127.0.0.1:8080/RPC2", NULL, &client, &err) == CW_OK) {
    const cw_arg params[] = {cw_arg_int(5), cw_arg_int(3)}; /* types checked by the compiler */
    if (cw_client_call_args(client, "sample.add", params, 2, NULL, &result, &err) == CW_OK &&
        cw_value_get_int(result, &sum) == CW_OK)
      failed = 0;
  }
  if (failed)
    fprintf(stderr, "%s %d: %s\n", cw_status_name(err.status), (int)err.fault_code, err.message);
  else
    printf("%d\n", (int)sum);
  cw_value_free(result); /* values are owned, not reference-counted: each is freed once */
  cw_client_free(client);
  return failed;
}
