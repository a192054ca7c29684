/* JSON-RPC 2.0 from C99: the codec alone (cw_json_*), methods with parameter names
 * (cw_server_add_named_method, cw_registry_add_named_method), cw_registry_dispatch_content, and
 * the client's cw_client_notify and cw_client_batch over loopback against a callwire server,
 * in JSON-RPC and in XML-RPC; allocation failures at every step of the decoders. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_failure.h"
#include "callwire.h"
#include "test_runner.h"

/* ---- handlers ---- */

static cw_status subtract(cw_call* call, void* user_data) {
  int32_t minuend, subtrahend;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &minuend)) ||
      (st = cw_call_param_int(call, 1, &subtrahend))) {
    return st;
  }
  return cw_call_return_int(call, minuend - subtrahend);
}

static cw_status refuse(cw_call* call, void* user_data) {
  (void)user_data;
  return cw_call_fault(call, 42, "refused");
}

/* A fault with data: {"retry_after": 5}. */
static cw_status busy(cw_call* call, void* user_data) {
  const cw_arg_member members[] = {{"retry_after", cw_arg_int(5)}};
  const cw_arg whole = cw_arg_struct(members, 1);
  cw_value* data = NULL;
  cw_status st;
  (void)user_data;
  if ((st = cw_value_build(&whole, &data, NULL))) return st;
  st = cw_call_fault_data(call, -32001, "busy", data);
  cw_value_free(data);
  return st;
}

static int g_notified = 0;
static pthread_mutex_t g_notified_lock = PTHREAD_MUTEX_INITIALIZER;

static cw_status record(cw_call* call, void* user_data) {
  (void)user_data;
  pthread_mutex_lock(&g_notified_lock);
  ++g_notified;
  pthread_mutex_unlock(&g_notified_lock);
  return cw_call_return_nil(call);
}

static int notified(void) {
  int n;
  pthread_mutex_lock(&g_notified_lock);
  n = g_notified;
  pthread_mutex_unlock(&g_notified_lock);
  return n;
}

static const char* const kSubtractNames[] = {"minuend", "subtrahend", NULL};

/* ---- helpers ---- */

static cw_value* new_int(int32_t n) {
  cw_value* v = NULL;
  CHECK_STATUS(cw_value_new_int(n, &v), CW_OK);
  return v;
}

static int32_t int_of(const cw_value* v) {
  int32_t n = -999;
  CHECK(v != NULL);
  if (v) CHECK_STATUS(cw_value_get_int(v, &n), CW_OK);
  return n;
}

static size_t size_of(const cw_value* v) {
  size_t n = 999;
  if (cw_value_type(v) == CW_TYPE_ARRAY) {
    CHECK_STATUS(cw_value_array_size(v, &n), CW_OK);
  } else {
    CHECK_STATUS(cw_value_struct_size(v, &n), CW_OK);
  }
  return n;
}

/* `json` contains `part`. */
static int has(const char* json, const char* part) { return json && strstr(json, part) != NULL; }

/* ---- the codec ---- */

static void test_values_round_trip(void) {
  static const char kDoc[] =
      "{\"n\":null,\"b\":true,\"i\":-7,\"big\":8589934592,\"d\":1.0,\"s\":\"\\u00e9\\n\","
      "\"a\":[1,[2,{}]]}";
  cw_value* v = NULL;
  char* json = NULL;
  size_t len = 0;
  cw_error err;
  const cw_value* member = NULL;
  int64_t big = 0;
  CHECK_STATUS(cw_json_decode_value(kDoc, strlen(kDoc), &v, &err), CW_OK);
  CHECK(cw_value_type(v) == CW_TYPE_STRUCT && size_of(v) == 7);
  CHECK_STATUS(cw_value_struct_get(v, "big", &member), CW_OK);
  CHECK(cw_value_type(member) == CW_TYPE_I8);
  CHECK_STATUS(cw_value_get_i8(member, &big), CW_OK);
  CHECK(big == INT64_C(8589934592));
  CHECK_STATUS(cw_value_struct_get(v, "d", &member), CW_OK);
  CHECK(cw_value_type(member) == CW_TYPE_DOUBLE);
  /* Written back as it came: members in order, 1.0 still a double, the string escaped. */
  CHECK_STATUS(cw_json_encode_value(v, &json, &len, &err), CW_OK);
  CHECK(json && strcmp(json,
                       "{\"n\":null,\"b\":true,\"i\":-7,\"big\":8589934592,\"d\":1.0,"
                       "\"s\":\"\xc3\xa9\\n\",\"a\":[1,[2,{}]]}") == 0);
  CHECK(json && len == strlen(json));
  cw_free(json);
  cw_value_free(v);

  v = NULL;
  CHECK_STATUS(cw_json_decode_value("[1,", 3, &v, &err), CW_NOT_WELL_FORMED);
  CHECK(v == NULL && err.fault_code == -32700);
  CHECK_STATUS(cw_json_decode_value("123456789012345678901234567890", 30, &v, &err),
               CW_UNREPRESENTABLE);
  CHECK(err.fault_code == -32602);
  CHECK_STATUS(cw_value_new_double(NAN, &v), CW_OK);
  json = NULL;
  CHECK_STATUS(cw_json_encode_value(v, &json, NULL, &err), CW_UNREPRESENTABLE);
  CHECK(json == NULL);
  cw_value_free(v);
  CHECK_STATUS(cw_json_encode_value(NULL, &json, NULL, &err), CW_INVALID_ARGUMENT);
}

static void test_calls_encoded_and_decoded(void) {
  cw_value* p[2];
  char *json = NULL, *id = NULL, *method = NULL;
  cw_value* params = NULL;
  const cw_value* item = NULL;
  cw_error err;
  p[0] = new_int(42);
  p[1] = new_int(23);

  CHECK_STATUS(
      cw_json_encode_call("1", "subtract", (const cw_value* const*)p, 2, &json, NULL, &err), CW_OK);
  CHECK(json && strcmp(json,
                       "{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[42,23],"
                       "\"id\":1}") == 0);
  CHECK_STATUS(cw_json_decode_call(json, strlen(json), &id, &method, &params, &err), CW_OK);
  CHECK(id && strcmp(id, "1") == 0);
  CHECK(method && strcmp(method, "subtract") == 0);
  CHECK(cw_value_type(params) == CW_TYPE_ARRAY && size_of(params) == 2);
  CHECK_STATUS(cw_value_array_get(params, 1, &item), CW_OK);
  CHECK(int_of(item) == 23);
  cw_free(json);
  cw_free(id);
  cw_free(method);
  cw_value_free(params);

  /* A string id, kept with its quotes; a notification has none. */
  CHECK_STATUS(cw_json_encode_call("\"a-1\"", "log", NULL, 0, &json, NULL, &err), CW_OK);
  CHECK(has(json, "\"id\":\"a-1\""));
  cw_free(json);
  CHECK_STATUS(cw_json_encode_call(NULL, "log", NULL, 0, &json, NULL, &err), CW_OK);
  CHECK(json && !has(json, "\"id\""));
  CHECK_STATUS(cw_json_decode_call(json, strlen(json), &id, &method, &params, &err), CW_OK);
  CHECK(id == NULL && method && strcmp(method, "log") == 0);
  CHECK(size_of(params) == 0);
  cw_free(json);
  cw_free(method);
  cw_value_free(params);

  /* By name: the params are a struct. */
  {
    static const char kNamed[] =
        "{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":{\"subtrahend\":23,"
        "\"minuend\":42},\"id\":\"x\"}";
    CHECK_STATUS(cw_json_decode_call(kNamed, strlen(kNamed), &id, NULL, &params, &err), CW_OK);
    CHECK(id && strcmp(id, "\"x\"") == 0);
    CHECK(cw_value_type(params) == CW_TYPE_STRUCT);
    CHECK_STATUS(cw_value_struct_get(params, "minuend", &item), CW_OK);
    CHECK(int_of(item) == 42);
    cw_free(id);
    cw_value_free(params);
  }

  /* Ids that are not ids, and methods that are not methods. */
  json = NULL;
  CHECK_STATUS(cw_json_encode_call("", "m", NULL, 0, &json, NULL, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_json_encode_call("{}", "m", NULL, 0, &json, NULL, &err), CW_INVALID_ARGUMENT);
  CHECK(has(err.message, "id must be a JSON number, string or null"));
  CHECK_STATUS(cw_json_encode_call("1,2", "m", NULL, 0, &json, NULL, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_json_encode_call("1", "", NULL, 0, &json, NULL, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_json_encode_call("1", NULL, NULL, 0, &json, NULL, &err), CW_INVALID_ARGUMENT);
  CHECK(json == NULL);

  /* Refused requests: the id comes back so the caller can answer it. */
  {
    static const char kNoVersion[] = "{\"method\":\"m\",\"id\":7}";
    static const char kBatch[] = "[{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1}]";
    method = NULL;
    params = NULL;
    CHECK_STATUS(cw_json_decode_call(kNoVersion, strlen(kNoVersion), &id, &method, &params, &err),
                 CW_INVALID_REQUEST);
    CHECK(err.fault_code == -32600 && id && strcmp(id, "7") == 0);
    CHECK(method == NULL && params == NULL);
    cw_free(id);
    CHECK_STATUS(cw_json_decode_call(kBatch, strlen(kBatch), &id, &method, &params, &err),
                 CW_INVALID_REQUEST);
    CHECK(id == NULL && has(err.message, "a batch"));
    CHECK_STATUS(cw_json_decode_call("{", 1, &id, &method, &params, &err), CW_NOT_WELL_FORMED);
    CHECK(err.fault_code == -32700 && id == NULL);
  }
  cw_value_free(p[0]);
  cw_value_free(p[1]);
}

static void test_responses_encoded_and_decoded(void) {
  cw_value *v = new_int(19), *result = NULL, *data = NULL;
  char *json = NULL, *id = NULL;
  cw_error err;

  CHECK_STATUS(cw_json_encode_result("1", v, &json, NULL, &err), CW_OK);
  CHECK(json && strcmp(json, "{\"jsonrpc\":\"2.0\",\"result\":19,\"id\":1}") == 0);
  CHECK_STATUS(cw_json_decode_response(json, strlen(json), &id, &result, &data, &err), CW_OK);
  CHECK(int_of(result) == 19 && id && strcmp(id, "1") == 0 && data == NULL);
  cw_free(json);
  cw_free(id);
  cw_value_free(result);
  result = NULL;

  /* An error with data; with NULL message the spec's text. */
  CHECK_STATUS(cw_json_encode_error("\"q\"", -32001, "busy", v, &json, NULL, &err), CW_OK);
  CHECK(has(json, "\"code\":-32001") && has(json, "\"message\":\"busy\"") &&
        has(json, "\"data\":19"));
  CHECK_STATUS(cw_json_decode_response(json, strlen(json), &id, &result, &data, &err), CW_FAULT);
  CHECK(err.fault_code == -32001 && strcmp(err.message, "busy") == 0);
  CHECK(result == NULL && int_of(data) == 19 && id && strcmp(id, "\"q\"") == 0);
  cw_free(json);
  cw_free(id);
  cw_value_free(data);
  data = NULL;
  CHECK_STATUS(cw_json_encode_error("null", -32601, NULL, NULL, &json, NULL, &err), CW_OK);
  CHECK(has(json, "\"message\":\"Method not found\"") && !has(json, "data") &&
        has(json, "\"id\":null"));
  /* Without data_out the fault still reads. */
  CHECK_STATUS(cw_json_decode_response(json, strlen(json), NULL, &result, NULL, &err), CW_FAULT);
  CHECK(err.fault_code == -32601);
  cw_free(json);

  /* What is not one response. */
  {
    static const char kBatch[] = "[{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}]";
    static const char kBoth[] =
        "{\"jsonrpc\":\"2.0\",\"result\":1,\"error\":{\"code\":1,"
        "\"message\":\"m\"},\"id\":1}";
    static const char kOld[] = "{\"result\":1,\"id\":1}";
    CHECK_STATUS(cw_json_decode_response(kBatch, strlen(kBatch), &id, &result, &data, &err),
                 CW_BAD_RESPONSE);
    CHECK_STATUS(cw_json_decode_response(kBoth, strlen(kBoth), &id, &result, &data, &err),
                 CW_BAD_RESPONSE);
    CHECK_STATUS(cw_json_decode_response(kOld, strlen(kOld), &id, &result, &data, &err),
                 CW_BAD_RESPONSE);
    CHECK(has(err.message, "not a JSON-RPC response"));
    CHECK_STATUS(cw_json_decode_response("<x/>", 4, &id, &result, &data, &err), CW_NOT_WELL_FORMED);
    CHECK(id == NULL && result == NULL && data == NULL);
    CHECK_STATUS(cw_json_decode_response("{}", 2, &id, NULL, &data, &err), CW_INVALID_ARGUMENT);
  }
  CHECK_STATUS(cw_json_encode_result("1,", v, &json, NULL, &err), CW_INVALID_ARGUMENT);
  cw_value_free(v);
}

/* Every allocation of the decoders failed in turn: CW_NO_MEMORY and nothing left allocated
 * (LeakSanitizer checks the latter under `make sanitize`), then success. */
static void test_decoders_out_of_memory(void) {
  static const char kCall[] =
      "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":[\"a\",[1,2]],\"id\":\"i\"}";
  static const char kFault[] =
      "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":5,\"message\":\"m\",\"data\":[1,\"x\"]},"
      "\"id\":3}";
  long n;
  int ok_call = 0, ok_fault = 0;
  for (n = 0; n < 64 && !(ok_call && ok_fault); ++n) {
    char *id = NULL, *method = NULL;
    cw_value *params = NULL, *result = NULL, *data = NULL;
    cw_status st;
    cw_test_fail_allocation_after(n);
    st = cw_json_decode_call(kCall, strlen(kCall), &id, &method, &params, NULL);
    CHECK(st == CW_OK || st == CW_NO_MEMORY);
    if (st == CW_OK) {
      ok_call = 1;
      CHECK(id && method && params);
    } else {
      CHECK(id == NULL && method == NULL && params == NULL);
    }
    cw_free(id);
    cw_free(method);
    cw_value_free(params);
    id = NULL;
    cw_test_fail_allocation_after(n);
    st = cw_json_decode_response(kFault, strlen(kFault), &id, &result, &data, NULL);
    CHECK(st == CW_FAULT || st == CW_NO_MEMORY);
    if (st == CW_FAULT) {
      ok_fault = 1;
      CHECK(id && data && result == NULL);
    } else {
      CHECK(id == NULL && data == NULL && result == NULL);
    }
    cw_free(id);
    cw_value_free(data);
  }
  cw_test_fail_allocation_after(-1);
  CHECK(ok_call && ok_fault);
}

/* ---- the registry and the server ---- */

static void test_registry_dispatch_content(void) {
  static const char kByName[] =
      "{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":{\"subtrahend\":23,"
      "\"minuend\":42},\"id\":3}";
  static const char kBatch[] =
      "[{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[1,2],\"id\":\"a\"},"
      "{\"jsonrpc\":\"2.0\",\"method\":\"record\"},"
      "{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":{\"minuend\":1,\"other\":2},"
      "\"id\":\"b\"}]";
  static const char kNotification[] = "{\"jsonrpc\":\"2.0\",\"method\":\"record\"}";
  static const char kXml[] =
      "<?xml version=\"1.0\"?><methodCall><methodName>subtract</methodName><params>"
      "<param><value><int>5</int></value></param><param><value><int>3</int></value></param>"
      "</params></methodCall>";
  static const char* const kBadNames[] = {"a", "a", NULL};
  cw_registry* registry = NULL;
  char* response = NULL;
  size_t len = 0;
  const char* type = NULL;
  cw_error err;
  int before = notified();

  CHECK_STATUS(cw_registry_new(NULL, &registry, &err), CW_OK);
  CHECK_STATUS(cw_registry_add_named_method(registry, "subtract", kSubtractNames, subtract, NULL,
                                            "i:ii", "Subtracts.", &err),
               CW_OK);
  CHECK_STATUS(cw_registry_add_named_method(registry, "record", (const char* const*)&kBadNames[2],
                                            record, NULL, NULL, NULL, &err),
               CW_OK); /* an empty list: no names */
  CHECK_STATUS(cw_registry_add_method(registry, "busy", busy, NULL, NULL, NULL, &err), CW_OK);
  CHECK_STATUS(cw_registry_add_named_method(registry, "twice", kBadNames, subtract, NULL, "i:ii",
                                            NULL, &err),
               CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_registry_add_named_method(registry, "three", kSubtractNames, subtract, NULL,
                                            "i:iii", NULL, &err),
               CW_INVALID_ARGUMENT); /* two names for three parameters */
  CHECK_STATUS(
      cw_registry_add_named_method(registry, "none", NULL, subtract, NULL, NULL, NULL, &err),
      CW_INVALID_ARGUMENT);

  CHECK_STATUS(cw_registry_dispatch_content(registry, "application/json; charset=utf-8", kByName,
                                            strlen(kByName), &response, &len, &type, &err),
               CW_OK);
  CHECK(type && strcmp(type, "application/json") == 0);
  CHECK(response && strcmp(response, "{\"jsonrpc\":\"2.0\",\"result\":19,\"id\":3}") == 0);
  CHECK(response && len == strlen(response));
  cw_free(response);

  CHECK_STATUS(cw_registry_dispatch_content(registry, "application/json", kBatch, strlen(kBatch),
                                            &response, &len, &type, &err),
               CW_OK);
  CHECK(has(response, "\"result\":-1,\"id\":\"a\"") && has(response, "\"code\":-32602") &&
        has(response, "\"id\":\"b\""));
  cw_free(response);
  CHECK(notified() == before + 1);

  response = (char*)"not touched";
  CHECK_STATUS(cw_registry_dispatch_content(registry, "application/json", kNotification,
                                            strlen(kNotification), &response, &len, &type, &err),
               CW_OK);
  CHECK(response == NULL && len == 0 && type == NULL);
  CHECK(notified() == before + 2);

  CHECK_STATUS(cw_registry_dispatch_content(registry, NULL, kXml, strlen(kXml), &response, &len,
                                            &type, &err),
               CW_OK);
  CHECK(type && strcmp(type, "text/xml") == 0 && has(response, "<int>2</int>"));
  cw_free(response);
  /* A handler's fault with data: JSON-RPC carries it, XML-RPC leaves it out. */
  {
    static const char kBusy[] = "{\"jsonrpc\":\"2.0\",\"method\":\"busy\",\"id\":9}";
    static const char kBusyXml[] = "<methodCall><methodName>busy</methodName></methodCall>";
    CHECK_STATUS(cw_registry_dispatch_content(registry, "application/json", kBusy, strlen(kBusy),
                                              &response, &len, &type, &err),
                 CW_OK);
    CHECK(response && strcmp(response,
                             "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32001,"
                             "\"message\":\"busy\",\"data\":{\"retry_after\":5}},"
                             "\"id\":9}") == 0);
    cw_free(response);
    CHECK_STATUS(cw_registry_dispatch_content(registry, "text/xml", kBusyXml, strlen(kBusyXml),
                                              &response, &len, &type, &err),
                 CW_OK);
    CHECK(has(response, "-32001") && !has(response, "retry_after"));
    cw_free(response);
  }
  CHECK_STATUS(cw_registry_dispatch_content(registry, "application/json", "[", 1, &response, &len,
                                            &type, &err),
               CW_OK);
  CHECK(has(response, "-32700") && has(response, "\"id\":null"));
  cw_free(response);
  CHECK_STATUS(cw_registry_dispatch_content(registry, "application/json", "{}", 2, &response, &len,
                                            NULL, &err),
               CW_INVALID_ARGUMENT);
  cw_registry_free(registry);
}

static cw_server* start_server(void) {
  cw_server* server = NULL;
  cw_server_options options;
  cw_error err;
  cw_server_options_init(&options);
  options.listen = "127.0.0.1:0";
  CHECK_STATUS(cw_server_new(&options, &server, &err), CW_OK);
  if (!server) return NULL;
  CHECK_STATUS(cw_server_add_named_method(server, "subtract", kSubtractNames, subtract, NULL,
                                          "i:ii", "Subtracts.", &err),
               CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "refuse", refuse, NULL, NULL, NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "record", record, NULL, NULL, NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_add_method(server, "busy", busy, NULL, NULL, NULL, &err), CW_OK);
  {
    static const char* const kOneName[] = {"only", NULL};
    CHECK_STATUS(
        cw_server_add_named_method(server, "bad", kOneName, subtract, NULL, "i:ii", NULL, &err),
        CW_INVALID_ARGUMENT); /* one name for two parameters */
    CHECK(has(err.message, "name"));
  }
  CHECK_STATUS(cw_server_start(server, &err), CW_OK);
  return server;
}

/* A notification, then a batch of calls, a fault, an unknown method and notifications, sent
 * by a client of `url`; `json` says whether it speaks JSON-RPC (else XML-RPC's multicall). */
static void notify_and_batch(const char* url, int json) {
  cw_client* client = NULL;
  cw_value *a = new_int(10), *b = new_int(4), *text = NULL;
  const cw_value* pair[2];
  const cw_value* bad[2];
  cw_batch_entry entries[5];
  cw_multicall_result results[5];
  cw_error err;
  int before = notified(), i;

  CHECK_STATUS(cw_value_new_cstring("x", &text), CW_OK);
  CHECK_STATUS(cw_client_new(url, NULL, &client, &err), CW_OK);
  if (!client) return;
  CHECK_STATUS(cw_client_notify(client, "record", NULL, 0, NULL, &err), CW_OK);
  CHECK(notified() == before + 1);
  /* XML-RPC has no notifications: the call is made, and its fault still comes back. */
  CHECK_STATUS(cw_client_notify(client, "refuse", NULL, 0, NULL, &err), json ? CW_OK : CW_FAULT);

  pair[0] = a;
  pair[1] = b;
  bad[0] = a;
  bad[1] = text;
  memset(entries, 0, sizeof entries);
  entries[0].method = "subtract";
  entries[0].params = pair;
  entries[0].param_count = 2;
  entries[1].method = "record";
  entries[1].notification = 1;
  entries[2].method = "refuse";
  entries[3].method = "subtract";
  entries[3].params = bad;
  entries[3].param_count = 2;
  entries[4].method = "record";
  entries[4].notification = 1;
  memset(results, 0x5a, sizeof results);
  CHECK_STATUS(cw_client_batch(client, entries, 5, NULL, results, &err), CW_OK);
  CHECK(results[0].error.status == CW_OK && int_of(results[0].result) == 6);
  CHECK(results[1].result == NULL && results[1].error.status == CW_OK);
  CHECK(results[2].result == NULL && results[2].error.status == CW_FAULT &&
        results[2].error.fault_code == 42 && strcmp(results[2].error.message, "refused") == 0);
  CHECK(results[3].result == NULL && results[3].error.fault_code == -32602);
  CHECK(results[4].result == NULL && results[4].error.status == CW_OK);
  for (i = 0; i < 5; ++i) cw_value_free(results[i].result);
  CHECK(notified() == before + 3);

  /* A bad entry: nothing sent, results untouched; an empty batch sends nothing. */
  entries[4].method = NULL;
  results[0].error.fault_code = 77;
  results[0].result = NULL;
  CHECK_STATUS(cw_client_batch(client, entries, 5, NULL, results, &err), CW_INVALID_ARGUMENT);
  CHECK(results[0].error.fault_code == 77 && results[0].result == NULL);
  CHECK_STATUS(cw_client_batch(client, entries, 0, NULL, NULL, &err), CW_OK);
  CHECK(notified() == before + 3);
  CHECK_STATUS(cw_client_notify(NULL, "record", NULL, 0, NULL, &err), CW_INVALID_ARGUMENT);

  cw_value_free(a);
  cw_value_free(b);
  cw_value_free(text);
  cw_client_free(client);
}

static void test_client_over_json_rpc_and_xml_rpc(void) {
  cw_server* server = start_server();
  char url[256];
  cw_client* client = NULL;
  cw_value* result = NULL;
  cw_error err;
  if (!server) return;
  snprintf(url, sizeof url, "jsonrpc+%s", cw_server_url(server));
  notify_and_batch(url, 1);
  notify_and_batch(cw_server_url(server), 0);

  /* A named method is still called by position, from either protocol. */
  CHECK_STATUS(cw_client_new(url, NULL, &client, &err), CW_OK);
  {
    const cw_arg args[] = {cw_arg_int(7), cw_arg_int(2)};
    CHECK_STATUS(cw_client_call_args(client, "subtract", args, 2, NULL, &result, &err), CW_OK);
    CHECK(int_of(result) == 5);
    cw_value_free(result);
  }
  CHECK_STATUS(cw_client_call_args(client, "refuse", NULL, 0, NULL, &result, &err), CW_FAULT);
  CHECK(err.fault_code == 42);

  /* By name: one call, and a batch entry. */
  {
    const cw_arg_member members[] = {{"subtrahend", cw_arg_int(2)}, {"minuend", cw_arg_int(7)}};
    const cw_arg whole = cw_arg_struct(members, 2);
    cw_value* named = NULL;
    cw_value* not_named = new_int(1);
    cw_batch_entry entries[2];
    cw_multicall_result results[2];
    CHECK_STATUS(cw_value_build(&whole, &named, &err), CW_OK);
    CHECK_STATUS(cw_client_call_named(client, "subtract", named, NULL, &result, &err), CW_OK);
    CHECK(int_of(result) == 5);
    cw_value_free(result);
    result = NULL;
    CHECK_STATUS(cw_client_call_named(client, "subtract", not_named, NULL, &result, &err),
                 CW_INVALID_ARGUMENT);
    CHECK(result == NULL && has(err.message, "takes a struct"));
    memset(entries, 0, sizeof entries);
    entries[0].method = "subtract";
    entries[0].named = named;
    entries[1].method = "subtract";
    entries[1].named = not_named;
    CHECK_STATUS(cw_client_batch(client, entries, 2, NULL, results, &err), CW_INVALID_ARGUMENT);
    CHECK(has(err.message, "batch entry 2"));
    CHECK_STATUS(cw_client_batch(client, entries, 1, NULL, results, &err), CW_OK);
    CHECK(int_of(results[0].result) == 5);
    cw_value_free(results[0].result);
    cw_value_free(named);
    cw_value_free(not_named);
  }
  cw_client_free(client);
  cw_server_free(server);
}

/* `v` is busy's data: {"retry_after": 5}. */
static int is_busy_data(const cw_value* v) {
  const cw_value* member = NULL;
  return cw_value_type(v) == CW_TYPE_STRUCT && size_of(v) == 1 &&
         cw_value_struct_get(v, "retry_after", &member) == CW_OK && int_of(member) == 5;
}

struct fault_data_wait {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
  cw_status status;
};

static void on_fault_done(cw_status status, const cw_value* result, const cw_error* error,
                          void* user_data) {
  struct fault_data_wait* w = (struct fault_data_wait*)user_data;
  (void)result;
  (void)error;
  pthread_mutex_lock(&w->lock);
  w->status = status;
  w->done = 1;
  pthread_cond_signal(&w->cond);
  pthread_mutex_unlock(&w->lock);
}

/* cw_call_options.fault_data: a JSON-RPC error's data for every kind of call; NULL for a
 * success, a fault without data and any XML-RPC fault. */
static void test_fault_data(void) {
  cw_server* server = start_server();
  char url[256];
  cw_client* client = NULL;
  cw_client* xml_client = NULL;
  cw_value* result = NULL;
  cw_value* data = (cw_value*)&data; /* not NULL: each call must set it */
  cw_call_options options;
  cw_error err;
  if (!server) return;
  snprintf(url, sizeof url, "jsonrpc+%s", cw_server_url(server));
  CHECK_STATUS(cw_client_new(url, NULL, &client, &err), CW_OK);
  CHECK_STATUS(cw_client_new(cw_server_url(server), NULL, &xml_client, &err), CW_OK);
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.fault_data = &data;

  CHECK_STATUS(cw_client_call(client, "busy", NULL, 0, &options, &result, &err), CW_FAULT);
  CHECK(err.fault_code == -32001 && is_busy_data(data));
  cw_value_free(data);
  CHECK_STATUS(cw_client_call_args(client, "busy", NULL, 0, &options, &result, &err), CW_FAULT);
  CHECK(is_busy_data(data));
  cw_value_free(data);
  {
    cw_value* named = NULL;
    CHECK_STATUS(cw_value_new_struct(&named), CW_OK);
    CHECK_STATUS(cw_client_call_named(client, "busy", named, &options, &result, &err), CW_FAULT);
    CHECK(is_busy_data(data));
    cw_value_free(data);
    cw_value_free(named);
  }
  /* No data, a success, XML-RPC: NULL. */
  data = (cw_value*)&data;
  CHECK_STATUS(cw_client_call(client, "refuse", NULL, 0, &options, &result, &err), CW_FAULT);
  CHECK(data == NULL);
  data = (cw_value*)&data;
  {
    const cw_arg args[] = {cw_arg_int(7), cw_arg_int(2)};
    CHECK_STATUS(cw_client_call_args(client, "subtract", args, 2, &options, &result, &err), CW_OK);
    CHECK(data == NULL && int_of(result) == 5);
    cw_value_free(result);
  }
  data = (cw_value*)&data;
  CHECK_STATUS(cw_client_call(xml_client, "busy", NULL, 0, &options, &result, &err), CW_FAULT);
  CHECK(err.fault_code == -32001 && data == NULL);
  data = (cw_value*)&data;
  CHECK_STATUS(cw_client_notify(xml_client, "busy", NULL, 0, &options, &err), CW_FAULT);
  CHECK(data == NULL);

  /* A batch: one slot per entry. */
  {
    cw_batch_entry entries[4];
    cw_multicall_result results[4];
    cw_value* slots[4];
    int i;
    memset(entries, 0, sizeof entries);
    entries[0].method = "busy";
    entries[1].method = "record";
    entries[1].notification = 1;
    entries[2].method = "refuse";
    entries[3].method = "busy";
    for (i = 0; i < 4; ++i) slots[i] = (cw_value*)&slots;
    options.fault_data = slots;
    CHECK_STATUS(cw_client_batch(client, entries, 4, &options, results, &err), CW_OK);
    CHECK(results[0].error.status == CW_FAULT && is_busy_data(slots[0]));
    CHECK(slots[1] == NULL && slots[2] == NULL && is_busy_data(slots[3]));
    for (i = 0; i < 4; ++i) {
      cw_value_free(slots[i]);
      cw_value_free(results[i].result);
    }
    /* The whole batch fails (a NULL method): every slot NULL. */
    for (i = 0; i < 4; ++i) slots[i] = (cw_value*)&slots;
    entries[1].method = NULL;
    CHECK_STATUS(cw_client_batch(client, entries, 4, &options, results, &err), CW_INVALID_ARGUMENT);
    CHECK(slots[0] == NULL && slots[1] == NULL && slots[2] == NULL && slots[3] == NULL);
  }

  /* Asynchronous: set before the callback runs. */
  {
    struct fault_data_wait w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.cond, NULL);
    options.fault_data = &data;
    data = (cw_value*)&data;
    CHECK_STATUS(cw_client_call_async(client, "busy", NULL, 0, &options, on_fault_done, &w, &err),
                 CW_OK);
    pthread_mutex_lock(&w.lock);
    while (!w.done) pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    CHECK(w.status == CW_FAULT && is_busy_data(data));
    cw_value_free(data);
    pthread_cond_destroy(&w.cond);
    pthread_mutex_destroy(&w.lock);
  }
  cw_client_free(xml_client);
  cw_client_free(client);
  cw_server_free(server);
}

/* The JSON limits of each options struct are applied: a server's and a registry's batch and
 * depth (-32600), a client's string size (CW_BAD_RESPONSE). */
static void test_json_limits(void) {
  static const char kBatch[] =
      "[{\"jsonrpc\":\"2.0\",\"method\":\"record\"},"
      "{\"jsonrpc\":\"2.0\",\"method\":\"record\"}]";
  static const char kDeep[] =
      "{\"jsonrpc\":\"2.0\",\"method\":\"record\",\"params\":[[[[1]]]],\"id\":1}";
  cw_dispatch_options dispatch;
  cw_registry* registry = NULL;
  cw_server_options server_options;
  cw_server* server = NULL;
  cw_client_options client_options;
  cw_client* client = NULL;
  cw_value* result = NULL;
  char* response = NULL;
  const char* type = NULL;
  char url[256];
  cw_error err;

  cw_dispatch_options_init(&dispatch);
  dispatch.json_limits.max_batch_size = 1;
  dispatch.json_limits.max_depth = 2;
  CHECK_STATUS(cw_registry_new(&dispatch, &registry, &err), CW_OK);
  CHECK_STATUS(cw_registry_add_method(registry, "record", record, NULL, NULL, NULL, &err), CW_OK);
  CHECK_STATUS(cw_registry_dispatch_content(registry, "application/json", kBatch, strlen(kBatch),
                                            &response, NULL, &type, &err),
               CW_OK);
  CHECK(has(response, "-32600") && has(response, "batch"));
  cw_free(response);
  CHECK_STATUS(cw_registry_dispatch_content(registry, "application/json", kDeep, strlen(kDeep),
                                            &response, NULL, &type, &err),
               CW_OK);
  CHECK(has(response, "-32600") && has(response, "deeper than 2"));
  cw_free(response);
  cw_registry_free(registry);

  cw_server_options_init(&server_options);
  server_options.listen = "127.0.0.1:0";
  server_options.json_limits.max_depth = 2;
  CHECK_STATUS(cw_server_new(&server_options, &server, &err), CW_OK);
  if (!server) return;
  CHECK_STATUS(cw_server_add_method(server, "refuse", refuse, NULL, NULL, NULL, &err), CW_OK);
  CHECK_STATUS(cw_server_start(server, &err), CW_OK);
  snprintf(url, sizeof url, "jsonrpc+%s", cw_server_url(server));
  CHECK_STATUS(cw_client_new(url, NULL, &client, &err), CW_OK);
  {
    /* [[[1]]]: one param of depth 3 */
    const cw_arg inner[] = {cw_arg_int(1)};
    const cw_arg middle[] = {cw_arg_array(inner, 1)};
    const cw_arg outer[] = {cw_arg_array(middle, 1)};
    const cw_arg params[] = {cw_arg_array(outer, 1)};
    CHECK_STATUS(cw_client_call_args(client, "refuse", params, 1, NULL, &result, &err), CW_FAULT);
    CHECK(err.fault_code == -32600); /* the details are in the error's data */
  }
  cw_client_free(client);

  /* The client's own: an answer with a string longer than it takes. */
  cw_client_options_init(&client_options);
  client_options.json_limits.max_string_size = 3;
  CHECK_STATUS(cw_client_new(url, &client_options, &client, &err), CW_OK);
  CHECK_STATUS(cw_client_call_args(client, "refuse", NULL, 0, NULL, &result, &err),
               CW_BAD_RESPONSE); /* as for XML-RPC's reader_limits: the answer is unreadable */
  CHECK(result == NULL && has(err.message, "exceeds max_string_size (3 bytes)"));
  cw_client_free(client);
  cw_server_free(server);
}

int main(int argc, char** argv) {
  static const struct test_case tests[] = {
      TEST(test_values_round_trip),
      TEST(test_calls_encoded_and_decoded),
      TEST(test_responses_encoded_and_decoded),
      TEST(test_decoders_out_of_memory),
      TEST(test_registry_dispatch_content),
      TEST(test_client_over_json_rpc_and_xml_rpc),
      TEST(test_fault_data),
      TEST(test_json_limits),
  };
  return run_tests(tests, COUNT(tests), argc, argv);
}
