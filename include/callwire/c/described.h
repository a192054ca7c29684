/* callwire: the C API's values described in place (cw_arg, cw_out).
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_DESCRIBED_H
#define CALLWIRE_C_DESCRIBED_H

/** @file callwire/c/described.h
 *  cw_arg and cw_out: a value built (cw_value_build) or read (cw_value_read) in one call from
 *  a description, no format string and no varargs. */

#include <stddef.h>
#include <stdint.h>
#include <string.h> /* strlen, for cw_arg_cstring */

#include "callwire/c/common.h"
#include "callwire/c/value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- values described in place: building and reading in one call ----
 * A cw_arg describes one value without allocating anything: make it with the cw_arg_*
 * functions below (inline; nothing to free) and nest arrays and structs through arrays of
 * cw_arg and cw_arg_member. cw_value_build, cw_client_call_args and cw_call_return_arg read
 * the description during the call and copy what they keep. No format string, no varargs: the
 * compiler checks every argument's type.
 *
 *   const cw_arg params[] = {cw_arg_int(5), cw_arg_int(3)};
 *   st = cw_client_call_args(client, "sample.add", params, 2, NULL, &result, &err);
 *
 *   const cw_arg_member info[] = {{"name", cw_arg_cstring("Ada")}, {"age", cw_arg_int(36)}};
 *   st = cw_call_return_arg(call, cw_arg_struct(info, 2));
 *
 * A cw_out describes where the parts of a value go, for cw_value_read: typed variables for
 * the scalars, fixed-length arrays and named struct members for the containers. */

typedef enum cw_arg_kind {
  CW_ARG_NIL,
  CW_ARG_BOOL,
  CW_ARG_INT,
  CW_ARG_I8,
  CW_ARG_DOUBLE,
  CW_ARG_STRING, /**< `text` bytes, as cw_value_new_string */
  CW_ARG_DATETIME,
  CW_ARG_BYTES, /**< `text` bytes, as cw_value_new_bytes */
  CW_ARG_ARRAY,
  CW_ARG_STRUCT,
  CW_ARG_VALUE /**< a copy of an existing cw_value */
} cw_arg_kind;

struct cw_arg_member;

/** One value, described. Make it with the cw_arg_* functions; its fields are theirs. */
typedef struct cw_arg {
  cw_arg_kind kind;
  union {
    int boolean;
    int32_t i;
    int64_t i8;
    double d;
    struct {
      const char* data;
      size_t len;
    } text;
    const cw_datetime* datetime;
    struct {
      const struct cw_arg* items;
      size_t count;
    } array;
    struct {
      const struct cw_arg_member* members;
      size_t count;
    } strct;
    const cw_value* value;
  } u;
} cw_arg;

/** A struct member, described: `{"name", cw_arg_int(1)}`. */
typedef struct cw_arg_member {
  const char* name; /**< NUL-terminated */
  cw_arg value;
} cw_arg_member;

/* What cw_arg_cstring stores for a NULL string: building it fails with CW_INVALID_ARGUMENT. */
#define CW_ARG_NULL_STRING ((size_t)-1)

static inline cw_arg cw_arg_nil(void) {
  cw_arg a;
  a.kind = CW_ARG_NIL;
  a.u.i = 0;
  return a;
}
static inline cw_arg cw_arg_bool(int b) {
  cw_arg a;
  a.kind = CW_ARG_BOOL;
  a.u.boolean = b != 0;
  return a;
}
static inline cw_arg cw_arg_int(int32_t n) {
  cw_arg a;
  a.kind = CW_ARG_INT;
  a.u.i = n;
  return a;
}
static inline cw_arg cw_arg_i8(int64_t n) {
  cw_arg a;
  a.kind = CW_ARG_I8;
  a.u.i8 = n;
  return a;
}
static inline cw_arg cw_arg_double(double d) {
  cw_arg a;
  a.kind = CW_ARG_DOUBLE;
  a.u.d = d;
  return a;
}
/** A string of `len` bytes (kept as given, as cw_value_new_string). */
static inline cw_arg cw_arg_string(const char* data, size_t len) {
  cw_arg a;
  a.kind = CW_ARG_STRING;
  a.u.text.data = data;
  a.u.text.len = len;
  return a;
}
/** A NUL-terminated string. */
static inline cw_arg cw_arg_cstring(const char* s) {
  return cw_arg_string(s, s ? strlen(s) : CW_ARG_NULL_STRING);
}
static inline cw_arg cw_arg_bytes(const void* data, size_t len) {
  cw_arg a;
  a.kind = CW_ARG_BYTES;
  a.u.text.data = (const char*)data;
  a.u.text.len = len;
  return a;
}
/** `dt` is read when the description is built, not now. */
static inline cw_arg cw_arg_datetime(const cw_datetime* dt) {
  cw_arg a;
  a.kind = CW_ARG_DATETIME;
  a.u.datetime = dt;
  return a;
}
static inline cw_arg cw_arg_array(const cw_arg* items, size_t count) {
  cw_arg a;
  a.kind = CW_ARG_ARRAY;
  a.u.array.items = items;
  a.u.array.count = count;
  return a;
}
/** Members in order; a name given twice keeps the last value (as cw_value_struct_set). */
static inline cw_arg cw_arg_struct(const cw_arg_member* members, size_t count) {
  cw_arg a;
  a.kind = CW_ARG_STRUCT;
  a.u.strct.members = members;
  a.u.strct.count = count;
  return a;
}
/** A copy of `value` (built values and descriptions mix freely). */
static inline cw_arg cw_arg_value(const cw_value* value) {
  cw_arg a;
  a.kind = CW_ARG_VALUE;
  a.u.value = value;
  return a;
}

/** Builds the value `arg` describes, owned by the caller. `error` may be NULL; its message
 *  says where a description is wrong ("[2].name: a NULL string"). CW_OK; CW_INVALID_ARGUMENT
 *  (a NULL pointer where the description needs one: out, arg, a string's or bytes' data with
 *  a length, items or members with a count, a member's name, a datetime or value; a
 *  datetime out of range); CW_LIMIT_EXCEEDED (nested deeper than 1000: a description that
 *  contains itself); CW_NO_MEMORY. Nothing is allocated on failure. */
CALLWIRE_API cw_status cw_value_build(const cw_arg* arg, cw_value** out, cw_error* error);

typedef enum cw_out_kind {
  CW_OUT_SKIP, /**< any value, not read */
  CW_OUT_BOOL,
  CW_OUT_INT,
  CW_OUT_I8, /**< an i8, or an int widened */
  CW_OUT_DOUBLE,
  CW_OUT_STRING, /**< borrowed bytes and length, as cw_value_get_string */
  CW_OUT_DATETIME,
  CW_OUT_BYTES, /**< borrowed bytes and length, as cw_value_get_bytes */
  CW_OUT_ARRAY,
  CW_OUT_STRUCT,
  CW_OUT_VALUE /**< the value itself, borrowed */
} cw_out_kind;

struct cw_out_member;

/** Where one value goes, described. Make it with the cw_out_* functions. */
typedef struct cw_out {
  cw_out_kind kind;
  union {
    int* boolean;
    int32_t* i;
    int64_t* i8;
    double* d;
    struct {
      const char** data;
      size_t* len;
    } text;
    struct {
      const void** data;
      size_t* len;
    } bytes;
    cw_datetime* datetime;
    struct {
      const struct cw_out* items;
      size_t count;
    } array;
    struct {
      const struct cw_out_member* members;
      size_t count;
    } strct;
    const cw_value** value;
  } u;
} cw_out;

/** A struct member to read: `{"name", cw_out_int(&n), 0}`; `optional` non-zero lets it be
 *  missing (its variable is then left as it was). */
typedef struct cw_out_member {
  const char* name;
  cw_out value;
  int optional;
} cw_out_member;

static inline cw_out cw_out_skip(void) {
  cw_out o;
  o.kind = CW_OUT_SKIP;
  o.u.value = 0;
  return o;
}
static inline cw_out cw_out_bool(int* b) {
  cw_out o;
  o.kind = CW_OUT_BOOL;
  o.u.boolean = b;
  return o;
}
static inline cw_out cw_out_int(int32_t* n) {
  cw_out o;
  o.kind = CW_OUT_INT;
  o.u.i = n;
  return o;
}
static inline cw_out cw_out_i8(int64_t* n) {
  cw_out o;
  o.kind = CW_OUT_I8;
  o.u.i8 = n;
  return o;
}
static inline cw_out cw_out_double(double* d) {
  cw_out o;
  o.kind = CW_OUT_DOUBLE;
  o.u.d = d;
  return o;
}
/** Borrowed from the value read (rule 3), NUL-terminated, with its length (as
 *  cw_value_get_string). */
static inline cw_out cw_out_string(const char** data, size_t* len) {
  cw_out o;
  o.kind = CW_OUT_STRING;
  o.u.text.data = data;
  o.u.text.len = len;
  return o;
}
static inline cw_out cw_out_datetime(cw_datetime* dt) {
  cw_out o;
  o.kind = CW_OUT_DATETIME;
  o.u.datetime = dt;
  return o;
}
/** Borrowed from the value read (rule 3). */
static inline cw_out cw_out_bytes(const void** data, size_t* len) {
  cw_out o;
  o.kind = CW_OUT_BYTES;
  o.u.bytes.data = data;
  o.u.bytes.len = len;
  return o;
}
/** An array of exactly `count` elements, each read as `items` says. */
static inline cw_out cw_out_array(const cw_out* items, size_t count) {
  cw_out o;
  o.kind = CW_OUT_ARRAY;
  o.u.array.items = items;
  o.u.array.count = count;
  return o;
}
/** A struct with these members (others it has are ignored). */
static inline cw_out cw_out_struct(const cw_out_member* members, size_t count) {
  cw_out o;
  o.kind = CW_OUT_STRUCT;
  o.u.strct.members = members;
  o.u.strct.count = count;
  return o;
}
/** The value itself, borrowed (rule 3): for what the description cannot say (a list of any
 *  length, a struct of any members). */
static inline cw_out cw_out_value(const cw_value** value) {
  cw_out o;
  o.kind = CW_OUT_VALUE;
  o.u.value = value;
  return o;
}

/** Reads `value` as `out` describes, into the variables it points at. Checks everything before
 *  writing anything: on failure no variable has changed. `error` may be NULL; its message says
 *  where and why, as the C++ API does ("[1].label must be string, got int", "member 'id'
 *  missing", "must be an array of 2, got 3 elements"). CW_OK; CW_INVALID_ARGUMENT (a NULL
 *  pointer in the description); CW_TYPE_MISMATCH (a value of another type, an array of
 *  another length); CW_NOT_FOUND (a required member missing); CW_LIMIT_EXCEEDED (a
 *  description nested deeper than 1000). */
CALLWIRE_API cw_status cw_value_read(const cw_value* value, const cw_out* out, cw_error* error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_DESCRIBED_H */
