/* callwire: the C API (C99). A thin facade over the C++ core (src/capi/).
 *
 * Values (cw_value: build, read, copy, compare, encode), an XML-RPC server (cw_server, with
 * handlers that see their call through cw_call) and an XML-RPC client (cw_client: synchronous
 * and asynchronous calls with deadlines). examples/c/ shows each in a short program.
 *
 * Ownership rules
 * ---------------
 *  1. A function that returns a handle through an `*_out` parameter gives it to the caller,
 *     who frees it with the matching `_free` (values: cw_value_free). Every `_free` accepts
 *     NULL and does nothing.
 *  2. Every input is borrowed for the duration of the call only: the library copies what it
 *     keeps. Appending a value to an array or setting a struct member copies the value; the
 *     caller still owns and frees its own handle.
 *  3. A pointer returned through a `const T** ..._out` parameter is borrowed from its owner:
 *     it stays valid while the owner lives and is not modified (any append, set or free of the
 *     owner may invalidate it). Never free a borrowed pointer. Elements of arrays and struct
 *     members are borrowed this way; string and bytes contents too.
 *  4. Memory returned as `char** ..._out` (encoded documents) is freed with cw_free.
 *  5. On any status other than CW_OK, `*_out` parameters are left untouched and nothing is
 *     allocated: a failed call leaks nothing and leaves its inputs as they were.
 *  6. Strings passed in (method names, URLs, options) are NUL-terminated and borrowed; the
 *     library copies what it keeps, so they may be freed as soon as the call returns.
 *  7. Callbacks get a `void* user_data` given at registration; the library never touches it.
 *     It must stay valid while the callback can run (until the server or client is freed).
 *
 * Options structs
 * ---------------
 * Each begins with `size_t struct_size`, set to `sizeof` the struct. Zero in any other field
 * means its default, so `cw_server_options o = {sizeof o};` is a complete, default set (or
 * call the `_init` function). A caller built against an older header passes a smaller size
 * and the newer fields take their defaults; a larger size than this library knows is refused
 * with CW_INVALID_ARGUMENT rather than half applied.
 *
 * Errors
 * ------
 * Every function that can fail returns a cw_status; each documents the statuses it returns.
 * CW_INVALID_ARGUMENT always includes a NULL passed where a pointer is required. No C++
 * exception ever crosses this API, nothing calls abort(), and errno is not used. Functions
 * whose failures need explanation (decoding) also fill an optional cw_error.
 *
 * Thread-safety
 * -------------
 * Values are like plain C data: any number of threads may read one value at once; modifying a
 * value needs exclusive access to it (and to the array or struct it was borrowed from).
 * Distinct values are independent. Servers and clients state their own rules below.
 */
#ifndef CALLWIRE_H
#define CALLWIRE_H

/** @file callwire.h
 *  The C API (C99): values, servers, handlers, clients. The rules for ownership, errors,
 *  options structs and threads are in the comment at the top of this header and in
 *  docs/c-api.md. */

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h> /* strlen, for cw_arg_cstring */

#include "callwire/version.h" /* CALLWIRE_API, the version macros, callwire_version() */

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes: the same numbers as callwire::Errc in C++ (checked when the library is
 *  built). */
typedef enum cw_status {
  CW_OK = 0,
  CW_INVALID_ARGUMENT = 1,     /**< the API was used wrongly (a NULL, a bad option) */
  CW_NO_MEMORY = 2,            /**< an allocation failed */
  CW_NOT_WELL_FORMED = 3,      /**< a document that is not well-formed XML or JSON (-32700) */
  CW_UNSUPPORTED_ENCODING = 4, /**< an encoding other than UTF-8, US-ASCII, ISO-8859-1 */
  CW_INVALID_CHARACTER = 5,    /**< bytes invalid for the encoding, or a forbidden character */
  CW_INVALID_REQUEST = 6,      /**< a well-formed document that is not a request or response
                                    of its protocol, e.g. XML that is not XML-RPC (-32600) */
  CW_NOT_XMLRPC = CW_INVALID_REQUEST, /**< CW_INVALID_REQUEST's first name */
  CW_LIMIT_EXCEEDED = 7,              /**< a size, depth or count limit was reached */
  CW_TYPE_MISMATCH = 8,               /**< a value accessed as a type it does not hold */
  CW_UNREPRESENTABLE = 9,    /**< a value the protocol cannot carry (NaN, a control char) */
  CW_NOT_FOUND = 10,         /**< a struct member or an index that is not there */
  CW_TIMEOUT = 11,           /**< a deadline passed */
  CW_CONNECT_FAILED = 12,    /**< no connection could be made */
  CW_CONNECTION_CLOSED = 13, /**< the peer closed the connection before answering */
  CW_HTTP_STATUS = 14,       /**< the peer answered with an HTTP status other than 200 */
  CW_BAD_RESPONSE = 15,      /**< the peer's answer is not valid HTTP or XML-RPC */
  CW_FAULT = 16,             /**< the peer answered with a fault (see cw_error.fault_code) */
  CW_TLS_ERROR = 17,         /**< TLS handshake or certificate verification failed */
  CW_STOPPED = 18,           /**< the client or server was stopped while the call waited */
  CW_CANCELLED = 19          /**< the caller cancelled the call (cw_call_options.cancel) */
} cw_status;

/** The short English name of a status ("out of memory", ...). Never NULL; static storage; an
 *  unknown number gives "unknown". Thread-safe. */
CALLWIRE_API const char* cw_status_name(cw_status status);

/** The details of a failure, filled by the functions that take a `cw_error*` (which may be
 *  NULL when the caller only wants the status). A plain struct on the caller's side: it needs
 *  no allocation (so it can report CW_NO_MEMORY) and no freeing. `message` is always
 *  NUL-terminated valid UTF-8; one longer than 255 bytes keeps its start (what failed) and its
 *  end (usually the cause), joined by " ... ". On success it is set to {CW_OK, 0, "", 0}. */
typedef struct cw_error {
  cw_status status;
  int32_t fault_code; /**< the XML-RPC fault code: the peer's for CW_FAULT, else the interop
                           code for the status (-32700, ...), or 0 for CW_OK */
  char message[256];
  int http_status; /**< CW_HTTP_STATUS: the status answered (401, 404, 503, ...); else 0 */
} cw_error;

/** The type a value holds. */
typedef enum cw_type {
  CW_TYPE_INVALID = -1, /**< what cw_value_type returns for NULL */
  CW_TYPE_NIL = 0,
  CW_TYPE_BOOL = 1,
  CW_TYPE_INT = 2, /**< 32-bit */
  CW_TYPE_I8 = 3,  /**< 64-bit */
  CW_TYPE_DOUBLE = 4,
  CW_TYPE_STRING = 5,
  CW_TYPE_DATETIME = 6,
  CW_TYPE_BYTES = 7, /**< base64 on the wire */
  CW_TYPE_ARRAY = 8,
  CW_TYPE_STRUCT = 9
} cw_type;

/** Time zone of a dateTime. */
typedef enum cw_zone {
  CW_ZONE_NONE = 0,  /**< no zone written */
  CW_ZONE_UTC = 1,   /**< `Z` */
  CW_ZONE_OFFSET = 2 /**< `+hh:mm` / `-hh:mm`, in offset_minutes */
} cw_zone;

/** An XML-RPC dateTime, kept as written: no time zone conversion. */
typedef struct cw_datetime {
  uint16_t year;           /**< 0..9999 */
  uint8_t month;           /**< 1..12 */
  uint8_t day;             /**< 1..days in the month */
  uint8_t hour;            /**< 0..23 */
  uint8_t minute;          /**< 0..59 */
  uint8_t second;          /**< 0..60 (60: a leap second) */
  uint8_t fraction_digits; /**< 0..9: digits of the fraction written */
  uint32_t nanosecond;     /**< < 1000000000 */
  cw_zone zone;
  int16_t offset_minutes; /**< with CW_ZONE_OFFSET: -1439..1439, east of UTC positive */
} cw_datetime;

/** One XML-RPC value. Opaque. Owned handles come from the cw_value_new_* functions,
 *  cw_value_copy and cw_value_decode_response; borrowed ones from the array and struct
 *  getters (rule 3 above). */
typedef struct cw_value cw_value;

/* ---- constructors ----
 * Each makes a new value the caller owns (rule 1) and returns:
 *   CW_OK; CW_INVALID_ARGUMENT when `out` is NULL (or as stated); CW_NO_MEMORY. */

CALLWIRE_API cw_status cw_value_new_nil(cw_value** out);
/** Any non-zero `b` is true. */
CALLWIRE_API cw_status cw_value_new_bool(int b, cw_value** out);
CALLWIRE_API cw_status cw_value_new_int(int32_t n, cw_value** out);
CALLWIRE_API cw_status cw_value_new_i8(int64_t n, cw_value** out);
/** Any double, NaN and infinities included; XML-RPC cannot carry those, so encoding such a
 *  value fails with CW_UNREPRESENTABLE. */
CALLWIRE_API cw_status cw_value_new_double(double d, cw_value** out);
/** A string of `len` bytes copied from `data` (which may be NULL when `len` is 0). The bytes
 *  are NOT checked here: embedded NULs and any bytes are kept as given, as in the C++ API.
 *  They should be UTF-8; encoding a string that is not, or that holds a character XML forbids,
 *  fails with CW_UNREPRESENTABLE. CW_INVALID_ARGUMENT: `data` NULL with `len` > 0. */
CALLWIRE_API cw_status cw_value_new_string(const char* data, size_t len, cw_value** out);
/** CW_INVALID_ARGUMENT: `dt` NULL or a field out of range (the day checked against the month
 *  and leap years). */
CALLWIRE_API cw_status cw_value_new_datetime(const cw_datetime* dt, cw_value** out);
/** Bytes copied from `data` (which may be NULL when `len` is 0). CW_INVALID_ARGUMENT: `data`
 *  NULL with `len` > 0. */
CALLWIRE_API cw_status cw_value_new_bytes(const void* data, size_t len, cw_value** out);
/** An empty array. */
CALLWIRE_API cw_status cw_value_new_array(cw_value** out);
/** An empty struct. */
CALLWIRE_API cw_status cw_value_new_struct(cw_value** out);

/** A deep copy of `value`. CW_INVALID_ARGUMENT (NULL), CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_value_copy(const cw_value* value, cw_value** out);

/** Frees an owned value and everything in it. NULL: does nothing. Never pass a borrowed
 *  element or member. */
CALLWIRE_API void cw_value_free(cw_value* value);

/* ---- reading ---- */

/** The type of `value`; CW_TYPE_INVALID for NULL. */
CALLWIRE_API cw_type cw_value_type(const cw_value* value);

/** Deep equality: 1 when equal, 0 otherwise. Struct member order does not matter; int and i8
 *  are different types; NaN equals NaN. Two NULLs are equal; NULL and a value are not. */
CALLWIRE_API int cw_value_equal(const cw_value* a, const cw_value* b);

/* Typed getters. Each returns CW_OK; CW_INVALID_ARGUMENT when a pointer is NULL;
 * CW_TYPE_MISMATCH when the value holds another type (`*out` untouched). */

/** `*out` is 0 or 1. */
CALLWIRE_API cw_status cw_value_get_bool(const cw_value* value, int* out);
CALLWIRE_API cw_status cw_value_get_int(const cw_value* value, int32_t* out);
/** Accepts an i8 and also an int (widened), as the C++ as_i8 does. */
CALLWIRE_API cw_status cw_value_get_i8(const cw_value* value, int64_t* out);
CALLWIRE_API cw_status cw_value_get_double(const cw_value* value, double* out);
/** The string's bytes, borrowed (rule 3), NUL-terminated (printf("%s") is safe) with the length
 *  in `*len_out`. A string may hold a NUL byte of its own (JSON-RPC's "\u0000"; XML cannot carry
 *  one): "%s" then stops there, the length does not. */
CALLWIRE_API cw_status cw_value_get_string(const cw_value* value, const char** data_out,
                                           size_t* len_out);
CALLWIRE_API cw_status cw_value_get_datetime(const cw_value* value, cw_datetime* out);
/** The bytes, borrowed (rule 3). `*data_out` may be any non-NULL pointer when `*len_out` is
 *  0. */
CALLWIRE_API cw_status cw_value_get_bytes(const cw_value* value, const void** data_out,
                                          size_t* len_out);

/* ---- arrays ---- */

/** Appends a deep copy of `item` to `array` (the copy is taken first, so `item` may be
 *  `array` itself or one of its elements). CW_OK; CW_INVALID_ARGUMENT (NULL);
 *  CW_TYPE_MISMATCH (`array` is not an array); CW_NO_MEMORY (the array is unchanged).
 *  Invalidates pointers borrowed from `array`. */
CALLWIRE_API cw_status cw_value_array_append(cw_value* array, const cw_value* item);
/** The number of elements. CW_OK, CW_INVALID_ARGUMENT, CW_TYPE_MISMATCH. */
CALLWIRE_API cw_status cw_value_array_size(const cw_value* array, size_t* out);
/** The element at `index`, borrowed (rule 3). CW_OK, CW_INVALID_ARGUMENT, CW_TYPE_MISMATCH,
 *  CW_NOT_FOUND (index out of range). */
CALLWIRE_API cw_status cw_value_array_get(const cw_value* array, size_t index,
                                          const cw_value** out);

/* ---- structs ----
 * Member names are NUL-terminated here (XML-RPC names are text); member_at returns the
 * length too. */

/** Sets member `name` to a deep copy of `member`: replaces the value of an existing member in
 *  place, or appends a new member (order is kept). The copy is taken first, so
 *  `member` may be `strct` itself or one of its members. CW_OK; CW_INVALID_ARGUMENT (NULL);
 *  CW_TYPE_MISMATCH (`strct` is not a struct);
 *  CW_NO_MEMORY (the struct is unchanged). Invalidates pointers borrowed from `strct`. */
CALLWIRE_API cw_status cw_value_struct_set(cw_value* strct, const char* name,
                                           const cw_value* member);
/** The member named `name`, borrowed (rule 3). CW_OK, CW_INVALID_ARGUMENT, CW_TYPE_MISMATCH,
 *  CW_NOT_FOUND. */
CALLWIRE_API cw_status cw_value_struct_get(const cw_value* strct, const char* name,
                                           const cw_value** out);
/** The number of members. CW_OK, CW_INVALID_ARGUMENT, CW_TYPE_MISMATCH. */
CALLWIRE_API cw_status cw_value_struct_size(const cw_value* strct, size_t* out);
/** The member at position `index` (0 .. size-1, in insertion order): its name (borrowed, NOT
 *  NUL-terminated, length in `*name_len_out`) and value (borrowed). `name_len_out` may be
 *  NULL. CW_OK, CW_INVALID_ARGUMENT, CW_TYPE_MISMATCH, CW_NOT_FOUND (out of range). */
CALLWIRE_API cw_status cw_value_struct_member_at(const cw_value* strct, size_t index,
                                                 const char** name_out, size_t* name_len_out,
                                                 const cw_value** value_out);

/* ---- NUL-terminated strings ---- */

/** cw_value_new_string with the length taken by strlen. CW_INVALID_ARGUMENT: `s` NULL. */
CALLWIRE_API cw_status cw_value_new_cstring(const char* s, cw_value** out);

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

/* ---- XML-RPC ---- */

/** Encodes `value` as a complete `<methodResponse>` document (the `<i8>`/`<nil/>` dialect).
 *  `*xml_out` is allocated, NUL-terminated, freed with cw_free; `*len_out` (may be NULL) gets
 *  its length without the NUL. `error` may be NULL.
 *  CW_OK; CW_INVALID_ARGUMENT (NULL value or xml_out); CW_UNREPRESENTABLE (a NaN or infinite
 *  double, a string that is not UTF-8 or holds a character XML forbids); CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_value_encode_response(const cw_value* value, char** xml_out,
                                                size_t* len_out, cw_error* error);

/** Decodes a `<methodResponse>` document of `len` bytes into a new value the caller owns.
 *  `error` may be NULL; when given it receives the message (with line:column) of a failure.
 *  CW_OK; CW_INVALID_ARGUMENT (NULL out, or NULL xml with len > 0); CW_FAULT (the document is
 *  a fault response: `error->fault_code` and `error->message` hold its faultCode and
 *  faultString); CW_NOT_WELL_FORMED, CW_UNSUPPORTED_ENCODING, CW_INVALID_CHARACTER,
 *  CW_NOT_XMLRPC (a methodCall included), CW_LIMIT_EXCEEDED (the default reader limits: 32 MiB,
 *  depth 64); CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_value_decode_response(const char* xml, size_t len, cw_value** out,
                                                cw_error* error);

/** Encodes a complete `<methodCall>` of `method` with `param_count` parameters (each
 *  borrowed; `params` may be NULL when 0), for a transport of the caller's own. `len_out` may
 *  be NULL; free `*xml_out` with cw_free. CW_OK; CW_INVALID_ARGUMENT (NULL, an empty method);
 *  CW_UNREPRESENTABLE (as cw_value_encode_response); CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_encode_call(const char* method, const cw_value* const* params,
                                      size_t param_count, char** xml_out, size_t* len_out,
                                      cw_error* error);

/** Decodes a `<methodCall>` document: the method name (NUL-terminated, freed with cw_free)
 *  and the parameters as one array value the caller owns. Statuses as
 *  cw_value_decode_response (CW_INVALID_REQUEST for a response where a call is expected);
 *  nothing is allocated on failure. */
CALLWIRE_API cw_status cw_decode_call(const char* xml, size_t len, char** method_out,
                                      cw_value** params_out, cw_error* error);

/** Encodes a `<methodResponse>` fault (`message` NUL-terminated; NULL is ""). */
CALLWIRE_API cw_status cw_encode_fault(int32_t code, const char* message, char** xml_out,
                                       size_t* len_out, cw_error* error);

/* ---- JSON-RPC 2.0 ---- */

/* The same for JSON-RPC documents, for a transport of the caller's own (a server of one's own
 * answers whole documents, batches included, with cw_registry_dispatch_content). Values map as
 * docs/json-rpc.md says: nil is null, structs are objects in member order, a double is written
 * as its shortest round-trip text, base64 and dateTime are written as strings (and so read back
 * as strings). `id` arguments are an id as its JSON text: `1`, `"abc"` (with the quotes) or
 * `null`; anything else is CW_INVALID_ARGUMENT. Encoded documents are NUL-terminated, their
 * length in *len_out when not NULL, freed with cw_free. Decoding statuses name the JSON-RPC
 * error to answer in error->fault_code: CW_NOT_WELL_FORMED (-32700: not JSON, invalid UTF-8),
 * CW_INVALID_REQUEST (-32600: not JSON-RPC), CW_LIMIT_EXCEEDED (-32600: over the default
 * limits: 32 MiB, depth 64), CW_UNREPRESENTABLE (-32602: a number beyond 64 bits). Encoding:
 * CW_UNREPRESENTABLE for a NaN or infinite double or a string that is not UTF-8. All may return
 * CW_INVALID_ARGUMENT (a NULL) and CW_NO_MEMORY; nothing is allocated on failure. */

/** One value as compact JSON. */
CALLWIRE_API cw_status cw_json_encode_value(const cw_value* value, char** json_out, size_t* len_out,
                                            cw_error* error);

/** One JSON value (any type at the root) of `len` bytes into a new value the caller owns. */
CALLWIRE_API cw_status cw_json_decode_value(const char* json, size_t len, cw_value** out,
                                            cw_error* error);

/** A request: `{"jsonrpc":"2.0","method":…,"params":[…],"id":…}` with positional params
 *  (`params` may be NULL when 0), or without "id" when `id` is NULL: a notification. */
CALLWIRE_API cw_status cw_json_encode_call(const char* id, const char* method,
                                           const cw_value* const* params, size_t param_count,
                                           char** json_out, size_t* len_out, cw_error* error);

/** Reads one request (a batch is CW_INVALID_REQUEST: cw_registry_dispatch_content answers
 *  batches): its id as JSON text (NULL for a notification; `null` when the request is
 *  refused and its id could not be read), the method name, and the params as one array
 *  (positional) or struct (by name) the caller owns. On a refusal of the request itself
 *  (CW_INVALID_REQUEST, CW_UNREPRESENTABLE) *id_out is still set when it is not NULL (free it
 *  with cw_free), so the caller can answer with that id; every other out is left NULL.
 *  `method_out`, `params_out` and `id_out` may be NULL when not wanted. */
CALLWIRE_API cw_status cw_json_decode_call(const char* json, size_t len, char** id_out,
                                           char** method_out, cw_value** params_out,
                                           cw_error* error);

/** A result response: `{"jsonrpc":"2.0","result":…,"id":…}`. */
CALLWIRE_API cw_status cw_json_encode_result(const char* id, const cw_value* result,
                                             char** json_out, size_t* len_out, cw_error* error);

/** An error response: `{"jsonrpc":"2.0","error":{"code":…,"message":…,"data":…},"id":…}`;
 *  `message` NULL is the spec's text for the code ("Method not found" for -32601); `data`
 *  NULL: no "data" member. */
CALLWIRE_API cw_status cw_json_encode_error(const char* id, int32_t code, const char* message,
                                            const cw_value* data, char** json_out, size_t* len_out,
                                            cw_error* error);

/** Reads one response (a batch is CW_BAD_RESPONSE). CW_OK: *result_out is a new value the
 *  caller owns. CW_FAULT: an error response, its code and message in error->fault_code and
 *  error->message, its "data" (when it has one and `data_out` is not NULL) a new value in
 *  *data_out. Either way *id_out (may be NULL) gets the id as JSON text. CW_BAD_RESPONSE: not a
 *  JSON-RPC response (no "jsonrpc":"2.0", neither or both of result and error, a bad id);
 *  CW_NOT_WELL_FORMED, CW_LIMIT_EXCEEDED, CW_UNREPRESENTABLE as above. `result_out` must not
 *  be NULL. */
CALLWIRE_API cw_status cw_json_decode_response(const char* json, size_t len, char** id_out,
                                               cw_value** result_out, cw_value** data_out,
                                               cw_error* error);

/** Frees memory the library returned as `char**` (encoded documents). NULL: does nothing. */
CALLWIRE_API void cw_free(void* p);

/* ======================================================================================== */
/* ---- server ---- */

/** An XML-RPC over HTTP/1.1 server (HTTP, HTTPS, or a Unix socket). Opaque. */
typedef struct cw_server cw_server;

/** One call being served, as its handler sees it. Opaque; valid only during the handler's
 *  run, on the thread running it. */
typedef struct cw_call cw_call;

/** How i8 and nil are written in answers. */
typedef enum cw_dialect {
  CW_DIALECT_AUTO = 0,  /**< server: the dialect the request used; client: as CW_DIALECT_I8 */
  CW_DIALECT_I8 = 1,    /**< `<i8>`, `<nil/>` */
  CW_DIALECT_APACHE = 2 /**< `<ex:i8>`, `<ex:nil/>` with the namespace declared */
} cw_dialect;

/** Accepts (non-zero) or refuses (0, answered with HTTP 401) HTTP Basic credentials. Runs on
 *  the server's threads, possibly several at once. The strings are borrowed for the call and
 *  NUL-terminated, their lengths given too (a name or password holding a NUL byte is refused
 *  only if you compare the lengths: do). */
typedef int (*cw_auth_fn)(const char* user, size_t user_len, const char* password,
                          size_t password_len, void* user_data);

/** Non-zero when the `given_len` bytes at `given` equal the `expected_len` bytes at `expected`,
 *  in a time that depends on the lengths only, never on where they first differ: compare
 *  passwords in a cw_auth_fn with this, never memcmp or strcmp (an early exit tells a guesser
 *  how much of a guess was right). NULL is allowed with a length of 0. Thread-safe. */
CALLWIRE_API int cw_constant_time_equal(const char* given, size_t given_len, const char* expected,
                                        size_t expected_len);

/** What the server says of each answered request (cw_server_options.access_log). Every
 *  string is borrowed for the callback only and NUL-terminated, its length given too. The texts
 *  a peer chooses (peer, which SCGI's REMOTE_ADDR or a trusted proxy may name; user; method)
 *  come escaped, ready to print: every byte but printable ASCII, and the space, '"' and the
 *  backslash, is written "\xHH" (a method "a\nb" arrives as "a\x0Ab"), so no peer can forge a
 *  log line or send the terminal an escape sequence. */
typedef struct cw_access_log_entry {
  const char* peer; /**< "127.0.0.1:40312", "[::1]:40312", "unix" */
  size_t peer_len;
  const char* user; /**< the authenticated user, or empty */
  size_t user_len;
  const char* method; /**< the XML-RPC method; empty when the request never got that far */
  size_t method_len;
  int http_status;       /**< 200, or the error status answered (400, 401, 413, ...) */
  int32_t fault_code;    /**< 0 unless the answer was a fault */
  size_t request_bytes;  /**< the body as received */
  size_t response_bytes; /**< the body as sent */
  int64_t duration_ns;   /**< from the complete request to the queued answer */
  int64_t time_unix_ns;  /**< when the answer was queued: nanoseconds since 1970 (UTC) */
} cw_access_log_entry;

/** Receives every access log entry. Runs on the server's threads, possibly several at once:
 *  it must be thread-safe and quick (it delays the answer's connection). */
typedef void (*cw_access_log_fn)(const cw_access_log_entry* entry, void* user_data);

/** Called by system.shutdown (cw_server_options.on_shutdown). */
typedef void (*cw_shutdown_fn)(const char* comment, size_t comment_len, void* user_data);

/** Which message a cw_trace_event is. */
typedef enum cw_trace_kind {
  CW_TRACE_CLIENT_REQUEST = 0, /**< a client sent a request */
  CW_TRACE_CLIENT_ANSWER = 1,  /**< a client received an answer */
  CW_TRACE_SERVER_REQUEST = 2, /**< a server received a request */
  CW_TRACE_SERVER_ANSWER = 3   /**< a server sent an answer (error answers too) */
} cw_trace_kind;

/** One message on the wire, for a wire trace (cw_server_options.trace,
 *  cw_client_options.trace; or CALLWIRE_TRACE=1 in the environment, which writes every message
 *  to standard error, CALLWIRE_TRACE=1:4096 cutting each body after 4096 bytes). The strings
 *  are NUL-terminated (their lengths are given too) and valid for the callback only. */
typedef struct cw_trace_event {
  cw_trace_kind kind;
  const char* peer; /**< the server's URL for a client, the client's address for a server */
  size_t peer_len;
  /** The HTTP (or SCGI) head, "POST /RPC2 HTTP/1.1\r\nHost: ...\r\n", with Authorization
   *  and Proxy-Authorization values hidden; "" for the packet stream and JSON lines. */
  const char* head;
  size_t head_len;
  /** The body as the protocol reads it: inflated when gzipped, a packet's payload unescaped. */
  const char* body;
  size_t body_len;
} cw_trace_event;

/** Receives each message of a wire trace. On a server it runs on the server's threads,
 *  possibly several at once: it must be thread-safe. */
typedef void (*cw_trace_fn)(const cw_trace_event* event, void* user_data);

/** The oldest TLS version a server or client accepts (tls_min_version in the options). */
typedef enum cw_tls_version {
  CW_TLS_DEFAULT = 0, /**< TLS 1.2 */
  CW_TLS_1_2 = 12,    /**< TLS 1.2 or later */
  CW_TLS_1_3 = 13     /**< TLS 1.3 only */
} cw_tls_version;

/** Receives each connection the server drops without an answer, today a failed TLS handshake
 *  (an untrusted or expired client certificate, no shared version or cipher): `peer` as in
 *  the access log, `message` the reason ("TLS handshake failed: ... (certificate has
 *  expired)"), both NUL-terminated, valid for the call only, and escaped as the access log's
 *  texts are (the message keeps its spaces): printable ASCII only, one line. Runs on the
 *  server's threads, possibly several at once: it must be thread-safe. */
typedef void (*cw_error_log_fn)(const char* peer, const char* message, void* user_data);

/** Limits of the XML-RPC reader for each document it reads (a server's calls, a client's
 *  answers). Zero in a field keeps its default; the document and string limits left so follow
 *  the server's max_body or the client's max_response_size (one knob a side). Beyond one, the
 *  document is refused: a server answers fault -32600, a client's call fails with
 *  CW_BAD_RESPONSE (the message names the limit and its value). */
typedef struct cw_reader_limits {
  size_t max_document_size; /**< bytes of XML; default 32 MiB */
  uint32_t max_depth;       /**< arrays and structs nested in one value; default 64, at most
                                 1000 (a larger setting is lowered to it) */
  size_t max_elements;      /**< start tags in one document; default 1048576 */
  size_t max_string_size;   /**< bytes of one string, name or base64 text; default 16 MiB */
} cw_reader_limits;

/** Limits on one JSON-RPC document, as cw_reader_limits on XML (zero: the default). Exceeding
 *  one is CW_LIMIT_EXCEEDED, answered -32600. */
typedef struct cw_json_limits {
  size_t max_document_size; /**< bytes of JSON; default 32 MiB */
  uint32_t max_depth;       /**< arrays and objects nested in one value; default 64, at most
                                 1000 (a larger setting is lowered to it) */
  size_t max_string_size;   /**< bytes of one string or member name; default 16 MiB */
  size_t max_batch_size;    /**< requests (or responses) in one batch; default 1000 */
  size_t max_elements;      /**< array elements and object members in all; default 1048576 */
} cw_json_limits;

/** Everything a server can be told. Zero means the default (see "Options structs" above). */
typedef struct cw_server_options {
  size_t struct_size;
  /** "HOST:PORT", "[IPV6]:PORT", ":PORT" (every IPv4 interface) or "unix:PATH"; SCGI (for a
   *  web server in front) as "scgi://HOST:PORT" or "scgi+unix:PATH"; xmlrpc-c's packet stream
   *  (XML-RPC without HTTP, docs/pstream.md) as "pstream://HOST:PORT" or "pstream+unix:PATH".
   *  Port 0 picks a free port (read it back with cw_server_port). Default "127.0.0.1:8080".
   *  Inherited listening sockets (docs/deploying.md), served over HTTP: "systemd:" every
   *  socket systemd's socket activation passed (LISTEN_FDS, LISTEN_PID; the variables are
   *  unset once read), "systemd:NAME" those with FileDescriptorName=NAME, "fd:N" descriptor N.
   *  For several listeners: `listens` below. */
  const char* listen;
  unsigned threads;            /**< event loops; default one per core */
  unsigned handler_threads;    /**< 0: handlers run on the event loops (fastest); N: on a pool of
                                    N threads (for handlers that block) */
  size_t max_connections;      /**< default 10000; more are refused */
  uint32_t request_timeout_ms; /**< receiving one request; default 30000 */
  uint32_t idle_timeout_ms;    /**< a kept-alive connection with nothing to do; default 60000 */
  uint32_t write_timeout_ms;   /**< sending one answer; default 30000 */
  uint32_t stop_grace_ms;      /**< after cw_server_stop, for calls in flight; default 10000 */
  size_t max_body;             /**< request body, before or after gzip; default 32 MiB (413) */
  size_t max_multicall_calls;  /**< calls in one system.multicall; default 1000 */
  cw_dialect dialect;          /**< default CW_DIALECT_AUTO */
  int disable_introspection;   /**< non-zero: no system.listMethods, methodSignature, ... */
  int enable_shutdown;         /**< non-zero: system.shutdown stops the server (see shutdown) */
  const char* tls_cert_file;   /**< PEM certificate chain; with tls_key_file: HTTPS */
  const char* tls_key_file;    /**< PEM private key */
  cw_auth_fn authenticate;     /**< NULL: no authentication */
  void* authenticate_data;     /**< passed to authenticate */
  const char* realm;           /**< in WWW-Authenticate; default "callwire" */
  /** Each call's deadline, counted from its complete request (the earlier of this and the
   *  time a client sends in X-Callwire-Timeout). A call past it is answered -32300 "deadline
   *  exceeded" instead of starting; a running handler sees it via cw_call_remaining_ms.
   *  Default 0: none. */
  uint32_t call_timeout_ms;
  /** Request paths served (NUL-terminated strings, copied); any other gets 404. NULL or a
   *  count of 0: "/RPC2" and "/". */
  const char* const* paths;
  size_t path_count;
  cw_access_log_fn access_log; /**< NULL: no log */
  void* access_log_data;       /**< passed to access_log */
  /** Gzip answers at least this large (level 1) for clients that accept gzip, when it makes
   *  them smaller. Default 0: never (gzip only pays on slow links). */
  size_t gzip_min_size;
  /** All connections' buffers together; past it newcomers and requests that need larger
   *  buffers get 503. Default 512 MiB. */
  size_t max_buffer_memory;
  /** One connection's unsent answers; past it its pipelined requests wait. Default 1 MiB. */
  size_t max_pending_output;
  /** Several listeners, each as `listen` takes it (NUL-terminated strings, copied), e.g.
   *  {"127.0.0.1:0", "pstream://127.0.0.1:0"}. A count above 0 replaces `listen`; read each
   *  back with cw_server_listener_port and cw_server_listener_url, by its index here. */
  const char* const* listens;
  size_t listen_count;
  /** The request line and header fields together; beyond: 431. Default 16 KiB. */
  size_t max_header_bytes;
  /** Each call document's limits (see cw_reader_limits). */
  cw_reader_limits reader_limits;
  /** Each JSON-RPC document's limits (document and string limits left at 0 follow max_body). */
  cw_json_limits json_limits;
  /** HTTP requests one keep-alive connection carries; the last answer says Connection: close
   *  (xmlrpc-c's keepalive_max_conn). Default 0: no cap. */
  size_t max_requests_per_connection;
  /** CORS (xmlrpc-c's allow_origin): Access-Control-Allow-Origin on every HTTP answer ("*" or
   *  one origin) and OPTIONS preflights answered; NULL: no CORS. At most 1024 bytes. */
  const char* cors_allow_origin;
  /** With CORS: Access-Control-Max-Age of a preflight's answer; 0: not sent. */
  uint32_t cors_max_age_s;
  /** Mutual TLS: PEM file of the CAs whose client certificates are accepted; every TLS client
   *  must then show one (unless tls_client_cert_optional); cw_call_tls_subject names it. */
  const char* tls_client_ca_file;
  int tls_client_cert_optional; /**< non-zero: clients without a certificate are served too */
  /** Mutual TLS: the client CAs from a directory of PEM files named by subject hash (as
   *  `openssl rehash` makes it), with or without tls_client_ca_file. CW_TLS_ERROR from
   *  cw_server_start when it is no readable directory. */
  const char* tls_client_ca_dir;
  /** The oldest TLS version accepted; default (0) TLS 1.2. Another value: CW_INVALID_ARGUMENT
   *  from cw_server_start. */
  cw_tls_version tls_min_version;
  /** OpenSSL cipher list for TLS 1.2 ("ECDHE+AESGCM"); NULL: OpenSSL's default. An entry that
   *  selects nothing: CW_INVALID_ARGUMENT from cw_server_start. */
  const char* tls_ciphers;
  /** TLS 1.3 suites ("TLS_AES_256_GCM_SHA384:..."); NULL: OpenSSL's default. As tls_ciphers. */
  const char* tls_ciphersuites;
  cw_error_log_fn error_log; /**< NULL: connections dropped without an answer are not reported */
  void* error_log_data;      /**< passed to error_log */
  /** Non-zero: event-loop integration for hosts that may not have threads started in them.
   *  cw_server_start opens the listeners and starts no thread; the host watches
   *  cw_server_loop_fd for reading, with cw_server_loop_timeout_ms, and calls
   *  cw_server_process, inside which the handlers run, on the host's thread. `threads` must
   *  be 0 or 1 and `handler_threads` 0 (CW_INVALID_ARGUMENT from cw_server_start otherwise).
   *  See docs/event-loop.md. */
  int host_loop;
  /** Non-zero: SO_REUSEPORT on the TCP listeners, so several servers (processes) of the same
   *  user listen on one port and the kernel spreads connections over them; each must set it.
   *  Without it, a port in use fails cw_server_start with CW_INVALID_ARGUMENT. */
  int reuse_port;
  /** The health endpoint for load balancers ("/healthz"): a GET of it is answered 200 "ok"
   *  while serving and 503 from cw_server_stop until stopped, without credentials, HTTP only
   *  (ServerOptions::health_path in callwire/server.hpp has the details). NULL: off. */
  const char* health_path;
  /** The metrics page for Prometheus ("/metrics"): a GET of it is answered with
   *  cw_server_metrics_text's page. HTTP only. NULL: off. */
  const char* metrics_path;
  /** Not NULL: a metrics request must carry exactly this Authorization value ("Bearer
   *  <token>", "Basic <base64>"), else 401; the server's authenticate does not apply. */
  const char* metrics_authorization;
  /** The proxies whose X-Forwarded-For is believed (`trusted_proxy_count` addresses or ranges:
   *  "127.0.0.1", "10.0.0.0/8", "::1", "unix"): a request from one of them is the client's
   *  its X-Forwarded-For names (the rightmost entry not itself trusted), as cw_call_peer and
   *  the access log show. NULL: the field is ignored. A bad entry: CW_INVALID_ARGUMENT from
   *  cw_server_start. Copied. */
  const char* const* trusted_proxies;
  size_t trusted_proxy_count;
  /** A wire trace: each request received and answer sent (cw_trace_event). NULL:
   *  CALLWIRE_TRACE decides (off unless set). */
  cw_trace_fn trace;
  void* trace_data; /**< passed to trace */
  /** xmlrpc-c's set_shutdown: what system.shutdown does. Called with the caller's comment
   *  (NUL-terminated, "" when none) on the server's threads, then answered 0; it may call
   *  cw_server_stop, log, or set a flag for the program. Set, system.shutdown is offered
   *  whatever enable_shutdown says; guard it with authenticate. NULL: enable_shutdown
   *  decides. */
  cw_shutdown_fn on_shutdown;
  void* on_shutdown_data; /**< passed to on_shutdown */
} cw_server_options;

/** Sets `options` to the defaults: zeroes it and sets struct_size. NULL: does nothing. */
CALLWIRE_API void cw_server_options_init(cw_server_options* options);

/** Makes a server (not yet listening; the options are copied). `options` NULL: every
 *  default. `error` may be NULL. CW_OK; CW_INVALID_ARGUMENT (out NULL, a bad struct_size, an
 *  unknown dialect); CW_NO_MEMORY. The addresses and files are checked by cw_server_start.
 *  Ownership: the caller frees the server with cw_server_free. */
CALLWIRE_API cw_status cw_server_new(const cw_server_options* options, cw_server** out,
                                     cw_error* error);

/** Stops the server if it runs, waits for its threads, frees it. NULL: does nothing. Not from
 *  a handler of this server. */
CALLWIRE_API void cw_server_free(cw_server* server);

/** A method implementation. Reads its parameters with cw_call_param* and answers with one of
 *  cw_call_return* (a result) or cw_call_fault (a fault), returning what that returned:
 *
 *      static cw_status add(cw_call* call, void* user_data) {
 *        int32_t a, b;
 *        cw_status st;
 *        if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b)))
 *          return st;
 *        return cw_call_return_int(call, a + b);
 *      }
 *
 *  What the caller is answered:
 *   - a fault set with cw_call_fault: that fault, whatever the handler returns;
 *   - else CW_OK: the result set with cw_call_return* (nil when none was set);
 *   - else, after a cw_call_param* failure: fault -32602 naming the parameter
 *     ("sample.add: parameter 2 must be int, got string");
 *   - else: fault -32603 naming the method and the status.
 *  Runs on the server's threads, possibly several at once (user_data too). It must not call
 *  cw_server_free or cw_server_wait of its own server. */
typedef cw_status (*cw_method_fn)(cw_call* call, void* user_data);

/** Registers `method` before cw_server_start.
 *  `signature`: NULL, "" or "?" for unchecked parameters; otherwise xmlrpc-c's notation, the
 *  return type, a colon, the parameter types, several signatures separated by commas:
 *  "i:ii" (int from two ints), "s:,s:s" (string from nothing or from a string). Types:
 *  i int, I i8, b boolean, d double, s string, 8 dateTime, 6 base64, A array, S struct,
 *  n nil. The server checks every call against them before the handler runs (-32602
 *  otherwise; an int slot also takes a small enough i8, a double slot an int) and
 *  system.methodSignature reports them. `help` (NULL: none) is system.methodHelp's answer.
 *  CW_OK; CW_INVALID_ARGUMENT (a NULL, an empty or "system." name, one already registered,
 *  a bad signature, the server already started: `error` says which); CW_NO_MEMORY.
 *  Thread-safety: from the owner's thread, before cw_server_start. */
CALLWIRE_API cw_status cw_server_add_method(cw_server* server, const char* method, cw_method_fn fn,
                                            void* user_data, const char* signature,
                                            const char* help, cw_error* error);

/** cw_server_add_method with the parameters' names, so JSON-RPC can call the method by name
 *  (`"params": {"a": 5, "b": 3}`) as well as by position. `parameter_names` is an array of
 *  one name per parameter, in order, ended by NULL (copied):
 *      static const char* const names[] = {"a", "b", NULL};
 *      cw_server_add_named_method(server, "add", names, add, NULL, "i:ii", NULL, &err);
 *  A call by name reaches the handler with its values in that order: cw_call_param_* reads
 *  them by position as usual; a name left out is nil, a name not in the list is fault -32602.
 *  system.methodHelp lists the names after the help. Errors: those of cw_server_add_method,
 *  and CW_INVALID_ARGUMENT for names that are empty, repeated, or not one per parameter of
 *  every signature. */
CALLWIRE_API cw_status cw_server_add_named_method(cw_server* server, const char* method,
                                                  const char* const* parameter_names,
                                                  cw_method_fn fn, void* user_data,
                                                  const char* signature, const char* help,
                                                  cw_error* error);

/** Handles every call to a method nobody registered (xmlrpc-c's set_default_method): `fn`
 *  runs as a method would, its parameters unchecked; cw_call_method says what was called
 *  (refuse a name with cw_call_fault(call, -32601, ...)). system.* names stay the server's;
 *  introspection does not list what it serves; its calls count as "(default method)" in
 *  cw_server_method_stats. NULL fn removes it. Before cw_server_start. CW_OK;
 *  CW_INVALID_ARGUMENT (NULL server, already started). */
CALLWIRE_API cw_status cw_server_set_default_method(cw_server* server, cw_method_fn fn,
                                                    void* user_data, cw_error* error);

/** A hook run before every call, each system.multicall entry and calls to unknown methods
 *  too (xmlrpc-c's set_preinvoke_method): authorisation by method, logging, rate limits. It
 *  gets the call as a handler does (cw_call_method, _peer, _user, _header, _param_*) and
 *  returns CW_OK to let it run, or refuses it with `return cw_call_fault(call, code, text);`
 *  (any other status refuses it with -32603). It runs before the deadline and signature
 *  checks; cw_call_return_* have no effect in it. Thread-safety as a method's. */
typedef cw_status (*cw_preinvoke_fn)(cw_call* call, void* user_data);

/** Sets the pre-invoke hook (NULL removes it). Before cw_server_start. CW_OK;
 *  CW_INVALID_ARGUMENT (NULL server, already started). */
CALLWIRE_API cw_status cw_server_set_preinvoke(cw_server* server, cw_preinvoke_fn fn,
                                               void* user_data, cw_error* error);

/** Opens the listeners (so cw_server_port is known on return) and starts the server's
 *  threads; returns at once. CW_OK; CW_INVALID_ARGUMENT (NULL, already started, a `listen`
 *  it cannot use, an address in use, a certificate without a key, a tls_min_version,
 *  tls_ciphers or tls_ciphersuites it cannot use: `error` says which); CW_TLS_ERROR (an
 *  unreadable certificate, key, client CA file or directory, or a key that does not match);
 *  CW_NO_MEMORY. Nothing is left running after an error. Thread-safety: the owner's thread. */
CALLWIRE_API cw_status cw_server_start(cw_server* server, cw_error* error);

/** Blocks until the server has stopped (cw_server_stop, or system.shutdown when enabled).
 *  Returns at once if it was never started. NULL: does nothing. */
CALLWIRE_API void cw_server_wait(cw_server* server);

/** cw_server_start, then cw_server_wait: serves on the calling thread's behalf until
 *  stopped. Returns cw_server_start's errors, or CW_OK once stopped. */
CALLWIRE_API cw_status cw_server_run(cw_server* server, cw_error* error);

/** Stops the server: no new connections, calls in flight finish (up to stop_grace_ms), then
 *  its threads end. Returns at once (cw_server_wait waits). Thread-safe, async-signal-safe
 *  (callable from a SIGINT handler) and idempotent. NULL: does nothing. */
CALLWIRE_API void cw_server_stop(cw_server* server);

/** Reads the TLS certificate, key and client CAs again from their files, for a renewed
 *  certificate without a restart: connections accepted from now on use them, those open keep
 *  theirs. CW_OK; CW_INVALID_ARGUMENT for a server without TLS (or NULL); CW_TLS_ERROR for
 *  unreadable or mismatched files (nothing changes then). Thread-safe, once started; not from
 *  a signal handler (set a flag there and call it from a thread). */
CALLWIRE_API cw_status cw_server_reload_tls(cw_server* server, cw_error* error);

/** Event-loop integration (cw_server_options.host_loop), after cw_server_start. The host
 *  watches the descriptor for reading (POLLIN, EV_READ, G_IO_IN: never read, close or change
 *  it), with the timeout, and calls cw_server_process when it is readable or the timeout has
 *  passed:
 *
 *      struct pollfd p = {cw_server_loop_fd(server), POLLIN, 0};
 *      while (poll(&p, 1, cw_server_loop_timeout_ms(server)) >= 0 && cw_server_process(server))
 *        ;
 *
 *  To stop: cw_server_stop (from anywhere, a handler too), then cw_server_process as before
 *  until it returns 0 (calls in flight finish, up to stop_grace_ms; the connections close);
 *  or cw_server_wait, which drives it so itself. cw_server_free of a server still running
 *  does the same first. Thread-safety: cw_server_process and cw_server_loop_timeout_ms from
 *  one thread at a time, the host's; cw_server_loop_fd from any. */

/** The descriptor to watch for reading, the same from cw_server_start on; -1 without
 *  host_loop, before cw_server_start, or NULL. */
CALLWIRE_API int cw_server_loop_fd(const cw_server* server);

/** Milliseconds the host may wait for the descriptor before calling cw_server_process anyway
 *  (the sweep of the connections' timeouts, every 100 ms while any is open; 0: work to do
 *  now); -1 while no connection is open, once cw_server_process has returned 0, without
 *  host_loop, before cw_server_start, or NULL (as poll() reads it: no timeout). */
CALLWIRE_API int cw_server_loop_timeout_ms(cw_server* server);

/** Runs what is ready without blocking: accepts, reads, handlers, writes, timeouts. 1 while
 *  the server runs; 0 once it has stopped and every connection has closed (then always),
 *  and without host_loop, before cw_server_start, or NULL. Not from inside a handler or hook
 *  of this server (not re-entrant); cw_server_wait and cw_server_free of a host-loop server
 *  belong to the host's thread too (they call it). */
CALLWIRE_API int cw_server_process(cw_server* server);

/** The bound TCP port once cw_server_start has succeeded (0 before, and for a Unix socket).
 *  Thread-safe: another thread may poll it while cw_server_run starts the server. */
CALLWIRE_API uint16_t cw_server_port(const cw_server* server);

/** The server's URL once started ("http://127.0.0.1:40312/RPC2", "https://...",
 *  "unix:/path"), "" before cw_server_start has succeeded. Borrowed from the server: valid
 *  until cw_server_free. Thread-safe as cw_server_port. NULL server: "". */
CALLWIRE_API const char* cw_server_url(const cw_server* server);

/** Calls, faults and time spent in one method, summed over every thread. */
typedef struct cw_method_stats {
  const char* name; /**< NUL-terminated; in the same allocation as the array */
  uint64_t calls;
  uint64_t faults;
  uint64_t total_ns; /**< time in the handler, nanoseconds */
} cw_method_stats;

/** The statistics of every method registered (system.* ones too), as one allocation the
 *  caller frees with cw_free (the names live in it). Callable from any thread once started.
 *  CW_OK; CW_INVALID_ARGUMENT (NULL); CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_server_method_stats(const cw_server* server, cw_method_stats** stats_out,
                                              size_t* count_out);

/** The server's numbers in Prometheus' text format (version 0.0.4): per method
 *  callwire_calls_total, callwire_faults_total and the callwire_call_duration_seconds
 *  histogram (100 us to 10 s); callwire_connections_open, callwire_received_bytes_total,
 *  callwire_sent_bytes_total, callwire_stopping. NUL-terminated in *text_out (its length in
 *  *len_out when not NULL), which the caller frees with cw_free: for a scrape endpoint of the
 *  program's own. Any thread. CW_OK; CW_INVALID_ARGUMENT (NULL); CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_server_metrics_text(const cw_server* server, char** text_out,
                                              size_t* len_out);

/** The port and URL of listener `index` (cw_server_options.listens order, a "systemd:" entry
 *  counting once for each socket it took; index 0 is what cw_server_port and cw_server_url
 *  give): as those, and 0 or "" for an index beyond the listeners. The URL is borrowed from
 *  the server (valid until cw_server_free). */
CALLWIRE_API uint16_t cw_server_listener_port(const cw_server* server, size_t index);
CALLWIRE_API const char* cw_server_listener_url(const cw_server* server, size_t index);

/** How requests travel on a connection handed to the server (cw_server_adopt_connection,
 *  cw_server_serve_connection), as a listener's URL scheme says it for its own. */
typedef enum cw_framing {
  CW_FRAMING_HTTP = 0,      /**< HTTP/1.1 ("HOST:PORT" listeners); TLS over TCP when configured */
  CW_FRAMING_SCGI = 1,      /**< SCGI, from a web server ("scgi://") */
  CW_FRAMING_PSTREAM = 2,   /**< xmlrpc-c's packet stream ("pstream://") */
  CW_FRAMING_JSON_LINES = 3 /**< newline-delimited JSON-RPC ("jsonl://") */
} cw_framing;

/** Serves `fd`, a connected stream socket (TCP or Unix: socketpair(), an accept() of your
 *  own, a parent process), as one more connection of the started server, until the peer
 *  closes, a timeout or protocol error closes it, or the server stops; returns once handed
 *  over. Ownership: `fd` passes to the server in every case (closed on an error); it is made
 *  non-blocking and close-on-exec. Thread-safety: any thread (handlers too), after
 *  cw_server_start. `error` may be NULL. CW_OK; CW_INVALID_ARGUMENT (NULL server, fd < 0 or
 *  not a connected stream socket, an unknown framing, not started, CW_FRAMING_PSTREAM with an
 *  authenticate callback); CW_LIMIT_EXCEEDED (max_connections open); CW_STOPPED; CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_server_adopt_connection(cw_server* server, int fd, cw_framing framing,
                                                  cw_error* error);

/** For a program started by inetd, systemd (Accept=yes) or socketexec with its connection as
 *  standard input: instead of cw_server_start, serves `fd` alone (e.g. STDIN_FILENO; no
 *  listener opened, `listen` unused, one event loop) on the calling thread until the
 *  connection closes or cw_server_stop, then returns. The server is spent afterwards: free
 *  it. Ownership of `fd` as cw_server_adopt_connection. CW_OK once the connection has closed
 *  (whatever ended it); CW_INVALID_ARGUMENT (as cw_server_adopt_connection; the server
 *  already started or served; bad options); CW_TLS_ERROR; CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_server_serve_connection(cw_server* server, int fd, cw_framing framing,
                                                  cw_error* error);

/* ---- inside a handler: what the call carries ----
 * Every cw_call function may be used only by the handler it was given to, during its run.
 * Borrowed pointers (parameters, strings) last until the handler returns. */

/** The method called (inside system.multicall: the entry's method). NUL-terminated. */
CALLWIRE_API const char* cw_call_method(cw_call* call);
/** The peer: "127.0.0.1:40312", "[::1]:40312", or "unix". NUL-terminated. */
CALLWIRE_API const char* cw_call_peer(cw_call* call);
/** The user name the authenticate callback accepted; "" when none. NUL-terminated. */
CALLWIRE_API const char* cw_call_user(cw_call* call);
/** Mutual TLS: the subject of the client certificate the handshake verified, in RFC 2253
 *  form ("CN=alice,O=Example"); "" when none. NUL-terminated. */
CALLWIRE_API const char* cw_call_tls_subject(cw_call* call);
/** The first request header field named `name` (ASCII case-insensitive): its value, borrowed
 *  for the handler's call, NUL-terminated, its length in `*len_out`. CW_OK,
 *  CW_INVALID_ARGUMENT (NULL), CW_NOT_FOUND. */
CALLWIRE_API cw_status cw_call_header(cw_call* call, const char* name, const char** value_out,
                                      size_t* len_out);
/** The number of request header fields (every field as received, repeated ones included;
 *  none for a packet stream or a call without HTTP). */
CALLWIRE_API size_t cw_call_header_count(cw_call* call);
/** The `index`-th request header field, in the order received: name and value, borrowed for
 *  the handler's call and NUL-terminated, with their lengths. CW_OK, CW_INVALID_ARGUMENT
 *  (NULL), CW_NOT_FOUND (index past the end). */
CALLWIRE_API cw_status cw_call_header_at(cw_call* call, size_t index, const char** name_out,
                                         size_t* name_len_out, const char** value_out,
                                         size_t* value_len_out);

/** The milliseconds left before the call's deadline (cw_server_options.call_timeout_ms or the
 *  client's X-Callwire-Timeout), rounded up: 0 only once it has passed; INT64_MAX when the
 *  call has none. A
 *  handler that works long may poll it and give up with a fault. */
CALLWIRE_API int64_t cw_call_remaining_ms(cw_call* call);

/** The number of parameters. */
CALLWIRE_API size_t cw_call_param_count(cw_call* call);
/** Parameter `index` (from 0), borrowed. CW_OK, CW_INVALID_ARGUMENT (NULL), CW_NOT_FOUND
 *  (no such parameter). */
CALLWIRE_API cw_status cw_call_param(cw_call* call, size_t index, const cw_value** out);
/* Typed parameter getters: as the cw_value_get_* of cw_call_param(index). Each returns
 * CW_OK, CW_INVALID_ARGUMENT (NULL), CW_NOT_FOUND (too few parameters) or CW_TYPE_MISMATCH;
 * the last two also record the -32602 fault the call is answered with if the handler returns
 * that status (see cw_method_fn). */
CALLWIRE_API cw_status cw_call_param_bool(cw_call* call, size_t index, int* out);
CALLWIRE_API cw_status cw_call_param_int(cw_call* call, size_t index, int32_t* out);
CALLWIRE_API cw_status cw_call_param_i8(cw_call* call, size_t index, int64_t* out);
CALLWIRE_API cw_status cw_call_param_double(cw_call* call, size_t index, double* out);
/** The string, borrowed, NUL-terminated, its length in `*len_out` (as cw_value_get_string). */
CALLWIRE_API cw_status cw_call_param_string(cw_call* call, size_t index, const char** data_out,
                                            size_t* len_out);
CALLWIRE_API cw_status cw_call_param_datetime(cw_call* call, size_t index, cw_datetime* out);
CALLWIRE_API cw_status cw_call_param_bytes(cw_call* call, size_t index, const void** data_out,
                                           size_t* len_out);

/* ---- inside a handler: the answer ----
 * A later cw_call_return* replaces an earlier result. Each returns CW_OK, CW_INVALID_ARGUMENT
 * (NULL) or CW_NO_MEMORY (the earlier result, if any, is kept). */

/** Answers a deep copy of `result` (borrowed: the handler still frees its own handle). */
CALLWIRE_API cw_status cw_call_return(cw_call* call, const cw_value* result);
/** Answers `result` and takes it over: the library frees it, on every status. Saves the copy
 *  of a large result. */
CALLWIRE_API cw_status cw_call_return_take(cw_call* call, cw_value* result);
CALLWIRE_API cw_status cw_call_return_nil(cw_call* call);
CALLWIRE_API cw_status cw_call_return_bool(cw_call* call, int b);
CALLWIRE_API cw_status cw_call_return_int(cw_call* call, int32_t n);
CALLWIRE_API cw_status cw_call_return_i8(cw_call* call, int64_t n);
CALLWIRE_API cw_status cw_call_return_double(cw_call* call, double d);
/** A string of `len` bytes (`data` may be NULL when `len` is 0); UTF-8, or the call is
 *  answered with fault -32603 when it is written. */
CALLWIRE_API cw_status cw_call_return_string(cw_call* call, const char* data, size_t len);
/** A NUL-terminated string. CW_INVALID_ARGUMENT: `s` NULL. */
CALLWIRE_API cw_status cw_call_return_cstring(cw_call* call, const char* s);
/** Answers with the value `arg` describes (see cw_arg): arrays and structs in one call.
 *  CW_OK; what cw_value_build returns otherwise (the call keeps no result then). */
CALLWIRE_API cw_status cw_call_return_arg(cw_call* call, cw_arg arg);

/** Answers with a fault: `code` and the NUL-terminated `message` (copied; NULL is "").
 *  Returns CW_FAULT, so `return cw_call_fault(call, 4, "too big");` ends a handler; or
 *  CW_NO_MEMORY (the call is then answered with fault -32603) or CW_INVALID_ARGUMENT (NULL
 *  call). */
CALLWIRE_API cw_status cw_call_fault(cw_call* call, int32_t code, const char* message);
/** cw_call_fault with more about it: `data` (copied; NULL: none) goes to a JSON-RPC caller as
 *  the error object's "data"; XML-RPC's fault has no room for it and leaves it out. */
CALLWIRE_API cw_status cw_call_fault_data(cw_call* call, int32_t code, const char* message,
                                          const cw_value* data);

/** Latches a fault for the rest of this request: the remaining entries of a system.multicall
 *  are answered with it without running (e.g. after a failed login, so one POST cannot carry
 *  a thousand password guesses). Outside a multicall it has no effect. Does not answer this
 *  call. CW_OK, CW_INVALID_ARGUMENT, CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_call_latch_fault(cw_call* call, int32_t code, const char* message);

/* ======================================================================================== */
/* ---- a registry without a server: answering documents yourself, CGI ---- */

/** Methods to answer XML-RPC documents with, without a server (xmlrpc-c's
 *  xmlrpc_registry_process_call): for a web server or framework of your own, a CGI program
 *  (cw_serve_cgi), a message queue. Opaque. */
typedef struct cw_registry cw_registry;

/** What a registry is told. Zero means the default (see "Options structs" above). */
typedef struct cw_dispatch_options {
  size_t struct_size;
  size_t max_multicall_calls; /**< calls in one system.multicall; default 1000 */
  cw_dialect dialect;         /**< default CW_DIALECT_AUTO */
  int disable_introspection;  /**< non-zero: no system.listMethods, methodSignature, ... */
  /** Each call's deadline, from the start of its dispatch (-32300 past it; see
   *  cw_call_remaining_ms). Default 0: none. */
  uint32_t call_timeout_ms;
  size_t max_body; /**< cw_serve_cgi: the request body; default 32 MiB (413 past it) */
  cw_reader_limits reader_limits; /**< each XML-RPC request's limits */
  cw_json_limits json_limits;     /**< each JSON-RPC request's limits */
} cw_dispatch_options;

/** Sets `options` to the defaults: zeroes it and sets struct_size. NULL: does nothing. */
CALLWIRE_API void cw_dispatch_options_init(cw_dispatch_options* options);

/** Makes an empty registry (`options` copied; NULL: every default). CW_OK;
 *  CW_INVALID_ARGUMENT (out NULL, a bad struct_size, an unknown dialect); CW_NO_MEMORY.
 *  Ownership: the caller frees it with cw_registry_free. */
CALLWIRE_API cw_status cw_registry_new(const cw_dispatch_options* options, cw_registry** out,
                                       cw_error* error);

/** Frees the registry. NULL: does nothing. Not while a dispatch of it runs. */
CALLWIRE_API void cw_registry_free(cw_registry* registry);

/** Registers `method` as cw_server_add_method does (the same signatures, help and errors),
 *  before the first dispatch: after it the registry is read-only (CW_INVALID_ARGUMENT). */
CALLWIRE_API cw_status cw_registry_add_method(cw_registry* registry, const char* method,
                                              cw_method_fn fn, void* user_data,
                                              const char* signature, const char* help,
                                              cw_error* error);

/** Registers `method` with its parameters' names as cw_server_add_named_method does. */
CALLWIRE_API cw_status cw_registry_add_named_method(cw_registry* registry, const char* method,
                                                    const char* const* parameter_names,
                                                    cw_method_fn fn, void* user_data,
                                                    const char* signature, const char* help,
                                                    cw_error* error);

/** cw_server_set_default_method and cw_server_set_preinvoke for a registry, before its first
 *  dispatch. */
CALLWIRE_API cw_status cw_registry_set_default_method(cw_registry* registry, cw_method_fn fn,
                                                      void* user_data, cw_error* error);
CALLWIRE_API cw_status cw_registry_set_preinvoke(cw_registry* registry, cw_preinvoke_fn fn,
                                                 void* user_data, cw_error* error);

/** Answers the `<methodCall>` document `request` (`request_len` bytes) with a complete
 *  `<methodResponse>` document in *response_out (NUL-terminated, its length in
 *  *response_len_out when not NULL; free it with cw_free): the result, or a fault for every
 *  failure of the call (not XML -32700, not XML-RPC -32600, unknown method -32601, bad
 *  parameters -32602, a handler's fault). Handlers see no peer, user or headers. CW_OK (also
 *  for a fault: it is in the document); CW_INVALID_ARGUMENT (NULL registry or response_out,
 *  NULL request with a length); CW_NO_MEMORY. Thread-safe: any number of threads may
 *  dispatch at once. */
CALLWIRE_API cw_status cw_registry_dispatch(cw_registry* registry, const char* request,
                                            size_t request_len, char** response_out,
                                            size_t* response_len_out, cw_error* error);

/** Answers `request` in the protocol its HTTP Content-Type names (`content_type`, NULL is ""):
 *  JSON-RPC 2.0 for `application/json` (parameters and case aside; also
 *  `application/json-rpc` and `application/jsonrequest`), XML-RPC as cw_registry_dispatch
 *  for anything else. *response_type_out (static storage) gets the answer's Content-Type,
 *  "text/xml" or "application/json"; for a JSON-RPC notification, or a batch of them, there
 *  is no answer at all: *response_out is NULL, the length 0, the type NULL (answer HTTP 204).
 *  JSON-RPC's errors are answered in the document: -32700 not JSON, -32600 not JSON-RPC (or
 *  over a limit), -32601, -32602, a handler's fault with its code; a batch is answered in one
 *  array. Statuses and thread-safety as cw_registry_dispatch; response_type_out must not be
 *  NULL. */
CALLWIRE_API cw_status cw_registry_dispatch_content(cw_registry* registry, const char* content_type,
                                                    const char* request, size_t request_len,
                                                    char** response_out, size_t* response_len_out,
                                                    const char** response_type_out,
                                                    cw_error* error);

/** Serves the one request of a CGI invocation: the CGI environment, the body on standard input,
 *  the response (`Status: 200 OK`, text/xml) on standard output. Refused before dispatch:
 *  405 for all but POST, 411 without CONTENT_LENGTH, 400 for a bad one or a short body, 413
 *  past max_body, 415 for a Content-Encoding other than gzip or identity. Handlers see
 *  REMOTE_ADDR:REMOTE_PORT as the peer, REMOTE_USER as the user, the HTTP_* variables as
 *  header fields. Returns 0 once a response is written (a fault or a 4xx too), 1 when it
 *  cannot be (standard output closed, out of memory, NULL registry): the program's exit
 *  status. */
CALLWIRE_API int cw_serve_cgi(cw_registry* registry);

/* ======================================================================================== */
/* ---- client ---- */

/** An XML-RPC client for one server URL. Opaque. Thread-safe: any number of threads may call
 *  through one client at once; kept-alive connections are shared through a pool. */
typedef struct cw_client cw_client;

/** One extra HTTP header field; both strings NUL-terminated. */
typedef struct cw_header {
  const char* name;
  const char* value;
} cw_header;

/** Everything a client can be told. Zero means the default (see "Options structs" above). */
typedef struct cw_client_options {
  size_t struct_size;
  uint32_t timeout_ms; /**< deadline of each call (connect, send, receive); default 30000 */
  const char* user;    /**< HTTP Basic credentials (also taken from the URL) */
  const char* password;
  int insecure_skip_verify;     /**< non-zero: https without checking the server's certificate
                                     (open to interception; for tests only) */
  const char* ca_file;          /**< PEM file of trusted CAs; default the system's store */
  size_t max_response_size;     /**< larger answers fail with CW_LIMIT_EXCEEDED; default 32 MiB */
  int accept_gzip;              /**< non-zero: ask for gzip answers; default no */
  size_t gzip_request_min_size; /**< gzip requests at least this large; 0: never */
  cw_dialect dialect;           /**< how i8 and nil are written; CW_DIALECT_APACHE for Apache */
  unsigned max_connections;     /**< kept open, and open at once for async calls; default 8 */
  const char* unix_path;        /**< the HTTP path for a "unix:" URL; default "/RPC2" */
  /** Non-zero: send each call's remaining time (header X-Callwire-Timeout), so a callwire
   *  server does not start work the client has given up on. Off by default: it costs bytes. */
  int send_timeout;
  /** Extra header fields sent with every call (copied); each call's own come after. */
  const cw_header* headers;
  size_t header_count;
  /** Each answer's limits (see cw_reader_limits); max_response_size still caps the body. */
  cw_reader_limits reader_limits;
  /** Each JSON-RPC answer's limits (max_response_size still caps the body). */
  cw_json_limits json_limits;
  /** Packet stream (pstream://, pstream+unix:) only: how many asynchronous calls may await
   *  their answers on one connection at once; each request is written as soon as it is made
   *  and the answers, which the server sends in order, reach their callers in that order.
   *  0 or 1: one at a time (xmlrpc-c's way). Above 1 for any other framing: cw_client_new fails
   *  with CW_INVALID_ARGUMENT. Against a server that serves one connection at a time, set
   *  max_connections to 1. */
  size_t pipeline_depth;
  /** The whole Authorization value for every call, any scheme ("Bearer ..."); NULL: none, or
   *  Basic from user (both: CW_INVALID_ARGUMENT). HTTP and SCGI only. Copied. */
  const char* authorization;
  /** The User-Agent for every call; NULL: "callwire/VERSION". HTTP and SCGI only. Copied. */
  const char* user_agent;
  /** Mutual TLS: the certificate (PEM, with its chain) and key shown to https servers that ask;
   *  tls_key_password decrypts an encrypted key. CW_TLS_ERROR from cw_client_new when they
   *  cannot be read or do not match. */
  const char* tls_cert_file;
  const char* tls_key_file;
  const char* tls_key_password;
  /** A directory of trusted CAs, PEM files named by subject hash (as `openssl rehash` makes
   *  it), with or without ca_file. CW_TLS_ERROR from cw_client_new when it is no readable
   *  directory. */
  const char* ca_dir;
  /** The oldest TLS version offered; default (0) TLS 1.2. Another value: CW_INVALID_ARGUMENT
   *  from cw_client_new. */
  cw_tls_version tls_min_version;
  /** OpenSSL cipher list for TLS 1.2, and the TLS 1.3 suites; NULL: OpenSSL's defaults. An
   *  entry that selects nothing: CW_INVALID_ARGUMENT from cw_client_new. */
  const char* tls_ciphers;
  const char* tls_ciphersuites;
  /** An HTTP proxy for http:// and https:// calls: "http://[user:password@]host[:port]"
   *  (port 1080 when none; the credentials are percent-decoded and sent to the proxy alone,
   *  as Proxy-Authorization: Basic). http:// calls go to it in absolute form; https:// calls
   *  through a CONNECT tunnel, TLS checking the server's name. NULL or "": none (see
   *  proxy_from_environment). Another scheme, or any proxy with a Unix-socket, SCGI or
   *  packet-stream URL: CW_INVALID_ARGUMENT from cw_client_new. A call through it fails with
   *  CW_CONNECT_FAILED ("proxy host:port: ...") when the proxy cannot be reached,
   *  CW_HTTP_STATUS (the proxy's status in the error's http_status, e.g. 407) when it refuses a
   *  CONNECT or answers 407, CW_CONNECTION_CLOSED when it hangs up during the CONNECT.
   *  Copied. */
  const char* proxy;
  /** Non-zero, with no proxy: take it from the environment as curl does, once, in
   *  cw_client_new: http_proxy (lower case only) for http://, https_proxy or HTTPS_PROXY for
   *  https://, except for the hosts no_proxy or NO_PROXY lists (names, domain suffixes, IP
   *  literals, CIDR ranges, or "*"). Off by default. */
  int proxy_from_environment;
  /** Non-zero: event-loop integration for hosts that may not have threads started in them
   *  (Kamailio, OpenSIPS, GUI toolkits, libevent/libuv/GLib programs). Asynchronous calls
   *  start no I/O thread: the host watches cw_client_loop_fd for reading, with
   *  cw_client_loop_timeout_ms, and calls cw_client_process, inside which the completion
   *  callbacks run, on the host's thread. Synchronous calls work as always. See
   *  docs/event-loop.md. */
  int host_loop;
  /** A wire trace: each request sent and answer received (cw_trace_event). NULL:
   *  CALLWIRE_TRACE decides (off unless set). */
  cw_trace_fn trace;
  void* trace_data; /**< passed to trace */
  /** xmlrpc-c's interrupt flag (see cw_client_set_interrupt); NULL: none. */
  volatile sig_atomic_t* interrupt;
} cw_client_options;

/** Sets `options` to the defaults: zeroes it and sets struct_size. NULL: does nothing. */
CALLWIRE_API void cw_client_options_init(cw_client_options* options);

/** Makes a client for `url`: "http://[user:password@]host:port/path", "https://...",
 *  "unix:/path/to/socket", SCGI (rtorrent's protocol) "scgi://host:port[/path]" and
 *  "scgi+unix:/path/to/socket", xmlrpc-c's packet stream "pstream://host:port" and
 *  "pstream+unix:/path/to/socket", or JSON-RPC 2.0 over HTTP "jsonrpc+http://...",
 *  "jsonrpc+https://..." and "jsonrpc+unix:/path", or newline-delimited JSON-RPC
 *  "jsonl://host:port" and "jsonl+unix:/path" (docs/json-rpc.md). Connects lazily, on the first
 * call. `options` NULL: defaults. CW_OK; CW_INVALID_ARGUMENT (NULL, a URL it cannot use, a bad
 * struct_size, a tls_min_version, tls_ciphers or tls_ciphersuites it cannot use); CW_TLS_ERROR (an
 * unreadable CA file or directory, client certificate or key); CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_client_new(const char* url, const cw_client_options* options,
                                     cw_client** out, cw_error* error);

/** How a client over several servers (cw_client_new_group) spreads and retries its calls.
 *  Zero means the default (see "Options structs" above). */
typedef struct cw_failover_options {
  size_t struct_size;
  /** How long a server that failed (no connection, a timeout, a reset, a 502/503/504) is
   *  skipped; default 5000. It is tried sooner when every other server failed too. */
  uint32_t backoff_ms;
  /** Methods that may run twice: after a transport failure (a timeout, a reset, a
   *  502/503/504) they go to the next server. Other methods move on only when the call cannot
   *  have reached a server (no connection, an HTTP 503). Copied. */
  const char* const* idempotent_methods;
  size_t idempotent_count;
  int all_idempotent; /**< non-zero: every method may run twice */
} cw_failover_options;

/** One client over several servers that answer the same methods (`url_count` URLs, each as
 *  cw_client_new takes it, each with `options`): each call goes to the next server in turn,
 *  a server that failed is skipped for the backoff, and a call that fails moves on to the
 *  next server within its one deadline when it cannot have reached one or its method may run
 *  twice (see cw_failover_options); never after a fault or another answer. When every server
 *  failed, the error is the last one, its message naming each server's. Every cw_client
 *  function works on it as on a client of one server. `failover` NULL: the defaults.
 *  CW_OK; CW_INVALID_ARGUMENT (NULL or no URLs, a bad struct_size, pipeline_depth above 1,
 *  host_loop, what cw_client_new says of a URL, naming it); CW_TLS_ERROR; CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_client_new_group(const char* const* urls, size_t url_count,
                                           const cw_client_options* options,
                                           const cw_failover_options* failover, cw_client** out,
                                           cw_error* error);

/** A client on a connection it is given instead of one it opens (xmlrpc-c's socketexec
 *  style: a connected socket from socketpair(), a parent process, inetd), speaking `framing`
 *  on it (CW_FRAMING_HTTP: Host "localhost", path unix_path; CW_FRAMING_SCGI;
 *  CW_FRAMING_PSTREAM; CW_FRAMING_JSON_LINES, JSON-RPC). `fd` passes to the client in every case
 * (closed on an error) and is made non-blocking and close-on-exec. It is the client's only
 * connection, never replaced: once the peer closes it, calls fail with CW_CONNECTION_CLOSED. Calls
 * take turns on it: asynchronous calls wait for it in order (or pipeline on it, with
 * pipeline_depth); a synchronous call made while another call has it fails at once with
 * CW_CONNECTION_CLOSED (with pipeline_depth the pipeline keeps it: make only asynchronous calls).
 * SCGI closes a connection after each answer: an adopted SCGI connection carries one call.
 *  max_connections is 1 whatever is set. CW_OK; CW_INVALID_ARGUMENT (NULL out, fd < 0, not a
 *  connected stream socket, an unknown framing, bad options);
 *  CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_client_adopt(int fd, cw_framing framing, const cw_client_options* options,
                                       cw_client** out, cw_error* error);

/** Waits for the client's asynchronous calls in flight to end (each by its deadline), then
 *  frees it. NULL: does nothing. Not from a completion callback of this client. */
CALLWIRE_API void cw_client_free(cw_client* client);

/** xmlrpc-c's xmlrpc_client_set_interrupt: `flag` is set by a signal handler (which does
 *  nothing else: setting a volatile sig_atomic_t is all a handler may safely do), and while it
 *  is non-zero the client's synchronous calls (cw_client_call and its variants, multicall,
 *  batch) end with CW_CANCELLED "the call was interrupted": one waiting ends within 50 ms of
 *  it being set, whichever thread got the signal; one made after fails at once, before
 *  sending. Clear the flag for calls to go on. NULL removes it. The flag must outlive the
 *  client. Thread-safe (a call already waiting keeps the flag it started with).
 *
 *  Async-signal-safe functions of this API, callable from a signal handler: cw_server_stop,
 *  and none other; set a flag (this one) for anything else. */
CALLWIRE_API void cw_client_set_interrupt(cw_client* client, volatile sig_atomic_t* flag);

/** Waits until every asynchronous call started so far has ended (its callback has run), at
 *  most `timeout_ms`: xmlrpc-c's xmlrpc_client_event_loop_finish_timeout. With host_loop it
 *  runs the calls itself meanwhile (cw_client_process). Not from a completion callback of
 *  this client. CW_OK; CW_TIMEOUT when calls are still in flight (they go on); CW_CANCELLED
 *  when the interrupt flag is set (looked at every 50 ms); CW_INVALID_ARGUMENT (NULL). */
CALLWIRE_API cw_status cw_client_wait_async(cw_client* client, uint32_t timeout_ms,
                                            cw_error* error);

/** The status line and header fields of a server's HTTP answer, filled by the calls given it
 *  in cw_call_options.response_head (a 401's WWW-Authenticate, a 503's Retry-After, a
 *  Set-Cookie). Opaque; one per call in flight. */
typedef struct cw_http_head cw_http_head;

/** Makes an empty head. CW_OK; CW_INVALID_ARGUMENT (out NULL); CW_NO_MEMORY. The caller frees
 *  it with cw_http_head_free. */
CALLWIRE_API cw_status cw_http_head_new(cw_http_head** out);
/** Frees it. NULL: does nothing. Not while a call fills it. */
CALLWIRE_API void cw_http_head_free(cw_http_head* head);
/** The status (200, 404, ...); 0 when the last call given it read no answer (a packet stream,
 *  a connection that failed), and for NULL. */
CALLWIRE_API int cw_http_head_status(const cw_http_head* head);
/** The first field named `name` (case-insensitive), NUL-terminated; NULL when there is none
 *  (or a NULL argument). Valid until the head is given to another call or freed. */
CALLWIRE_API const char* cw_http_head_field(const cw_http_head* head, const char* name);
/** How many header fields it holds, in the order received; 0 for NULL. */
CALLWIRE_API size_t cw_http_head_field_count(const cw_http_head* head);
/** The `index`-th field's name and value (NUL-terminated; valid as for cw_http_head_field).
 *  CW_OK; CW_INVALID_ARGUMENT (a NULL); CW_NOT_FOUND (index out of range). */
CALLWIRE_API cw_status cw_http_head_field_at(const cw_http_head* head, size_t index,
                                             const char** name_out, const char** value_out);

/** Cancels calls from any thread: give it to calls in cw_call_options.cancel, then
 *  cw_cancel_request ends every one of them still running at once with CW_CANCELLED (a
 *  synchronous call returns, an asynchronous one's callback runs); their connections are
 *  closed (the server may still run the method). Calls given it once it is requested fail
 *  before anything is sent. Opaque. */
typedef struct cw_cancel cw_cancel;

/** CW_OK; CW_INVALID_ARGUMENT (out NULL); CW_NO_MEMORY. Free it with cw_cancel_free. */
CALLWIRE_API cw_status cw_cancel_new(cw_cancel** out);
/** Requests the cancellation; thread-safe, idempotent. NULL: does nothing. */
CALLWIRE_API void cw_cancel_request(cw_cancel* cancel);
/** Non-zero once requested; 0 for NULL. */
CALLWIRE_API int cw_cancel_requested(const cw_cancel* cancel);
/** Frees it. NULL: does nothing. Only once no call given it runs any more. */
CALLWIRE_API void cw_cancel_free(cw_cancel* cancel);

/** Per-call settings. Zero means the client's setting. */
typedef struct cw_call_options {
  size_t struct_size;
  uint32_t timeout_ms;      /**< this call's deadline, from now */
  const cw_header* headers; /**< extra header fields for this call */
  size_t header_count;
  /** Non-zero: a call sent on a kept connection the server had closed (no byte of answer)
   *  fails with CW_CONNECTION_CLOSED instead of being sent once more on a fresh connection:
   *  for methods that must not run twice. */
  int disable_stale_resend;
  /** Not NULL: the answer's HTTP status and header fields go here, whether the call succeeds
   *  or fails (status 0 when no answer was read). An asynchronous call fills it before its
   *  callback runs: keep it until then. */
  cw_http_head* response_head;
  /** Not NULL: cw_cancel_request on it ends this call (CW_CANCELLED). */
  cw_cancel* cancel;
  /** Not NULL: where a fault's data goes: the `data` of a JSON-RPC error (an XML-RPC fault has
   *  none). cw_client_call, _call_args, _call_named, _notify and _call_async: `*fault_data` is
   *  set to a new value the caller frees when the call ends in CW_FAULT with data, and to NULL
   *  otherwise (an asynchronous call sets it before its callback runs: keep it until then).
   *  cw_client_multicall and cw_client_batch: an array of one pointer per entry, each set so
   *  for that entry's fault (NULL for a success, a notification, a fault without data), and
   *  all NULL when the whole call fails. */
  cw_value** fault_data;
} cw_call_options;

/** Calls `method` with `param_count` parameters (`params` may be NULL when 0; each borrowed)
 *  and waits for the answer, up to the deadline. `options` and `error` may be NULL. On CW_OK,
 *  `*result_out` is a new value the caller frees.
 *  CW_OK; CW_FAULT (the server's fault: error->fault_code and error->message); CW_TIMEOUT;
 *  CW_CONNECT_FAILED; CW_CONNECTION_CLOSED; CW_HTTP_STATUS (error->http_status holds the
 *  status, error->fault_code -32300); CW_BAD_RESPONSE; CW_LIMIT_EXCEEDED; CW_TLS_ERROR;
 * CW_CANCELLED (options->cancel); CW_UNREPRESENTABLE (a parameter XML-RPC cannot carry);
 * CW_INVALID_ARGUMENT (a NULL, a bad header, a bad struct_size); CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_client_call(cw_client* client, const char* method,
                                      const cw_value* const* params, size_t param_count,
                                      const cw_call_options* options, cw_value** result_out,
                                      cw_error* error);

/** cw_client_call with the parameters described in place (see cw_arg) rather than built
 *  first: `cw_client_call_args(client, "sample.add", params, 2, NULL, &result, &err)` with
 *  `const cw_arg params[] = {cw_arg_int(5), cw_arg_int(3)};`. Returns what cw_client_call
 *  returns, and what cw_value_build returns for a wrong description (before any I/O; the
 *  message names the parameter: "params[1]: a NULL string"). */
CALLWIRE_API cw_status cw_client_call_args(cw_client* client, const char* method,
                                           const cw_arg* params, size_t param_count,
                                           const cw_call_options* options, cw_value** result_out,
                                           cw_error* error);

/** One call of a cw_client_multicall. */
typedef struct cw_multicall_entry {
  const char* method;
  const cw_value* const* params; /**< may be NULL when param_count is 0; borrowed */
  size_t param_count;
} cw_multicall_entry;

/** What one call of a cw_client_multicall came back with: on success `result` is a new
 *  value the caller frees and error.status is CW_OK; on a fault `result` is NULL and `error`
 *  holds CW_FAULT, the fault code and string. */
typedef struct cw_multicall_result {
  cw_value* result;
  cw_error error;
} cw_multicall_result;

/** Sends `count` calls as one system.multicall request (one round trip) and fills
 *  `results[0..count-1]`, a caller-provided array, in order. Accepts servers that answer each
 *  entry with a bare result instead of a one-element array (supervisord).
 *  Returns CW_OK when the multicall itself succeeded (each entry may still be a fault); the
 *  errors of cw_client_call otherwise, and CW_BAD_RESPONSE when the answer does not have one
 *  entry per call. On any status but CW_OK `results` is left untouched. */
CALLWIRE_API cw_status cw_client_multicall(cw_client* client, const cw_multicall_entry* calls,
                                           size_t count, const cw_call_options* options,
                                           cw_multicall_result* results, cw_error* error);

/** Sends a notification: a call whose result nobody waits for. JSON-RPC (a jsonrpc+ URL): a
 *  request without id; an HTTP 204, or a 200 that carries no JSON-RPC error, is CW_OK (over
 *  JSON lines nothing comes back: CW_OK once it is sent); an
 *  error answered anyway (a server that could not read it) is CW_FAULT. XML-RPC has no
 *  notifications: the call is made and its result dropped (a fault is still CW_FAULT).
 *  Statuses: those of cw_client_call. */
CALLWIRE_API cw_status cw_client_notify(cw_client* client, const char* method,
                                        const cw_value* const* params, size_t param_count,
                                        const cw_call_options* options, cw_error* error);

/** cw_client_call with the parameters by name: `named` is a struct of them (borrowed).
 *  JSON-RPC sends it as `"params": {...}`, which a server places by the method's parameter
 *  names (see cw_server_add_named_method); XML-RPC has no names, so the struct goes as the
 *  call's one parameter. Statuses: those of cw_client_call; CW_INVALID_ARGUMENT when `named`
 *  is not a struct. */
CALLWIRE_API cw_status cw_client_call_named(cw_client* client, const char* method,
                                            const cw_value* named, const cw_call_options* options,
                                            cw_value** result_out, cw_error* error);

/** One entry of a cw_client_batch: a call, or a notification (no result). */
typedef struct cw_batch_entry {
  const char* method;
  const cw_value* const* params; /**< may be NULL when param_count is 0; borrowed */
  size_t param_count;
  int notification; /**< non-zero: a notification */
  /** Not NULL: the parameters by name instead (a struct, borrowed; params must be empty), as
   *  cw_client_call_named sends them. */
  const cw_value* named;
} cw_batch_entry;

/** Sends `count` calls and notifications at once: JSON-RPC as one batch (one JSON array, one
 *  request; the answers are matched to the calls by id, in whatever order they come), XML-RPC
 *  as one system.multicall (a notification is a call whose result is dropped). Fills
 *  `results[0..count-1]`, one per entry in order, as cw_client_multicall does; a
 *  notification's is {NULL, CW_OK}. An entry the server did not answer is CW_BAD_RESPONSE (a
 *  JSON-RPC error with id null, as a server sends when it cannot read the batch, is taken as
 *  every unanswered call's). Returns CW_OK when the batch itself went through; the errors of
 *  cw_client_call otherwise, and CW_BAD_RESPONSE for an answer that is not one (an id no call
 *  of the batch has, not JSON-RPC). On any status but CW_OK `results` is left untouched. */
CALLWIRE_API cw_status cw_client_batch(cw_client* client, const cw_batch_entry* entries,
                                       size_t count, const cw_call_options* options,
                                       cw_multicall_result* results, cw_error* error);

/** Checks the connections the client keeps open between calls and drops those the server
 *  has closed or reset, so a call does not find out by failing. Over a packet stream each
 *  idle connection is first sent ESC NOP (xmlrpc-c's liveness probe; a server ignores it, a
 *  peer that no longer knows the connection answers with a reset, and it keeps NAT state
 *  alive); `wait_ms` is how long to watch for such resets, 0 looks once. Returns how many
 *  kept connections are open afterwards; 0 for NULL. Not from a completion callback. */
CALLWIRE_API size_t cw_client_probe(cw_client* client, uint32_t wait_ms);

/** The end of an asynchronous call: `status` as cw_client_call would return; `result`
 *  (borrowed, valid during the callback only: cw_value_copy it to keep it) is the answer on
 *  CW_OK and NULL otherwise; `error` (borrowed likewise) says what failed, never NULL. Runs on
 *  the client's I/O thread: keep it short and never wait there for another call of the same
 *  client. */
typedef void (*cw_call_done_fn)(cw_status status, const cw_value* result, const cw_error* error,
                                void* user_data);

/** Starts a call and returns at once; `done` runs exactly once with its outcome, on the
 *  client's I/O thread (with host_loop: inside cw_client_process, or inside
 *  cw_client_free for calls still in flight then), also for a call that cannot be sent (a parameter
 * XML-RPC cannot carry, a bad header); only if that thread cannot be started does it run on the
 * calling thread, before this returns. Up to max_connections calls are on the wire at once (times
 *  pipeline_depth over a packet stream); more wait for a connection, within their deadline.
 *  CW_OK (done will run or has run); CW_INVALID_ARGUMENT (a NULL, a bad struct_size) or
 *  CW_NO_MEMORY: nothing started and done will not run. */
CALLWIRE_API cw_status cw_client_call_async(cw_client* client, const char* method,
                                            const cw_value* const* params, size_t param_count,
                                            const cw_call_options* options, cw_call_done_fn done,
                                            void* user_data, cw_error* error);

/** Event-loop integration (cw_client_options.host_loop): no thread is started; the host
 *  watches one descriptor for reading (POLLIN, EV_READ, G_IO_IN: never read, close or change
 *  it), with a timeout, and calls cw_client_process when it is readable or the timeout has
 *  passed; the completion callbacks of cw_client_call_async run inside it. A call started
 *  on another thread, and a cw_cancel_request, wake the descriptor. cw_client_free waits for
 *  the calls still in flight (each by its deadline), running their callbacks itself: let
 *  cw_client_loop_timeout_ms come back to -1 first not to wait. Thread-safety:
 *  cw_client_process, cw_client_loop_timeout_ms and cw_client_probe from one thread at a
 *  time, the host's; calls from any. */

/** The descriptor to watch for reading, the same for the client's life; -1 without
 *  host_loop, for NULL, or when it cannot be made (out of descriptors: asynchronous calls
 *  then fail at once with CW_INVALID_ARGUMENT). */
CALLWIRE_API int cw_client_loop_fd(cw_client* client);

/** Milliseconds the host may wait for the descriptor before calling cw_client_process anyway
 *  (until the earliest deadline of a call pending, at least 10 ms; every 10 ms while pipelined
 *  calls are pending); -1 while no asynchronous
 *  call is pending (wait for the descriptor alone; poll() reads -1 so), 0 when there is work
 *  to do now. -1 without host_loop, or NULL. */
CALLWIRE_API int cw_client_loop_timeout_ms(cw_client* client);

/** Runs what is ready without blocking: reads and writes, finished calls (their callbacks
 *  run here and may start new calls), deadlines, cancellations. Not from inside a callback of
 *  this client (not re-entrant). CW_OK; CW_INVALID_ARGUMENT (NULL, or a client without
 *  host_loop: its own thread does this). */
CALLWIRE_API cw_status cw_client_process(cw_client* client);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_H */
