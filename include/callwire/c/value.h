/* callwire: the C API's values: build, read, copy, compare.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_VALUE_H
#define CALLWIRE_C_VALUE_H

/** @file callwire/c/value.h
 *  cw_value (nil, boolean, int, i8, double, string, dateTime, base64, array, struct): making
 *  values, reading them, arrays and structs. */

#include <stddef.h>
#include <stdint.h>

#include "callwire/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 *  getters (rule 3 in callwire/c/common.h). */
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_VALUE_H */
