// callwire: the XML-RPC and JSON-RPC 2.0 client.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/error.hpp"
#include "callwire/export.hpp"
#include "callwire/json.hpp"
#include "callwire/message.hpp"
#include "callwire/struct.hpp"
#include "callwire/tls.hpp"
#include "callwire/trace.hpp"
#include "callwire/value.hpp"
#include "callwire/xml.hpp"

namespace callwire {

/// What ClientOptions::on_notification is given: a server's JSON-RPC notification over
/// WebSocket, its method name and params (borrowed for the call).
using NotificationHandler = std::function<void(std::string_view method, const Value& params)>;

/// Everything a client can be told. A plain struct.
struct ClientOptions {
  /// Deadline of a call (looking the name up, connecting, sending and receiving) unless the
  /// call gives its own. A name is looked up on a thread of its own (getaddrinfo cannot be
  /// interrupted): neither the caller nor the I/O thread waits for it past the deadline. It is
  /// the time the whole call may take, not a pause between two bytes: a server that keeps
  /// sending a little at a time (a trickled head or body, NOPs) does not hold a call past it.
  std::chrono::milliseconds timeout{30000};
  /// HTTP Basic credentials; sent with every call when `user` is not empty. Credentials in
  /// the URL ("http://user:password@host/") are used when these are empty.
  std::string user;
  std::string password;
  /// The whole Authorization value sent with every call, for any scheme
  /// (`"Bearer eyJhbGciOi..."`); empty: none, or Basic from `user` (giving both is
  /// InvalidArgument). HTTP and SCGI; refused for a packet stream.
  std::string authorization;
  /// The User-Agent sent with every call (SCGI: HTTP_USER_AGENT); empty: "callwire/VERSION".
  /// Some servers choose their dialect by it. Refused for a packet stream.
  std::string user_agent;
  /// An HTTP proxy for http:// and https:// calls (jsonrpc+ ones too):
  /// "http://[user:password@]host[:port]" (port 1080 when none is given, as curl; user and
  /// password percent-decoded, sent to the proxy as Proxy-Authorization: Basic). http:// calls
  /// go to the proxy with the absolute-form target ("POST http://server:port/RPC2"), Host the
  /// server's; https:// calls first open a tunnel with "CONNECT server:port", then TLS with the
  /// server itself (SNI and the certificate check name the server, not the proxy), and the
  /// proxy's credentials never enter the tunnel. Only the proxy's name is resolved. Keep-alive
  /// and the stale-connection resend work as without a proxy (a tunnel is one connection).
  /// Empty: none (see proxy_from_environment). create() refuses (InvalidArgument) another
  /// scheme (https://, socks5://), a proxy URL with a path, and any proxy for a Unix-socket,
  /// SCGI or packet-stream URL, or a client made by adopt().
  ///
  /// Errors a call may return through a proxy: ConnectFailed "proxy host:port: ..." when the
  /// proxy cannot be resolved or reached; HttpStatus with the proxy's status in http_status
  /// ("proxy host:port: refused CONNECT server:port: HTTP 407 Proxy Authentication
  /// Required") when it refuses a CONNECT, and a 407 to an http:// call names the proxy the
  /// same way; ConnectionClosed when it closes the connection during the CONNECT; BadResponse
  /// for an answer to CONNECT that is not HTTP.
  std::string proxy;
  /// When `proxy` is empty: take the proxy from the environment, as curl does, read once by
  /// create(): `http_proxy` for http:// (lower case only: an upper-case HTTP_PROXY is ignored,
  /// since CGI programs get a request's `Proxy:` header as HTTP_PROXY, "httpoxy"),
  /// `https_proxy` or `HTTPS_PROXY` for https:// (the lower-case one first), a value without
  /// "http://" taken as one; then `no_proxy` or `NO_PROXY` exempts hosts: a list (commas or
  /// spaces) of names and domain suffixes (leading dot optional: "example.com" covers
  /// www.example.com), IP literals, CIDR ranges ("10.0.0.0/8"), or "*" for all. ALL_PROXY is
  /// not read. Unix-socket, SCGI and packet-stream URLs ignore the environment. A malformed
  /// proxy variable is InvalidArgument at create(), naming the variable. Off by default: a
  /// library does not follow its process's environment unless asked to.
  bool proxy_from_environment = false;
  /// https: check the server's certificate chain and name (on by default; turning it off is
  /// explicit and makes the connection open to interception). The name is the URL's host: a
  /// DNS name is checked against the certificate's DNS names (a mismatch is TlsError naming
  /// it), an IP literal against its IP addresses. A DNS name is sent as SNI either way; an IP
  /// literal never is (RFC 6066).
  bool verify_peer = true;
  /// TLS for https:// (callwire/tls.hpp): tls.ca_file and tls.ca_dir are the CAs
  /// the server's certificate must lead to (both empty: the system's store); tls.cert_file
  /// and tls.key_file, the certificate shown to servers that ask for one (mutual TLS).
  /// create() reads the files (TlsError for an unreadable file or directory, a wrong
  /// tls.key_password, a key that does not match; InvalidArgument for a tls.min_version,
  /// tls.ciphers or tls.ciphersuites it cannot use). Ignored by other URLs.
  TlsOptions tls;
  /// A response body larger than this (before or after gzip) is refused: Errc::LimitExceeded.
  /// What the framing adds is bounded too: an HTTP head by the reader's 16 KiB, chunked
  /// framing by twice this, and what a packet stream has consumed (NOPs) is dropped as read.
  size_t max_response_size = size_t{32} << 20;
  /// The document and string limits left at their defaults follow max_response_size
  /// (ReaderLimits::following): one knob decides how big an answer may be; one set lower stays.
  xml::ReaderLimits reader_limits;
  /// Ask for gzip responses (off by default: inflating costs more than it saves on loopback
  /// and LANs, and servers such as Python's gzip every answer over 1400 bytes when asked).
  bool accept_gzip = false;
  /// Gzip request bodies at least this large (the server must accept gzip); 0: never.
  size_t gzip_request_min_size = 0;
  /// The protocol spoken: XML-RPC (text/xml), or JSON-RPC 2.0 (application/json: each call
  /// `{"jsonrpc":"2.0","method":…,"params":[…],"id":N}` with N from a per-client counter). A
  /// `jsonrpc+http://`, `jsonrpc+https://` or `jsonrpc+unix:` URL sets JsonRpc whatever this
  /// says. JSON-RPC travels over HTTP and SCGI (CONTENT_TYPE says which); create refuses it
  /// for a packet stream (InvalidArgument).
  Protocol protocol = Protocol::XmlRpc;
  /// Limits on a JSON-RPC response (as on the requests a server reads); they follow
  /// max_response_size as reader_limits do.
  json::JsonLimits json_limits;
  /// How i8 and nil are written in calls; Apache for Apache XML-RPC servers.
  xml::Dialect dialect = xml::Dialect::I8;
  /// Connections kept open between calls, and open at once for asynchronous calls.
  size_t max_connections = 8;
  /// Packet stream (pstream://, pstream+unix:) only: how many asynchronous calls may await
  /// their answers on one connection at once. 1, the default: one at a time, as xmlrpc-c's
  /// client. More: each async_call's request is written as soon as it is made, behind those
  /// still waiting, and the answers, which a packet-stream server sends in the order of the
  /// requests, go to their callers in that order. A call takes an idle connection, else a new
  /// one while there are fewer than max_connections, else the least busy one with room, else
  /// waits for room (within its deadline). A call that times out leaves its place in the line
  /// (its answer is dropped when it comes); a connection on which nobody waits any more is
  /// closed. Synchronous calls are not pipelined. Against a server that serves one connection
  /// at a time (xmlrpc-c's serverPstreamConn), set max_connections to 1. create refuses a
  /// depth above 1 for HTTP and SCGI (InvalidArgument): servers and proxies differ on HTTP
  /// pipelining, and answers would stall behind each other.
  size_t pipeline_depth = 1;
  /// The HTTP path for a Unix-socket URL ("unix:/run/app.sock"), which has none of its own.
  std::string unix_path = "/RPC2";
  /// Extra header fields sent with every call.
  std::vector<std::pair<std::string, std::string>> headers;
  /// Tell the server how long this client will wait: each request carries
  /// `X-Callwire-Timeout: <milliseconds>`, the time left of the call's deadline (its
  /// CallOptions::timeout, else `timeout`) when the request is built, at most 999999999. A
  /// callwire server then gives the call that deadline (CallContext::deadline(), the earlier
  /// of it and its own ServerOptions::call_timeout) and answers -32300 instead of starting a
  /// handler the client no longer waits for; other servers ignore the field. Off by default:
  /// it costs some 25 bytes on every request.
  bool send_timeout = false;
  /// Event-loop integration for hosts that may not have threads started in them (Kamailio,
  /// OpenSIPS, GUI toolkits, libevent/libuv/GLib programs): asynchronous calls start no I/O
  /// thread; the host's loop watches Client::loop_fd() for reading with
  /// Client::loop_timeout() and calls Client::process(), inside which the completions run.
  /// Synchronous calls work as always (on the calling thread). No lookup thread either: a host
  /// name is looked up with the system's resolver on the thread that starts a call needing a
  /// new connection, blocking it meanwhile (give a numeric address where that matters).
  /// Client::create_group refuses it. See docs/event-loop.md.
  bool host_loop = false;
  /// xmlrpc-c's interrupt flag (xmlrpc_client_set_interrupt): a flag that a signal handler
  /// sets, and nothing else does. While it is non-zero, synchronous calls (call, call_named,
  /// multicall, batch) end with Errc::Cancelled "the call was interrupted": one waiting ends
  /// within 50 ms of it being set, whichever thread the signal went to; one made after fails
  /// at once, before sending. The caller clears it for calls to go on. Null: none. Borrowed:
  /// it must outlive the client. Also Client::set_interrupt.
  const volatile std::sig_atomic_t* interrupt = nullptr;
  /// A wire trace: called with each request sent and each answer received, head and body
  /// (callwire/trace.hpp). Empty: CALLWIRE_TRACE decides (off unless set). Thread-safety: it
  /// runs on the calling thread or the I/O thread, one message at a time per connection.
  TraceHook trace;
  /// WebSocket with JSON-RPC (jsonrpc+ws://, jsonrpc+wss://, jsonrpc+ws+unix:): called with
  /// each notification the server sends (a server's Notifier::notify): its method and its
  /// params (an array or a struct; an empty array when it sent none). They come in the order
  /// the server sent them on each connection; one sent before a call's answer comes before
  /// the call returns, and one sent right after it may too (when both are read together).
  /// Where it runs: on the calling thread when the
  /// notification arrives while a call waits on that connection (before the call returns), on
  /// the I/O thread for an asynchronous call, and, while the connection is idle, on a thread
  /// the client starts to watch its idle connections (so events come without a call being
  /// made; with host_loop no thread is started, and they come at the next call). Calls on several
  /// connections may run it on several threads at once. It must not block for long: the connection
  /// it came on waits meanwhile. It may make calls on this client. Empty: notifications are
  /// dropped. Other framings refuse it.
  NotificationHandler on_notification;
};

/// The status line and header fields of a server's HTTP answer (SCGI's too: its Status field
/// and the rest), as they came.
struct HttpHead {
  int status = 0;  ///< 0: no answer was read (a packet stream, a call that failed before)
  std::string reason;
  std::vector<std::pair<std::string, std::string>> fields;  ///< in the order received
  /// The first field named `name` (case-insensitive); nullopt when there is none.
  CALLWIRE_API std::optional<std::string_view> field(std::string_view name) const noexcept;
};

/// Per-call settings.
struct CallOptions {
  /// 0: the client's timeout.
  std::chrono::milliseconds timeout{0};
  /// Extra header fields for this call (after the client's).
  std::vector<std::pair<std::string, std::string>> headers;
  /// A call sent on a kept-alive connection that the server turns out to have closed (no
  /// byte of answer came) is sent once more on a fresh connection: the server closed it idle
  /// and most likely never saw the request. Set false for a method that must not run twice
  /// even then: such a call fails with ConnectionClosed instead (check first with
  /// Client::probe to make that rare).
  bool resend_if_stale = true;
  /// Not null: the answer's HTTP head goes here (status, reason, every header field), whether
  /// the call succeeds or fails, so a caller can read a Set-Cookie, a rate limit's fields or
  /// a 503's Retry-After. Cleared first: status 0 and no fields when no answer was read (a
  /// packet stream, a connection that failed). A failed HTTP status carries the same in
  /// Error::http_head. Asynchronous calls fill it before `done` runs (and before the future is
  /// ready): it must stay valid until then. A batch or multicall fills it once for the whole.
  HttpHead* response_head = nullptr;
  /// Cancels the call from any thread: `std::stop_source stop; options.cancel =
  /// stop.get_token();`, then `stop.request_stop()` ends the call at once with
  /// Errc::Cancelled wherever it is (connecting, sending, awaiting the answer, waiting for a
  /// connection; a synchronous call returns, an asynchronous one's `done` runs). Its
  /// connection is closed: the server may still run the method, cancelling ends only the
  /// waiting. A token stopped already fails the call before anything is sent; one source may
  /// cancel many calls. A cancellable synchronous call waits in poll() beside its socket
  /// instead of blocking in recv (a system call more per wait; the calling thread keeps an
  /// eventfd for it, made at its first such call); a default token costs nothing.
  std::stop_token cancel;
};

/// How a client over several servers (Client::create_group) spreads and retries its calls.
struct FailoverOptions {
  /// How long a server that failed (no connection, a timeout, a reset, a 502/503/504) is
  /// skipped: it is tried again after it, or sooner when every other server failed too.
  std::chrono::milliseconds backoff{5000};
  /// Methods that may run twice (reads, idempotent writes): after a failure of the transport
  /// (a timeout, a reset, a 502/503/504) they are sent to the next server. Other methods move
  /// on only when the call cannot have reached a server (no connection; a 503).
  std::vector<std::string> idempotent_methods;
  /// Every method may run twice.
  bool all_idempotent = false;
};

/// What system.multicall answered for one call: a result, or an Error (Errc::Fault with the
/// fault's code and string).
using CallResult = Result<Value>;

namespace detail {
// What a typed call returns: Result<R>, or Status for R = void.
template <class R>
struct TypedResult {
  using type = Result<R>;
};
template <>
struct TypedResult<void> {
  using type = Status;
};
// How an argument is converted: arrays (string literals) decay to pointers.
template <class A>
using ArgType = std::decay_t<A>;

// The result converted to R. `json`: it came from JSON-RPC, where strings stand for bytes and
// times; a type with Convert<R>::read then reads it through a TreeReader that says so.
template <class R>
Result<R> result_as(const Value& v, bool json) {
  if constexpr (Readable<R> && std::default_initializable<R>) {
    if (json) {
      R out{};
      TreeReader reader(v, true);
      if (Status s = read_value(reader, out); !s) return s.error();
      return out;
    }
  }
  return Convert<R>::from_value(v);
}
template <class R>
typename TypedResult<R>::type convert_result(std::string_view method, Result<Value>&& r,
                                             bool json) {
  if (!r) return r.error();
  if constexpr (std::is_void_v<R>) {
    return Status();
  } else {
    Result<R> out = result_as<R>(*r, json);
    if (out) return out;
    return Error(Errc::TypeMismatch,
                 join_path(std::string(method) + ": result", out.error().message));
  }
}
// Reads a typed call's result straight out of the answer (Convert<R>::read).
template <class R>
struct ResultSink final : ValueSink {
  R value{};
  std::optional<Error> conversion_error;  // what read_value said, document errors included
  Status read(ValueReader& reader) override {
    Status s = read_value(reader, value);
    if (!s) conversion_error = s.error();
    return s;
  }
};

}  // namespace detail

/// A call's arguments as call<R> gives them to the client: written straight into the request
/// (`write` gives them as one array, the params, to a writer of the client's), with no Value
/// between, so a blob argument is encoded from the caller's bytes instead of a copy of them.
/// `write` throws what conversions throw (Errc::Unrepresentable). Not for implementing: the
/// typed calls make their own.
class CallArguments {
 public:
  virtual void write(ValueWriter& w) const = 0;

 protected:
  ~CallArguments() = default;
};

namespace detail {
// call<R>'s CallArguments. Holds the arguments as given (a string literal stays an array: its
// decayed pointer would be a temporary), each converted as its ArgType.
template <class... Args>
class TypedArgs final : public CallArguments {
 public:
  explicit TypedArgs(const Args&... args) noexcept : args_(args...) {}
  void write(ValueWriter& w) const override {
    w.begin_array();
    std::apply([&](const Args&... a) { (write_one<ArgType<Args>>(w, a), ...); }, args_);
    w.end_array();
  }

 private:
  // write_value's choice, with the argument as given (a char array is no `char* const&`).
  template <class T, class A>
  static void write_one(ValueWriter& w, const A& a) {
    if constexpr (Writable<T>) {
      Convert<T>::write(w, a);
    } else {
      w.value(Convert<T>::to_value(a));
    }
  }

  std::tuple<const Args&...> args_;
};
}  // namespace detail

class Client;

namespace detail {
// What a Batch's typed calls read their results from: its last send()'s, empty before any.
using BatchOutcome = std::optional<Result<std::vector<CallResult>>>;
}  // namespace detail

/// A typed call's place in a Batch (Batch::call<R>): after send(), get() gives its converted
/// result. Cheap to copy; stays valid after the Batch is gone. Thread-safety: as its Batch's.
template <class R>
class BatchResult {
 public:
  /// The call's result from the Batch's last send(), converted as Client::call<R> converts
  /// it: Result<R>, or Status for R = void. Errors: those of a typed call (Errc::Fault with the
  /// server's error, TypeMismatch naming the method: "add: result must be int, got string");
  /// the error of the whole batch when that send() failed; InvalidArgument before any send().
  typename detail::TypedResult<R>::type get() const {
    const detail::BatchOutcome& last = *outcome_;
    if (!last) return Error(Errc::InvalidArgument, method_ + ": the batch was not sent");
    if (!*last) return last->error();
    return detail::convert_result<R>(method_, CallResult((**last)[index_]), json_);
  }

 private:
  friend class Batch;
  BatchResult(std::shared_ptr<const detail::BatchOutcome> outcome, size_t index, std::string method,
              bool json)
      : outcome_(std::move(outcome)), index_(index), method_(std::move(method)), json_(json) {}

  std::shared_ptr<const detail::BatchOutcome> outcome_;
  size_t index_;  // among the batch's calls
  std::string method_;
  bool json_;  // JSON-RPC: strings stand for bytes and times
};

/// Calls and notifications sent together: for JSON-RPC one batch (a JSON array, one HTTP
/// request), for XML-RPC one system.multicall (the notifications go in it as calls whose
/// results are dropped). Made by Client::batch(); `client.batch().call("a", {1}).notify("log",
/// {"x"}).call("b").send()` gives one result per call in the order the calls were added,
/// whatever the order of the server's answers (JSON-RPC answers are matched by id).
///
/// Typed calls, `auto sum = batch.call<int>("sample.add", 2, 3)`, give a BatchResult<R> whose
/// get() converts the result after send().
///
/// Ownership: borrows the Client, which must outlive it; owns copies of the params.
/// Thread-safety: one thread at a time (the Client itself may be shared). send() may be called
/// again: it sends the same entries again (with new ids), and the typed calls' results are then
/// the new ones. A copy of a Batch shares its typed calls' results with the original.
class CALLWIRE_API Batch {
 public:
  /// Adds a call; its result is the n-th of send()'s, n counting the calls added before it.
  Batch& call(std::string_view method, std::span<const Value> params);
  Batch& call(std::string_view method, std::initializer_list<Value> params = {}) {
    return call(method, std::span<const Value>(params.begin(), params.size()));
  }
  /// Adds a notification (JSON-RPC: a request without id, which gets no answer).
  Batch& notify(std::string_view method, std::span<const Value> params);
  Batch& notify(std::string_view method, std::initializer_list<Value> params = {}) {
    return notify(method, std::span<const Value>(params.begin(), params.size()));
  }
  /// Adds a call with its parameters by name (a struct of them; see Client::call_named). A
  /// `named` that is not a struct fails the whole batch at send(): InvalidArgument.
  Batch& call_named(std::string_view method, const Value& named);
  /// Adds a notification with its parameters by name.
  Batch& notify_named(std::string_view method, const Value& named);
  /// Adds a typed call: the arguments converted as Client::call<R> converts them; its result
  /// comes from the returned BatchResult's get() after send(). An argument that cannot be
  /// converted (an unsigned 64-bit above INT64_MAX, a null const char*) fails the whole batch
  /// at send() with that error, as a bad `named` does.
  template <class R, class... Args>
  requires(ToValue<detail::ArgType<Args>>&&...) BatchResult<R> call(std::string_view method,
                                                                    const Args&... args);
  /// Calls added (the results send() returns).
  size_t calls() const noexcept { return calls_; }
  /// Entries added, notifications included.
  size_t size() const noexcept { return entries_.size(); }

  /// Sends everything as one request (nothing at all when the batch is empty) and returns one
  /// CallResult per call, in the order added: a Value, or Errc::Fault (the server's error for
  /// that call: fault_code and message), BadResponse (the server's answer has no entry for
  /// that call; a JSON-RPC error with id null, as a server gives when it cannot read the
  /// batch, is taken as every unanswered call's), or, for JSON-RPC, Unrepresentable (a result
  /// holding a number beyond 64 bits). Errors of the whole: those of Client::call, and
  /// BadResponse when the answer is not JSON-RPC, or holds an id matching no call of the
  /// batch, or (XML-RPC) not one entry per call. A JSON-RPC batch of notifications only
  /// succeeds on an HTTP 204 or a 200.
  Result<std::vector<CallResult>> send(const CallOptions& options = {});

 private:
  friend class Client;
  struct Entry {
    MethodCall call;  // params: an array, or (by name) a struct
    bool notification = false;
  };
  Batch& add_named(std::string_view method, const Value& named, bool notification);
  explicit Batch(Client& client) noexcept : client_(&client) {}

  Client* client_;
  std::vector<Entry> entries_;
  size_t calls_ = 0;
  std::optional<Error> invalid_;                   // a typed call's argument that failed
  std::shared_ptr<detail::BatchOutcome> outcome_;  // made by the first typed call
};

/// An XML-RPC or JSON-RPC 2.0 client for one server: "http://host:port/path", "https://...",
/// "unix:/path/to/socket" (HTTP over a Unix-domain socket, path options.unix_path), or SCGI
/// (rtorrent's protocol, one call per connection): "scgi://host:port[/path]" and
/// "scgi+unix:/path/to/socket" (REQUEST_URI options.unix_path), or xmlrpc-c's packet stream
/// (XML-RPC without HTTP, connections kept and reused): "pstream://host:port" and
/// "pstream+unix:/path/to/socket"; it carries no header fields, credentials or gzip (create
/// fails with InvalidArgument when the options ask for header fields or credentials).
///
/// JSON-RPC 2.0 (options.protocol, or the URLs "jsonrpc+http://...", "jsonrpc+https://..." and
/// "jsonrpc+unix:/path", which are HTTP, and "jsonl://host:port" and "jsonl+unix:/path",
/// newline-delimited JSON-RPC: a line per request and per answer, none for a notification, no
/// header fields, credentials or gzip): the same calls, typed ones included, send
/// positional params; the answer's id must be the call's, else BadResponse.
///
/// WebSocket (RFC 6455): "ws://[user:password@]host[:port]/path", "wss://..." and
/// "ws+unix:/path/to/socket" carry XML-RPC (subprotocol "xmlrpc"), and "jsonrpc+ws://...",
/// "jsonrpc+wss://..." and "jsonrpc+ws+unix:/path" JSON-RPC (subprotocol "jsonrpc"). Each new
/// connection opens with the HTTP/1.1 upgrade, which carries the credentials and
/// options.headers (a server's refusal is HttpStatus with its status; an answer that is not a
/// proper 101 is BadResponse); then each call is one masked text message, and a connection
/// carries one call at a time. The server's notifications go to options.on_notification, also
/// while no call is made; its pings are answered. A call's own header fields, gzip and
/// proxies are refused (InvalidArgument). A JSON-RPC error
/// answer is Errc::Fault with fault_code its "code" and message its "message" (with a string
/// "data" appended when the message is the spec's short one), and its "data" in Error::data.
/// A result holding a number no Value holds (beyond 64 bits) is Unrepresentable. Over
/// HTTP, a JSON-RPC error sent with a status other than 200 is still read as the fault.
///
/// Errors, the same for every call: Errc::Fault (the server's fault: Error::fault_code and
/// Error::message are its code and string), Timeout, ConnectFailed, ConnectionClosed (reset or
/// closed before the answer), HttpStatus (message "HTTP 404 Not Found"; Error::http_status
/// is the status and Error::http_head the answer's fields; fault_code is -32300, as for every
/// transport failure), BadResponse (not
/// HTTP, not gzip, not a response of the protocol), LimitExceeded (response too large), TlsError,
/// Unrepresentable (a parameter XML-RPC cannot carry), InvalidArgument (a bad header).
///
/// Ownership: owns its connections. Thread-safety: every call may come from any thread at
/// once; idle connections are shared through a pool. Connections are kept alive and reused.
/// The destructor waits for asynchronous calls in flight to end (each ends by its deadline).
class CALLWIRE_API Client {
 public:
  /// Errors: InvalidArgument (a URL it cannot use; a tls.min_version, tls.ciphers or
  /// tls.ciphersuites it cannot use), TlsError (an unreadable CA file or directory, client
  /// certificate or key, a wrong tls.key_password).
  static Result<Client> create(std::string_view url, ClientOptions options = {});
  /// As create(), throwing callwire::Exception.
  explicit Client(std::string_view url, ClientOptions options = {});
  /// One client over several servers that answer the same methods (replicas, backends a
  /// balancer would spread over), each with `options`. Each call goes to the next server in
  /// turn; a server that fails is skipped for `failover.backoff`; a call that fails moves on
  /// to the next server, within its one deadline, when it cannot have reached one (no
  /// connection: refused, unreachable, a name that does not resolve; an HTTP 503), or when its
  /// method is marked idempotent and the transport failed; never after a fault or another
  /// answer. When every server failed, the error is the last one, its message naming each
  /// server's ("no server answered (http://a/RPC2: ...; http://b/RPC2: ...)"). Everything else
  /// (typed, asynchronous and batch calls, probe) works as on one server; url() lists them.
  /// Errors: InvalidArgument (no URL, a pipeline_depth above 1, host_loop), and what create()
  /// says of each URL.
  static Result<Client> create_group(std::span<const std::string> urls, ClientOptions options = {},
                                     FailoverOptions failover = {});
  /// A client on a connection it is given instead of one it opens (xmlrpc-c's socketexec
  /// style: a connected socket from socketpair(), a parent process or inetd), speaking
  /// `framing` on it (Http: Host "localhost", path `unix_path`; Scgi; Pstream). The descriptor
  /// passes to the client, also when refused (it is closed then), and is made non-blocking
  /// and close-on-exec. It is the client's only connection and is never replaced: once the
  /// peer closes it, calls fail with ConnectionClosed. Calls take turns on it: asynchronous
  /// calls wait for it in order (or pipeline on it, with `pipeline_depth`), while a
  /// synchronous call made while another call has it fails at once with ConnectionClosed
  /// ("in use by another call, or closed"); with `pipeline_depth` the pipeline keeps it, so
  /// make only asynchronous calls. SCGI closes a connection after each answer: an adopted
  /// SCGI connection carries one call. `max_connections` is 1 whatever is set.
  /// Errors: InvalidArgument (fd < 0, not a connected stream socket, JsonLines, or what
  /// create() refuses for that framing).
  static Result<Client> adopt(int fd, ConnectionFraming framing, ClientOptions options = {});
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  ~Client();

  /// Calls `method` and waits for its result, up to the deadline.
  Result<Value> call(std::string_view method, std::span<const Value> params,
                     const CallOptions& options = {});
  Result<Value> call(std::string_view method, std::initializer_list<Value> params = {},
                     const CallOptions& options = {}) {
    return call(method, std::span<const Value>(params.begin(), params.size()), options);
  }

  /// Calls `method` with its parameters by name: `named` is a struct of them,
  /// `client.call_named("subtract", Value::structure({{"minuend", 42}, {"subtrahend", 23}}))`.
  /// JSON-RPC sends it as `"params": {...}`, which a server places by the method's parameter
  /// names (callwire's: the names given to bind). XML-RPC has no names: the struct goes as the
  /// call's one parameter, as XML-RPC methods that take a struct of arguments expect.
  /// Errors: those of call(); InvalidArgument when `named` is not a struct.
  Result<Value> call_named(std::string_view method, const Value& named,
                           const CallOptions& options = {});
  /// The same with the result converted to R, as call<R> does.
  template <class R>
  typename detail::TypedResult<R>::type call_named(std::string_view method, const Value& named,
                                                   const CallOptions& options = {}) {
    check_result_type<R>();
    return detail::convert_result<R>(method, call_named(method, named, options), is_json());
  }

  /// Checks the connections the client keeps open between calls and drops those the server
  /// has closed or reset, so that a call does not find out by failing (and a method that must
  /// not run twice is not sent on a connection that is gone). Over a packet stream each idle
  /// connection is first sent ESC NOP, xmlrpc-c's liveness probe: the server ignores it, a
  /// peer that no longer knows the connection answers it with a reset, and the probe keeps
  /// NAT and firewall state alive. `wait` is how long to watch for such resets (a round
  /// trip); 0 looks once. Returns how many kept connections are open afterwards: the idle
  /// ones, and the pipeline's (those awaiting answers are counted, not probed); a connection
  /// in use by a synchronous call at that moment is not seen. Thread-safety: as the calls;
  /// not from an asynchronous call's `done` (it waits for the I/O thread).
  size_t probe(std::chrono::milliseconds wait = std::chrono::milliseconds(0));

  // ---- Event-loop integration (ClientOptions::host_loop). The host watches one descriptor
  // for reading, with a timeout, and calls process() when it is readable or the timeout has
  // passed; no thread is started. Thread-safety: process(), loop_timeout() and probe() from
  // one thread at a time, the host's; calls (and cancellations) from any thread, as always
  // (a call started on another thread wakes the descriptor). Without host_loop: loop_fd()
  // is -1, loop_timeout() -1 and process() does nothing.

  /// The descriptor to watch for reading (never to read, close or change): the same one for
  /// the client's life. -1 without host_loop, or when it cannot be made (out of descriptors:
  /// asynchronous calls then fail at once with InvalidArgument).
  int loop_fd();
  /// How long the host may wait for loop_fd() before calling process() anyway: until the
  /// earliest deadline of a pending call (at least 10 ms, the sweep's tick; every 10 ms while
  /// pipelined calls are pending); -1 while no asynchronous call is pending (wait for the
  /// descriptor alone), 0 when there is work to do now.
  std::chrono::milliseconds loop_timeout();
  /// Runs what is ready without blocking: reads and writes, finished calls (their `done` runs
  /// here, on the host's thread, and may start new calls), deadlines and cancellations. Not
  /// from inside a `done` of this client (it is not re-entrant).
  void process();

  /// Waits until every asynchronous call started so far has ended (its `done` has run, or its
  /// future is ready), at most `timeout`: xmlrpc-c's event_loop_finish_timeout. With host_loop
  /// it runs the calls itself meanwhile (process()). Not from a `done` of this client. Errors:
  /// Timeout (calls still in flight; they go on), Cancelled "the call was interrupted" when the
  /// interrupt flag is set (looked at every 50 ms).
  Status wait_async(std::chrono::milliseconds timeout);

  /// Sets (or, with null, removes) the interrupt flag, as ClientOptions::interrupt. Thread-safe;
  /// a call already waiting keeps the flag it started with.
  void set_interrupt(const volatile std::sig_atomic_t* flag) noexcept;

  /// Starts a call and returns at once; the future becomes ready with its result.
  std::future<Result<Value>> async_call(std::string_view method, std::vector<Value> params,
                                        const CallOptions& options = {});
  /// Calls `method` and hands its result to `sink` as the answer is read, with no Value tree
  /// built in between, in XML-RPC and JSON-RPC alike (JSON-RPC's reader says strings stand for
  /// bytes and times). What call<R> uses for types with Convert<R>::read.
  /// Errors: those of call(); BadResponse for a malformed answer, also when the sink met the
  /// fault first; otherwise the sink's own error as it returned it.
  Status call_reading(std::string_view method, std::span<const Value> params, ValueSink& sink,
                      const CallOptions& options = {});
  /// Starts a call; `done` runs on the client's I/O thread with the result (keep it short;
  /// it must not wait for another call of this client), also when the call fails before
  /// anything is sent (a bad header: InvalidArgument). Only when the I/O thread cannot be
  /// started does `done` run on the calling thread, before async_call returns. With
  /// ClientOptions::host_loop, "the I/O thread" is process() on the host's thread (and the
  /// destructor, for calls still in flight then).
  void async_call(std::string_view method, std::vector<Value> params,
                  std::function<void(Result<Value>)> done, const CallOptions& options = {});

  // ---- Typed calls. `R` is always given: `client.call<int>("sample.add", 3, 5)`. The
  // arguments are converted with callwire::Convert<T> (callwire/convert.hpp), the result
  // to R: Result<R>, or Status for R = void (which accepts any result, nil or not). These
  // never throw (except std::bad_alloc), so there is no separate try_call: `.value()` on the
  // Result is the throwing form. Per-call options go first, in the `_with` forms, so they can
  // never be taken for an argument.
  //
  // Errors: those of the untyped call; TypeMismatch when the result does not convert, naming
  // the method, what was expected and what came ("sample.add: result must be int, got
  // string"; "m: result[2] must be int, got string"); Unrepresentable or InvalidArgument when
  // an argument cannot be converted (an unsigned 64-bit above INT64_MAX, a null const char*).
  // Ownership: the arguments are read during the call only; R cannot be a view type
  // (std::string_view, std::span): the Value it would point into is gone on return.

  template <class R, class... Args>
  requires(ToValue<detail::ArgType<Args>>&&...) typename detail::TypedResult<R>::type
      call(std::string_view method, const Args&... args) {
    return call_with<R>(CallOptions{}, method, args...);
  }
  template <class R, class... Args>
  requires(ToValue<detail::ArgType<Args>>&&...) typename detail::TypedResult<R>::type
      call_with(const CallOptions& options, std::string_view method, const Args&... args) {
    check_result_type<R>();
    const detail::TypedArgs<Args...> params(args...);
    if constexpr (!std::is_void_v<R> && Readable<R> && std::default_initializable<R>) {
      // Strings, blobs, arrays, structs: decoded straight into R, no Value tree between.
      detail::ResultSink<R> sink;
      Result<Value> read = call_typed(method, params, &sink, options);
      Status s = read ? Status() : Status(read.error());
      // The sink's error is the result's when the answer was read and did not convert (a
      // value's error, below the transport's codes); a connection lost, a deadline passed or
      // a size limit reached while the answer was read as it arrived stays what it is.
      if (!s && s.error().code < Errc::Timeout && s.error().code != Errc::LimitExceeded &&
          sink.conversion_error)
        return Error(Errc::TypeMismatch,
                     detail::join_path(std::string(method) + ": result", s.error().message));
      if (!s) return s.error();
      return std::move(sink.value);
    } else {
      return detail::convert_result<R>(method, call_typed(method, params, nullptr, options),
                                       is_json());
    }
  }

  /// Starts a typed call and returns at once; the future becomes ready with its converted
  /// result. The conversion runs on the client's I/O thread.
  template <class R, class... Args>
  requires(ToValue<detail::ArgType<Args>>&&...)
      std::future<typename detail::TypedResult<R>::type> async_call(std::string_view method,
                                                                    const Args&... args) {
    return async_call_with<R>(CallOptions{}, method, args...);
  }
  template <class R, class... Args>
  requires(ToValue<detail::ArgType<Args>>&&...)
      std::future<typename detail::TypedResult<R>::type> async_call_with(const CallOptions& options,
                                                                         std::string_view method,
                                                                         const Args&... args) {
    check_result_type<R>();
    using Out = typename detail::TypedResult<R>::type;
    auto promise = std::make_shared<std::promise<Out>>();
    std::future<Out> future = promise->get_future();
    std::vector<Value> params;
    if (auto s = to_params(params, args...); !s) {
      promise->set_value(s.error());
      return future;
    }
    async_call(
        method, std::move(params),
        [promise, name = std::string(method), json = is_json()](Result<Value> r) {
          promise->set_value(detail::convert_result<R>(name, std::move(r), json));
        },
        options);
    return future;
  }

  /// Starts a typed call and returns at once; `done` is called once with the converted
  /// result (Result<R>, or Status for R = void): `client.async_call<int>([](Result<int> sum)
  /// {...}, "sample.add", 3, 5)`. The callback comes first, before the method, so it can never
  /// be taken for an argument (nor an argument for it); with options,
  /// `async_call_with<R>(options, done, method, args...)`.
  ///
  /// Threads: `done` runs on the client's I/O thread, the conversion of the result too, also
  /// when the call fails before anything is sent (an argument that cannot be converted: the
  /// error comes through `done`, never thrown). Keep it short: the other asynchronous calls of
  /// this client wait while it runs, and it must not wait for another call of this client
  /// (a synchronous call from it is fine). Only when the I/O thread cannot be started does
  /// `done` run on the calling thread, before this returns. Ownership: `done` is moved into
  /// the call and destroyed on the I/O thread after it ran. Errors: as the typed calls above.
  template <class R, class... Args>
  requires(ToValue<detail::ArgType<Args>>&&...) void async_call(
      std::function<void(typename detail::TypedResult<R>::type)> done, std::string_view method,
      const Args&... args) {
    async_call_with<R>(CallOptions{}, std::move(done), method, args...);
  }
  template <class R, class... Args>
  requires(ToValue<detail::ArgType<Args>>&&...) void async_call_with(
      const CallOptions& options, std::function<void(typename detail::TypedResult<R>::type)> done,
      std::string_view method, const Args&... args) {
    check_result_type<R>();
    std::vector<Value> params;
    if (auto s = to_params(params, args...); !s) {
      run_on_io_thread([done = std::move(done), error = s.error()]() mutable { done(error); });
      return;
    }
    async_call(
        method, std::move(params),
        [done = std::move(done), name = std::string(method), json = is_json()](Result<Value> r) {
          done(detail::convert_result<R>(name, std::move(r), json));
        },
        options);
  }

  /// Sends a notification: a call whose result nobody waits for. JSON-RPC: a request without
  /// id; an HTTP 204, or a 200 (with an empty body, or any body that is not a JSON-RPC error),
  /// is success; a JSON-RPC error answered anyway (a server that could not read it) is
  /// Errc::Fault. XML-RPC has no notifications: the call is made, and its result is dropped
  /// (a fault is still returned). Errors: those of call().
  Status notify(std::string_view method, std::span<const Value> params,
                const CallOptions& options = {});
  Status notify(std::string_view method, std::initializer_list<Value> params = {},
                const CallOptions& options = {}) {
    return notify(method, std::span<const Value>(params.begin(), params.size()), options);
  }

  /// A batch of calls and notifications for this client to send at once (see Batch).
  Batch batch() noexcept { return Batch(*this); }

  /// The protocol this client speaks (options.protocol, or JsonRpc for a jsonrpc+ URL).
  Protocol protocol() const noexcept;

 private:
  // Whether results come from JSON-RPC, where strings stand for bytes and times.
  bool is_json() const noexcept { return protocol() == Protocol::JsonRpc; }

 public:
  /// Sends the calls as one system.multicall and returns one result per call, in order.
  /// Accepts servers that answer each entry with a bare result instead of a one-element
  /// array (supervisord). Errors: those of call(), and BadResponse when the answer is not
  /// one entry per call.
  Result<std::vector<CallResult>> multicall(std::span<const MethodCall> calls,
                                            const CallOptions& options = {});

  /// The URL given.
  const std::string& url() const noexcept;

  struct Impl;

 private:
  template <class R>
  static constexpr void check_result_type() {
    static_assert(std::is_void_v<R> || FromValue<R>,
                  "callwire::Client::call<R>: R has no callwire::Convert<R>::from_value; "
                  "specialise callwire::Convert<R> (see callwire/convert.hpp)");
    static_assert(!is_view_v<R>,
                  "callwire::Client::call<R>: R is a view into a Value that is gone on return; "
                  "ask for std::string or std::vector<uint8_t>");
  }
  // call<R>'s: the arguments written straight into the request; the result to `sink` when
  // given (then the Value returned is nil).
  Result<Value> call_typed(std::string_view method, const CallArguments& args, ValueSink* sink,
                           const CallOptions& options);
  template <class... Args>
  static Status to_params(std::vector<Value>& params, const Args&... args) {
    params.reserve(sizeof...(Args));
    try {
      (params.push_back(Convert<detail::ArgType<Args>>::to_value(args)), ...);
    } catch (const Exception& e) {
      return e.error();
    }
    return Status();
  }

  // Runs `task` on the I/O thread (starting it if need be); on the calling thread, now,
  // when the I/O thread cannot be started.
  void run_on_io_thread(std::function<void()> task);
  // What create() and adopt() share, once the URL is known.
  CALLWIRE_LOCAL static Result<Client> finish_create(std::unique_ptr<Impl> impl);

  friend class Batch;
  Result<std::vector<CallResult>> send_batch(std::span<const Batch::Entry> entries,
                                             const CallOptions& options);

  CALLWIRE_LOCAL explicit Client(std::unique_ptr<Impl> impl) noexcept;  // for create()
  std::unique_ptr<Impl> impl_;
};

template <class R, class... Args>
requires(ToValue<detail::ArgType<Args>>&&...) BatchResult<R> Batch::call(std::string_view method,
                                                                         const Args&... args) {
  Client::check_result_type<R>();
  std::vector<Value> params;
  if (Status s = Client::to_params(params, args...); !s && !invalid_) invalid_ = s.error();
  call(method, std::span<const Value>(params.data(), params.size()));
  if (!outcome_) outcome_ = std::make_shared<detail::BatchOutcome>();
  return BatchResult<R>(outcome_, calls_ - 1, std::string(method),
                        client_->protocol() == Protocol::JsonRpc);
}

}  // namespace callwire
