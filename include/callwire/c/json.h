/* callwire: the C API's JSON-RPC 2.0 codec: documents to values and back.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_JSON_H
#define CALLWIRE_C_JSON_H

/** @file callwire/c/json.h
 *  JSON-RPC 2.0 documents for a transport of the caller's own (requests, results, errors),
 *  and the reader's limits that servers and clients take. */

#include <stddef.h>
#include <stdint.h>

#include "callwire/c/common.h"
#include "callwire/c/value.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_JSON_H */
