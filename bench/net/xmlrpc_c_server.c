/* callwire bench: xmlrpc-c's Abyss server with sample.add, as its examples write it
   (xmlrpc_server_abyss with a registry), and get_blob(n) for make bench-peers' payload
   experiment (bench/scaling.py): the first n bytes of the 16 MiB that
   bench/peers/common/data.hpp makes (splitmix64, seed 16), with the XML size limit raised.

   Usage: xmlrpc_c_server [--max-conn N] [--keepalive-max N] [--backlog N]
   Listens on 127.0.0.1 on a port the kernel picks, prints "listening on
   http://127.0.0.1:PORT/RPC2" like `callwire serve`, serves until killed. Without flags every
   Abyss setting is xmlrpc-c's default; the flags are the "tuned" run of bench/net_run.py. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
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

enum { kMaxBlob = 16 << 20 };
static unsigned char* blob;
static pthread_once_t blob_once = PTHREAD_ONCE_INIT;

/* Made on the first get_blob, so that a server that only adds keeps its memory small. */
static void make_blob(void) {
  uint64_t state = 16;
  blob = malloc(kMaxBlob);
  for (size_t i = 0; blob && i < kMaxBlob; i += 8) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    for (int j = 0; j < 8; ++j) blob[i + j] = (unsigned char)(z >> (8 * j));
  }
}

static xmlrpc_value* get_blob(xmlrpc_env* env, xmlrpc_value* params, void* server_info,
                              void* call_info) {
  xmlrpc_int32 n;
  (void)server_info;
  (void)call_info;
  xmlrpc_decompose_value(env, params, "(i)", &n);
  if (env->fault_occurred) return NULL;
  pthread_once(&blob_once, make_blob);
  if (!blob || n < 0 || n > kMaxBlob) {
    xmlrpc_faultf(env, "get_blob: size %d out of range", (int)n);
    return NULL;
  }
  return xmlrpc_base64_new(env, (size_t)n, blob);
}

int main(int argc, char** argv) {
  unsigned max_conn = 0, keepalive_max = 0, backlog = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    unsigned value = (unsigned)strtoul(argv[i + 1], NULL, 10);
    if (strcmp(argv[i], "--max-conn") == 0)
      max_conn = value;
    else if (strcmp(argv[i], "--keepalive-max") == 0)
      keepalive_max = value;
    else if (strcmp(argv[i], "--backlog") == 0)
      backlog = value;
    else {
      fprintf(stderr, "xmlrpc_c_server: unknown flag %s\n", argv[i]);
      return 2;
    }
  }

  /* A socket bound here to port 0, so that runs never collide on a port; Abyss listens on it. */
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  struct sockaddr_in address;
  socklen_t length = sizeof address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  /* Listening before saying so: a client may connect as soon as it reads the line (Abyss
     calls listen() again with its own backlog). */
  if (bind(fd, (struct sockaddr*)&address, sizeof address) != 0 ||
      listen(fd, backlog ? (int)backlog : 15) != 0 ||
      getsockname(fd, (struct sockaddr*)&address, &length) != 0) {
    perror("xmlrpc_c_server");
    return 2;
  }

  xmlrpc_env env;
  xmlrpc_env_init(&env);
  xmlrpc_registry* registry = xmlrpc_registry_new(&env);
  xmlrpc_registry_add_method2(&env, registry, "sample.add", &sample_add, "i:ii",
                              "the sum of two ints", NULL);
  xmlrpc_registry_add_method2(&env, registry, "get_blob", &get_blob, "6:i",
                              "the first n bytes of the 16 MiB blob", NULL);
  /* The answers reach 22.4 MB of base64; the 512 KiB default limits what Abyss reads. */
  xmlrpc_limit_set(XMLRPC_XML_SIZE_LIMIT_ID, (size_t)64 << 20);
  if (env.fault_occurred) {
    fprintf(stderr, "xmlrpc_c_server: %s\n", env.fault_string);
    return 2;
  }

  xmlrpc_server_abyss_parms parms;
  memset(&parms, 0, sizeof parms);
  parms.registryP = registry;
  parms.socket_bound = 1;
  parms.socket_handle = fd;
  parms.uri_path = "/RPC2";
  /* Zero is "Abyss's default" for each of these (xmlrpc-c 1.33: 30 requests per connection,
     15 connections at once, a backlog of 15). */
  parms.keepalive_max_conn = keepalive_max;
  parms.max_conn = max_conn;
  parms.max_conn_backlog = backlog;

  printf("listening on http://127.0.0.1:%u/RPC2\n", (unsigned)ntohs(address.sin_port));
  fflush(stdout);
  xmlrpc_server_abyss(&env, &parms, XMLRPC_APSIZE(max_conn_backlog));
  if (env.fault_occurred) {
    fprintf(stderr, "xmlrpc_c_server: %s\n", env.fault_string);
    return 1;
  }
  return 0;
}
