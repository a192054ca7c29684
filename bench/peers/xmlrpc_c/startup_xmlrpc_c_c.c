/* Experiment 3 (xmlrpc-c's performance page): a program that starts, makes N sample.add calls
   with xmlrpc-c's C client and exits, written as xmlrpc-c's own xmlrpc_sample_add_client.c
   example: the global client (xmlrpc_client_init2, curl transport) and xmlrpc_client_call with
   a format string. Every sum is checked; a wrong one exits 1.

   Usage: startup_xmlrpc_c_c URL N */
#include <stdio.h>
#include <stdlib.h>
#include <xmlrpc-c/base.h>
#include <xmlrpc-c/client.h>

int main(int argc, char** argv) {
  xmlrpc_env env;
  long n, i;
  if (argc != 3 || (n = strtol(argv[2], NULL, 10)) <= 0) {
    fprintf(stderr, "usage: %s URL N\n", argv[0]);
    return 2;
  }
  xmlrpc_env_init(&env);
  xmlrpc_client_init2(&env, XMLRPC_CLIENT_NO_FLAGS, "startup", "1.0", NULL, 0);
  for (i = 0; i < n && !env.fault_occurred; ++i) {
    xmlrpc_int32 sum = 0;
    xmlrpc_value* result =
        xmlrpc_client_call(&env, argv[1], "sample.add", "(ii)", (xmlrpc_int32)i, (xmlrpc_int32)7);
    if (env.fault_occurred) break;
    xmlrpc_read_int(&env, result, &sum);
    xmlrpc_DECREF(result);
    if (!env.fault_occurred && sum != i + 7) {
      fprintf(stderr, "startup_xmlrpc_c_c: call %ld: wrong sum %d\n", i, (int)sum);
      return 1;
    }
  }
  if (env.fault_occurred) {
    fprintf(stderr, "startup_xmlrpc_c_c: call %ld: %s\n", i, env.fault_string);
    return 1;
  }
  xmlrpc_env_clean(&env);
  xmlrpc_client_cleanup();
  return 0;
}
