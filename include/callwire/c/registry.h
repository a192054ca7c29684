/* callwire: the C API's registry without a server: answering documents yourself, CGI.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_REGISTRY_H
#define CALLWIRE_C_REGISTRY_H

/** @file callwire/c/registry.h
 *  cw_registry: methods to answer XML-RPC and JSON-RPC documents with, without a server (a
 *  web server or framework of your own, CGI, a message queue). */

#include <stddef.h>
#include <stdint.h>

#include "callwire/c/common.h"
#include "callwire/c/handler.h"
#include "callwire/c/json.h"
#include "callwire/c/xml.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a registry without a server: answering documents yourself, CGI ---- */

/** Methods to answer XML-RPC documents with, without a server (xmlrpc-c's
 *  xmlrpc_registry_process_call): for a web server or framework of your own, a CGI program
 *  (cw_serve_cgi), a message queue. Opaque. */
typedef struct cw_registry cw_registry;

/** What a registry is told. Zero means the default (see "Options structs" in
 *  callwire/c/common.h). */
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_REGISTRY_H */
