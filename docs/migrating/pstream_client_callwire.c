/* After, in C (xmlrpc-c's packet stream has no C interface): the same call with cw_client and
 * a pstream:// URL. Compiled as C99 by `make test`. */
#include <callwire.h>
#include <stdio.h>

int main(void) {
  cw_client* client = NULL;
  cw_value* result = NULL;
  cw_error err;
  int32_t sum = 0;
  const cw_arg params[] = {cw_arg_int(5), cw_arg_int(3)};
  if (cw_client_new("pstream://127.0.0.1:8080", NULL, &client, &err) != CW_OK ||
      cw_client_call_args(client, "sample.add", params, 2, NULL, &result, &err) != CW_OK ||
      cw_value_get_int(result, &sum) != CW_OK) {
    fprintf(stderr, "%s\n", err.message);
    cw_client_free(client);
    return 1;
  }
  printf("%d\n", (int)sum);
  cw_value_free(result);
  cw_client_free(client);
  return 0;
}
