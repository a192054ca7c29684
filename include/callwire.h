/* callwire: the C API (C99). A thin facade over the C++ core (src/capi/).
 *
 * This first part covers values: building, reading, copying, comparing, and encoding a value
 * as an XML-RPC response document and back. Server and client handles come next.
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
 * As for plain C data: any number of threads may read one value at once; modifying a value
 * needs exclusive access to it (and to the array or struct it was borrowed from). Distinct
 * values are independent.
 */
#ifndef CALLWIRE_H
#define CALLWIRE_H

#include <stddef.h>
#include <stdint.h>

#ifndef CALLWIRE_API
#if defined(_WIN32)
#define CALLWIRE_API
#else
#define CALLWIRE_API __attribute__((visibility("default")))
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes: the same numbers as callwire::Errc in C++ (checked when the library is
 *  built). */
typedef enum cw_status {
  CW_OK = 0,
  CW_INVALID_ARGUMENT = 1,     /**< the API was used wrongly (a NULL, a bad option) */
  CW_NO_MEMORY = 2,            /**< an allocation failed */
  CW_NOT_WELL_FORMED = 3,      /**< XML that is not well formed (fault -32700) */
  CW_UNSUPPORTED_ENCODING = 4, /**< an encoding other than UTF-8, US-ASCII, ISO-8859-1 */
  CW_INVALID_CHARACTER = 5,    /**< bytes invalid for the encoding, or a forbidden character */
  CW_NOT_XMLRPC = 6,           /**< well-formed XML that is not XML-RPC (fault -32600) */
  CW_LIMIT_EXCEEDED = 7,       /**< a size, depth or count limit was reached */
  CW_TYPE_MISMATCH = 8,        /**< a value accessed as a type it does not hold */
  CW_UNREPRESENTABLE = 9,      /**< a value XML-RPC cannot carry (NaN, a control character) */
  CW_NOT_FOUND = 10,           /**< a struct member or an index that is not there */
  CW_TIMEOUT = 11,             /**< a deadline passed */
  CW_CONNECT_FAILED = 12,      /**< no connection could be made */
  CW_CONNECTION_CLOSED = 13,   /**< the peer closed the connection before answering */
  CW_HTTP_STATUS = 14,         /**< the peer answered with an HTTP status other than 200 */
  CW_BAD_RESPONSE = 15,        /**< the peer's answer is not valid HTTP or XML-RPC */
  CW_FAULT = 16,               /**< the peer answered with a fault (see cw_error.fault_code) */
  CW_TLS_ERROR = 17,           /**< TLS handshake or certificate verification failed */
  CW_STOPPED = 18              /**< the client or server was stopped while the call waited */
} cw_status;

/** The short English name of a status ("out of memory", ...). Never NULL; static storage; an
 *  unknown number gives "unknown". Thread-safe. */
CALLWIRE_API const char* cw_status_name(cw_status status);

/** The details of a failure, filled by the functions that take a `cw_error*` (which may be
 *  NULL when the caller only wants the status). A plain struct on the caller's side: it needs
 *  no allocation (so it can report CW_NO_MEMORY) and no freeing. `message` is always
 *  NUL-terminated, truncated to fit. On success it is set to {CW_OK, 0, ""}. */
typedef struct cw_error {
  cw_status status;
  int32_t fault_code; /**< the XML-RPC fault code: the peer's for CW_FAULT, else the interop
                           code for the status (-32700, ...), or 0 for CW_OK */
  char message[256];
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
/** The string's bytes, borrowed (rule 3) and NOT NUL-terminated: use `*len_out`. */
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

/** Frees memory the library returned as `char**` (encoded documents). NULL: does nothing. */
CALLWIRE_API void cw_free(void* p);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_H */
