/* Before: calling sample.add(5, 3) with xmlrpc-c's C client (the curl transport), as
 * xmlrpc-c's own xmlrpc_sample_add_client.c does it. Compiled by `make test`. */
#include <stdio.h>
#include <xmlrpc-c/base.h>
#include <xmlrpc-c/client.h>

int main(void) {
  xmlrpc_env env;
  xmlrpc_value* result;
  xmlrpc_int32 sum = 0;
  int failed;

  xmlrpc_env_init(&env);
  xmlrpc_client_init2(&env, XMLRPC_CLIENT_NO_FLAGS, "example", "1.0", NULL, 0);
  result = xmlrpc_client_call(&env, "http://127.0.0.1:8080/RPC2", "sample.add", "(ii)",
                              (xmlrpc_int32)5, (xmlrpc_int32)3);
  if (!env.fault_occurred) {
    xmlrpc_read_int(&env, result, &sum);
    xmlrpc_DECREF(result);
  }
  failed = env.fault_occurred;
  if (failed)
    fprintf(stderr, "fault %d: %s\n", env.fault_code, env.fault_string);
  else
    printf("%d\n", (int)sum);
  xmlrpc_env_clean(&env);
  xmlrpc_client_cleanup();
  return failed;
}
