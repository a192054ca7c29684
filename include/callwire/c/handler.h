/* callwire: the C API's handlers: a call being served, its parameters and answer.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_HANDLER_H
#define CALLWIRE_C_HANDLER_H

/** @file callwire/c/handler.h
 *  cw_call and cw_method_fn: what a method's handler sees (method, peer, user, header fields,
 *  deadline, parameters) and how it answers (a result or a fault), for servers and registries
 *  alike; cw_preinvoke_fn, the hook run before every call. */

#include <stddef.h>
#include <stdint.h>

#include "callwire/c/common.h"
#include "callwire/c/described.h"
#include "callwire/c/value.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One call being served, as its handler sees it. Opaque; valid only during the handler's
 *  run, on the thread running it. */
typedef struct cw_call cw_call;

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

/** A hook run before every call, each system.multicall entry and calls to unknown methods
 *  too (xmlrpc-c's set_preinvoke_method): authorisation by method, logging, rate limits. It
 *  gets the call as a handler does (cw_call_method, _peer, _user, _header, _param_*) and
 *  returns CW_OK to let it run, or refuses it with `return cw_call_fault(call, code, text);`
 *  (any other status refuses it with -32603). It runs before the deadline and signature
 *  checks; cw_call_return_* have no effect in it. Thread-safety as a method's. */
typedef cw_status (*cw_preinvoke_fn)(cw_call* call, void* user_data);

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

/* ---- notifications to the caller (WebSocket) ---- */

/** Sends JSON-RPC notifications to a call's peer, from any thread, for as long as its
 *  connection lives (subscriptions, progress, events): only a WebSocket connection carrying
 *  JSON-RPC can carry them (docs/websocket.md). Owned by whoever got it; free it with
 *  cw_notifier_free. Thread-safe: every function from any thread; it may outlive the call,
 *  the connection and the server (it then only fails). */
typedef struct cw_notifier cw_notifier;

/** A notifier for the call's peer, or NULL when its connection carries no notifications (not
 *  WebSocket, or XML-RPC) or out of memory. Unlike the other cw_call functions, what it
 *  returns outlives the handler. */
CALLWIRE_API cw_notifier* cw_call_notifier(cw_call* call);
/** Queues `{"jsonrpc":"2.0","method":METHOD,"params":PARAMS}` for the peer; `params` (an array
 *  or a struct; borrowed) may be NULL for no parameters ([]). A notification sent from a
 *  handler that runs on the event loop goes out after that handler's answer. CW_OK,
 *  CW_INVALID_ARGUMENT (NULL notifier or method, params neither array nor struct),
 *  CW_UNREPRESENTABLE (a value JSON cannot carry), CW_CONNECTION_CLOSED (the connection has
 *  closed), CW_LIMIT_EXCEEDED (max_pending_output bytes wait for a peer that does not read:
 *  this one is dropped, the connection stays), CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_notifier_send(const cw_notifier* notifier, const char* method,
                                        const cw_value* params, cw_error* error);
/** 1 while the notifier's connection is open, else 0 (NULL too). */
CALLWIRE_API int cw_notifier_connected(const cw_notifier* notifier);
/** Frees a notifier (NULL: nothing); the connection is not affected. */
CALLWIRE_API void cw_notifier_free(cw_notifier* notifier);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_HANDLER_H */
