/* callwire: the C API (C99), its common part: statuses, errors, freeing, and the rules.
 *
 * The rules below hold for every header of the C API, which callwire.h includes all of.
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
 * with CW_INVALID_ARGUMENT rather than half applied. An options struct that others share
 * (cw_tls_options) is held by pointer (NULL: its defaults) and checked by its own
 * struct_size, so it grows without moving the fields of the structs that hold it.
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
 * Distinct values are independent. Servers and clients state their own rules in their headers.
 */
#ifndef CALLWIRE_C_COMMON_H
#define CALLWIRE_C_COMMON_H

/** @file callwire/c/common.h
 *  What every part of the C API uses: cw_status, cw_error and cw_free. The rules for
 *  ownership, errors, options structs and threads are in the comment at the top of this header
 *  and in docs/c-api.md. */

#include <stddef.h>
#include <stdint.h>

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

/** Frees memory the library returned as `char**` (encoded documents). NULL: does nothing. */
CALLWIRE_API void cw_free(void* p);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_COMMON_H */
