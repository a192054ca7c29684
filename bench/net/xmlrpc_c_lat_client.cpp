// callwire bench: round-trip latency of sample.add with xmlrpc-c's C client library
// (libxmlrpc_client, the curl transport), the way its documentation shows: one client object
// for every call, the parameters and the server's description built once.
//
// Usage: xmlrpc_c_lat_client URL [--seconds S | --calls N] [--warmup N] [--server-pid P]
// Whether the calls share one TCP connection is xmlrpc-c's and curl's business: net_run.py
// counts connect() calls under strace to tell.
#include <xmlrpc-c/base.h>
#include <xmlrpc-c/client.h>

#include <cstdio>

#include "lat_common.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: %s URL [--seconds S | --calls N] [--warmup N] [--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options options = lat::parse_options(argc, argv, 2);

  xmlrpc_env env;
  xmlrpc_env_init(&env);
  xmlrpc_client_setup_global_const(&env);
  xmlrpc_curl_xportparms curl_parms{};  // zero: curl's and xmlrpc-c's defaults
  xmlrpc_clientparms client_parms{};
  client_parms.transport = "curl";
  client_parms.transportparmsP = &curl_parms;
  client_parms.transportparm_size = XMLRPC_CXPSIZE(referer);
  xmlrpc_client* client = nullptr;
  xmlrpc_client_create(&env, XMLRPC_CLIENT_NO_FLAGS, "callwire-bench", "1.0", &client_parms,
                       XMLRPC_CPSIZE(transportparm_size), &client);
  if (env.fault_occurred) lat::die(env.fault_string);
  xmlrpc_server_info* server = xmlrpc_server_info_new(&env, argv[1]);
  xmlrpc_value* params = xmlrpc_build_value(&env, "(ii)", 2, 3);
  if (env.fault_occurred) lat::die(env.fault_string);

  int status = lat::run("xmlrpc-c", options, [&] {
    xmlrpc_value* result = nullptr;
    xmlrpc_client_call2(&env, client, server, "sample.add", params, &result);
    if (env.fault_occurred) {
      std::fprintf(stderr, "xmlrpc_c_lat_client: %s\n", env.fault_string);
      return false;
    }
    int sum = 0;
    xmlrpc_read_int(&env, result, &sum);
    xmlrpc_DECREF(result);
    return !env.fault_occurred && sum == 5;
  });

  xmlrpc_DECREF(params);
  xmlrpc_server_info_free(server);
  xmlrpc_client_destroy(client);
  xmlrpc_client_teardown_global_const();
  xmlrpc_env_clean(&env);
  return status;
}
