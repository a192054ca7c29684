/* sample_add_client: calls sample.add(3, 5) and prints the sum, in C. callwire's take on
 * xmlrpc-c's xmlrpc_sample_add_client.
 *
 *   sample_add_client URL        e.g. http://127.0.0.1:8080/RPC2
 *
 * Exit status 0 and "8" on success; 1 and the reason on standard error otherwise (a fault
 * prints its code and string). */
#include <callwire.h>
#include <stdio.h>

int main(int argc, char** argv) {
  cw_client* client = NULL;
  cw_value* a = NULL;
  cw_value* b = NULL;
  cw_value* sum = NULL;
  cw_error err;
  int32_t n = 0;
  int status = 1;

  if (argc != 2) {
    fprintf(stderr, "usage: %s URL\n", argv[0]);
    return 2;
  }
  if (cw_client_new(argv[1], NULL, &client, &err) != CW_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    return 1;
  }
  if (cw_value_new_int(3, &a) == CW_OK && cw_value_new_int(5, &b) == CW_OK) {
    const cw_value* params[2];
    params[0] = a;
    params[1] = b;
    if (cw_client_call(client, "sample.add", params, 2, NULL, &sum, &err) != CW_OK) {
      if (err.status == CW_FAULT) {
        fprintf(stderr, "fault %d: %s\n", (int)err.fault_code, err.message);
      } else {
        fprintf(stderr, "call failed (%s): %s\n", cw_status_name(err.status), err.message);
      }
    } else if (cw_value_get_int(sum, &n) != CW_OK) {
      fprintf(stderr, "the server answered something other than an int\n");
    } else {
      printf("%d\n", (int)n);
      status = 0;
    }
  } else {
    fprintf(stderr, "out of memory\n");
  }
  cw_value_free(sum); /* every _free takes NULL */
  cw_value_free(b);
  cw_value_free(a);
  cw_client_free(client);
  return status;
}
