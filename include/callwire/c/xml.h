/* callwire: the C API's XML-RPC codec: documents to values and back.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_XML_H
#define CALLWIRE_C_XML_H

/** @file callwire/c/xml.h
 *  XML-RPC documents for a transport of the caller's own (calls, responses, faults), the
 *  dialect of i8 and nil, and the reader's limits that servers and clients take. */

#include <stddef.h>
#include <stdint.h>

#include "callwire/c/common.h"
#include "callwire/c/value.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/** How i8 and nil are written in answers. */
typedef enum cw_dialect {
  CW_DIALECT_AUTO = 0,  /**< server: the dialect the request used; client: as CW_DIALECT_I8 */
  CW_DIALECT_I8 = 1,    /**< `<i8>`, `<nil/>` */
  CW_DIALECT_APACHE = 2 /**< `<ex:i8>`, `<ex:nil/>` with the namespace declared */
} cw_dialect;

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_XML_H */
