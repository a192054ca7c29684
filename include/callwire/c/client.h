/* callwire: the C API's client: synchronous and asynchronous calls.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_CLIENT_H
#define CALLWIRE_C_CLIENT_H

/** @file callwire/c/client.h
 *  cw_client: calls to one server or a group, synchronous and asynchronous, multicalls and
 *  batches, per-call options, cancellation, HTTP answer heads, host-loop integration. */

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "callwire/c/common.h"
#include "callwire/c/described.h"
#include "callwire/c/framing.h"
#include "callwire/c/json.h"
#include "callwire/c/tls.h"
#include "callwire/c/trace.h"
#include "callwire/c/value.h"
#include "callwire/c/xml.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- client ---- */

/** An XML-RPC client for one server URL. Opaque. Thread-safe: any number of threads may call
 *  through one client at once; kept-alive connections are shared through a pool. */
typedef struct cw_client cw_client;

/** One extra HTTP header field; both strings NUL-terminated. */
typedef struct cw_header {
  const char* name;
  const char* value;
} cw_header;

/** Everything a client can be told. Zero means the default (see "Options structs" in
 *  callwire/c/common.h). */
/** A server's JSON-RPC notification over WebSocket (cw_client_options::on_notification):
 *  `method` (NUL-terminated) and `params`, borrowed for the call. */
typedef void (*cw_notification_fn)(const char* method, const cw_value* params, void* user_data);

typedef struct cw_client_options {
  size_t struct_size;
  uint32_t timeout_ms; /**< deadline of each call (connect, send, receive); default 30000 */
  const char* user;    /**< HTTP Basic credentials (also taken from the URL) */
  const char* password;
  int insecure_skip_verify; /**< non-zero: https without checking the server's certificate
                                 (open to interception; for tests only) */
  /** TLS for https:// (callwire/c/tls.h): its ca_file and ca_dir, the CAs the server's
   *  certificate must lead to (default the system's store); its cert_file and key_file, the
   *  certificate shown to servers that ask (mutual TLS). NULL: the defaults. Borrowed: the
   *  call given these options copies it; its bad struct_size is CW_INVALID_ARGUMENT there. */
  const cw_tls_options* tls;
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
  /** WebSocket with JSON-RPC ("jsonrpc+ws://", "jsonrpc+wss://", "jsonrpc+ws+unix:") only:
   *  called with each notification the server sends (cw_notifier_send on its side), its method
   *  and its params (an array or a struct; borrowed for the call). They come in the order sent.
   *  It runs on the calling thread while a call waits on that connection, on the I/O thread
   *  for asynchronous calls, and on a thread the client starts to watch its idle connections
   *  (so events come without a call being made; with host_loop none is started, and they
   *  come at the next call); cw_client_free waits for one in progress. It
   *  must not block for long, may make calls on this client, and must not free it. NULL:
   *  notifications are dropped. With another URL: CW_INVALID_ARGUMENT from cw_client_new. */
  cw_notification_fn on_notification;
  void* notification_data; /**< passed to on_notification */
} cw_client_options;

/** Sets `options` to the defaults: zeroes it and sets struct_size. NULL: does nothing. */
CALLWIRE_API void cw_client_options_init(cw_client_options* options);

/** Makes a client for `url`: "http://[user:password@]host:port/path", "https://...",
 *  "unix:/path/to/socket", SCGI (rtorrent's protocol) "scgi://host:port[/path]" and
 *  "scgi+unix:/path/to/socket", xmlrpc-c's packet stream "pstream://host:port" and
 *  "pstream+unix:/path/to/socket", or JSON-RPC 2.0 over HTTP "jsonrpc+http://...",
 *  "jsonrpc+https://..." and "jsonrpc+unix:/path", or newline-delimited JSON-RPC
 *  "jsonl://host:port" and "jsonl+unix:/path" (docs/json-rpc.md), or WebSocket "ws://...",
 *  "wss://...", "ws+unix:/path", and JSON-RPC over it "jsonrpc+ws://..." and the like
 *  (docs/websocket.md). Connects lazily, on the first
 * call. `options` NULL: defaults. CW_OK; CW_INVALID_ARGUMENT (NULL, a URL it cannot use, a bad
 * struct_size here or in tls, a tls->min_version, tls->ciphers or tls->ciphersuites it cannot
 * use); CW_TLS_ERROR (an unreadable CA file or directory, client certificate or key, a wrong
 * tls->key_password); CW_NO_MEMORY. */
CALLWIRE_API cw_status cw_client_new(const char* url, const cw_client_options* options,
                                     cw_client** out, cw_error* error);

/** How a client over several servers (cw_client_new_group) spreads and retries its calls.
 *  Zero means the default (see "Options structs" in callwire/c/common.h). */
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

#endif /* CALLWIRE_C_CLIENT_H */
