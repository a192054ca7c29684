/* callwire: the C API's wire trace: each message as it crosses the wire.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_TRACE_H
#define CALLWIRE_C_TRACE_H

/** @file callwire/c/trace.h
 *  cw_trace_event and cw_trace_fn: the wire trace servers and clients report to. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_TRACE_H */
