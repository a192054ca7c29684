/* callwire: the C API's server: listeners, options, methods, lifecycle, statistics.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_SERVER_H
#define CALLWIRE_C_SERVER_H

/** @file callwire/c/server.h
 *  cw_server: an XML-RPC and JSON-RPC server over HTTP, HTTPS, SCGI, the packet stream or
 *  JSON lines; its options, methods, start and stop, host-loop integration, statistics and
 *  adopted connections. Handlers are in callwire/c/handler.h. */

#include <stddef.h>
#include <stdint.h>

#include "callwire/c/common.h"
#include "callwire/c/framing.h"
#include "callwire/c/handler.h"
#include "callwire/c/json.h"
#include "callwire/c/tls.h"
#include "callwire/c/trace.h"
#include "callwire/c/xml.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- server ---- */

/** An XML-RPC over HTTP/1.1 server (HTTP, HTTPS, or a Unix socket). Opaque. */
typedef struct cw_server cw_server;

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

/** Receives each connection the server drops without an answer, today a failed TLS handshake
 *  (an untrusted or expired client certificate, no shared version or cipher): `peer` as in
 *  the access log, `message` the reason ("TLS handshake failed: ... (certificate has
 *  expired)"), both NUL-terminated, valid for the call only, and escaped as the access log's
 *  texts are (the message keeps its spaces): printable ASCII only, one line. Runs on the
 *  server's threads, possibly several at once: it must be thread-safe. */
typedef void (*cw_error_log_fn)(const char* peer, const char* message, void* user_data);

/** Everything a server can be told. Zero means the default (see "Options structs" in
 *  callwire/c/common.h). */
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
  /** TLS (callwire/c/tls.h): with its cert_file and key_file, TCP listeners speak HTTPS;
   *  with its ca_file or ca_dir too, mutual TLS. NULL: no TLS. Borrowed: cw_server_new
   *  copies it; its bad struct_size is CW_INVALID_ARGUMENT there. */
  const cw_tls_options* tls;
  cw_auth_fn authenticate; /**< NULL: no authentication */
  void* authenticate_data; /**< passed to authenticate */
  const char* realm;       /**< in WWW-Authenticate; default "callwire" */
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
  /** Mutual TLS (tls->ca_file or tls->ca_dir set): non-zero serves clients without a
   *  certificate too (cw_call_tls_subject gives "" for them); one that shows a certificate
   *  that does not verify is still refused. */
  int client_cert_optional;
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

/** Sets the pre-invoke hook (NULL removes it). Before cw_server_start. CW_OK;
 *  CW_INVALID_ARGUMENT (NULL server, already started). */
CALLWIRE_API cw_status cw_server_set_preinvoke(cw_server* server, cw_preinvoke_fn fn,
                                               void* user_data, cw_error* error);

/** Opens the listeners (so cw_server_port is known on return) and starts the server's
 *  threads; returns at once. CW_OK; CW_INVALID_ARGUMENT (NULL, already started, a `listen`
 *  it cannot use, an address in use, a certificate without a key, a tls->min_version,
 *  tls->ciphers or tls->ciphersuites it cannot use: `error` says which); CW_TLS_ERROR (an
 *  unreadable certificate, key, CA file or directory, a wrong tls->key_password, or a key
 *  that does not match); CW_NO_MEMORY. Nothing is left running after an error.
 *  Thread-safety: the owner's thread. */
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_SERVER_H */
