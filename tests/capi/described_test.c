/* Values described in place (cw_arg, cw_out), tested from C99: cw_value_build against values
 * built one call at a time, every kind, the messages that say where a description is wrong,
 * a description that contains itself, cw_value_read into variables (nothing written on
 * failure), allocation failures at every step, and the NUL-terminated string helpers. */
#include <stdlib.h>
#include <string.h>

#include "alloc_failure.h"
#include "callwire.h"
#include "test_runner.h"

static const cw_datetime kWhen = {2026, 11, 24, 9, 30, 0, 0, 0, CW_ZONE_UTC, 0};

/* {"name": "Ada", "tags": [1, "two", nil], "when": <kWhen>, "blob": <3 bytes>,
 *  "big": i8, "ratio": 0.5, "ok": true, "copy": <a built value>} */
static cw_status build_described(cw_value** out, cw_error* err) {
  static const unsigned char blob[3] = {0, 1, 255};
  cw_value* built = NULL;
  cw_status st;
  const cw_arg tags[] = {cw_arg_int(1), cw_arg_cstring("two"), cw_arg_nil()};
  cw_arg_member members[8];
  if ((st = cw_value_new_cstring("built", &built)) != CW_OK) return st;
  members[0].name = "name";
  members[0].value = cw_arg_cstring("Ada");
  members[1].name = "tags";
  members[1].value = cw_arg_array(tags, 3);
  members[2].name = "when";
  members[2].value = cw_arg_datetime(&kWhen);
  members[3].name = "blob";
  members[3].value = cw_arg_bytes(blob, 3);
  members[4].name = "big";
  members[4].value = cw_arg_i8(INT64_C(1) << 40);
  members[5].name = "ratio";
  members[5].value = cw_arg_double(0.5);
  members[6].name = "ok";
  members[6].value = cw_arg_bool(7);
  members[7].name = "copy";
  members[7].value = cw_arg_value(built);
  {
    const cw_arg whole = cw_arg_struct(members, 8);
    st = cw_value_build(&whole, out, err);
  }
  cw_value_free(built);
  return st;
}

/* The same value, one call at a time. */
static cw_value* build_by_hand(void) {
  static const unsigned char blob[3] = {0, 1, 255};
  cw_value *s = NULL, *v = NULL, *tags = NULL;
  CHECK_STATUS(cw_value_new_struct(&s), CW_OK);
  CHECK_STATUS(cw_value_new_string("Ada", 3, &v), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "name", v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_new_array(&tags), CW_OK);
  CHECK_STATUS(cw_value_new_int(1, &v), CW_OK);
  CHECK_STATUS(cw_value_array_append(tags, v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_new_string("two", 3, &v), CW_OK);
  CHECK_STATUS(cw_value_array_append(tags, v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_new_nil(&v), CW_OK);
  CHECK_STATUS(cw_value_array_append(tags, v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_struct_set(s, "tags", tags), CW_OK);
  cw_value_free(tags);
  CHECK_STATUS(cw_value_new_datetime(&kWhen, &v), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "when", v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_new_bytes(blob, 3, &v), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "blob", v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_new_i8(INT64_C(1) << 40, &v), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "big", v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_new_double(0.5, &v), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "ratio", v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_new_bool(1, &v), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "ok", v), CW_OK);
  cw_value_free(v);
  CHECK_STATUS(cw_value_new_string("built", 5, &v), CW_OK);
  CHECK_STATUS(cw_value_struct_set(s, "copy", v), CW_OK);
  cw_value_free(v);
  return s;
}

static void test_build_matches_building_by_hand(void) {
  cw_value *described = NULL, *by_hand = build_by_hand();
  cw_error err;
  CHECK_STATUS(build_described(&described, &err), CW_OK);
  CHECK(err.status == CW_OK);
  CHECK(cw_value_equal(described, by_hand) == 1);
  cw_value_free(described);
  cw_value_free(by_hand);
}

/* Each wrong description: the status, and a message that names the place. */
static void expect_build_error(const cw_arg* arg, cw_status status, const char* message) {
  cw_value* out = NULL;
  cw_error err;
  CHECK_STATUS(cw_value_build(arg, &out, &err), status);
  CHECK(out == NULL && err.status == status);
  if (strcmp(err.message, message) != 0) {
    fprintf(stderr, "  message: '%s'\n  wanted:  '%s'\n", err.message, message);
    CHECK(strcmp(err.message, message) == 0);
  }
}

static void test_wrong_descriptions_say_where(void) {
  static const cw_datetime feb30 = {2026, 2, 30, 0, 0, 0, 0, 0, CW_ZONE_NONE, 0};
  const cw_arg names[] = {cw_arg_cstring("a"), cw_arg_cstring(NULL)};
  cw_arg_member people[2];
  cw_arg in_array[2];
  cw_arg odd, self;
  const cw_arg_member nameless[] = {{NULL, {CW_ARG_NIL, {0}}}};
  cw_value* out = NULL;

  people[0].name = "id";
  people[0].value = cw_arg_int(1);
  people[1].name = "names";
  people[1].value = cw_arg_array(names, 2);
  in_array[0] = cw_arg_nil();
  in_array[1] = cw_arg_struct(people, 2);
  expect_build_error(&in_array[1], CW_INVALID_ARGUMENT, "names[1]: a NULL string");
  {
    const cw_arg whole = cw_arg_array(in_array, 2);
    expect_build_error(&whole, CW_INVALID_ARGUMENT, "[1].names[1]: a NULL string");
  }
  {
    const cw_arg arg = cw_arg_string(NULL, 3);
    expect_build_error(&arg, CW_INVALID_ARGUMENT, "a NULL string");
  }
  {
    const cw_arg arg = cw_arg_bytes(NULL, 1);
    expect_build_error(&arg, CW_INVALID_ARGUMENT, "NULL bytes with a length");
  }
  {
    const cw_arg arg = cw_arg_datetime(&feb30);
    expect_build_error(&arg, CW_INVALID_ARGUMENT, "a datetime out of range");
  }
  {
    const cw_arg arg = cw_arg_datetime(NULL);
    expect_build_error(&arg, CW_INVALID_ARGUMENT, "a NULL datetime");
  }
  {
    const cw_arg arg = cw_arg_array(NULL, 2);
    expect_build_error(&arg, CW_INVALID_ARGUMENT, "NULL items with a count");
  }
  {
    const cw_arg arg = cw_arg_struct(nameless, 1);
    expect_build_error(&arg, CW_INVALID_ARGUMENT, "member 0 has a NULL name");
  }
  {
    const cw_arg arg = cw_arg_value(NULL);
    expect_build_error(&arg, CW_INVALID_ARGUMENT, "a NULL value");
  }
  odd.kind = (cw_arg_kind)77;
  expect_build_error(&odd, CW_INVALID_ARGUMENT, "an unknown kind 77");
  /* A description that contains itself would recurse forever: it is cut at depth 1000. */
  self = cw_arg_array(&self, 1);
  CHECK_STATUS(cw_value_build(&self, &out, NULL), CW_LIMIT_EXCEEDED);
  CHECK(out == NULL);
  /* Empty containers need no pointers. */
  {
    const cw_arg empty = cw_arg_array(NULL, 0);
    size_t n = 1;
    CHECK_STATUS(cw_value_build(&empty, &out, NULL), CW_OK);
    CHECK_STATUS(cw_value_array_size(out, &n), CW_OK);
    CHECK(n == 0);
    cw_value_free(out);
    out = NULL;
  }
  CHECK_STATUS(cw_value_build(NULL, &out, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_build(&odd, NULL, NULL), CW_INVALID_ARGUMENT);
}

/* Every allocation of a build fails in turn: CW_NO_MEMORY, no output, nothing leaked (ASan). */
static void test_build_under_allocation_failure(void) {
  long needed, n;
  cw_value* out = NULL;
  cw_test_fail_allocation_after(-1);
  CHECK_STATUS(build_described(&out, NULL), CW_OK);
  needed = cw_test_allocation_count();
  cw_value_free(out);
  out = NULL;
  CHECK(needed >= 3); /* the struct's members, the array, the handles */
  for (n = 0; n < needed; ++n) {
    cw_status st;
    cw_test_fail_allocation_after(n);
    st = build_described(&out, NULL);
    cw_test_fail_allocation_after(-1);
    CHECK(st == CW_NO_MEMORY);
    CHECK(out == NULL);
    cw_value_free(out);
    out = NULL;
  }
}

static void test_read_into_variables(void) {
  cw_value* v = build_by_hand();
  const char* name = NULL;
  size_t name_len = 0, blob_len = 0;
  const void* blob = NULL;
  int32_t first = 0;
  const char* second = NULL;
  size_t second_len = 0;
  int64_t big = 0;
  double ratio = 0;
  int ok = 0;
  int32_t absent = 42;
  cw_datetime when;
  const cw_value* copy = NULL;
  cw_out tags[3];
  cw_out_member members[9];
  cw_out whole;
  cw_error err;
  int i;

  tags[0] = cw_out_int(&first);
  tags[1] = cw_out_string(&second, &second_len);
  tags[2] = cw_out_skip();
  members[0].name = "name";
  members[0].value = cw_out_string(&name, &name_len);
  members[1].name = "tags";
  members[1].value = cw_out_array(tags, 3);
  members[2].name = "when";
  members[2].value = cw_out_datetime(&when);
  members[3].name = "blob";
  members[3].value = cw_out_bytes(&blob, &blob_len);
  members[4].name = "big";
  members[4].value = cw_out_i8(&big);
  members[5].name = "ratio";
  members[5].value = cw_out_double(&ratio);
  members[6].name = "ok";
  members[6].value = cw_out_bool(&ok);
  members[7].name = "copy";
  members[7].value = cw_out_value(&copy);
  members[8].name = "absent";
  members[8].value = cw_out_int(&absent);
  for (i = 0; i < 9; ++i) members[i].optional = 0;
  members[8].optional = 1;
  whole = cw_out_struct(members, 9);

  CHECK_STATUS(cw_value_read(v, &whole, &err), CW_OK);
  CHECK(name_len == 3 && memcmp(name, "Ada", 3) == 0);
  CHECK(first == 1 && second_len == 3 && memcmp(second, "two", 3) == 0);
  CHECK(when.year == 2026 && when.day == 24 && when.zone == CW_ZONE_UTC);
  CHECK(blob_len == 3 && ((const unsigned char*)blob)[2] == 255);
  CHECK(big == (INT64_C(1) << 40) && ratio == 0.5 && ok == 1);
  CHECK(cw_value_type(copy) == CW_TYPE_STRING);
  CHECK(absent == 42); /* optional and missing: left as it was */

  /* An i8 target takes an int too, widened. */
  {
    int64_t widened = 0;
    const cw_out one = cw_out_i8(&widened);
    const cw_value* element = NULL;
    CHECK_STATUS(cw_value_struct_get(v, "tags", &element), CW_OK);
    CHECK_STATUS(cw_value_array_get(element, 0, &element), CW_OK);
    CHECK_STATUS(cw_value_read(element, &one, NULL), CW_OK);
    CHECK(widened == 1);
  }
  cw_value_free(v);
}

static void expect_read_error(const cw_value* v, const cw_out* out, cw_status status,
                              const char* message) {
  cw_error err;
  CHECK_STATUS(cw_value_read(v, out, &err), status);
  if (strcmp(err.message, message) != 0) {
    fprintf(stderr, "  message: '%s'\n  wanted:  '%s'\n", err.message, message);
    CHECK(strcmp(err.message, message) == 0);
  }
}

static void test_read_errors_say_where_and_write_nothing(void) {
  cw_value* v = build_by_hand();
  int32_t n = 7, first = 7;
  const char* s = NULL;
  size_t len = 99;
  cw_out tags[3];
  cw_out two[2];
  cw_out_member members[2];
  cw_out whole;

  /* "name" read first succeeds, then tags[1] is a string, not an int: nothing written. */
  tags[0] = cw_out_int(&first);
  tags[1] = cw_out_int(&n);
  tags[2] = cw_out_skip();
  members[0].name = "name";
  members[0].value = cw_out_string(&s, &len);
  members[0].optional = 0;
  members[1].name = "tags";
  members[1].value = cw_out_array(tags, 3);
  members[1].optional = 0;
  whole = cw_out_struct(members, 2);
  expect_read_error(v, &whole, CW_TYPE_MISMATCH, "tags[1] must be int, got string");
  CHECK(s == NULL && len == 99 && first == 7 && n == 7);

  /* An array of another length. */
  two[0] = cw_out_skip();
  two[1] = cw_out_skip();
  members[1].value = cw_out_array(two, 2);
  expect_read_error(v, &whole, CW_TYPE_MISMATCH, "tags must be an array of 2, got 3 elements");

  /* A required member missing; a NULL target; the root of another type. */
  members[1].name = "nope";
  expect_read_error(v, &whole, CW_NOT_FOUND, "member 'nope' missing");
  members[1].name = "tags";
  members[1].value = cw_out_int(NULL);
  expect_read_error(v, &whole, CW_INVALID_ARGUMENT, "tags: a NULL pointer to read into");
  {
    const cw_out as_int = cw_out_int(&n);
    expect_read_error(v, &as_int, CW_TYPE_MISMATCH, "must be int, got struct");
  }
  CHECK(s == NULL && len == 99 && n == 7);
  CHECK_STATUS(cw_value_read(NULL, &whole, NULL), CW_INVALID_ARGUMENT);
  CHECK_STATUS(cw_value_read(v, NULL, NULL), CW_INVALID_ARGUMENT);
  cw_value_free(v);
}

/* The form docs/c-api.md shows: descriptions as brace-initialized arrays in C99. */
static void test_brace_initialized_descriptions(void) {
  const cw_arg tags[] = {cw_arg_cstring("c"), cw_arg_cstring("api")};
  const cw_arg_member person[] = {{"name", cw_arg_cstring("Ada")}, {"tags", cw_arg_array(tags, 2)}};
  const cw_arg whole = cw_arg_struct(person, 2);
  const char *name = NULL, *tag = NULL;
  size_t name_len = 0, tag_len = 0;
  const cw_out tag_outs[] = {cw_out_skip(), cw_out_string(&tag, &tag_len)};
  const cw_out_member outs[] = {{"name", cw_out_string(&name, &name_len), 0},
                                {"tags", cw_out_array(tag_outs, 2), 0}};
  const cw_out read_all = cw_out_struct(outs, 2);
  cw_value* v = NULL;
  CHECK_STATUS(cw_value_build(&whole, &v, NULL), CW_OK);
  CHECK_STATUS(cw_value_read(v, &read_all, NULL), CW_OK);
  CHECK(name_len == 3 && memcmp(name, "Ada", 3) == 0);
  CHECK(tag_len == 3 && memcmp(tag, "api", 3) == 0);
  cw_value_free(v);
}

static void test_cstrings(void) {
  cw_value* v = NULL;
  const char* data = NULL;
  size_t len = 0;
  CHECK_STATUS(cw_value_new_cstring("héllo", &v), CW_OK);
  CHECK_STATUS(cw_value_get_string(v, &data, &len), CW_OK);
  CHECK(len == 6 && memcmp(data, "héllo", 6) == 0);
  cw_value_free(v);
  v = NULL;
  CHECK_STATUS(cw_value_new_cstring(NULL, &v), CW_INVALID_ARGUMENT);
  CHECK(v == NULL);
  CHECK_STATUS(cw_value_new_cstring("x", NULL), CW_INVALID_ARGUMENT);
}

int main(int argc, char** argv) {
  static const struct test_case tests[] = {
      TEST(test_build_matches_building_by_hand),
      TEST(test_wrong_descriptions_say_where),
      TEST(test_build_under_allocation_failure),
      TEST(test_read_into_variables),
      TEST(test_read_errors_say_where_and_write_nothing),
      TEST(test_brace_initialized_descriptions),
      TEST(test_cstrings),
  };
  return run_tests(tests, COUNT(tests), argc, argv);
}
