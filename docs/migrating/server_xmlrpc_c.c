/* Before: sample.add served by xmlrpc-c's Abyss, in C, as xmlrpc-c's own
 * xmlrpc_sample_add_server.c does it. docs/migrating-from-xmlrpc-c.md sets it beside
 * server_callwire.c; both are compiled by `make test`. */
#include <stdio.h>
#include <xmlrpc-c/base.h>
#include <xmlrpc-c/server.h>
#include <xmlrpc-c/server_abyss.h>

static xmlrpc_value* sample_add(xmlrpc_env* env, xmlrpc_value* params, void* server_info,
                                void* call_info) {
  xmlrpc_int32 a, b;
  (void)server_info;
  (void)call_info;
  xmlrpc_decompose_value(env, params, "(ii)", &a, &b);
  if (env->fault_occurred) return NULL;
  return xmlrpc_build_value(env, "i", a + b);
}

int main(void) {
  struct xmlrpc_method_info3 const info = {"sample.add", &sample_add, NULL, 0, "i:ii",
                                           "Adds two integers."};
  xmlrpc_server_abyss_parms parms;
  xmlrpc_registry* registry;
  xmlrpc_env env;
  int failed;

  xmlrpc_env_init(&env);
  registry = xmlrpc_registry_new(&env);
  xmlrpc_registry_add_method3(&env, registry, &info);
  parms.config_file_name = NULL;
  parms.registryP = registry;
  parms.port_number = 8080;
  parms.log_file_name = NULL;
  xmlrpc_server_abyss(&env, &parms, XMLRPC_APSIZE(log_file_name)); /* serves until killed */
  failed = env.fault_occurred;
  if (failed) fprintf(stderr, "%s\n", env.fault_string);
  xmlrpc_registry_free(registry);
  xmlrpc_env_clean(&env);
  return failed;
}
