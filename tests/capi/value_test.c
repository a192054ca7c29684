/* The C API over values, tested from C99: every constructor and getter, type mismatches,
 * NULL handling, copies and equality, encode/decode, and allocation-failure injection (each
 * allocation of a nested build fails in turn: CW_NO_MEMORY, nothing leaked under ASan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_failure.h"
#include "callwire.h"
#include "test_runner.h"

static const char kLong[] = "a string long enough to live on the heap, not inline";

static void test_status_names(void) {
  CHECK(strcmp(cw_status_name(CW_OK), "ok") == 0);
  CHECK(strcmp(cw_status_name(CW_NO_MEMORY), "out of memory") == 0);
  CHECK(strcmp(cw_status_name((cw_status)999), "unknown") == 0);
  CHECK(strcmp(cw_status_name((cw_status)-1), "unknown") == 0);
  CHECK(CW_STOPPED == 18);
  CHECK(CW_CANCELLED == 19);
}

/* The macros, the string and the running library agree (the library is this tree's). */
static void test_version(void) {
  char composed[32];
  snprintf(composed, sizeof composed, "%d.%d.%d", CALLWIRE_VERSION_MAJOR, CALLWIRE_VERSION_MINOR,
           CALLWIRE_VERSION_PATCH);
  CHECK(strcmp(composed, CALLWIRE_VERSION_STRING) == 0);
  CHECK(strcmp(callwire_version(), CALLWIRE_VERSION_STRING) == 0);
  CHECK(CALLWIRE_VERSION_NUMBER == CALLWIRE_VERSION_AT(CALLWIRE_VERSION_MAJOR,
                                                       CALLWIRE_VERSION_MINOR,
                                                       CALLWIRE_VERSION_PATCH));
  CHECK(CALLWIRE_VERSION_AT(0, 2, 0) > CALLWIRE_VERSION_AT(0, 1, 99));
  CHECK(CALLWIRE_VERSION_AT(1, 0, 0) > CALLWIRE_VERSION_AT(0, 999, 999));
}

/* A fault document whose faultString is `text`, decoded: what cw_error.message keeps of it. */
static void decode_fault_string(const char* text, cw_error* err) {
  static const char head[] =
      "<methodResponse><fault><value><struct><member><name>faultCode</name><value><int>7</int>"
      "</value></member><member><name>faultString</name><value><string>";
  static const char tail[] = "</string></value></member></struct></value></fault></methodResponse>";
  char doc[2048];
  cw_value* back = NULL;
  snprintf(doc, sizeof doc, "%s%s%s", head, text, tail);
  CHECK_STATUS(cw_value_decode_response(doc, strlen(doc), &back, err), CW_FAULT);
  CHECK(back == NULL && err->fault_code == 7);
}

/* True when `s` is well-formed UTF-8 (no sequence cut short). */
static int valid_utf8(const char* s) {
  const unsigned char* p = (const unsigned char*)s;
  while (*p) {
    int extra = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : 3;
    if ((*p & 0xC0) == 0x80) return 0;
    ++p;
    for (; extra > 0; --extra, ++p)
      if ((*p & 0xC0) != 0x80) return 0;
  }
  return 1;
}

/* A message longer than cw_error holds keeps its start and its end (where the cause usually
 * is), joined by " ... ", and stays valid UTF-8 whatever characters sit at the cuts. */
static void test_long_error_messages(void) {
  char text[1200];
  cw_error err;
  size_t n, i;
  size_t message_len;

  /* "where: " + 600 x's + ": THE CAUSE" */
  n = (size_t)sprintf(text, "where: ");
  for (i = 0; i < 600; ++i) text[n++] = 'x';
  strcpy(text + n, ": THE CAUSE");
  decode_fault_string(text, &err);
  message_len = strlen(err.message);
  CHECK(message_len < sizeof err.message);
  CHECK(strncmp(err.message, "where: xxx", 10) == 0);
  CHECK(strstr(err.message, " ... ") != NULL);
  CHECK(message_len > 11 && strcmp(err.message + message_len - 11, ": THE CAUSE") == 0);

  /* Two-, three- and four-byte characters everywhere: no cut inside one, at any offset. */
  for (i = 0; i < 4; ++i) {
    size_t k;
    n = 0;
    for (k = 0; k < i; ++k) text[n++] = 'a';
    while (n < 1000) {
      memcpy(text + n, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9); /* é € 😀 */
      n += 9;
    }
    text[n] = '\0';
    decode_fault_string(text, &err);
    CHECK(strlen(err.message) < sizeof err.message && strlen(err.message) > 200);
    CHECK(valid_utf8(err.message));
    CHECK(strstr(err.message, " ... ") != NULL);
  }

  /* A message that fits is kept whole, with no marker. */
  decode_fault_string("short and whole", &err);
  CHECK(strcmp(err.message, "short and whole") == 0);
}

/* A call and a fault through the codec alone, for transports of the caller's own. */
static void test_encode_decode_calls(void) {
  cw_value *a = NULL, *b = NULL, *params = NULL, *back = NULL;
  const cw_value* item = NULL;
  const cw_value* list[2];
  char *xml = NULL, *method = NULL;
  size_t len = 0, n = 0;
  int32_t i = 0;
  cw_error err;

  CHECK_STATUS(cw_value_new_int(5, &a), CW_OK);
  CHECK_STATUS(cw_value_new_cstring("three", &b), CW_OK);
  list[0] = a;
  list[1] = b;
  CHECK_STATUS(cw_encode_call("sample.add", list, 2, &xml, &len, &err), CW_OK);
  CHECK(xml != NULL && strlen(xml) == len && strstr(xml, "<methodName>sample.add</methodName>"));
  CHECK_STATUS(cw_decode_call(xml, len, &method, &params, &err), CW_OK);
  CHECK(strcmp(method, "sample.add") == 0);
  CHECK_STATUS(cw_value_array_size(params, &n), CW_OK);
  CHECK(n == 2);
  CHECK_STATUS(cw_value_array_get(params, 0, &item), CW_OK);
  CHECK_STATUS(cw_value_get_int(item, &i), CW_OK);
  CHECK(i == 5);
  CHECK_STATUS(cw_value_array_get(params, 1, &item), CW_OK);
  CHECK(cw_value_equal(item, b) == 1);
  cw_free(method);
  cw_value_free(params);
  method = NULL;
  params = NULL;

  /* A response where a call is expected, and malformed XML: nothing allocated. */
  cw_free(xml);
  CHECK_STATUS(cw_value_encode_response(a, &xml, &len, NULL), CW_OK);
  CHECK_STATUS(cw_decode_call(xml, len, &method, &params, &err), CW_INVALID_REQUEST);
  CHECK(method == NULL && params == NULL && err.fault_code == -32600);
  CHECK_STATUS(cw_decode_call("<methodCall>", 12, &method, &params, &err), CW_NOT_WELL_FORMED);
  CHECK(method == NULL && params == NULL);
  cw_free(xml);
  xml = NULL;

  /* A fault, read back as one. */
  CHECK_STATUS(cw_encode_fault(-32601, "no such method", &xml, &len, &err), CW_OK);
  CHECK_STATUS(cw_value_decode_response(xml, len, &back, &err), CW_FAULT);
  CHECK(back == NULL && err.fault_code == -32601 && strcmp(err.message, "no such method") == 0);
  cw_free(xml);
  xml = NULL;

  /* What cannot be written, and misuse. */
  CHECK_STATUS(cw_encode_call("", list, 2, &xml, &len, &err), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_encode_call("m", NULL, 1, &xml, &len, &err), CW_INVALID_ARGUMENT);
  list[1] = NULL;
  CHECK_STATUS(cw_encode_call("m", list, 2, &xml, &len, &err), CW_INVALID_ARGUMENT);
  CHECK(strcmp(err.message, "params[1] is NULL") == 0);
  CHECK_STATUS(cw_encode_fault(1, "\x01", &xml, &len, &err), CW_UNREPRESENTABLE);
  CHECK(xml == NULL);
  CHECK_STATUS(cw_decode_call("x", 1, NULL, &params, &err), CW_INVALID_ARGUMENT);
  cw_value_free(a);
  cw_value_free(b);
}

static void test_constant_time_equal(void) {
  CHECK(cw_constant_time_equal("s3cret", 6, "s3cret", 6));
  CHECK(!cw_constant_time_equal("s3creT", 6, "s3cret", 6));
  CHECK(!cw_constant_time_equal("s3cre", 5, "s3cret", 6)); /* a prefix is not a match */
  CHECK(!cw_constant_time_equal("s3cret!", 7, "s3cret", 6));
  CHECK(!cw_constant_time_equal("a\0b", 3, "a\0c", 3)); /* every byte counts, NULs too */
  CHECK(cw_constant_time_equal(NULL, 0, "", 0));
  CHECK(!cw_constant_time_equal(NULL, 1, "x", 1));
}

static void test_scalars(void) {
  cw_value* v = NULL;
  int b = -1;
  int32_t i = 0;
  int64_t l = 0;
  double d = 0;

  CHECK_STATUS(cw_value_new_nil(&v), CW_OK);
  CHECK(cw_value_type(v) == CW_TYPE_NIL);
  cw_value_free(v);

  CHECK_STATUS(cw_value_new_bool(7, &v), CW_OK);
  CHECK(cw_value_type(v) == CW_TYPE_BOOL);
  CHECK_STATUS(cw_value_get_bool(v, &b), CW_OK);
  CHECK(b == 1);
  CHECK_STATUS(cw_value_get_int(v, &i), CW_TYPE_MISMATCH);
  cw_value_free(v);

  CHECK_STATUS(cw_value_new_int(-42, &v), CW_OK);
  CHECK(cw_value_type(v) == CW_TYPE_INT);
  CHECK_STATUS(cw_value_get_int(v, &i), CW_OK);
  CHECK(i == -42);
  CHECK_STATUS(cw_value_get_i8(v, &l), CW_OK); /* widened, as in C++ */
  CHECK(l == -42);
  CHECK_STATUS(cw_value_get_double(v, &d), CW_TYPE_MISMATCH);
  CHECK_STATUS(cw_value_get_bool(v, &b), CW_TYPE_MISMATCH);
  cw_value_free(v);

  CHECK_STATUS(cw_value_new_i8(INT64_MIN, &v), CW_OK);
  CHECK(cw_value_type(v) == CW_TYPE_I8);
  CHECK_STATUS(cw_value_get_i8(v, &l), CW_OK);
  CHECK(l == INT64_MIN);
  i = 5;
  CHECK_STATUS(cw_value_get_int(v, &i), CW_TYPE_MISMATCH);
  CHECK(i == 5); /* untouched */
  cw_value_free(v);

  CHECK_STATUS(cw_value_new_double(2.5, &v), CW_OK);
  CHECK(cw_value_type(v) == CW_TYPE_DOUBLE);
  CHECK_STATUS(cw_value_get_double(v, &d), CW_OK);
  CHECK(d == 2.5);
  CHECK_STATUS(cw_value_get_i8(v, &l), CW_TYPE_MISMATCH);
  cw_value_free(v);
}

static void test_strings_and_bytes(void) {
  static const unsigned char raw[] = {0, 1, 2, 0xff, 0};
  cw_value* v = NULL;
  const char* s = NULL;
  const void* p = NULL;
  size_t n = 99;

  CHECK_STATUS(cw_value_new_string("hi\0there", 8, &v), CW_OK); /* embedded NUL kept */
  CHECK(cw_value_type(v) == CW_TYPE_STRING);
  CHECK_STATUS(cw_value_get_string(v, &s, &n), CW_OK);
  CHECK(n == 8 && memcmp(s, "hi\0there", 8) == 0);
  CHECK_STATUS(cw_value_get_bytes(v, &p, &n), CW_TYPE_MISMATCH);
  cw_value_free(v);

  CHECK_STATUS(cw_value_new_string(kLong, strlen(kLong), &v), CW_OK);
  CHECK_STATUS(cw_value_get_string(v, &s, &n), CW_OK);
  CHECK(n == strlen(kLong) && memcmp(s, kLong, n) == 0);
  cw_value_free(v);

  CHECK_STATUS(cw_value_new_string(NULL, 0, &v), CW_OK);
  CHECK_STATUS(cw_value_get_string(v, &s, &n), CW_OK);
  CHECK(n == 0 && s != NULL && s[0] == '\0');
  cw_value_free(v);

  /* Every string handed out is NUL-terminated, whatever its length: kept in the value (up to
   * 13 bytes), in a block of its own, or in a page mapping (from 128 KiB), and also when it
   * was built from bytes with no NUL after them. */
  {
    static const size_t lengths[] = {1, 13, 14, 15, 16, 100, 200000};
    size_t i, k;
    char* text = (char*)malloc(200001);
    CHECK(text != NULL);
    for (i = 0; text && i < sizeof lengths / sizeof lengths[0]; ++i) {
      for (k = 0; k < lengths[i] + 1; ++k) text[k] = 'a' + (char)(k % 26);
      CHECK_STATUS(cw_value_new_string(text, lengths[i], &v), CW_OK);
      CHECK_STATUS(cw_value_get_string(v, &s, &n), CW_OK);
      CHECK(n == lengths[i] && s[n] == '\0' && strlen(s) == n);
      cw_value_free(v);
    }
    free(text);
  }

  CHECK_STATUS(cw_value_new_bytes(raw, sizeof raw, &v), CW_OK);
  CHECK(cw_value_type(v) == CW_TYPE_BYTES);
  CHECK_STATUS(cw_value_get_bytes(v, &p, &n), CW_OK);
  CHECK(n == sizeof raw && memcmp(p, raw, n) == 0);
  CHECK_STATUS(cw_value_get_string(v, &s, &n), CW_TYPE_MISMATCH);
  cw_value_free(v);

  CHECK_STATUS(cw_value_new_bytes(NULL, 0, &v), CW_OK);
  CHECK_STATUS(cw_value_get_bytes(v, &p, &n), CW_OK);
  CHECK(n == 0 && p != NULL);
  cw_value_free(v);
}

static cw_datetime sample_datetime(void) {
  cw_datetime dt;
  memset(&dt, 0, sizeof dt);
  dt.year = 1998;
  dt.month = 7;
  dt.day = 17;
  dt.hour = 14;
  dt.minute = 8;
  dt.second = 55;
  dt.fraction_digits = 3;
  dt.nanosecond = 123000000u;
  dt.zone = CW_ZONE_OFFSET;
  dt.offset_minutes = -330;
  return dt;
}

static void test_datetime(void) {
  cw_datetime dt = sample_datetime(), got;
  cw_value* v = NULL;
  int32_t i;
  memset(&got, 0, sizeof got);

  CHECK_STATUS(cw_value_new_datetime(&dt, &v), CW_OK);
  CHECK(cw_value_type(v) == CW_TYPE_DATETIME);
  CHECK_STATUS(cw_value_get_datetime(v, &got), CW_OK);
  CHECK(got.year == 1998 && got.month == 7 && got.day == 17 && got.hour == 14 && got.minute == 8 &&
        got.second == 55 && got.fraction_digits == 3 && got.nanosecond == 123000000u &&
        got.zone == CW_ZONE_OFFSET && got.offset_minutes == -330);
  CHECK_STATUS(cw_value_get_int(v, &i), CW_TYPE_MISMATCH);
  cw_value_free(v);

  v = NULL;
  dt.month = 2;
  dt.day = 29; /* 1998 is not a leap year */
  CHECK_STATUS(cw_value_new_datetime(&dt, &v), CW_INVALID_ARGUMENT);
  CHECK(v == NULL);
  dt = sample_datetime();
  dt.zone = (cw_zone)7;
  CHECK_STATUS(cw_value_new_datetime(&dt, &v), CW_INVALID_ARGUMENT);
  CHECK(v == NULL);
}

static void test_arrays(void) {
  cw_value *a = NULL, *item = NULL;
  const cw_value* e = NULL;
  size_t n = 99;
  int32_t i;
  int64_t l;

  CHECK_STATUS(cw_value_new_array(&a), CW_OK);
  CHECK(cw_value_type(a) == CW_TYPE_ARRAY);
  CHECK_STATUS(cw_value_array_size(a, &n), CW_OK);
  CHECK(n == 0);
  CHECK_STATUS(cw_value_array_get(a, 0, &e), CW_NOT_FOUND);

  CHECK_STATUS(cw_value_new_int(1, &item), CW_OK);
  CHECK_STATUS(cw_value_array_append(a, item), CW_OK);
  cw_value_free(item); /* the array holds a copy */
  CHECK_STATUS(cw_value_new_i8(2, &item), CW_OK);
  CHECK_STATUS(cw_value_array_append(a, item), CW_OK);
  cw_value_free(item);
  CHECK_STATUS(cw_value_array_append(a, a), CW_OK); /* itself: copied first */

  CHECK_STATUS(cw_value_array_size(a, &n), CW_OK);
  CHECK(n == 3);
  CHECK_STATUS(cw_value_array_get(a, 0, &e), CW_OK);
  CHECK_STATUS(cw_value_get_int(e, &i), CW_OK);
  CHECK(i == 1);
  CHECK_STATUS(cw_value_array_get(a, 1, &e), CW_OK);
  CHECK_STATUS(cw_value_get_i8(e, &l), CW_OK);
  CHECK(l == 2);
  CHECK_STATUS(cw_value_array_get(a, 2, &e), CW_OK);
  CHECK(cw_value_type(e) == CW_TYPE_ARRAY);
  CHECK_STATUS(cw_value_array_size(e, &n), CW_OK);
  CHECK(n == 2);
  CHECK_STATUS(cw_value_array_get(a, 3, &e), CW_NOT_FOUND);

  /* Mismatches: array functions on a non-array, struct functions on an array. */
  CHECK_STATUS(cw_value_new_int(1, &item), CW_OK);
  CHECK_STATUS(cw_value_array_append(item, a), CW_TYPE_MISMATCH);
  CHECK_STATUS(cw_value_array_size(item, &n), CW_TYPE_MISMATCH);
  CHECK_STATUS(cw_value_array_get(item, 0, &e), CW_TYPE_MISMATCH);
  CHECK_STATUS(cw_value_struct_set(a, "x", item), CW_TYPE_MISMATCH);
  CHECK_STATUS(cw_value_struct_size(a, &n), CW_TYPE_MISMATCH);
  cw_value_free(item);
  cw_value_free(a);
}

static void test_structs(void) {
  cw_value *s = NULL, *item = NULL;
  const cw_value* m = NULL;
  const char* name = NULL;
  size_t n = 99, name_len = 99;
  int32_t i;

  CHECK_STATUS(cw_value_new_struct(&s), CW_OK);
  CHECK(cw_value_type(s) == CW_TYPE_STRUCT);
  CHECK_STATUS(cw_value_struct_size(s, &n), CW_OK);
  CHECK(n == 0);
  CHECK_STATUS(cw_value_struct_get(s, "a", &m), CW_NOT_FOUND);
  CHECK_STATUS(cw_value_struct_member_at(s, 0, &name, &name_len, &m), CW_NOT_FOUND);

  CHECK_STATUS(cw_value_new_int(1, &item), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "a", item), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "b", item), CW_OK);
  cw_value_free(item);
  CHECK_STATUS(cw_value_new_int(3, &item), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "a", item), CW_OK); /* replaces in place */
  cw_value_free(item);
  CHECK_STATUS(cw_value_struct_set(s, "self", s), CW_OK); /* itself: copied first */

  CHECK_STATUS(cw_value_struct_size(s, &n), CW_OK);
  CHECK(n == 3);
  CHECK_STATUS(cw_value_struct_get(s, "a", &m), CW_OK);
  CHECK_STATUS(cw_value_get_int(m, &i), CW_OK);
  CHECK(i == 3);
  CHECK_STATUS(cw_value_struct_member_at(s, 0, &name, &name_len, &m), CW_OK);
  CHECK(name_len == 1 && memcmp(name, "a", 1) == 0);
  CHECK_STATUS(cw_value_struct_member_at(s, 2, &name, NULL, &m), CW_OK);
  CHECK(memcmp(name, "self", 4) == 0);
  CHECK_STATUS(cw_value_struct_size(m, &n), CW_OK);
  CHECK(n == 2);
  CHECK_STATUS(cw_value_struct_member_at(s, 3, &name, &name_len, &m), CW_NOT_FOUND);

  CHECK_STATUS(cw_value_new_nil(&item), CW_OK);
  CHECK_STATUS(cw_value_struct_get(item, "a", &m), CW_TYPE_MISMATCH);
  CHECK_STATUS(cw_value_struct_member_at(item, 0, &name, &name_len, &m), CW_TYPE_MISMATCH);
  CHECK_STATUS(cw_value_struct_set(item, "a", s), CW_TYPE_MISMATCH); /* nil is not a struct */
  CHECK_STATUS(cw_value_array_size(s, &n), CW_TYPE_MISMATCH);
  cw_value_free(item);
  cw_value_free(s);
}

static void test_null_handling(void) {
  cw_value* v = NULL;
  const cw_value* e = NULL;
  const char* s;
  const void* p;
  size_t n;
  int b;
  int32_t i;
  int64_t l;
  double d;
  cw_datetime dt = sample_datetime();
  char* xml = NULL;

  cw_value_free(NULL);
  cw_free(NULL);
  CHECK(cw_value_type(NULL) == CW_TYPE_INVALID);
  CHECK(cw_value_equal(NULL, NULL) == 1);

  CHECK_STATUS(cw_value_new_nil(NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_bool(1, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_int(1, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_i8(1, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_double(1, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_string("x", 1, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_string(NULL, 1, &v), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_datetime(&dt, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_datetime(NULL, &v), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_bytes("x", 1, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_bytes(NULL, 1, &v), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_array(NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_new_struct(NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_copy(NULL, &v), CW_INVALID_ARGUMENT);
  CHECK(v == NULL);

  CHECK_STATUS(cw_value_get_bool(NULL, &b), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_get_int(NULL, &i), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_get_i8(NULL, &l), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_get_double(NULL, &d), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_get_string(NULL, &s, &n), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_get_datetime(NULL, &dt), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_get_bytes(NULL, &p, &n), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_array_size(NULL, &n), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_array_get(NULL, 0, &e), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_array_append(NULL, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_size(NULL, &n), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_get(NULL, "a", &e), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_set(NULL, "a", NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_member_at(NULL, 0, &s, &n, &e), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_encode_response(NULL, &xml, &n, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_decode_response("<x/>", 4, NULL, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_decode_response(NULL, 4, &v, NULL), CW_INVALID_ARGUMENT);

  /* A valid value, NULL outputs or names. */
  CHECK_STATUS(cw_value_new_struct(&v), CW_OK);
  CHECK(cw_value_equal(v, NULL) == 0 && cw_value_equal(NULL, v) == 0);
  CHECK_STATUS(cw_value_copy(v, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_get_bool(v, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_get_string(v, &s, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_set(v, NULL, v), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_set(v, "a", NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_get(v, NULL, &e), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_get(v, "a", NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_size(v, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_struct_member_at(v, 0, NULL, &n, &e), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_encode_response(v, NULL, &n, NULL), CW_INVALID_ARGUMENT);
  cw_value_free(v);
}

/* The nested value the copy, equality, codec and allocation-failure tests share:
 *   {"name": <long string>, "when": dateTime, "list": [1, i8, <long string>, <bytes>, {"x": 2.5}],
 *    "flag": true}
 * Returns the first failing status; on failure everything made so far is freed and *out is
 * untouched. Checks that a failed append or set left its container as it was. */
static cw_status build_nested(cw_value** out) {
  cw_value *top = NULL, *list = NULL, *inner = NULL, *item = NULL;
  cw_datetime dt = sample_datetime();
  size_t before = 0, after = 0;
  cw_status st;

#define TRY(expr)              \
  do {                         \
    st = (expr);               \
    if (st != CW_OK) goto out; \
  } while (0)
#define TRY_APPEND(arr)                                                                    \
  do {                                                                                     \
    cw_value_array_size(arr, &before);                                                     \
    st = cw_value_array_append(arr, item);                                                 \
    cw_value_array_size(arr, &after);                                                      \
    CHECK(st == CW_OK ? after == before + 1 : after == before); /* unchanged on failure */ \
    cw_value_free(item);                                                                   \
    item = NULL;                                                                           \
    if (st != CW_OK) goto out;                                                             \
  } while (0)
#define TRY_SET(s, key)                                         \
  do {                                                          \
    cw_value_struct_size(s, &before);                           \
    st = cw_value_struct_set(s, key, item);                     \
    cw_value_struct_size(s, &after);                            \
    CHECK(st == CW_OK ? after == before + 1 : after == before); \
    cw_value_free(item);                                        \
    item = NULL;                                                \
    if (st != CW_OK) goto out;                                  \
  } while (0)

  TRY(cw_value_new_struct(&top));
  TRY(cw_value_new_string(kLong, strlen(kLong), &item));
  TRY_SET(top, "name");
  TRY(cw_value_new_datetime(&dt, &item));
  TRY_SET(top, "when");

  TRY(cw_value_new_array(&list));
  TRY(cw_value_new_int(1, &item));
  TRY_APPEND(list);
  TRY(cw_value_new_i8(INT64_MAX, &item));
  TRY_APPEND(list);
  TRY(cw_value_new_string(kLong, strlen(kLong), &item));
  TRY_APPEND(list);
  TRY(cw_value_new_bytes(kLong, sizeof kLong, &item));
  TRY_APPEND(list);
  TRY(cw_value_new_struct(&inner));
  TRY(cw_value_new_double(2.5, &item));
  TRY_SET(inner, "x");
  item = inner;
  inner = NULL;
  TRY_APPEND(list);
  item = list;
  list = NULL;
  TRY_SET(top, "list");

  TRY(cw_value_new_bool(1, &item));
  TRY_SET(top, "flag");
  *out = top;
  top = NULL;
  st = CW_OK;
out:
  cw_value_free(item);
  cw_value_free(inner);
  cw_value_free(list);
  cw_value_free(top);
  return st;
#undef TRY
#undef TRY_APPEND
#undef TRY_SET
}

static void test_copy_equal(void) {
  cw_value *a = NULL, *b = NULL, *c = NULL, *i1 = NULL, *i8 = NULL;
  const cw_value* m = NULL;
  double d;

  CHECK_STATUS(build_nested(&a), CW_OK);
  CHECK_STATUS(cw_value_copy(a, &b), CW_OK);
  CHECK(cw_value_equal(a, b) == 1);
  CHECK(cw_value_equal(a, a) == 1);
  CHECK_STATUS(cw_value_struct_get(b, "list", &m), CW_OK);
  CHECK_STATUS(cw_value_array_get(m, 4, &m), CW_OK);
  CHECK_STATUS(cw_value_struct_get(m, "x", &m), CW_OK);
  CHECK_STATUS(cw_value_get_double(m, &d), CW_OK);
  CHECK(d == 2.5);

  /* Change the copy: the original is independent. */
  CHECK_STATUS(cw_value_new_int(0, &c), CW_OK);
  CHECK_STATUS(cw_value_struct_set(b, "flag", c), CW_OK);
  CHECK(cw_value_equal(a, b) == 0);

  /* int and i8 differ; NaN equals NaN. */
  CHECK_STATUS(cw_value_new_int(1, &i1), CW_OK);
  CHECK_STATUS(cw_value_new_i8(1, &i8), CW_OK);
  CHECK(cw_value_equal(i1, i8) == 0);
  cw_value_free(i1);
  cw_value_free(i8);
  CHECK_STATUS(cw_value_new_double(NAN, &i1), CW_OK);
  CHECK_STATUS(cw_value_new_double(NAN, &i8), CW_OK);
  CHECK(cw_value_equal(i1, i8) == 1);
  cw_value_free(i1);
  cw_value_free(i8);

  cw_value_free(c);
  cw_value_free(b);
  cw_value_free(a);
}

static void test_encode_decode(void) {
  cw_value *a = NULL, *back = NULL, *bad = NULL;
  char* xml = NULL;
  size_t len = 0;
  cw_error err;
  static const char fault[] =
      "<?xml version=\"1.0\"?><methodResponse><fault><value><struct>"
      "<member><name>faultCode</name><value><int>4</int></value></member>"
      "<member><name>faultString</name><value><string>Too many parameters.</string></value>"
      "</member></struct></value></fault></methodResponse>";

  CHECK_STATUS(build_nested(&a), CW_OK);
  CHECK_STATUS(cw_value_encode_response(a, &xml, &len, &err), CW_OK);
  CHECK(err.status == CW_OK && err.message[0] == '\0');
  CHECK(xml != NULL && strlen(xml) == len);
  CHECK(strstr(xml, "<methodResponse>") != NULL && strstr(xml, "<i8>") != NULL);
  CHECK_STATUS(cw_value_decode_response(xml, len, &back, &err), CW_OK);
  CHECK(cw_value_equal(a, back) == 1);
  cw_free(xml);
  cw_value_free(back);
  back = NULL;

  /* Without the optional outputs. */
  CHECK_STATUS(cw_value_encode_response(a, &xml, NULL, NULL), CW_OK);
  cw_free(xml);
  xml = NULL;

  /* What XML-RPC cannot carry. */
  CHECK_STATUS(cw_value_new_double(NAN, &bad), CW_OK);
  CHECK_STATUS(cw_value_encode_response(bad, &xml, &len, &err), CW_UNREPRESENTABLE);
  CHECK(xml == NULL && err.status == CW_UNREPRESENTABLE && err.message[0] != '\0');
  cw_value_free(bad);
  CHECK_STATUS(cw_value_new_string("\xff\xfe", 2, &bad), CW_OK);
  CHECK_STATUS(cw_value_encode_response(bad, &xml, &len, NULL), CW_UNREPRESENTABLE);
  cw_value_free(bad);

  /* A fault, malformed XML, a call where a response is expected. */
  CHECK_STATUS(cw_value_decode_response(fault, strlen(fault), &back, &err), CW_FAULT);
  CHECK(back == NULL && err.status == CW_FAULT && err.fault_code == 4);
  CHECK(strcmp(err.message, "Too many parameters.") == 0);
  CHECK_STATUS(cw_value_decode_response("<methodResponse><params>", 24, &back, &err),
               CW_NOT_WELL_FORMED);
  CHECK(back == NULL && err.fault_code == -32700 && err.message[0] != '\0');
  CHECK_STATUS(cw_value_decode_response(
                   "<methodCall><methodName>a</methodName><params/></methodCall>", 60, &back, &err),
               CW_INVALID_REQUEST);
  CHECK_STATUS(cw_value_decode_response(NULL, 0, &back, NULL), CW_NOT_WELL_FORMED);
  CHECK(back == NULL);
  cw_value_free(a);
}

/* Builds the nested value, copies it, encodes and decodes it, compares: the scenario whose
 * every allocation is made to fail in turn. */
static cw_status nested_scenario(void) {
  cw_value *a = NULL, *b = NULL, *c = NULL;
  char* xml = NULL;
  size_t len = 0;
  cw_status st = build_nested(&a);
  if (st == CW_OK) st = cw_value_copy(a, &b);
  if (st == CW_OK) st = cw_value_encode_response(b, &xml, &len, NULL);
  if (st == CW_OK) st = cw_value_decode_response(xml, len, &c, NULL);
  if (st == CW_OK) CHECK(cw_value_equal(a, c) == 1);
  if (st != CW_OK) CHECK(c == NULL);
  cw_free(xml);
  cw_value_free(c);
  cw_value_free(b);
  cw_value_free(a);
  return st;
}

static void test_allocation_failure(void) {
  long n, total, failures = 0;

  cw_test_fail_allocation_after(-1); /* count only */
  CHECK_STATUS(nested_scenario(), CW_OK);
  total = cw_test_allocation_count();
  CHECK(total > 20); /* the scenario does allocate through the hook */
  printf("       the nested scenario makes %ld allocations; each fails in turn\n", total);

  for (n = 0; n < total; ++n) {
    cw_status st;
    cw_test_fail_allocation_after(n);
    st = nested_scenario();
    if (st != CW_NO_MEMORY) {
      fprintf(stderr, "allocation %ld of %ld failed: got %s, expected CW_NO_MEMORY\n", n + 1, total,
              cw_status_name(st));
      ++failures;
    }
  }
  CHECK(failures == 0);

  /* With room for every allocation it succeeds again. */
  cw_test_fail_allocation_after(total);
  CHECK_STATUS(nested_scenario(), CW_OK);
  cw_test_fail_allocation_after(-1);
}

int main(int argc, char** argv) {
  static const struct test_case tests[] = {
      TEST(test_status_names),
      TEST(test_version),
      TEST(test_long_error_messages),
      TEST(test_encode_decode_calls),
      TEST(test_constant_time_equal),
      TEST(test_scalars),
      TEST(test_strings_and_bytes),
      TEST(test_datetime),
      TEST(test_arrays),
      TEST(test_structs),
      TEST(test_null_handling),
      TEST(test_copy_equal),
      TEST(test_encode_decode),
      TEST(test_allocation_failure),
  };
  return run_tests(tests, COUNT(tests), argc, argv);
}
