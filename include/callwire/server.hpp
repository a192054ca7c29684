// callwire: the embedded XML-RPC over HTTP/1.1 server.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "callwire/dispatch.hpp"
#include "callwire/error.hpp"
#include "callwire/export.hpp"
#include "callwire/registry.hpp"
#include "callwire/tls.hpp"
#include "callwire/trace.hpp"
#include "callwire/xml.hpp"

namespace callwire {

/// One answered HTTP request, for the access-log hook. Views live for the hook's call only.
///
/// The texts a peer chooses (`peer`, which SCGI's REMOTE_ADDR or a trusted proxy's
/// X-Forwarded-For may name; `user`; `method`) come escaped, ready to print: every byte but
/// printable ASCII, and the space, `"` and `\`, is written `\xHH` (two upper-case hex
/// digits), as nginx writes its log variables. So a field is one word with no line break,
/// control character (ESC), C1 control or non-ASCII byte in it: a peer cannot forge a log line
/// or drive the terminal that shows one. A method "a\nb" arrives as `a\x0Ab`, "métodø" as
/// `m\xC3\xA9tod\xC3\xB8`; the usual names, addresses and users arrive unchanged.
struct AccessLogEntry {
  std::string_view peer;    ///< "127.0.0.1:40312", "[::1]:40312", "unix" (escaped)
  std::string_view user;    ///< the authenticated user, or empty (escaped)
  std::string_view method;  ///< the method called (escaped), empty when the request never got
                            ///< that far
  int http_status = 200;
  int32_t fault_code = 0;                      ///< 0 unless the answer was a fault
  size_t request_bytes = 0;                    ///< the body as received
  size_t response_bytes = 0;                   ///< the body as sent
  std::chrono::nanoseconds duration{0};        ///< from the complete request to the queued answer
                                               ///< (0 for an answer to no whole request: a 408)
  std::chrono::system_clock::time_point time;  ///< when the answer was queued
};

/// A connection the server dropped without an answer, for the error-log hook. Views live for
/// the hook's call only. Both escaped as AccessLogEntry's texts are, except that `message`
/// keeps its spaces: printable ASCII only, one line.
struct ErrorLogEntry {
  std::string_view peer;     ///< as in AccessLogEntry
  std::string_view message;  ///< "TLS handshake: error:0A000086:SSL routines::certificate
                             ///< verify failed (certificate has expired)"
};

/// WebSocket (RFC 6455) on a server's "ws://HOST:PORT" listeners (wss:// with TLS): they
/// serve HTTP as any other, and a GET with "Upgrade: websocket" on a served path turns its
/// connection into WebSocket messages, each a call answered by a message (none for JSON-RPC
/// notifications). The subprotocol says which: "jsonrpc" (or none offered) JSON-RPC 2.0,
/// "xmlrpc" XML-RPC. The handshake is checked as any HTTP request (path, credentials).
struct WebSocketOptions {
  /// The origins a browser page may open a WebSocket from, exactly as its Origin field says
  /// them ("https://app.example.org"), or "*" for any. Browsers ask no CORS preflight before a
  /// WebSocket: without this check, any page its user visits could call the server. A
  /// handshake without Origin (not from a browser) is taken; one from another origin gets 403.
  /// Empty (the default): no browser page may.
  std::vector<std::string> allowed_origins;
  /// The largest message taken, its fragments together (a larger one closes the connection
  /// with 1009, said as soon as its header arrives); 0 (the default): max_body.
  size_t max_message = 0;
  /// An idle WebSocket connection (no frame from the peer) is pinged after this long, and
  /// closed when nothing has come back within as long again: so it stays open while its peer
  /// lives however long it waits for notifications, and a vanished peer is noticed. 0: never
  /// pinged; idle_timeout closes it as an HTTP connection.
  std::chrono::milliseconds ping_interval{30000};
};

/// Everything a server can be told. Chainable setters are not needed: it is a plain struct.
struct ServerOptions {
  /// Where to listen: "HOST:PORT" (an IPv4 address or name), "[IPV6]:PORT", ":PORT" (every
  /// IPv4 interface), or "unix:PATH". Port 0 picks a free port; read it back with port().
  /// "scgi://HOST:PORT" and "scgi+unix:PATH" speak SCGI instead of HTTP, for a web server in
  /// front (nginx's scgi_pass; docs/http.md). "pstream://HOST:PORT" and "pstream+unix:PATH"
  /// speak xmlrpc-c's packet stream: XML-RPC without HTTP, one long-lived connection, calls
  /// answered in order (docs/pstream.md); max_body caps a packet, and a server with
  /// `authenticate` refuses to start with one (a packet carries no credentials).
  /// "jsonl://HOST:PORT" and "jsonl+unix:PATH" speak newline-delimited JSON-RPC: each line a
  /// request document, each answer a line (none for notifications only); max_body caps a
  /// line; no credentials either (docs/json-rpc.md).
  /// Sockets opened by someone else (docs/deploying.md), served over HTTP (HTTPS on TCP with
  /// a certificate): "systemd:" every listening socket systemd passed (socket activation:
  /// LISTEN_FDS from descriptor 3 on, when LISTEN_PID is this process; start() unsets the
  /// three LISTEN_* variables once it has read them, as sd_listen_fds(1) does),
  /// "systemd:NAME" those named NAME (FileDescriptorName= in the .socket unit), "fd:N" the
  /// listening socket on descriptor N. Each must be a listening TCP or Unix stream socket
  /// (start() says InvalidArgument otherwise, or when systemd passed none); the server owns
  /// it from start() on and closes it when it stops, but never unlinks its path. Sockets
  /// systemd passed that no "systemd:NAME" took stay open, close-on-exec.
  std::vector<std::string> listen = {"127.0.0.1:8080"};
  /// SO_REUSEPORT on the TCP listeners: several servers (processes, or Server objects of one
  /// process) of the same user listen on one address and port, and the kernel spreads new
  /// connections over them (docs/deploying.md). Each must set it; without it a second server
  /// on a port in use fails start() with InvalidArgument ("address already in use"). A
  /// listener that stops (a process that exits) drops the connections still queued on it.
  /// Unix and inherited listeners are not affected.
  bool reuse_port = false;
  /// Request paths served; any other gets 404. A query string is ignored.
  std::vector<std::string> paths = {"/RPC2", "/"};

  /// Event-loop threads; 0 means one per core.
  unsigned threads = 0;
  /// 0: handlers run on the event loops (fastest). N > 0: handlers run on a pool of N threads,
  /// so a slow handler never stalls the other connections of its loop.
  unsigned handler_threads = 0;
  /// Event-loop integration for hosts that may not have threads started in them (Kamailio,
  /// OpenSIPS, GUI toolkits, libevent/libuv/GLib programs): start() opens the listeners and
  /// starts no thread; the host's loop watches Server::loop_fd() for reading with
  /// Server::loop_timeout() and calls Server::process(), inside which the handlers run.
  /// `threads` must be 0 or 1 and `handler_threads` 0 (start() says InvalidArgument
  /// otherwise). See docs/event-loop.md.
  bool host_loop = false;

  /// Open connections; a connection beyond it is answered 503 and closed at once, never one
  /// already served. Over TLS the 503 needs a handshake first: a few such refusals at a time
  /// (8 per event loop, each given at most 3 s) get one; beyond them newcomers are just closed.
  size_t max_connections = 10000;
  /// From a request's first byte to its last (a slowloris cannot hold a slot longer), even
  /// when the framing consumes the request as it comes (a packet with escapes). A connection
  /// that never completes a request has this long from its start to do so: a TLS handshake
  /// that stalls, or bytes that carry no request (packet-stream NOPs, blank JSON lines).
  std::chrono::milliseconds request_timeout{30000};
  /// A keep-alive connection is closed this long after its last whole request. Bytes that
  /// carry no request (NOPs, blank lines) do not make it less idle.
  std::chrono::milliseconds idle_timeout{60000};
  /// HTTP requests one keep-alive connection may carry (xmlrpc-c's keepalive_max_conn,
  /// nginx's keepalive_requests): the answer to the last says `Connection: close` and the
  /// connection closes once it is sent (pipelined requests behind it are not read). Spreads a
  /// long-lived client over the processes behind a balancer. 0 (the default): no cap.
  /// Packet-stream and JSON-lines connections are not capped (their peers keep one
  /// connection); SCGI carries one request a connection anyway.
  size_t max_requests_per_connection = 0;
  /// CORS, so that pages from other origins may call from a browser (xmlrpc-c's
  /// allow_origin): the value of Access-Control-Allow-Origin on every HTTP answer ("*", or
  /// one origin such as "https://app.example.com"). An OPTIONS preflight on a served path is
  /// then answered 200 with Access-Control-Allow-Methods: POST and the header fields it asks
  /// for allowed. Empty (the default): no CORS, and OPTIONS gets 405. At most 1024 bytes of
  /// a valid field value (start() says InvalidArgument otherwise).
  std::string cors_allow_origin;
  /// With CORS: how long a browser may keep a preflight's answer (Access-Control-Max-Age,
  /// xmlrpc-c's access_ctl_max_age); 0: not sent (browsers then keep it about 5 s).
  std::chrono::seconds cors_max_age{0};
  /// WebSocket on the "ws://HOST:PORT" listeners (and connections handed over as
  /// ConnectionFraming::WebSocket): see WebSocketOptions and docs/websocket.md.
  WebSocketOptions websocket;
  /// The health endpoint, for load balancers and supervisors (docs/deploying.md): a GET of this
  /// path ("/healthz") is answered 200 "ok" while the server serves, and 503 "stopping" from
  /// stop() until it has stopped, so a balancer drains this backend before it exits. It needs
  /// no credentials (it tells nothing but that), counts in no method's statistics, is logged
  /// as any answer, and is HTTP only (not SCGI, nor the other framings); each answer closes
  /// its connection. With it, the listeners keep accepting through stop_grace (while calls
  /// are in flight) so that health checks get the 503 instead of a refused connection: what
  /// arrives then is still served, each answer closing its connection. Empty (the default):
  /// off, GET is 405 as always. Must start with '/' and hold visible ASCII only (start()
  /// says InvalidArgument otherwise); a query string is ignored.
  std::string health_path;
  /// The metrics page, for Prometheus (docs/deploying.md): a GET of this path ("/metrics") is
  /// answered with Server::metrics_text() (calls, faults and latency per method, connections,
  /// bytes). HTTP only, not counted in any method's statistics; each answer closes its
  /// connection. Empty (the default): off. The same rules as health_path for its form.
  std::string metrics_path;
  /// The proxies whose X-Forwarded-For is believed: addresses or ranges ("127.0.0.1",
  /// "10.0.0.0/8", "::1", "fd00::/8"; "unix" for peers on a Unix socket). A request that comes
  /// from one of them is taken to be from the client its X-Forwarded-For names: the rightmost
  /// entry that is not itself a trusted proxy (what lies left of an untrusted hop is the
  /// client's own say). CallContext::peer() and the access log then show that address
  /// (without a port); a field that is missing or holds an entry that is no address leaves
  /// the proxy's. Empty (the default): the field is ignored, as it must be from anyone else.
  /// HTTP only (an SCGI gateway tells the client's address itself). start() says
  /// InvalidArgument for an entry that is no address or range.
  std::vector<std::string> trusted_proxies;
  /// When set, a request for the metrics page must carry exactly this Authorization value
  /// ("Bearer <token>", or "Basic " and base64 of user:password, as a Prometheus scrape
  /// config sends): otherwise 401. The server's `authenticate` does not apply to the page.
  std::string metrics_authorization;
  /// A peer that reads nothing of its answers for this long is dropped (nginx's
  /// send_timeout): each write that sends bytes restarts it, so a slow but steady reader gets
  /// an answer however long it takes.
  std::chrono::milliseconds write_timeout{30000};
  /// Each call's deadline (CallContext::deadline()): the time its request was complete plus
  /// this; 0 (the default): none. A request's `X-Callwire-Timeout: <milliseconds>` header
  /// (1 to 9 decimal digits, sent by clients with ClientOptions::send_timeout) gives a
  /// deadline of its own, honoured also when this is 0; the earlier of the two applies. A
  /// header of another form is ignored. A call whose deadline has passed before its handler
  /// starts is answered with fault -32300 "deadline exceeded"; a running handler is not
  /// interrupted (it may poll CallContext::expired()).
  std::chrono::milliseconds call_timeout{0};
  /// After stop(): how long calls in flight may take before their connections are closed.
  std::chrono::milliseconds stop_grace{10000};

  size_t max_header_bytes = 16 * 1024;  ///< request line and header fields → 431
  size_t max_body = size_t{32} << 20;   ///< request body, before or after gzip → 413
  /// All connections' buffers together: requests being read, a framing's copies, decoded and
  /// inflated bodies, answers not yet sent. Past it, the connection holding the most answers
  /// its peer has not read is closed ("shed", told to error_log, counted in the metrics), one
  /// at a time until it is met, so that a few peers that do not read cannot lock everyone
  /// out. What shedding cannot give back is refused rather than grown for: a connection that
  /// needs a larger buffer for its request gets 503 and is closed, and a newcomer is answered
  /// 503 and closed; connections with buffers enough for their calls keep their service. One
  /// connection's answer may be at most a quarter of this (and never less than
  /// max_pending_output): a larger one is answered 500 instead, and error_log says why. One
  /// answer being built (per thread) may overshoot it. 0 is refused by start().
  size_t max_buffer_memory = size_t{512} << 20;
  /// One connection's answers waiting to be sent: past it, no further pipelined request of
  /// that connection is read or answered until the client reads (a client that never reads
  /// pins at most this plus one answer).
  size_t max_pending_output = size_t{1} << 20;
  /// Depth, elements, string sizes of each call. The document and string limits left at
  /// their defaults follow max_body (ReaderLimits::following): one knob decides how big a
  /// call may be; one set lower stays.
  xml::ReaderLimits reader_limits;
  /// The same for JSON-RPC documents (JsonLimits::following), and the requests in one batch.
  json::JsonLimits json_limits;

  OutputDialect dialect = OutputDialect::Auto;
  bool introspection = true;  ///< system.listMethods, methodSignature, methodHelp, methodExist
  size_t max_multicall_calls = 1000;  ///< calls in one system.multicall
  bool enable_shutdown = false;       ///< system.shutdown stops the server
  /// xmlrpc-c's set_shutdown: what system.shutdown does. Called with the caller's comment ("" when
  /// none) on the server's threads, then answered 0; it decides: Server::stop() stops (safe from
  /// a handler), a thrown FaultError refuses with that fault, anything else (logging, a flag for
  /// the main loop) is the program's. Set, system.shutdown is offered whatever enable_shutdown
  /// says. Guard it with authenticate: whoever can call the server can call it.
  std::function<void(std::string_view comment)> on_shutdown;
  /// Responses at least this large are gzipped (level 1) when the client accepts gzip and it
  /// makes them smaller; 0 (the default, as nginx's) never. Gzip runs at about 100 MB/s where
  /// the rest of a call runs at GB/s: on loopback or a LAN it only makes calls slower. Turn it
  /// on for clients behind slow links.
  size_t gzip_min_size = 0;

  /// When set, every request needs HTTP Basic credentials this accepts (else 401). Called on
  /// the server's threads, possibly at once: it must be thread-safe. Compare secrets with
  /// constant_time_equal, never ==: an early exit tells a guesser how much of a guess was right.
  std::function<bool(std::string_view user, std::string_view password)> authenticate;
  std::string realm = "callwire";

  /// TLS (callwire/tls.hpp): with tls.cert_file and tls.key_file set, TCP listeners speak
  /// HTTPS (wss:// for WebSocket) with them, TLS 1.2 or later; tls.ca_file or tls.ca_dir
  /// makes it mutual TLS. start() and reload_tls() read the files.
  TlsOptions tls;
  /// Mutual TLS (tls.ca_file or tls.ca_dir set): clients without a certificate are served
  /// too (CallContext::tls_subject() empty); one that shows a certificate that does not
  /// verify is still refused.
  bool client_cert_optional = false;

  /// Called when the server drops a connection for a reason it cannot answer with an HTTP
  /// status, today a failed TLS handshake: an untrusted or expired client certificate, no
  /// shared protocol version or cipher, bytes that are not TLS. On the server's threads
  /// (must be thread-safe). Empty: such connections are closed without a word.
  std::function<void(const ErrorLogEntry&)> error_log;

  /// Called after every answered request, on the server's threads (must be thread-safe).
  std::function<void(const AccessLogEntry&)> access_log;

  /// A wire trace: called with each request received and each answer sent (error answers
  /// too), head and body (callwire/trace.hpp), on the server's threads (must be
  /// thread-safe). Empty: CALLWIRE_TRACE decides (off unless set).
  TraceHook trace;
};

/// An XML-RPC server: register methods, start, stop.
///
/// Ownership: owns its registry, threads and sockets. Thread-safety: stop() from any thread
/// or a signal handler; method_stats() and the accessors from any thread once started; the
/// rest from the owner's thread. The destructor stops the server and waits for it.
/// True when `given` and `expected` hold the same bytes, in a time that depends on their lengths
/// only, never on where they first differ: for checking passwords and tokens in
/// ServerOptions::authenticate. Thread-safe; never throws.
CALLWIRE_API bool constant_time_equal(std::string_view given, std::string_view expected) noexcept;

class CALLWIRE_API Server {
 public:
  explicit Server(ServerOptions options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The methods served; add them before start().
  Registry& registry() noexcept;
  /// registry().add(...).
  Status add_method(std::string name, Handler handler, MethodInfo info = {});
  /// registry().bind(...): a typed method, its signature deduced from `callable`
  /// (Registry::bind), e.g. `server.bind("sample.add", [](int a, int b) { return a + b; })`.
  template <class F>
  Status bind(std::string name, F&& callable, std::string help = {}) {
    return registry().bind(std::move(name), std::forward<F>(callable), std::move(help));
  }
  /// The same with the parameters' names, for callers that name them (JSON-RPC):
  /// `server.bind("add", {"a", "b"}, [](int a, int b) { return a + b; })`.
  template <class F>
  Status bind(std::string name, std::vector<std::string> parameter_names, F&& callable,
              std::string help = {}) {
    return registry().bind(std::move(name), std::move(parameter_names), std::forward<F>(callable),
                           std::move(help));
  }

  /// Opens the listeners (so the ports are known on return) and starts the threads.
  /// Errors: InvalidArgument (a bad listen address, address in use, bad options: among them a
  /// tls.min_version, tls.ciphers or tls.ciphersuites it cannot use), TlsError (an unreadable
  /// certificate, key, CA file or directory, a wrong tls.key_password); nothing is left running
  /// after an error.
  Status start();
  /// Reads the TLS certificate, key and client CAs again from their files (tls.cert_file,
  /// tls.key_file, tls.ca_file, tls.ca_dir), for a renewed certificate without a
  /// restart: connections accepted from now on use them, connections already open keep
  /// theirs. Errors (nothing changes then): InvalidArgument for a server without TLS; what
  /// start() reports for unreadable or mismatched files. Thread-safe, from any thread once
  /// started (not from a signal handler: `callwire serve` does it on SIGHUP from a thread).
  Status reload_tls();

  /// Waits until the server has stopped (after stop() or system.shutdown). With host_loop
  /// it drives the server itself (poll() and process() until process() returns false).
  void wait();
  /// start() then wait().
  Status run();
  /// Stops: no new connections, calls in flight finish (up to stop_grace), then every thread
  /// ends. Async-signal-safe; any thread; idempotent.
  void stop() noexcept;

  /// The bound port of listener `index` (in options.listen order, a "systemd:" address
  /// counting once for each socket it took); 0 for a Unix socket.
  uint16_t port(size_t index = 0) const;
  /// The URL of listener `index`: "http://127.0.0.1:40312/RPC2", "https://...",
  /// "unix:/path" for a Unix socket, "scgi://..." or "scgi+unix:/path" for SCGI,
  /// "pstream://HOST:PORT" or "pstream+unix:/path" for the packet stream, "jsonl://..." or
  /// "jsonl+unix:/path" for JSON lines.
  std::string url(size_t index = 0) const;
  /// Serves `fd`, a connected stream socket (TCP or Unix: from socketpair(), your own
  /// accept(), a parent process), as one more connection of the running server: one of its
  /// event loops answers the requests on it in `framing`, with the options' limits and
  /// timeouts, until the peer closes, a timeout or refusal closes it, or the server stops.
  /// HTTP over TCP speaks TLS when the server has a certificate, as its TCP listeners do.
  /// Returns once the socket is handed over (xmlrpc-c's serverPstreamConn, without a thread
  /// per connection).
  /// Ownership: `fd` passes to the server in every case: on an error it is closed. It is made
  /// non-blocking. Thread-safety: any thread (handlers too) once start() has succeeded.
  /// Errors: InvalidArgument (fd < 0 or not a connected stream socket; the server not started;
  /// a packet stream with `authenticate` set), LimitExceeded (max_connections open already),
  /// Stopped (the server is stopping), NoMemory.
  Status adopt_connection(int fd, ConnectionFraming framing);
  /// The one-shot form, for a program started by inetd, systemd's Accept=yes sockets or
  /// xmlrpc-c's socketexec with its connection as standard input: instead of start(), serves
  /// `fd` alone (no listener is opened; options.listen is not used) on the calling thread with
  /// one event loop (options.threads is not used; handler_threads is) until the connection
  /// closes as above, or stop(), then returns. The server is spent afterwards, as after run().
  /// Ownership: as adopt_connection. Thread-safety: the owner's thread; stop() from any.
  /// Errors: InvalidArgument (as adopt_connection; the server already started or served; bad
  /// options as start() checks them), TlsError, NoMemory. A connection that ends in a protocol
  /// error or a timeout is no error of this call: it returns OK once it has closed.
  Status serve_connection(int fd, ConnectionFraming framing);

  // ---- Event-loop integration (ServerOptions::host_loop), after start(). The host watches
  // one descriptor for reading, with a timeout, and calls process() when it is readable or
  // the timeout has passed. To stop: stop() (from anywhere, a handler too), then process()
  // as before until it returns false: calls in flight finish (up to stop_grace) and the
  // connections close. Thread-safety: process() and loop_timeout() from one thread at a time,
  // the host's; loop_fd() and stop() from any.

  /// The descriptor to watch for reading (never to read, close or change), the same from
  /// start() on; -1 without host_loop or before start().
  int loop_fd() const noexcept;
  /// How long the host may wait for loop_fd() before calling process() anyway (the sweep of
  /// the connections' timeouts, every 100 ms while any is open; 0 when there is work to do
  /// now); -1 while no connection is open (wait for the descriptor alone), once process() has
  /// returned false, and without host_loop or before start().
  std::chrono::milliseconds loop_timeout();
  /// Runs what is ready without blocking: accepts, reads, handlers, writes, timeouts. True
  /// while the server runs; false once it has stopped and every connection has closed (and
  /// without host_loop or before start()), from then on. Not from inside a handler or hook
  /// of this server (it is not re-entrant); with host_loop, wait() and the destructor are the
  /// host's thread's too (they call it).
  bool process();

  /// Calls, faults and time per method, summed over every thread.
  std::vector<MethodStats> method_stats() const;
  /// The server's numbers in Prometheus' text format (version 0.0.4), as the metrics path
  /// (ServerOptions::metrics_path) answers them: per method callwire_calls_total,
  /// callwire_faults_total and the callwire_call_duration_seconds histogram (100 µs to 10 s);
  /// callwire_connections_open, callwire_received_bytes_total, callwire_sent_bytes_total and
  /// callwire_stopping. For a scrape endpoint of the program's own. Thread-safe; empty
  /// metrics before start().
  std::string metrics_text() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace callwire
