/* The C API's server and client, tested from C99 over loopback: handlers with and without
 * signatures, faults, parameter errors, introspection, context (peer, user, headers),
 * Basic auth, deadlines, asynchronous calls, multicall latching, stop from another thread,
 * options structs (zeroed, older, bad sizes), and the errors of misuse. */
#define _POSIX_C_SOURCE 200809L
#if defined(_WIN32)
/* Windows (make windows, under Wine): Winsock for the raw peers; what needs Unix-domain
 * sockets, socketpair() or the openssl program is POSIX's alone (CW_TEST_POSIX_ONLY). */
#include <winsock2.h>
#include <ws2tcpip.h>
#define poll WSAPoll
#define close_socket closesocket
#define CW_TEST_POSIX_ONLY 0
#else
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#define close_socket close
#define CW_TEST_POSIX_ONLY 1
#endif
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "callwire.h"
#include "test_runner.h"

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* ---- handlers ---- */

static cw_status sample_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

/* No signature: the handler's own getters catch a wrong parameter. */
static cw_status unchecked_double(cw_call* call, void* user_data) {
  double d;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_double(call, 0, &d))) return st;
  return cw_call_return_double(call, d * 2);
}

static cw_status echo(cw_call* call, void* user_data) {
  cw_value* array = NULL;
  size_t i;
  cw_status st;
  (void)user_data;
  if ((st = cw_value_new_array(&array))) return st;
  for (i = 0; i < cw_call_param_count(call); ++i) {
    const cw_value* p = NULL;
    if ((st = cw_call_param(call, i, &p)) || (st = cw_value_array_append(array, p))) {
      cw_value_free(array);
      return st;
    }
  }
  return cw_call_return_take(call, array);
}

static cw_status always_fault(cw_call* call, void* user_data) {
  (void)user_data;
  cw_call_return_int(call, 1); /* a fault wins over a result */
  return cw_call_fault(call, 42, "the answer is a fault");
}

static cw_status returns_bad_status(cw_call* call, void* user_data) {
  (void)call;
  (void)user_data;
  return CW_LIMIT_EXCEEDED;
}

static cw_status returns_nothing(cw_call* call, void* user_data) {
  (void)call;
  (void)user_data;
  return CW_OK;
}

/* "peer|user|X-Tag header|method" */
static cw_status whoami(cw_call* call, void* user_data) {
  char text[512];
  const char* tag = "";
  size_t tag_len = 0;
  (void)user_data;
  if (cw_call_header(call, "x-tag", &tag, &tag_len) != CW_OK) tag_len = 0;
  if (tag[tag_len] != '\0') tag = "not NUL-terminated"; /* "%s" must be safe */
  snprintf(text, sizeof text, "%s|%s%s|%s|%s", cw_call_peer(call), cw_call_user(call),
           cw_call_tls_subject(call), /* "" without mutual TLS */
           tag, cw_call_method(call));
  return cw_call_return_string(call, text, strlen(text));
}

/* Every request header field as "name: value", in order; then CW_NOT_FOUND past the end. */
static cw_status all_headers(cw_call* call, void* user_data) {
  cw_value *array = NULL, *line = NULL;
  const char *name = NULL, *value = NULL;
  size_t i, name_len = 0, value_len = 0, count = cw_call_header_count(call);
  char text[512];
  cw_status st;
  (void)user_data;
  if ((st = cw_value_new_array(&array))) return st;
  for (i = 0; i < count; ++i) {
    if ((st = cw_call_header_at(call, i, &name, &name_len, &value, &value_len))) break;
    if (name[name_len] != '\0' || value[value_len] != '\0') {
      st = CW_INVALID_ARGUMENT; /* "%s" must be safe */
      break;
    }
    snprintf(text, sizeof text, "%s: %s", name, value);
    if ((st = cw_value_new_cstring(text, &line)) || (st = cw_value_array_append(array, line))) {
      cw_value_free(line);
      break;
    }
    cw_value_free(line);
  }
  if (st == CW_OK &&
      cw_call_header_at(call, count, &name, &name_len, &value, &value_len) != CW_NOT_FOUND) {
    st = CW_INVALID_ARGUMENT;
  }
  if (st != CW_OK) {
    cw_value_free(array);
    return st;
  }
  return cw_call_return_take(call, array);
}

static cw_status sleep_then_answer(cw_call* call, void* user_data) {
  int32_t ms = 0;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &ms))) return st;
  sleep_ms(ms);
  return cw_call_return_int(call, ms);
}

static cw_status login(cw_call* call, void* user_data) {
  (void)user_data;
  cw_call_latch_fault(call, 403, "login failed: the rest of this request is refused");
  return cw_call_fault(call, 403, "login failed");
}

static cw_status remaining(cw_call* call, void* user_data) {
  (void)user_data;
  return cw_call_return_i8(call, cw_call_remaining_ms(call));
}

/* Works until the deadline has passed (5 s at most), as a long handler polling it would. */
static cw_status until_deadline(cw_call* call, void* user_data) {
  int waited = 0;
  (void)user_data;
  while (cw_call_remaining_ms(call) > 0 && waited < 500) {
    sleep_ms(10);
    ++waited;
  }
  if (cw_call_remaining_ms(call) != 0) return cw_call_fault(call, 1, "the deadline never came");
  return cw_call_return_int(call, waited);
}

static int counter_calls = 0;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;

static cw_status count_call(cw_call* call, void* user_data) {
  int* counter = (int*)user_data;
  int now;
  pthread_mutex_lock(&counter_lock);
  now = ++*counter;
  pthread_mutex_unlock(&counter_lock);
  return cw_call_return_int(call, now);
}

static int check_password(const char* user, size_t user_len, const char* password,
                          size_t password_len, void* user_data) {
  (void)user_data;
  /* NUL-terminated, so strcmp is safe. */
  return user[user_len] == '\0' && password[password_len] == '\0' && user_len == 5 &&
         strcmp(user, "alice") == 0 && password_len == 6 && strcmp(password, "secret") == 0;
}

/* person(name, age) -> {"name": name, "age": age, "tags": ["c", "api"]}, answered with a
 * description (cw_call_return_arg); person("", ...) answers with a wrong description. */
static cw_status person(cw_call* call, void* user_data) {
  const char* name = NULL;
  size_t name_len = 0;
  int32_t age = 0;
  cw_status st;
  const cw_arg tags[] = {cw_arg_cstring("c"), cw_arg_cstring("api")};
  cw_arg_member members[3];
  (void)user_data;
  if ((st = cw_call_param_string(call, 0, &name, &name_len)) ||
      (st = cw_call_param_int(call, 1, &age)))
    return st;
  members[0].name = "name";
  members[0].value = cw_arg_string(name_len ? name : NULL, name_len ? name_len : 1);
  members[1].name = "age";
  members[1].value = cw_arg_int(age);
  members[2].name = "tags";
  members[2].value = cw_arg_array(tags, 2);
  return cw_call_return_arg(call, cw_arg_struct(members, 3));
}

/* greeting() -> "hello", with the NUL-terminated helper. */
static cw_status greeting(cw_call* call, void* user_data) {
  (void)user_data;
  return cw_call_return_cstring(call, "hello");
}

/* ---- a server for the tests ---- */

static cw_server* start_server(const cw_server_options* options) {
  cw_server* server = NULL;
  cw_error err;
  cw_server_options defaults;
  if (!options) {
    cw_server_options_init(&defaults);
    defaults.listen = "127.0.0.1:0";
    defaults.handler_threads = 4; /* so a sleeping handler leaves the others free */
    options = &defaults;
  }
  CHECK_STATUS(cw_server_new(options, &server, &err), CW_OK);
  if (!server) return NULL;
  CHECK_STATUS(cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii",
                                    "Adds two integers.", &err),
               CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "twice", unchecked_double, NULL, NULL, NULL, &err),
               CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "echo", echo, NULL, "?", NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "fault", always_fault, NULL, "", NULL, &err), CW_OK);
  CHECK_STATUS(
      cw_server_add_method(server, "bad_status", returns_bad_status, NULL, NULL, NULL, &err),
      CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "nothing", returns_nothing, NULL, "n:", NULL, &err),
               CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "whoami", whoami, NULL, "s:", NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "headers", all_headers, NULL, "A:", NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "sleep", sleep_then_answer, NULL, "i:i", NULL, &err),
               CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "login", login, NULL, NULL, NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "count", count_call, &counter_calls, "i:", NULL, &err),
               CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "person", person, NULL, "S:si", NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "greeting", greeting, NULL, "s:", NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_OK);
  if (options->listen && strncmp(options->listen, "unix:", 5) != 0) {
    CHECK(cw_server_port(server) != 0);
    CHECK(strncmp(cw_server_url(server), "http://127.0.0.1:", 17) == 0);
  }
  return server;
}

static cw_client* make_client(const char* url, const cw_client_options* options) {
  cw_client* client = NULL;
  cw_error err;
  CHECK_STATUS(cw_client_new(url, options, &client, &err), CW_OK);
  return client;
}

/* Calls `method` with two int parameters. */
static cw_status call_ints(cw_client* client, const char* method, int32_t a, int32_t b,
                           size_t count, cw_value** result, cw_error* err) {
  cw_value* p[2] = {NULL, NULL};
  cw_status st;
  cw_value_new_int(a, &p[0]);
  cw_value_new_int(b, &p[1]);
  st = cw_client_call(client, method, (const cw_value* const*)p, count, NULL, result, err);
  cw_value_free(p[0]);
  cw_value_free(p[1]);
  return st;
}

static void expect_fault(cw_client* client, const char* method, cw_value* param, int32_t code,
                         const char* words) {
  cw_value* result = NULL;
  cw_error err;
  const cw_value* params[1];
  params[0] = param;
  CHECK_STATUS(cw_client_call(client, method, params, param ? 1 : 0, NULL, &result, &err),
               CW_FAULT);
  CHECK(result == NULL);
  CHECK(err.status == CW_FAULT);
  if (err.fault_code != code)
    fprintf(stderr, "%s: fault %d, expected %d\n", method, (int)err.fault_code, (int)code);
  CHECK(err.fault_code == code);
  if (!strstr(err.message, words))
    fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n", method, err.message, words);
  CHECK(strstr(err.message, words) != NULL);
}

/* ---- tests ---- */

/* Method statistics, the header and reader limits of a server, the reader limits of a client. */
static void test_stats_and_limits(void) {
  cw_server_options options;
  cw_client_options client_options;
  cw_server* server;
  cw_client* client;
  cw_value* result = NULL;
  cw_method_stats* stats = NULL;
  size_t count = 0, i;
  int found = 0;
  cw_error err;
  char big[400];
  cw_header header;
  cw_call_options call_options;

  cw_server_options_init(&options);
  options.listen = "127.0.0.1:0";
  options.max_header_bytes = 256;
  options.max_requests_per_connection = 2;
  options.reader_limits.max_depth = 2; /* arrays and structs nested in one parameter */
  server = start_server(&options);
  client = make_client(cw_server_url(server), NULL);

  for (i = 0; i < 3; ++i) {
    CHECK_STATUS(call_ints(client, "sample.add", 1, 2, 2, &result, &err), CW_OK);
    cw_value_free(result);
    result = NULL;
  }
  CHECK_STATUS(cw_client_call(client, "fault", NULL, 0, NULL, &result, &err), CW_FAULT);
  CHECK_STATUS(cw_server_method_stats(server, &stats, &count), CW_OK);
  for (i = 0; i < count; ++i) {
    if (strcmp(stats[i].name, "sample.add") == 0) {
      found |= 1;
      CHECK(stats[i].calls == 3 && stats[i].faults == 0);
    } else if (strcmp(stats[i].name, "fault") == 0) {
      found |= 2;
      CHECK(stats[i].calls == 1 && stats[i].faults == 1);
    }
  }
  CHECK(found == 3);
  cw_free(stats);
  CHECK_STATUS(cw_server_method_stats(server, NULL, &count), CW_INVALID_ARGUMENT);
  /* The same in Prometheus' text format. */
  {
    char* text = NULL;
    size_t len = 0;
    CHECK_STATUS(cw_server_metrics_text(server, &text, &len), CW_OK);
    CHECK(text && len == strlen(text));
    CHECK(text && strstr(text, "\ncallwire_calls_total{method=\"sample.add\"} 3\n") != NULL);
    CHECK(text && strstr(text, "\ncallwire_faults_total{method=\"fault\"} 1\n") != NULL);
    CHECK(text && strstr(text, "\ncallwire_connections_open ") != NULL);
    cw_free(text);
    CHECK_STATUS(cw_server_metrics_text(server, NULL, &len), CW_INVALID_ARGUMENT);
  }

  /* max_requests_per_connection = 2: every second call comes on a new connection (another
   * client port), which the client opens by itself. */
  {
    char peers[4][64];
    const char* text = NULL;
    size_t len = 0;
    for (i = 0; i < 4; ++i) {
      CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, NULL, &result, &err), CW_OK);
      CHECK_STATUS(cw_value_get_string(result, &text, &len), CW_OK);
      snprintf(peers[i], sizeof peers[i], "%.*s", (int)strcspn(text, "|"), text);
      cw_value_free(result);
      result = NULL;
    }
    CHECK(strcmp(peers[0], peers[1]) == 0 && strcmp(peers[2], peers[3]) == 0);
    CHECK(strcmp(peers[1], peers[2]) != 0);
  }

  /* A header beyond max_header_bytes: 431. */
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  header.name = "X-Big";
  header.value = big;
  memset(&call_options, 0, sizeof call_options);
  call_options.struct_size = sizeof call_options;
  call_options.headers = &header;
  call_options.header_count = 1;
  CHECK_STATUS(cw_client_call(client, "greeting", NULL, 0, &call_options, &result, &err),
               CW_HTTP_STATUS);
  CHECK(err.http_status == 431);

  /* A parameter nested deeper than the reader allows: fault -32600. */
  {
    const cw_arg inner[] = {cw_arg_int(1)};
    const cw_arg middle[] = {cw_arg_array(inner, 1)};
    const cw_arg outer[] = {cw_arg_array(middle, 1)};
    const cw_arg params[] = {cw_arg_array(outer, 1)}; /* three arrays deep */
    CHECK_STATUS(cw_client_call_args(client, "echo", params, 1, NULL, &result, &err), CW_FAULT);
    CHECK(err.fault_code == -32600);
  }
  cw_client_free(client);

  /* A client whose answers may hold strings of 4 bytes at most. */
  cw_client_options_init(&client_options);
  client_options.reader_limits.max_string_size = 4;
  client = make_client(cw_server_url(server), &client_options);
  CHECK_STATUS(cw_client_call_args(client, "greeting", NULL, 0, NULL, &result, &err),
               CW_BAD_RESPONSE); /* an answer the client refuses to read is a bad response */
  CHECK(result == NULL && strstr(err.message, "exceeds max_string_size (4 bytes)") != NULL);
  cw_client_free(client);
  cw_server_free(server);
}

/* Parameters described in place, a result described by the handler, read into variables. */
static void test_described_calls(void) {
  cw_server* server = start_server(NULL);
  cw_client* client = make_client(cw_server_url(server), NULL);
  cw_value* result = NULL;
  cw_error err;
  const char* name = NULL;
  const char* tag = NULL;
  size_t name_len = 0, tag_len = 0;
  int32_t age = 0, sum = 0;
  cw_out tags[2];
  cw_out_member members[3];
  cw_out whole;

  {
    const cw_arg params[] = {cw_arg_int(5), cw_arg_int(3)};
    CHECK_STATUS(cw_client_call_args(client, "sample.add", params, 2, NULL, &result, &err), CW_OK);
    CHECK_STATUS(cw_value_get_int(result, &sum), CW_OK);
    CHECK(sum == 8);
    cw_value_free(result);
    result = NULL;
  }
  {
    const cw_arg params[] = {cw_arg_cstring("Ada"), cw_arg_int(36)};
    CHECK_STATUS(cw_client_call_args(client, "person", params, 2, NULL, &result, &err), CW_OK);
    tags[0] = cw_out_skip();
    tags[1] = cw_out_string(&tag, &tag_len);
    members[0].name = "name";
    members[0].value = cw_out_string(&name, &name_len);
    members[0].optional = 0;
    members[1].name = "age";
    members[1].value = cw_out_int(&age);
    members[1].optional = 0;
    members[2].name = "tags";
    members[2].value = cw_out_array(tags, 2);
    members[2].optional = 0;
    whole = cw_out_struct(members, 3);
    CHECK_STATUS(cw_value_read(result, &whole, &err), CW_OK);
    CHECK(name_len == 3 && memcmp(name, "Ada", 3) == 0 && age == 36);
    CHECK(tag_len == 3 && memcmp(tag, "api", 3) == 0);
    cw_value_free(result);
    result = NULL;
  }
  /* A wrong description is refused before any I/O, naming the parameter. */
  {
    const cw_arg params[] = {cw_arg_int(1), cw_arg_cstring(NULL)};
    CHECK_STATUS(cw_client_call_args(client, "person", params, 2, NULL, &result, &err),
                 CW_INVALID_ARGUMENT);
    CHECK(result == NULL && strcmp(err.message, "params[1]: a NULL string") == 0);
    CHECK_STATUS(cw_client_call_args(client, "person", NULL, 1, NULL, &result, &err),
                 CW_INVALID_ARGUMENT);
    CHECK_STATUS(cw_client_call_args(client, NULL, params, 0, NULL, &result, &err),
                 CW_INVALID_ARGUMENT);
  }
  /* A handler's wrong description: its status becomes the fault the handler returns. */
  {
    const cw_arg params[] = {cw_arg_cstring(""), cw_arg_int(1)};
    CHECK_STATUS(cw_client_call_args(client, "person", params, 2, NULL, &result, &err), CW_FAULT);
    CHECK(result == NULL);
  }
  CHECK_STATUS(cw_client_call_args(client, "greeting", NULL, 0, NULL, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_string(result, &name, &name_len), CW_OK);
  CHECK(name_len == 5 && memcmp(name, "hello", 5) == 0);
  cw_value_free(result);
  cw_client_free(client);
  cw_server_free(server);
}

static void test_sync_calls(void) {
  cw_server* server = start_server(NULL);
  cw_client* client = make_client(cw_server_url(server), NULL);
  cw_value* result = NULL;
  cw_value* s = NULL;
  cw_error err;
  int32_t n = 0;
  double d = 0;

  CHECK_STATUS(call_ints(client, "sample.add", 5, 7, 2, &result, &err), CW_OK);
  CHECK(err.status == CW_OK && err.message[0] == '\0');
  CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
  CHECK(n == 12);
  cw_value_free(result);

  /* The signature: the dispatcher answers before the handler runs. */
  CHECK_STATUS(call_ints(client, "sample.add", 5, 7, 1, &result, &err), CW_FAULT);
  CHECK(err.fault_code == -32602);
  cw_value_new_string("x", 1, &s);
  expect_fault(client, "sample.add", s, -32602, "sample.add");

  /* No signature: the handler's getter records the -32602 message. */
  expect_fault(client, "twice", s, -32602, "twice: parameter 1 must be double, got string");
  expect_fault(client, "twice", NULL, -32602, "twice: parameter 1 is missing (0 given)");
  cw_value_free(s);
  cw_value_new_double(1.25, &s);
  {
    const cw_value* params[1];
    params[0] = s;
    CHECK_STATUS(cw_client_call(client, "twice", params, 1, NULL, &result, &err), CW_OK);
    CHECK_STATUS(cw_value_get_double(result, &d), CW_OK);
    CHECK(d == 2.5);
    cw_value_free(result);
  }

  expect_fault(client, "fault", NULL, 42, "the answer is a fault");
  expect_fault(client, "bad_status", NULL, -32603, "bad_status failed: limit exceeded");
  expect_fault(client, "no.such.method", NULL, -32601, "no.such.method");

  CHECK_STATUS(cw_client_call(client, "nothing", NULL, 0, NULL, &result, &err), CW_OK);
  CHECK(cw_value_type(result) == CW_TYPE_NIL);
  cw_value_free(result);

  /* echo gives back every type, through cw_call_return_take. */
  {
    cw_value* arr = NULL;
    const cw_value* params[2];
    cw_value_new_array(&arr);
    cw_value_array_append(arr, s);
    params[0] = s;
    params[1] = arr;
    CHECK_STATUS(cw_client_call(client, "echo", params, 2, NULL, &result, &err), CW_OK);
    {
      const cw_value* got = NULL;
      CHECK_STATUS(cw_value_array_get(result, 0, &got), CW_OK);
      CHECK(cw_value_equal(got, s));
      CHECK_STATUS(cw_value_array_get(result, 1, &got), CW_OK);
      CHECK(cw_value_equal(got, arr));
    }
    cw_value_free(result);
    cw_value_free(arr);
  }
  cw_value_free(s);

  cw_client_free(client);
  cw_server_free(server);
}

static void test_introspection(void) {
  cw_server* server = start_server(NULL);
  cw_client* client = make_client(cw_server_url(server), NULL);
  cw_value *name = NULL, *result = NULL;
  const cw_value *sig = NULL, *type = NULL;
  const cw_value* params[1];
  const char* text;
  size_t len, n;
  cw_error err;

  cw_value_new_string("sample.add", 10, &name);
  params[0] = name;
  CHECK_STATUS(cw_client_call(client, "system.methodSignature", params, 1, NULL, &result, &err),
               CW_OK);
  CHECK_STATUS(cw_value_array_size(result, &n), CW_OK);
  CHECK(n == 1);
  CHECK_STATUS(cw_value_array_get(result, 0, &sig), CW_OK);
  CHECK_STATUS(cw_value_array_size(sig, &n), CW_OK);
  CHECK(n == 3);
  CHECK_STATUS(cw_value_array_get(sig, 0, &type), CW_OK);
  CHECK_STATUS(cw_value_get_string(type, &text, &len), CW_OK);
  CHECK(len == 3 && memcmp(text, "int", 3) == 0);
  cw_value_free(result);

  CHECK_STATUS(cw_client_call(client, "system.methodHelp", params, 1, NULL, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_string(result, &text, &len), CW_OK);
  CHECK(len == 18 && memcmp(text, "Adds two integers.", 18) == 0);
  cw_value_free(result);
  cw_value_free(name);

  cw_client_free(client);
  cw_server_free(server);
}

static void test_context_headers_and_auth(void) {
  cw_server_options so;
  cw_client_options co;
  cw_call_options call_options;
  cw_header tag;
  cw_server* server;
  cw_client* client;
  cw_value* result = NULL;
  cw_error err;
  const char* text;
  size_t len;

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  so.authenticate = check_password;
  so.realm = "tests";
  server = start_server(&so);

  /* No credentials: HTTP 401. */
  client = make_client(cw_server_url(server), NULL);
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, NULL, &result, &err), CW_HTTP_STATUS);
  CHECK(err.http_status == 401 && err.fault_code == -32300);
  cw_client_free(client);

  cw_client_options_init(&co);
  co.user = "alice";
  co.password = "wrong!";
  client = make_client(cw_server_url(server), &co);
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, NULL, &result, &err), CW_HTTP_STATUS);
  CHECK(err.http_status == 401 && err.fault_code == -32300);
  cw_client_free(client);

  co.password = "secret";
  client = make_client(cw_server_url(server), &co);
  memset(&call_options, 0, sizeof call_options);
  call_options.struct_size = sizeof call_options;
  tag.name = "X-Tag";
  tag.value = "tagged";
  call_options.headers = &tag;
  call_options.header_count = 1;
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, &call_options, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_string(result, &text, &len), CW_OK);
  CHECK(len > 10 && strncmp(text, "127.0.0.1:", 10) == 0);
  CHECK(strstr(text, "|alice|tagged|whoami") != NULL);
  cw_value_free(result);

  /* Every field, in the order sent: the client's own, then the call's. */
  CHECK_STATUS(cw_client_call(client, "headers", NULL, 0, &call_options, &result, &err), CW_OK);
  {
    size_t i, n = 0, tag_at = 0, host_at = 0;
    CHECK_STATUS(cw_value_array_size(result, &n), CW_OK);
    for (i = 0; i < n; ++i) {
      const cw_value* item = NULL;
      cw_value_array_get(result, i, &item);
      if (cw_value_get_string(item, &text, &len) != CW_OK) continue;
      if (len == 13 && strncmp(text, "X-Tag: tagged", 13) == 0) tag_at = i + 1;
      if (len > 6 && strncmp(text, "Host: ", 6) == 0) host_at = i + 1;
    }
    CHECK(n >= 4 && tag_at > 0 && host_at > 0 && host_at < tag_at);
  }
  cw_value_free(result);

  /* A header that would inject another field is refused before anything is sent. */
  tag.value = "a\r\nX-Evil: 1";
  result = NULL;
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, &call_options, &result, &err),
               CW_INVALID_ARGUMENT);
  CHECK(result == NULL);
  cw_client_free(client);
  cw_server_free(server);
}

static void test_deadlines_and_transport_errors(void) {
  cw_server* server = start_server(NULL);
  cw_client* client = make_client(cw_server_url(server), NULL);
  cw_call_options options;
  cw_value* result = NULL;
  cw_error err;
  char url[128];
  int32_t n;

  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.timeout_ms = 100;
  {
    cw_value* ms = NULL;
    const cw_value* params[1];
    cw_value_new_int(600, &ms);
    params[0] = ms;
    CHECK_STATUS(cw_client_call(client, "sleep", params, 1, &options, &result, &err), CW_TIMEOUT);
    CHECK(err.status == CW_TIMEOUT && err.message[0] != '\0');
    cw_value_free(ms);
  }
  /* The client goes on working after a timeout. */
  CHECK_STATUS(call_ints(client, "sample.add", 1, 2, 2, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
  CHECK(n == 3);
  cw_value_free(result);
  cw_client_free(client);

  /* A wrong path: HTTP 404. */
  snprintf(url, sizeof url, "http://127.0.0.1:%u/nowhere", (unsigned)cw_server_port(server));
  client = make_client(url, NULL);
  CHECK_STATUS(cw_client_call(client, "sample.add", NULL, 0, NULL, &result, &err), CW_HTTP_STATUS);
  CHECK(err.http_status == 404);
  cw_client_free(client);

  /* Nobody listening any more: connect failed. */
  snprintf(url, sizeof url, "%s", cw_server_url(server));
  cw_server_free(server);
  client = make_client(url, NULL);
  result = NULL;
  CHECK_STATUS(cw_client_call(client, "sample.add", NULL, 0, NULL, &result, &err),
               CW_CONNECT_FAILED);
  CHECK(result == NULL);
  cw_client_free(client);
}

struct async_state {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done, ok, sum, failed;
};

static void on_done(cw_status status, const cw_value* result, const cw_error* error,
                    void* user_data) {
  struct async_state* s = (struct async_state*)user_data;
  int32_t n = 0;
  if (status == CW_OK) cw_value_get_int(result, &n);
  pthread_mutex_lock(&s->lock);
  ++s->done;
  if (status == CW_OK && error->status == CW_OK) {
    ++s->ok;
    s->sum += n;
  } else {
    ++s->failed;
  }
  pthread_cond_signal(&s->cond);
  pthread_mutex_unlock(&s->lock);
}

static void test_async_calls(void) {
  enum { kCalls = 200 };
  cw_server* server = start_server(NULL);
  cw_client_options co;
  cw_client* client;
  struct async_state state;
  cw_value* p[2];
  cw_error err;
  int i, want = 0;

  cw_client_options_init(&co);
  co.max_connections = 4;
  client = make_client(cw_server_url(server), &co);
  memset(&state, 0, sizeof state);
  pthread_mutex_init(&state.lock, NULL);
  pthread_cond_init(&state.cond, NULL);

  for (i = 0; i < kCalls; ++i) {
    cw_value_new_int(i, &p[0]);
    cw_value_new_int(1, &p[1]);
    want += i + 1;
    CHECK_STATUS(cw_client_call_async(client, "sample.add", (const cw_value* const*)p, 2, NULL,
                                      on_done, &state, &err),
                 CW_OK);
    cw_value_free(p[0]); /* the call took copies */
    cw_value_free(p[1]);
  }
  /* One that fails: a fault reaches the callback too. */
  CHECK_STATUS(cw_client_call_async(client, "fault", NULL, 0, NULL, on_done, &state, &err), CW_OK);
  pthread_mutex_lock(&state.lock);
  while (state.done < kCalls + 1) pthread_cond_wait(&state.cond, &state.lock);
  pthread_mutex_unlock(&state.lock);
  CHECK(state.ok == kCalls && state.failed == 1 && state.sum == want);

  /* Misuse: nothing starts, the callback never runs. */
  CHECK_STATUS(cw_client_call_async(client, NULL, NULL, 0, NULL, on_done, &state, &err),
               CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_client_call_async(client, "x", NULL, 0, NULL, NULL, &state, &err),
               CW_INVALID_ARGUMENT);

  /* Freeing the client waits for calls in flight: their callbacks have run on return. */
  {
    cw_value* ms = NULL;
    const cw_value* params[1];
    cw_value_new_int(100, &ms);
    params[0] = ms;
    for (i = 0; i < 3; ++i) {
      CHECK_STATUS(cw_client_call_async(client, "sleep", params, 1, NULL, on_done, &state, &err),
                   CW_OK);
    }
    /* xmlrpc-c's event_loop_finish_timeout: too short a wait says CW_TIMEOUT, a long enough
     * one returns once every callback has run. */
    CHECK_STATUS(cw_client_wait_async(client, 1, &err), CW_TIMEOUT);
    CHECK_STATUS(cw_client_wait_async(client, 10000, &err), CW_OK);
    pthread_mutex_lock(&state.lock);
    CHECK(state.done == kCalls + 4);
    pthread_mutex_unlock(&state.lock);
    for (i = 0; i < 3; ++i) {
      CHECK_STATUS(cw_client_call_async(client, "sleep", params, 1, NULL, on_done, &state, &err),
                   CW_OK);
    }
    cw_value_free(ms);
  }
  cw_client_free(client);
  CHECK(state.done == kCalls + 7 && state.ok == kCalls + 6);
  pthread_mutex_destroy(&state.lock);
  pthread_cond_destroy(&state.cond);
  cw_server_free(server);
}

static void test_multicall_latch(void) {
  cw_server* server = start_server(NULL);
  cw_client* client = make_client(cw_server_url(server), NULL);
  cw_value *calls = NULL, *entry = NULL, *name = NULL, *params = NULL, *result = NULL;
  const cw_value* item = NULL;
  const cw_value* code = NULL;
  const cw_value* args[1];
  cw_error err;
  int32_t n;
  int k;

  cw_value_new_array(&calls);
  for (k = 0; k < 2; ++k) {
    const char* method = k == 0 ? "login" : "count";
    cw_value_new_struct(&entry);
    cw_value_new_string(method, strlen(method), &name);
    cw_value_new_array(&params);
    cw_value_struct_set(entry, "methodName", name);
    cw_value_struct_set(entry, "params", params);
    cw_value_array_append(calls, entry);
    cw_value_free(entry);
    cw_value_free(name);
    cw_value_free(params);
  }
  args[0] = calls;
  counter_calls = 0;
  CHECK_STATUS(cw_client_call(client, "system.multicall", args, 1, NULL, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_array_get(result, 1, &item), CW_OK);
  CHECK(cw_value_type(item) == CW_TYPE_STRUCT);
  CHECK_STATUS(cw_value_struct_get(item, "faultCode", &code), CW_OK);
  CHECK_STATUS(cw_value_get_int(code, &n), CW_OK);
  CHECK(n == 403);
  CHECK(counter_calls == 0); /* the latched entry never ran */
  cw_value_free(result);
  cw_value_free(calls);
  cw_client_free(client);
  cw_server_free(server);
}

static void test_client_multicall(void) {
  cw_server* server = start_server(NULL);
  cw_client* client = make_client(cw_server_url(server), NULL);
  cw_value *one = NULL, *two = NULL, *text = NULL;
  const cw_value* add_params[2];
  const cw_value* bad_params[2];
  cw_multicall_entry calls[4];
  cw_multicall_result results[4];
  cw_error err;
  int32_t n = 0;
  int i;

  cw_value_new_int(1, &one);
  cw_value_new_int(2, &two);
  cw_value_new_string("x", 1, &text);
  add_params[0] = one;
  add_params[1] = two;
  bad_params[0] = one;
  bad_params[1] = text;
  calls[0].method = "sample.add";
  calls[0].params = add_params;
  calls[0].param_count = 2;
  calls[1].method = "fault";
  calls[1].params = NULL;
  calls[1].param_count = 0;
  calls[2].method = "no.such.method";
  calls[2].params = NULL;
  calls[2].param_count = 0;
  calls[3].method = "sample.add";
  calls[3].params = bad_params;
  calls[3].param_count = 2;
  memset(results, 0x5a, sizeof results);

  CHECK_STATUS(cw_client_multicall(client, calls, 4, NULL, results, &err), CW_OK);
  CHECK(results[0].error.status == CW_OK && results[0].result != NULL);
  CHECK_STATUS(cw_value_get_int(results[0].result, &n), CW_OK);
  CHECK(n == 3);
  CHECK(results[1].result == NULL && results[1].error.status == CW_FAULT &&
        results[1].error.fault_code == 42);
  CHECK(strcmp(results[1].error.message, "the answer is a fault") == 0);
  CHECK(results[2].result == NULL && results[2].error.fault_code == -32601);
  CHECK(results[3].result == NULL && results[3].error.fault_code == -32602);
  for (i = 0; i < 4; ++i) cw_value_free(results[i].result);

  /* A bad entry: nothing is sent, `results` untouched. */
  calls[2].method = NULL;
  memset(results, 0, sizeof results);
  results[0].error.fault_code = 77; /* a mark that must survive */
  CHECK_STATUS(cw_client_multicall(client, calls, 4, NULL, results, &err), CW_INVALID_ARGUMENT);
  CHECK(results[0].result == NULL && results[0].error.fault_code == 77);
  CHECK_STATUS(cw_client_multicall(client, calls, 0, NULL, NULL, &err), CW_OK);

  cw_value_free(one);
  cw_value_free(two);
  cw_value_free(text);
  cw_client_free(client);
  cw_server_free(server);
}

/* A server with only the deadline handlers, and `options` as given. */
static cw_server* deadline_server(const cw_server_options* options) {
  cw_server* server = NULL;
  cw_error err;
  CHECK_STATUS(cw_server_new(options, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "remaining", remaining, NULL, "I:", NULL, &err), CW_OK);
  CHECK_STATUS(
      cw_server_add_method(server, "until_deadline", until_deadline, NULL, "i:", NULL, &err),
      CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", NULL, &err),
               CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_OK);
  return server;
}

static int64_t call_remaining(cw_client* client) {
  cw_value* result = NULL;
  cw_error err;
  int64_t left = -1;
  CHECK_STATUS(cw_client_call(client, "remaining", NULL, 0, NULL, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_i8(result, &left), CW_OK);
  cw_value_free(result);
  return left;
}

static void test_deadlines_in_handlers(void) {
  cw_server_options so;
  cw_client_options co;
  cw_server* server;
  cw_client* client;
  cw_value* result = NULL;
  cw_error err;
  int64_t left;

  /* No deadline anywhere. */
  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  server = deadline_server(&so);
  client = make_client(cw_server_url(server), NULL);
  CHECK(call_remaining(client) == INT64_MAX);
  cw_client_free(client);

  /* The client sends its time left: the handler sees at most that. */
  cw_client_options_init(&co);
  co.timeout_ms = 5000;
  co.send_timeout = 1;
  client = make_client(cw_server_url(server), &co);
  left = call_remaining(client);
  CHECK(left > 0 && left <= 5000);
  cw_client_free(client);
  cw_server_free(server);

  /* The server's own call timeout; a handler polls it to the end; the multicall entries after
   * the deadline are answered -32300 without running. */
  so.call_timeout_ms = 300;
  server = deadline_server(&so);
  client = make_client(cw_server_url(server), NULL);
  left = call_remaining(client);
  CHECK(left > 0 && left <= 300);
  CHECK_STATUS(cw_client_call(client, "until_deadline", NULL, 0, NULL, &result, &err), CW_OK);
  cw_value_free(result);
  {
    cw_multicall_entry calls[2];
    cw_multicall_result results[2];
    memset(calls, 0, sizeof calls);
    calls[0].method = "until_deadline";
    calls[1].method = "remaining";
    CHECK_STATUS(cw_client_multicall(client, calls, 2, NULL, results, &err), CW_OK);
    CHECK(results[0].error.status == CW_OK);
    CHECK(results[1].result == NULL && results[1].error.fault_code == -32300);
    CHECK(strstr(results[1].error.message, "deadline exceeded") != NULL);
    cw_value_free(results[0].result);
  }
  cw_client_free(client);
  cw_server_free(server);

  /* A caller built against the first header (struct_size without call_timeout_ms): the field
   * past its struct is never read, so the server has no deadline. */
  so.struct_size = offsetof(cw_server_options, call_timeout_ms);
  so.call_timeout_ms = 1;
  server = deadline_server(&so);
  client = make_client(cw_server_url(server), NULL);
  CHECK(call_remaining(client) == INT64_MAX);
  cw_client_free(client);
  cw_server_free(server);
}

struct access_log {
  pthread_mutex_t lock;
  int entries, answered_200, refused_404, saw_add;
};

#if CW_TEST_POSIX_ONLY
static void log_access(const cw_access_log_entry* e, void* user_data) {
  struct access_log* log = (struct access_log*)user_data;
  pthread_mutex_lock(&log->lock);
  ++log->entries;
  if (e->http_status == 200) ++log->answered_200;
  if (e->http_status == 404) ++log->refused_404;
  /* NUL-terminated, so strcmp is safe. */
  if (e->method[e->method_len] == '\0' && e->peer[e->peer_len] == '\0' &&
      e->user[e->user_len] == '\0' && strcmp(e->method, "sample.add") == 0 && e->fault_code == 0 &&
      e->request_bytes > 0 && e->response_bytes > 0 && e->duration_ns >= 0 &&
      strcmp(e->peer, "unix") == 0)
    ++log->saw_add;
  pthread_mutex_unlock(&log->lock);
}
#endif

struct error_log {
  pthread_mutex_t lock;
  int entries;
  char last[512];
};

#if CW_TEST_POSIX_ONLY
static void log_error(const char* peer, const char* message, void* user_data) {
  struct error_log* log = (struct error_log*)user_data;
  pthread_mutex_lock(&log->lock);
  ++log->entries;
  snprintf(log->last, sizeof log->last, "%s %s", peer, message);
  pthread_mutex_unlock(&log->lock);
}
#endif

#if CW_TEST_POSIX_ONLY
/* HTTPS with certificates made by the openssl program now: the client trusts a hashed CA
 * directory (openssl rehash), the server takes TLS 1.3 only and client certificates from
 * its own hashed directory, and reports the one it refuses to error_log. */
static void test_tls_options_end_to_end(void) {
  char dir[] = "/tmp/cw-capi-tls-XXXXXX";
  char command[1024], path[4][160], ca_dir[96], url[128];
  const char* names[2] = {"server", "stranger"};
  struct error_log log = {PTHREAD_MUTEX_INITIALIZER, 0, ""};
  cw_server_options so;
  cw_client_options co;
  cw_tls_options server_tls, client_tls;
  cw_server* server = NULL;
  cw_client* client = NULL;
  cw_value* result = NULL;
  cw_error err;
  int i, entries = 0;
  CHECK(mkdtemp(dir) != NULL);
  for (i = 0; i < 2; ++i) {
    snprintf(path[2 * i], sizeof path[0], "%s/%s.pem", dir, names[i]);
    snprintf(path[2 * i + 1], sizeof path[0], "%s/%s.key", dir, names[i]);
    snprintf(command, sizeof command,
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
             "-subj /CN=%s -addext subjectAltName=IP:127.0.0.1 -keyout %s -out %s "
             ">/dev/null 2>&1",
             names[i], path[2 * i + 1], path[2 * i]);
    if (system(command) != 0) {
      fprintf(stderr, "openssl could not make a certificate: skipped\n");
      return;
    }
  }
  /* One directory of trusted CAs for both sides: the server's own certificate. */
  snprintf(ca_dir, sizeof ca_dir, "%s/cas", dir);
  snprintf(command, sizeof command, "mkdir %s && cp %s %s/ && openssl rehash %s >/dev/null 2>&1",
           ca_dir, path[0], ca_dir, ca_dir);
  CHECK(system(command) == 0);

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  so.threads = 1;
  cw_tls_options_init(&server_tls);
  server_tls.cert_file = path[0];
  server_tls.key_file = path[1];
  server_tls.ca_dir = ca_dir;
  server_tls.min_version = CW_TLS_1_3;
  server_tls.ciphersuites = "TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256";
  so.tls = &server_tls;
  so.error_log = log_error;
  so.error_log_data = &log;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", NULL, &err),
               CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "whoami", whoami, NULL, "s:", NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_OK);
  snprintf(url, sizeof url, "https://127.0.0.1:%u/RPC2", (unsigned)cw_server_port(server));

  /* Trusted by the directory, showing a certificate the server trusts (its own). */
  cw_client_options_init(&co);
  /* The same struct on both sides: this one differs from the server's in its suites only. */
  client_tls = server_tls;
  client_tls.ciphersuites = NULL;
  co.tls = &client_tls;
  client = make_client(url, &co);
  CHECK_STATUS(call_ints(client, "sample.add", 2, 3, 2, &result, &err), CW_OK);
  CHECK(result && cw_value_type(result) == CW_TYPE_INT);
  cw_value_free(result);
  result = NULL;
  /* The handler sees the verified subject (cw_call_tls_subject). */
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, NULL, &result, &err), CW_OK);
  {
    const char* text = NULL;
    size_t len = 0;
    char copy[512];
    CHECK_STATUS(cw_value_get_string(result, &text, &len), CW_OK);
    snprintf(copy, sizeof copy, "%.*s", (int)len, text ? text : "");
    CHECK(strstr(copy, "CN=server|") != NULL); /* peer|user+subject|tag|method */
  }
  cw_value_free(result);
  result = NULL;
  cw_client_free(client);

  /* No suite in common: a TLS error. */
  client_tls.ciphersuites = "TLS_CHACHA20_POLY1305_SHA256";
  client = make_client(url, &co);
  CHECK_STATUS(call_ints(client, "sample.add", 2, 3, 2, &result, &err), CW_TLS_ERROR);
  cw_client_free(client);
  client_tls.ciphersuites = NULL;

  /* A certificate the server does not trust: refused, and the reason in its error log. */
  client_tls.cert_file = path[2];
  client_tls.key_file = path[3];
  client = make_client(url, &co);
  CHECK(call_ints(client, "sample.add", 2, 3, 2, &result, &err) != CW_OK);
  cw_client_free(client);
  for (i = 0; i < 200; ++i) {
    pthread_mutex_lock(&log.lock);
    entries = log.entries;
    pthread_mutex_unlock(&log.lock);
    if (entries >= 2) break;
    sleep_ms(10);
  }
  CHECK(entries >= 2);
  pthread_mutex_lock(&log.lock);
  CHECK(strstr(log.last, "127.0.0.1:") == log.last);
  CHECK(strstr(log.last, "TLS handshake failed") != NULL);
  CHECK(strstr(log.last, "self-signed certificate") != NULL);
  pthread_mutex_unlock(&log.lock);
  cw_server_free(server);
  snprintf(command, sizeof command, "rm -rf %s", dir);
  CHECK(system(command) == 0);
}
#endif

#if CW_TEST_POSIX_ONLY
/* A Unix socket, a path of our own, the access log, and client-wide headers. */
static void test_unix_socket_paths_log_and_headers(void) {
  static const char* const kPaths[] = {"/custom"};
  char dir[] = "/tmp/cw-capi-XXXXXX";
  char listen[96], url[96];
  cw_server_options so;
  cw_client_options co;
  cw_header tag;
  struct access_log log;
  cw_server* server;
  cw_client* client;
  cw_value* result = NULL;
  const char* text;
  size_t len;
  cw_error err;
  int32_t n = 0;

  CHECK(mkdtemp(dir) != NULL);
  snprintf(listen, sizeof listen, "unix:%s/s.sock", dir);
  memset(&log, 0, sizeof log);
  pthread_mutex_init(&log.lock, NULL);
  cw_server_options_init(&so);
  so.listen = listen;
  so.paths = kPaths;
  so.path_count = 1;
  so.access_log = log_access;
  so.access_log_data = &log;
  server = start_server(&so);
  CHECK(strcmp(cw_server_url(server), listen) == 0);
  CHECK(cw_server_port(server) == 0);

  cw_client_options_init(&co);
  co.unix_path = "/custom";
  tag.name = "X-Tag";
  tag.value = "from-client";
  co.headers = &tag;
  co.header_count = 1;
  client = make_client(listen, &co);
  CHECK_STATUS(call_ints(client, "sample.add", 20, 22, 2, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
  CHECK(n == 42);
  cw_value_free(result);
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, NULL, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_string(result, &text, &len), CW_OK);
  CHECK(len > 5 && strncmp(text, "unix||from-client|whoami", len) == 0);
  cw_value_free(result);
  cw_client_free(client);

  /* The default path is not served any more. */
  client = make_client(listen, NULL);
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, NULL, &result, &err), CW_HTTP_STATUS);
  CHECK(err.http_status == 404);
  cw_client_free(client);

  cw_server_free(server); /* removes the socket file */
  snprintf(url, sizeof url, "%s/s.sock", dir);
  CHECK(access(url, F_OK) != 0);
  CHECK(rmdir(dir) == 0);
  CHECK(log.entries == 3 && log.answered_200 == 2 && log.refused_404 == 1 && log.saw_add == 1);
  pthread_mutex_destroy(&log.lock);

  /* Misuse of the new fields. */
  cw_server_options_init(&so);
  so.path_count = 1;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);
  cw_client_options_init(&co);
  co.header_count = 1;
  CHECK_STATUS(cw_client_new("http://127.0.0.1:1/", &co, &client, &err), CW_INVALID_ARGUMENT);
}
#endif

static void* run_server(void* arg) {
  cw_error err;
  cw_status* st = (cw_status*)malloc(sizeof(cw_status));
  *st = cw_server_run((cw_server*)arg, &err);
  return st;
}

static void test_run_and_stop_from_another_thread(void) {
  cw_server_options so;
  cw_server* server = NULL;
  cw_client* client;
  cw_value* result = NULL;
  cw_error err;
  pthread_t thread;
  void* ret = NULL;
  int tries;

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "count", count_call, &counter_calls, NULL, NULL, &err),
               CW_OK);
  CHECK(pthread_create(&thread, NULL, run_server, server) == 0);
  for (tries = 0; tries < 500 && cw_server_port(server) == 0; ++tries) sleep_ms(10);
  CHECK(cw_server_port(server) != 0);
  client = make_client(cw_server_url(server), NULL);
  CHECK_STATUS(cw_client_call(client, "count", NULL, 0, NULL, &result, &err), CW_OK);
  cw_value_free(result);
  cw_server_stop(server);
  cw_server_stop(server); /* idempotent */
  CHECK(pthread_join(thread, &ret) == 0);
  CHECK(ret != NULL && *(cw_status*)ret == CW_OK);
  free(ret);
  CHECK_STATUS(cw_client_call(client, "count", NULL, 0, NULL, &result, &err), CW_CONNECT_FAILED);
  cw_client_free(client);
  cw_server_free(server);
}

static void test_options_and_misuse(void) {
  cw_server_options so;
  cw_client_options co;
  cw_tls_options tls;
  cw_server* server = NULL;
  cw_client* client = NULL;
  cw_value* result = NULL;
  cw_error err;

  /* A zeroed struct with only its size is every default. */
  memset(&so, 0, sizeof so);
  so.struct_size = sizeof so;
  so.listen = "127.0.0.1:0";
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK(cw_server_port(server) == 0 && strcmp(cw_server_url(server), "") == 0);

  /* Registration errors say why. */
  CHECK_STATUS(cw_server_add_method(server, "m", sample_add, NULL, "i", NULL, &err),
               CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "R:PARAMS") != NULL);
  CHECK_STATUS(cw_server_add_method(server, "m", sample_add, NULL, "i:iz", NULL, &err),
               CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "'z'") != NULL);
  CHECK_STATUS(cw_server_add_method(server, "system.x", sample_add, NULL, NULL, NULL, &err),
               CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_server_add_method(server, "", sample_add, NULL, NULL, NULL, &err),
               CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_server_add_method(server, "m", NULL, NULL, NULL, NULL, &err),
               CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_server_add_method(server, "m", sample_add, NULL, "i:ii,s:", NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "m", sample_add, NULL, NULL, NULL, &err),
               CW_INVALID_ARGUMENT); /* already registered */
  CHECK_STATUS(cw_server_start(server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_server_add_method(server, "late", sample_add, NULL, NULL, NULL, &err),
               CW_INVALID_ARGUMENT);
  cw_server_free(server);

  /* Sizes: too small and too large are refused; the first version's size is accepted. */
  so.struct_size = sizeof(size_t);
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "struct_size") != NULL);
  so.struct_size = sizeof so + 8;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);
  so.struct_size = sizeof so;
  so.dialect = (cw_dialect)7;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);

  /* Options the server checks when it starts. */
  cw_server_options_init(&so);
  so.listen = "not an address";
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT);
  CHECK(err.message[0] != '\0');
  cw_server_free(server);
  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  cw_tls_options_init(&tls);
  tls.cert_file = "/nonexistent/cert.pem";
  tls.key_file = "/nonexistent/key.pem";
  so.tls = &tls;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_TLS_ERROR);
  CHECK(strstr(err.message, "/nonexistent/cert.pem") != NULL);
  CHECK(strstr(err.message, "tls.cert_file") != NULL);
  cw_server_free(server);
  tls.key_file = NULL;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "tls.key_file") != NULL);
  cw_server_free(server);
  /* The TLS options are an options struct of their own: their size is checked too. */
  tls.struct_size = 0;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "cw_tls_options") != NULL);
  tls.struct_size = sizeof tls + 1;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);
  {
    /* A client certificate is read when the client is made (mutual TLS). */
    cw_client_options co;
    cw_client* client = NULL;
    cw_client_options_init(&co);
    cw_tls_options_init(&tls);
    co.tls = &tls;
    tls.cert_file = "/nonexistent/client.pem";
    tls.key_file = "/nonexistent/client.key";
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_TLS_ERROR);
    CHECK(strstr(err.message, "/nonexistent/client.pem") != NULL);
    CHECK(client == NULL);
    tls.key_file = NULL; /* a certificate without its key */
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "tls.key_file") != NULL);
    tls.struct_size = 3;
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "cw_tls_options") != NULL);

    /* TLS settings are checked when the client is made, with the culprit named. */
    cw_tls_options_init(&tls);
    tls.ca_dir = "/nonexistent/cas";
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_TLS_ERROR);
    CHECK(strstr(err.message, "/nonexistent/cas") != NULL);
    CHECK(strstr(err.message, "tls.ca_dir") != NULL);
    cw_tls_options_init(&tls);
    tls.min_version = (cw_tls_version)11;
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "tls.min_version") != NULL);
    tls.min_version = (cw_tls_version)(256 + 12); /* not 1.2 by truncation either */
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_INVALID_ARGUMENT);
    tls.min_version = CW_TLS_1_3;
    tls.ciphers = "ECDHE+AESGCM:NO-SUCH-CIPHER";
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "NO-SUCH-CIPHER") != NULL);
    CHECK(strstr(err.message, "tls.ciphers") != NULL);
    tls.ciphers = "ECDHE+AESGCM";
    tls.ciphersuites = "TLS_NO_SUCH_SUITE";
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "TLS_NO_SUCH_SUITE") != NULL);
    CHECK(strstr(err.message, "tls.ciphersuites") != NULL);
    tls.ciphersuites = "TLS_AES_256_GCM_SHA384";
    CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_OK);
    cw_client_free(client);
    client = NULL;
  }
  /* The server's: a version it does not know, a cipher list that selects nothing. */
  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  cw_tls_options_init(&tls);
  tls.min_version = (cw_tls_version)10;
  so.tls = &tls;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "tls.min_version") != NULL);
  cw_server_free(server);
  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  cw_tls_options_init(&tls);
  tls.cert_file = "/nonexistent/cert.pem";
  tls.key_file = "/nonexistent/key.pem";
  tls.ciphers = "NOPE";
  so.tls = &tls;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "NOPE") != NULL);
  cw_server_free(server);
  tls.ciphers = NULL;
  tls.ca_dir = "/nonexistent/cas";
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_TLS_ERROR); /* the certificate, first */
  cw_server_free(server);

  /* Client misuse. */
  CHECK_STATUS(cw_client_new("ftp://example.org/", NULL, &client, &err), CW_INVALID_ARGUMENT);
  CHECK(client == NULL && err.message[0] != '\0');
  CHECK_STATUS(cw_client_new(NULL, NULL, &client, &err), CW_INVALID_ARGUMENT);
  cw_client_options_init(&co);
  co.struct_size = 3;
  CHECK_STATUS(cw_client_new("http://127.0.0.1:1/", &co, &client, &err), CW_INVALID_ARGUMENT);
  cw_client_options_init(&co);
  cw_tls_options_init(&tls);
  tls.ca_file = "/nonexistent/ca.pem";
  co.tls = &tls;
  CHECK_STATUS(cw_client_new("https://127.0.0.1:1/", &co, &client, &err), CW_TLS_ERROR);
  CHECK(strstr(err.message, "tls.ca_file") != NULL);
  client = make_client("http://127.0.0.1:1/RPC2", NULL);
  CHECK_STATUS(cw_client_call(client, NULL, NULL, 0, NULL, &result, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_client_call(client, "m", NULL, 2, NULL, &result, &err), CW_INVALID_ARGUMENT);
  {
    const cw_value* params[1] = {NULL};
    CHECK_STATUS(cw_client_call(client, "m", params, 1, NULL, &result, &err), CW_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "params[0]") != NULL);
  }
  {
    cw_value* nan = NULL;
    const cw_value* params[1];
    cw_value_new_double(0.0 / 0.0, &nan);
    params[0] = nan;
    CHECK_STATUS(cw_client_call(client, "m", params, 1, NULL, &result, &err), CW_UNREPRESENTABLE);
    cw_value_free(nan);
  }
  cw_client_free(client);

  /* NULL-safe frees and NULL handles. */
  cw_server_free(NULL);
  cw_client_free(NULL);
  cw_server_stop(NULL);
  cw_server_wait(NULL);
  CHECK(cw_server_port(NULL) == 0 && strcmp(cw_server_url(NULL), "") == 0);
  CHECK_STATUS(cw_server_start(NULL, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_server_new(NULL, NULL, &err), CW_INVALID_ARGUMENT);
}

/* ---- a registry without a server ---- */

static const char kAddCall[] =
    "<?xml version=\"1.0\"?><methodCall><methodName>sample.add</methodName><params>"
    "<param><value><int>5</int></value></param><param><value><int>3</int></value></param>"
    "</params></methodCall>";

/* Dispatches `request`; the decoded result in *result (NULL for a fault, whose code goes in
 * *fault_code). */
static void dispatch(cw_registry* registry, const char* request, cw_value** result,
                     int32_t* fault_code) {
  char* response = NULL;
  size_t len = 0;
  cw_error err;
  *result = NULL;
  *fault_code = 0;
  CHECK_STATUS(cw_registry_dispatch(registry, request, strlen(request), &response, &len, &err),
               CW_OK);
  if (!response) return;
  CHECK(strlen(response) == len);
  if (cw_value_decode_response(response, len, result, &err) == CW_FAULT)
    *fault_code = err.fault_code;
  cw_free(response);
}

/* Lined up so that their first calls, each building a dispatcher, overlap. */
static pthread_barrier_t dispatch_start;

static void* dispatch_many(void* arg) {
  cw_registry* registry = (cw_registry*)arg;
  int i;
  pthread_barrier_wait(&dispatch_start);
  for (i = 0; i < 200; ++i) {
    cw_value* result = NULL;
    int32_t fault = 0, n = 0;
    dispatch(registry, kAddCall, &result, &fault);
    CHECK(result && cw_value_get_int(result, &n) == CW_OK && n == 8);
    cw_value_free(result);
  }
  return NULL;
}

static void test_registry_dispatch(void) {
  cw_registry* registry = NULL;
  cw_dispatch_options options;
  cw_value* result = NULL;
  int32_t fault = 0, n = 0;
  cw_error err;
  pthread_t threads[3];
  int i;
  char* response = NULL;

  cw_dispatch_options_init(&options);
  options.disable_introspection = 1;
  CHECK_STATUS(cw_registry_new(&options, &registry, &err), CW_OK);
  CHECK_STATUS(
      cw_registry_add_method(registry, "sample.add", sample_add, NULL, "i:ii", "Adds.", &err),
      CW_OK);
  CHECK_STATUS(cw_registry_add_method(registry, "fault", always_fault, NULL, NULL, NULL, &err),
               CW_OK);
  CHECK_STATUS(
      cw_registry_add_method(registry, "bad.signature", sample_add, NULL, "q:", NULL, &err),
      CW_INVALID_ARGUMENT);

  dispatch(registry, kAddCall, &result, &fault);
  CHECK(result && cw_value_get_int(result, &n) == CW_OK && n == 8);
  cw_value_free(result);
  dispatch(registry, "<methodCall><methodName>fault</methodName></methodCall>", &result, &fault);
  CHECK(result == NULL && fault == 42);
  dispatch(registry, "<methodCall>", &result, &fault);
  CHECK(result == NULL && fault == -32700);
  dispatch(registry,
           "<methodCall><methodName>sample.add</methodName><params><param><value>x</value>"
           "</param></params></methodCall>",
           &result, &fault);
  CHECK(result == NULL && fault == -32602);
  dispatch(registry, "<methodCall><methodName>system.listMethods</methodName></methodCall>",
           &result, &fault);
  CHECK(result == NULL && fault == -32601); /* introspection is off */

  /* Read-only once dispatching; any number of threads may dispatch at once. */
  CHECK_STATUS(cw_registry_add_method(registry, "late", sample_add, NULL, NULL, NULL, &err),
               CW_INVALID_ARGUMENT);
  pthread_barrier_init(&dispatch_start, NULL, 3);
  for (i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, dispatch_many, registry);
  for (i = 0; i < 3; ++i) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&dispatch_start);

  CHECK_STATUS(cw_registry_dispatch(NULL, kAddCall, 3, &response, NULL, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_registry_dispatch(registry, NULL, 3, &response, NULL, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_registry_dispatch(registry, kAddCall, 3, NULL, NULL, &err), CW_INVALID_ARGUMENT);
  options.dialect = (cw_dialect)7;
  CHECK_STATUS(cw_registry_new(&options, NULL, &err), CW_INVALID_ARGUMENT);
  {
    cw_registry* other = NULL;
    CHECK_STATUS(cw_registry_new(&options, &other, &err), CW_INVALID_ARGUMENT);
    CHECK(other == NULL);
  }
  CHECK(cw_serve_cgi(NULL) == 1);
  cw_registry_free(registry);
  cw_registry_free(NULL);
}

/* ---- the packet stream: listeners, the client, connections handed over ---- */

#if CW_TEST_POSIX_ONLY
static const char kPstreamAddCall[] =
    "<?xml version=\"1.0\"?><methodCall><methodName>sample.add</methodName><params>"
    "<param><value><int>5</int></value></param><param><value><int>7</int></value></param>"
    "</params></methodCall>";
#endif

#if CW_TEST_POSIX_ONLY
/* Sends sample.add(5, 7) as a packet on `fd` and reads until the answer's packet ends (5 s at
 * most): 1 when it holds 12. */
static int pstream_add_roundtrip(int fd) {
  char packet[512];
  char got[4096];
  size_t have = 0;
  int len = snprintf(packet, sizeof packet, "\033PKT%s\033END", kPstreamAddCall);
  if (len <= 0 || send(fd, packet, (size_t)len, 0) != len) return 0;
  while (have < sizeof got - 1) {
    struct pollfd p;
    ssize_t n;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    if (poll(&p, 1, 5000) <= 0) return 0;
    n = recv(fd, got + have, sizeof got - 1 - have, 0);
    if (n <= 0) return 0;
    have += (size_t)n;
    got[have] = '\0';
    if (have >= 8 && memcmp(got + have - 4, "\033END", 4) == 0)
      return strncmp(got, "\033PKT", 4) == 0 && strstr(got, "<int>12</int>") != NULL;
  }
  return 0;
}
#endif

#if CW_TEST_POSIX_ONLY
/* 1 when the peer of `fd` has closed (a read gives EOF within 5 s). */
static int peer_closed(int fd) {
  char sink[256];
  struct pollfd p;
  p.fd = fd;
  p.events = POLLIN;
  p.revents = 0;
  for (;;) {
    ssize_t n;
    if (poll(&p, 1, 5000) <= 0) return 0;
    n = recv(fd, sink, sizeof sink, 0);
    if (n == 0) return 1;
    if (n < 0) return 0;
  }
}
#endif

static void test_pstream_and_several_listeners(void) {
  char unix_path[64];
  char unix_url[80];
  const char* listens[3];
  cw_server_options so;
  cw_server* server;
  cw_client* client;
  cw_value* result = NULL;
  cw_error err;
  int32_t n = 0;

  snprintf(unix_path, sizeof unix_path, "/tmp/callwire-capi-pstream-%ld", (long)getpid());
  snprintf(unix_url, sizeof unix_url, "pstream+unix:%s", unix_path);
  listens[0] = "127.0.0.1:0";
  listens[1] = "pstream://127.0.0.1:0";
  listens[2] = unix_url;
  cw_server_options_init(&so);
  so.listen = "127.0.0.1:1"; /* replaced by listens */
  so.listens = listens;
  so.listen_count = CW_TEST_POSIX_ONLY ? 3 : 2; /* Windows: no Unix-domain sockets */
  server = start_server(&so);
  if (!server) return;
  CHECK(strncmp(cw_server_listener_url(server, 0), "http://127.0.0.1:", 17) == 0);
  CHECK(strcmp(cw_server_listener_url(server, 0), cw_server_url(server)) == 0);
  CHECK(cw_server_listener_port(server, 0) == cw_server_port(server));
  CHECK(strncmp(cw_server_listener_url(server, 1), "pstream://127.0.0.1:", 20) == 0);
  CHECK(cw_server_listener_port(server, 1) != 0);
  CHECK(cw_server_listener_port(server, 1) != cw_server_port(server));
#if CW_TEST_POSIX_ONLY
  CHECK(strcmp(cw_server_listener_url(server, 2), unix_url) == 0);
  CHECK(cw_server_listener_port(server, 2) == 0);
#endif
  CHECK(strcmp(cw_server_listener_url(server, 3), "") == 0);
  CHECK(cw_server_listener_port(server, 3) == 0);
  CHECK(strcmp(cw_server_listener_url(NULL, 0), "") == 0);

  /* The C client over the packet stream, TCP and Unix, and over HTTP to the same server. */
  client = make_client(cw_server_listener_url(server, 1), NULL);
  CHECK_STATUS(call_ints(client, "sample.add", 5, 7, 2, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
  CHECK(n == 12);
  cw_value_free(result);
  expect_fault(client, "fault", NULL, 42, "the answer is a fault");
  expect_fault(client, "no.such.method", NULL, -32601, "no.such.method");
  CHECK_STATUS(call_ints(client, "sample.add", 1, 2, 2, &result, &err), CW_OK); /* same conn */
  cw_value_free(result);
  cw_client_free(client);
  /* Asynchronous calls pipelined on one connection, then the liveness probe. */
  {
    cw_client_options co;
    struct async_state state;
    cw_value* p[2];
    int i, want = 0;
    cw_client_options_init(&co);
    co.max_connections = 1;
    co.pipeline_depth = 16;
    client = make_client(cw_server_listener_url(server, 1), &co);
    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.lock, NULL);
    pthread_cond_init(&state.cond, NULL);
    for (i = 0; i < 100; ++i) {
      cw_value_new_int(i, &p[0]);
      cw_value_new_int(2, &p[1]);
      want += i + 2;
      CHECK_STATUS(cw_client_call_async(client, "sample.add", (const cw_value* const*)p, 2, NULL,
                                        on_done, &state, &err),
                   CW_OK);
      cw_value_free(p[0]);
      cw_value_free(p[1]);
    }
    pthread_mutex_lock(&state.lock);
    while (state.done < 100) pthread_cond_wait(&state.cond, &state.lock);
    pthread_mutex_unlock(&state.lock);
    CHECK(state.ok == 100 && state.sum == want);
    CHECK(cw_client_probe(client, 10) == 1);
    CHECK(cw_client_probe(NULL, 0) == 0);
    cw_client_free(client);
    pthread_mutex_destroy(&state.lock);
    pthread_cond_destroy(&state.cond);
    co.max_connections = 0;
    CHECK_STATUS(cw_client_new(cw_server_url(server), &co, &client, &err), CW_INVALID_ARGUMENT);
  }
#if CW_TEST_POSIX_ONLY
  client = make_client(unix_url, NULL);
  CHECK_STATUS(call_ints(client, "sample.add", 2, 2, 2, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
  CHECK(n == 4);
  cw_value_free(result);
  cw_client_free(client);
#endif
  client = make_client(cw_server_url(server), NULL);
  CHECK_STATUS(call_ints(client, "sample.add", 3, 3, 2, &result, &err), CW_OK);
  cw_value_free(result);
  cw_client_free(client);
  cw_server_free(server);

  /* The list is checked. */
  server = NULL;
  so.listens = NULL;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);
  CHECK(server == NULL);
  listens[1] = NULL;
  so.listens = listens;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "listen") != NULL);
}

struct serve_args {
  cw_server* server;
  int fd;
};

#if CW_TEST_POSIX_ONLY
static void* serve_one_connection(void* arg) {
  struct serve_args* a = (struct serve_args*)arg;
  cw_error err;
  cw_status* st = (cw_status*)malloc(sizeof(cw_status));
  *st = cw_server_serve_connection(a->server, a->fd, CW_FRAMING_PSTREAM, &err);
  return st;
}
#endif

/* The default method answers the name it was called by; the hook refuses "admin." methods
 * unless the request says X-Role: admin, and counts what it sees. */
static int hook_calls = 0;

static cw_status default_method(cw_call* call, void* user_data) {
  (void)user_data;
  if (strcmp(cw_call_method(call), "refused.name") == 0)
    return cw_call_fault(call, -32601, "not even the default method takes this");
  return cw_call_return_cstring(call, cw_call_method(call));
}

static cw_status admin_hook(cw_call* call, void* user_data) {
  const char* role = NULL;
  size_t role_len = 0;
  (void)user_data;
  __atomic_add_fetch(&hook_calls, 1, __ATOMIC_RELAXED);
  if (strncmp(cw_call_method(call), "admin.", 6) != 0) return CW_OK;
  if (cw_call_header(call, "x-role", &role, &role_len) == CW_OK && role_len == 5 &&
      memcmp(role, "admin", 5) == 0)
    return CW_OK;
  return cw_call_fault(call, 403, "admin methods need the admin role");
}

static void test_default_method_and_preinvoke(void) {
  cw_server_options so;
  cw_server* server = NULL;
  cw_client* client;
  cw_value* result = NULL;
  cw_error err;
  const char* text = NULL;
  size_t len = 0;
  cw_header role;
  cw_call_options admin;

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", NULL, &err),
               CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "admin.reset", greeting, NULL, NULL, NULL, &err),
               CW_OK);
  CHECK_STATUS(cw_server_set_default_method(server, default_method, NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_set_preinvoke(server, admin_hook, NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_set_preinvoke(NULL, admin_hook, NULL, &err), CW_INVALID_ARGUMENT);
  {
    /* The CORS origin reaches the server: one that cannot be a field value is refused. */
    cw_server* bad = NULL;
    cw_server_options cors;
    cw_server_options_init(&cors);
    cors.listen = "127.0.0.1:0";
    cors.cors_allow_origin = "https://a\r\nX: y";
    cors.cors_max_age_s = 60;
    CHECK_STATUS(cw_server_new(&cors, &bad, &err), CW_OK);
    CHECK_STATUS(cw_server_start(bad, &err), CW_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "cors_allow_origin") != NULL);
    cw_server_free(bad);
  }
  CHECK_STATUS(cw_server_start(server, &err), CW_OK);
  CHECK_STATUS(cw_server_set_default_method(server, NULL, NULL, &err), CW_INVALID_ARGUMENT);
  client = make_client(cw_server_url(server), NULL);

  CHECK_STATUS(cw_client_call(client, "whatever.you.like", NULL, 0, NULL, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_string(result, &text, &len), CW_OK);
  CHECK(len == 17 && memcmp(text, "whatever.you.like", 17) == 0);
  cw_value_free(result);
  result = NULL;
  expect_fault(client, "refused.name", NULL, -32601, "not even");
  expect_fault(client, "admin.reset", NULL, 403, "admin role");
  role.name = "X-Role";
  role.value = "admin";
  memset(&admin, 0, sizeof admin);
  admin.struct_size = sizeof admin;
  admin.headers = &role;
  admin.header_count = 1;
  CHECK_STATUS(cw_client_call(client, "admin.reset", NULL, 0, &admin, &result, &err), CW_OK);
  cw_value_free(result);
  result = NULL;
  CHECK_STATUS(call_ints(client, "sample.add", 2, 3, 2, &result, &err), CW_OK);
  cw_value_free(result);
  CHECK(__atomic_load_n(&hook_calls, __ATOMIC_RELAXED) == 5);
  cw_client_free(client);
  cw_server_free(server);
}

#if CW_TEST_POSIX_ONLY
static void test_adopt_and_serve_connection(void) {
  cw_server_options so;
  cw_server* server;
  cw_error err;
  int fds[2];
  pthread_t thread;
  void* ret = NULL;
  struct serve_args args;

  /* Into a started server. */
  server = start_server(NULL);
  if (!server) return;
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  CHECK_STATUS(cw_server_adopt_connection(server, fds[1], CW_FRAMING_PSTREAM, &err), CW_OK);
  CHECK(pstream_add_roundtrip(fds[0]));
  CHECK(pstream_add_roundtrip(fds[0])); /* the same connection again */
  close(fds[0]);
  /* Refusals take the descriptor all the same. */
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  CHECK_STATUS(cw_server_adopt_connection(server, fds[1], (cw_framing)7, &err),
               CW_INVALID_ARGUMENT);
  CHECK(fcntl(fds[1], F_GETFD) == -1);
  CHECK(peer_closed(fds[0]));
  close(fds[0]);
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  CHECK_STATUS(cw_server_adopt_connection(NULL, fds[1], CW_FRAMING_PSTREAM, &err),
               CW_INVALID_ARGUMENT);
  CHECK(fcntl(fds[1], F_GETFD) == -1);
  close(fds[0]);
  CHECK_STATUS(cw_server_adopt_connection(server, -1, CW_FRAMING_HTTP, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_server_serve_connection(server, -1, CW_FRAMING_HTTP, &err), CW_INVALID_ARGUMENT);

  /* The client side (socketexec's way): a client on one end, the server on the other. */
  {
    cw_client* client = NULL;
    cw_value* result = NULL;
    int32_t n = 0;
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    CHECK_STATUS(cw_server_adopt_connection(server, fds[1], CW_FRAMING_PSTREAM, &err), CW_OK);
    CHECK_STATUS(cw_client_adopt(fds[0], CW_FRAMING_PSTREAM, NULL, &client, &err), CW_OK);
    CHECK_STATUS(call_ints(client, "sample.add", 20, 22, 2, &result, &err), CW_OK);
    CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
    CHECK(n == 42);
    cw_value_free(result);
    CHECK_STATUS(call_ints(client, "sample.add", 1, 1, 2, &result, &err), CW_OK);
    cw_value_free(result);
    CHECK(cw_client_probe(client, 0) == 1);
    cw_client_free(client); /* closes fds[0] */
    CHECK(fcntl(fds[0], F_GETFD) == -1);
    /* JSON lines: JSON-RPC, a line each way; a notification gets none. */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    CHECK_STATUS(cw_server_adopt_connection(server, fds[1], CW_FRAMING_JSON_LINES, &err), CW_OK);
    CHECK_STATUS(cw_client_adopt(fds[0], CW_FRAMING_JSON_LINES, NULL, &client, &err), CW_OK);
    CHECK_STATUS(cw_client_notify(client, "sample.add", NULL, 0, NULL, &err), CW_OK);
    CHECK_STATUS(call_ints(client, "sample.add", 2, 3, 2, &result, &err), CW_OK);
    CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
    CHECK(n == 5);
    cw_value_free(result);
    cw_client_free(client);
    /* Refused: the descriptor is closed all the same. */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    client = NULL;
    CHECK_STATUS(cw_client_adopt(fds[0], (cw_framing)99, NULL, &client, &err), CW_INVALID_ARGUMENT);
    CHECK(client == NULL);
    CHECK(fcntl(fds[0], F_GETFD) == -1);
    CHECK_STATUS(cw_client_adopt(fds[1], CW_FRAMING_PSTREAM, NULL, NULL, &err),
                 CW_INVALID_ARGUMENT);
    CHECK(fcntl(fds[1], F_GETFD) == -1);
    CHECK_STATUS(cw_client_adopt(-1, CW_FRAMING_PSTREAM, NULL, &client, &err), CW_INVALID_ARGUMENT);
  }
  cw_server_free(server);

  /* inetd's form: served on another thread here, until we close. */
  cw_server_options_init(&so);
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", NULL, &err),
               CW_OK);
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  args.server = server;
  args.fd = fds[1];
  CHECK(pthread_create(&thread, NULL, serve_one_connection, &args) == 0);
  CHECK(pstream_add_roundtrip(fds[0]));
  CHECK(pstream_add_roundtrip(fds[0]));
  shutdown(fds[0], SHUT_WR);
  CHECK(pthread_join(thread, &ret) == 0);
  CHECK(ret != NULL && *(cw_status*)ret == CW_OK);
  free(ret);
  CHECK(peer_closed(fds[0]));
  close(fds[0]);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT); /* spent */
  cw_server_free(server);
}
#endif

static long elapsed_ms(const struct timespec* since) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long)(now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

static void* cancel_later(void* arg) {
  sleep_ms(150);
  cw_cancel_request((cw_cancel*)arg);
  return NULL;
}

static void on_cancelled(cw_status status, const cw_value* result, const cw_error* error,
                         void* user_data) {
  struct async_state* s = (struct async_state*)user_data;
  (void)result;
  pthread_mutex_lock(&s->lock);
  ++s->done;
  if (status == CW_CANCELLED && error->status == CW_CANCELLED) ++s->failed;
  pthread_cond_signal(&s->cond);
  pthread_mutex_unlock(&s->lock);
}

static void test_http_head_and_cancel(void) {
  cw_server_options so;
  cw_server* server;
  cw_client* client;
  cw_call_options call_options;
  cw_http_head* head = NULL;
  cw_cancel* cancel = NULL;
  cw_value* result = NULL;
  cw_value* ms = NULL;
  const cw_value* params[1];
  cw_error err;
  const char *name = NULL, *value = NULL;
  const char* field;
  pthread_t thread;
  struct timespec start;
  struct async_state state;

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  so.authenticate = check_password;
  so.realm = "tests";
  so.handler_threads = 2;
  server = start_server(&so);
  CHECK_STATUS(cw_http_head_new(&head), CW_OK);
  memset(&call_options, 0, sizeof call_options);
  call_options.struct_size = sizeof call_options;
  call_options.response_head = head;

  /* A refusal: the status in its own field, the fields in the head. */
  client = make_client(cw_server_url(server), NULL);
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, &call_options, &result, &err),
               CW_HTTP_STATUS);
  CHECK(err.http_status == 401 && err.fault_code == -32300);
  CHECK(cw_http_head_status(head) == 401);
  field = cw_http_head_field(head, "www-authenticate");
  CHECK(field && strncmp(field, "Basic realm=\"tests\"", 19) == 0);
  CHECK(cw_http_head_field(head, "X-Not-There") == NULL);
  CHECK(cw_http_head_field_count(head) >= 2);
  CHECK_STATUS(cw_http_head_field_at(head, 0, &name, &value), CW_OK);
  CHECK(name && value);
  CHECK_STATUS(cw_http_head_field_at(head, 1000, &name, &value), CW_NOT_FOUND);
  cw_client_free(client);

  /* A success fills it too; a call that gets no answer clears it. */
  {
    cw_client_options co;
    cw_client_options_init(&co);
    co.user = "alice";
    co.password = "secret";
    client = make_client(cw_server_url(server), &co);
  }
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, &call_options, &result, &err), CW_OK);
  cw_value_free(result);
  result = NULL;
  CHECK(cw_http_head_status(head) == 200 && err.http_status == 0);
  field = cw_http_head_field(head, "Content-Type");
  CHECK(field && strncmp(field, "text/xml", 8) == 0);

  /* Cancelled from another thread while the handler sleeps: back long before its 1.5 s. */
  CHECK_STATUS(cw_cancel_new(&cancel), CW_OK);
  CHECK(cw_cancel_requested(cancel) == 0);
  call_options.cancel = cancel;
  cw_value_new_int(1500, &ms);
  params[0] = ms;
  clock_gettime(CLOCK_MONOTONIC, &start);
  CHECK(pthread_create(&thread, NULL, cancel_later, cancel) == 0);
  CHECK_STATUS(cw_client_call(client, "sleep", params, 1, &call_options, &result, &err),
               CW_CANCELLED);
  CHECK(elapsed_ms(&start) < 1200);
  pthread_join(thread, NULL);
  CHECK(cw_cancel_requested(cancel) == 1);
  CHECK(cw_http_head_status(head) == 0); /* no answer came */

  /* Requested already: a call fails at once, synchronous or not. */
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, &call_options, &result, &err),
               CW_CANCELLED);
  memset(&state, 0, sizeof state);
  pthread_mutex_init(&state.lock, NULL);
  pthread_cond_init(&state.cond, NULL);
  call_options.response_head = NULL;
  CHECK_STATUS(
      cw_client_call_async(client, "sleep", params, 1, &call_options, on_cancelled, &state, &err),
      CW_OK);
  pthread_mutex_lock(&state.lock);
  while (state.done < 1) pthread_cond_wait(&state.cond, &state.lock);
  pthread_mutex_unlock(&state.lock);
  CHECK(state.failed == 1);
  pthread_mutex_destroy(&state.lock);
  pthread_cond_destroy(&state.cond);

  /* Without the cancel the client goes on. */
  call_options.cancel = NULL;
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, &call_options, &result, &err), CW_OK);
  cw_value_free(result);

  /* NULLs. */
  CHECK(cw_http_head_status(NULL) == 0 && cw_http_head_field(NULL, "a") == NULL);
  CHECK(cw_http_head_field_count(NULL) == 0);
  CHECK_STATUS(cw_http_head_new(NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_cancel_new(NULL), CW_INVALID_ARGUMENT);
  CHECK(cw_cancel_requested(NULL) == 0);
  cw_cancel_request(NULL);
  cw_cancel_free(NULL);
  cw_http_head_free(NULL);

  cw_value_free(ms);
  cw_client_free(client);
  cw_cancel_free(cancel);
  cw_http_head_free(head);
  cw_server_free(server);
}

/* Whether the array of "Name: value" lines `headers` holds `line`. */
static int has_line(const cw_value* headers, const char* line) {
  size_t i, n = 0;
  if (cw_value_array_size(headers, &n) != CW_OK) return 0;
  for (i = 0; i < n; ++i) {
    const cw_value* item = NULL;
    const char* text = NULL;
    size_t len = 0;
    if (cw_value_array_get(headers, i, &item) == CW_OK &&
        cw_value_get_string(item, &text, &len) == CW_OK && len == strlen(line) &&
        memcmp(text, line, len) == 0)
      return 1;
  }
  return 0;
}

/* HTTP proxies. The server itself plays the proxy for http:// calls: it takes the
 * absolute-form target a proxy is sent, and answers; the server's name in the URL is never
 * looked up (".invalid" would not resolve). https:// calls ask it for a CONNECT, which it
 * refuses. (End to end through a real proxy: tests/unit/client/proxy_test.cpp.) */
static void test_proxy(void) {
  cw_server* server = start_server(NULL);
  cw_client_options o;
  cw_client* client = NULL;
  cw_value* result = NULL;
  cw_error err;
  char proxy[128], down[128];
  int32_t n = 0;

  snprintf(proxy, sizeof proxy, "http://al%%40ice:s3cret@127.0.0.1:%u",
           (unsigned)cw_server_port(server));
  cw_client_options_init(&o);
  o.proxy = proxy;
  o.timeout_ms = 5000;
  client = make_client("http://server.invalid:8080/RPC2", &o);
  CHECK_STATUS(call_ints(client, "sample.add", 2, 3, 2, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
  CHECK(n == 5);
  cw_value_free(result);
  /* What the proxy was sent: Host the server's, the proxy's credentials ("al@ice:s3cret"). */
  CHECK_STATUS(cw_client_call(client, "headers", NULL, 0, NULL, &result, &err), CW_OK);
  CHECK(has_line(result, "Host: server.invalid:8080"));
  CHECK(has_line(result, "Proxy-Authorization: Basic YWxAaWNlOnMzY3JldA=="));
  cw_value_free(result);
  cw_client_free(client);

  /* https:// asks the proxy for a tunnel; this one refuses: CW_HTTP_STATUS with its status. */
  client = make_client("https://server.invalid:8443/RPC2", &o);
  CHECK_STATUS(cw_client_call(client, "sample.add", NULL, 0, NULL, &result, &err), CW_HTTP_STATUS);
  CHECK(err.http_status >= 400 && err.http_status <= 499);
  CHECK(strstr(err.message, "refused CONNECT server.invalid:8443") != NULL);
  CHECK(strncmp(err.message, "proxy 127.0.0.1:", 16) == 0);
  cw_client_free(client);

  /* A proxy that is down is named. */
  snprintf(down, sizeof down, "http://127.0.0.1:%u", (unsigned)cw_server_port(server));
  cw_server_free(server);
  o.proxy = down;
  client = make_client("http://server.invalid:8080/RPC2", &o);
  CHECK_STATUS(cw_client_call(client, "sample.add", NULL, 0, NULL, &result, &err),
               CW_CONNECT_FAILED);
  CHECK(strncmp(err.message, "proxy 127.0.0.1:", 16) == 0);
  cw_client_free(client);

  /* Refused at creation: a proxy of another scheme; any proxy for SCGI or a Unix socket. */
  o.proxy = "socks5://127.0.0.1:1080";
  CHECK_STATUS(cw_client_new("http://127.0.0.1:1/RPC2", &o, &client, &err), CW_INVALID_ARGUMENT);
  o.proxy = "http://127.0.0.1:3128";
  CHECK_STATUS(cw_client_new("scgi://127.0.0.1:4000", &o, &client, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_client_new("unix:/tmp/none.sock", &o, &client, &err), CW_INVALID_ARGUMENT);
  /* The environment, when asked, is ignored for them. */
  o.proxy = NULL;
  o.proxy_from_environment = 1;
  client = make_client("scgi://127.0.0.1:4000", &o);
  cw_client_free(client);
}

/* A kept connection the server closed idle: sent once more on a fresh one by default, not with
 * disable_stale_resend (for methods that must not run twice). */
static void test_stale_resend(void) {
  cw_server_options so;
  cw_server* server;
  cw_client* client;
  cw_call_options once;
  cw_value* result = NULL;
  cw_error err;
  const cw_arg params[] = {cw_arg_int(5), cw_arg_int(3)};
  int32_t n = 0;

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  so.idle_timeout_ms = 100;
  server = start_server(&so);
  client = make_client(cw_server_url(server), NULL);
  memset(&once, 0, sizeof once);
  once.struct_size = sizeof once;
  once.disable_stale_resend = 1;

  CHECK_STATUS(cw_client_call_args(client, "sample.add", params, 2, NULL, &result, &err), CW_OK);
  cw_value_free(result);
  result = NULL;
  sleep_ms(800); /* the server closes the kept connection idle */
  CHECK_STATUS(cw_client_call_args(client, "sample.add", params, 2, &once, &result, &err),
               CW_CONNECTION_CLOSED);
  CHECK(result == NULL);
  /* The next call opens a fresh connection. */
  CHECK_STATUS(cw_client_call_args(client, "sample.add", params, 2, &once, &result, &err), CW_OK);
  cw_value_free(result);
  result = NULL;
  sleep_ms(800);
  /* By default the call goes out again on a fresh connection and succeeds. */
  CHECK_STATUS(cw_client_call_args(client, "sample.add", params, 2, NULL, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
  CHECK(n == 8);
  cw_value_free(result);
  cw_client_free(client);
  cw_server_free(server);
}

/* A client over several servers: round-robin, a server that is gone costs no call, every
 * server gone names each, and the options' errors. */
static void test_client_group(void) {
  cw_server* a = start_server(NULL);
  cw_server* b = start_server(NULL);
  cw_server* gone = start_server(NULL);
  char gone_url[128];
  const char* urls[3];
  cw_failover_options failover;
  const char* idempotent[] = {"sample.add"};
  cw_client* client = NULL;
  cw_value* result = NULL;
  cw_error err;
  int i;
  int32_t n = 0;

  snprintf(gone_url, sizeof gone_url, "%s", cw_server_url(gone));
  cw_server_free(gone); /* nobody listens there any more */
  urls[0] = cw_server_url(a);
  urls[1] = gone_url;
  urls[2] = cw_server_url(b);
  memset(&failover, 0, sizeof failover);
  failover.struct_size = sizeof failover;
  failover.backoff_ms = 1000;
  failover.idempotent_methods = idempotent;
  failover.idempotent_count = 1;
  CHECK_STATUS(cw_client_new_group(urls, 3, NULL, &failover, &client, &err), CW_OK);
  for (i = 0; i < 12; ++i) {
    CHECK_STATUS(call_ints(client, "sample.add", i, 1, 2, &result, &err), CW_OK);
    CHECK_STATUS(cw_value_get_int(result, &n), CW_OK);
    CHECK(n == i + 1);
    cw_value_free(result);
    result = NULL;
  }
  cw_client_free(client);

  /* Every server gone: the error names each. */
  urls[0] = gone_url;
  CHECK_STATUS(cw_client_new_group(urls, 2, NULL, NULL, &client, &err), CW_OK);
  CHECK_STATUS(call_ints(client, "sample.add", 1, 1, 2, &result, &err), CW_CONNECT_FAILED);
  CHECK(strstr(err.message, "no server answered") != NULL);
  cw_client_free(client);

  /* Misuse. */
  CHECK_STATUS(cw_client_new_group(NULL, 1, NULL, NULL, &client, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_client_new_group(urls, 0, NULL, NULL, &client, &err), CW_INVALID_ARGUMENT);
  urls[1] = NULL;
  CHECK_STATUS(cw_client_new_group(urls, 2, NULL, NULL, &client, &err), CW_INVALID_ARGUMENT);
  urls[1] = "ftp://nowhere";
  CHECK_STATUS(cw_client_new_group(urls, 2, NULL, NULL, &client, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "ftp://nowhere") != NULL);
  failover.struct_size = 3;
  urls[1] = gone_url;
  CHECK_STATUS(cw_client_new_group(urls, 2, NULL, &failover, &client, &err), CW_INVALID_ARGUMENT);
  cw_server_free(a);
  cw_server_free(b);
}

/* GET `path` from 127.0.0.1:`port` and read the answer until the server closes: into `out`. */
static void http_get(uint16_t port, const char* path, char* out, size_t size) {
  struct sockaddr_in a;
  char request[256];
  size_t used = 0;
  ssize_t n;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  out[0] = '\0';
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
    if (fd >= 0) close_socket(fd);
    return;
  }
  snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path);
  CHECK(send(fd, request, strlen(request), 0) == (ssize_t)strlen(request));
  while (used + 1 < size && (n = recv(fd, out + used, size - 1 - used, 0)) > 0) used += (size_t)n;
  out[used] = '\0';
  close_socket(fd);
}

/* reuse_port: two servers on one port; without it on the newcomer, address in use. health_path:
 * GET answered 200 "ok" without the credentials calls need; off by default. */
static void test_reuse_port_and_health(void) {
  cw_server_options so;
  cw_server* first = NULL;
  cw_server* second = NULL;
  cw_server* third = NULL;
  cw_error err;
  char address[32];
  char answer[1024];

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  so.threads = 1;
  so.reuse_port = 1;
  so.health_path = "/healthz";
  so.authenticate = check_password;
#if !CW_TEST_POSIX_ONLY
  /* Windows has no SO_REUSEPORT: refused, saying so; the rest runs with one server. */
  CHECK_STATUS(cw_server_new(&so, &first, &err), CW_OK);
  CHECK_STATUS(cw_server_start(first, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "SO_REUSEPORT: this system has no such option") != NULL);
  cw_server_free(first);
  so.reuse_port = 0;
#endif
  first = start_server(&so);
  if (!first) return;
  snprintf(address, sizeof address, "127.0.0.1:%u", (unsigned)cw_server_port(first));
  so.listen = address;
#if CW_TEST_POSIX_ONLY
  second = start_server(&so);
  if (second) CHECK(cw_server_port(second) == cw_server_port(first));
#endif
  so.reuse_port = 0;
  CHECK_STATUS(cw_server_new(&so, &third, &err), CW_OK);
  CHECK_STATUS(cw_server_start(third, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "in use") != NULL || strstr(err.message, "Only one usage") != NULL);
  cw_server_free(third);

  http_get(cw_server_port(first), "/healthz", answer, sizeof answer);
  CHECK(strncmp(answer, "HTTP/1.1 200 OK\r\n", 17) == 0);
  CHECK(strstr(answer, "\r\n\r\nok\n") != NULL);
  http_get(cw_server_port(first), "/RPC2", answer, sizeof answer);
  CHECK(strncmp(answer, "HTTP/1.1 405 ", 13) == 0);
  cw_server_free(second);
  cw_server_free(first);

  /* Off by default: a GET is 405 as on any path. */
  first = start_server(NULL);
  if (!first) return;
  http_get(cw_server_port(first), "/healthz", answer, sizeof answer);
  CHECK(strncmp(answer, "HTTP/1.1 405 ", 13) == 0);
  cw_server_free(first);
}

/* trusted_proxies: the client a trusted proxy names is the call's peer; a bad entry refuses. */
static void test_trusted_proxies(void) {
  cw_server_options so;
  cw_server* server = NULL;
  cw_client* client;
  cw_client_options co;
  cw_header forwarded = {"X-Forwarded-For", "198.51.100.1, 203.0.113.7"};
  const char* trusted[] = {"127.0.0.0/8"};
  const char* bad[] = {"localhost"};
  cw_value* result = NULL;
  cw_error err;
  const char* text = NULL;
  size_t len = 0;

  cw_server_options_init(&so);
  so.listen = "127.0.0.1:0";
  so.trusted_proxies = trusted;
  so.trusted_proxy_count = 1;
  server = start_server(&so);
  cw_client_options_init(&co);
  co.headers = &forwarded;
  co.header_count = 1;
  client = make_client(cw_server_url(server), &co);
  CHECK_STATUS(cw_client_call(client, "whoami", NULL, 0, NULL, &result, &err), CW_OK);
  CHECK_STATUS(cw_value_get_string(result, &text, &len), CW_OK);
  CHECK(len > 12 && memcmp(text, "203.0.113.7|", 12) == 0); /* peer|user|tag|method */
  cw_value_free(result);
  cw_client_free(client);
  cw_server_free(server);

  so.trusted_proxies = bad;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "trusted_proxies") != NULL);
  cw_server_free(server);
  so.trusted_proxies = NULL;
  CHECK_STATUS(cw_server_new(&so, &server, &err), CW_INVALID_ARGUMENT);
}

int main(int argc, char** argv) {
  static const struct test_case tests[] = {
    TEST(test_sync_calls),
    TEST(test_described_calls),
    TEST(test_stats_and_limits),
    TEST(test_introspection),
    TEST(test_context_headers_and_auth),
    TEST(test_deadlines_and_transport_errors),
    TEST(test_async_calls),
    TEST(test_multicall_latch),
    TEST(test_client_multicall),
    TEST(test_deadlines_in_handlers),
#if CW_TEST_POSIX_ONLY
    TEST(test_unix_socket_paths_log_and_headers),
#endif
    TEST(test_run_and_stop_from_another_thread),
    TEST(test_options_and_misuse),
    TEST(test_registry_dispatch),
    TEST(test_pstream_and_several_listeners),
#if CW_TEST_POSIX_ONLY
    TEST(test_adopt_and_serve_connection),
#endif
    TEST(test_default_method_and_preinvoke),
    TEST(test_http_head_and_cancel),
    TEST(test_stale_resend),
    TEST(test_client_group),
    TEST(test_trusted_proxies),
#if CW_TEST_POSIX_ONLY
    TEST(test_tls_options_end_to_end),
#endif
    TEST(test_proxy),
    TEST(test_reuse_port_and_health),
  };
  return run_tests(tests, COUNT(tests), argc, argv);
}
