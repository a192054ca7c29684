// Internal: one client connection and the exchange it carries, as a resumable state machine:
// connect (trying each address; to an HTTP proxy, with a CONNECT tunnel for https), send the
// request, receive and decode the response. The synchronous path drives it with poll() on its
// own thread; the asynchronous path drives it from the client's event loop. One
// implementation for both.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/client.hpp"
#include "callwire/error.hpp"
#include "callwire/json.hpp"
#include "callwire/message.hpp"
#include "callwire/value.hpp"
#include "callwire/xml.hpp"
#include "client/answer_reader.hpp"
#include "client/framing.hpp"
#include "http/response_parser.hpp"
#include "net/address.hpp"
#include "net/lookup.hpp"
#include "net/stream.hpp"
#include "net/tls.hpp"

namespace callwire::detail {

/// Reads of one non-blocking connection per turn of an event loop (a ClientConnection's step,
/// a Pipeline's read): a server that sends as fast as the client reads (ESC NOP for ever)
/// must not keep the loop from its other connections and from the sweep that ends a call at
/// its deadline.
inline constexpr int kReadsPerTurn = 64;

struct ClientUrl;
struct ProxyRoute;

/// What a connection needs to know, shared by every connection of a client.
struct ClientSettings {
  const ClientUrl* url = nullptr;
  const ClientFraming* framing = nullptr;  ///< request heads, answer parsers
  net::TlsContext* tls = nullptr;          ///< set for https
  /// Set when the connections go through an HTTP proxy: they resolve and connect to it, and
  /// open a CONNECT tunnel first for https.
  const ProxyRoute* proxy = nullptr;
  http::ResponseLimits response_limits;
  xml::ReaderLimits reader_limits;
  json::JsonLimits json_limits;
  size_t max_response_size = 0;
  Protocol protocol = Protocol::XmlRpc;
  /// Client::adopt: the connection the client was given, until the first connection takes it
  /// (-1 after); no name is resolved and nothing is connected. Null for a client with a URL.
  std::atomic<int>* adopted_fd = nullptr;
  /// ClientOptions::host_loop: no lookup thread; names are looked up with the system's
  /// resolver on the thread that begins the connection (it blocks for as long as that takes).
  bool lookup_inline = false;
  /// The wire trace (ClientOptions::trace or CALLWIRE_TRACE); empty: off.
  TraceHook trace;
  /// The URL as given, for the trace.
  std::string_view url_text;
  /// A thread watches the idle connections and reads what comes on them (WebSocket with
  /// ClientOptions::on_notification: notifications come while no call is made).
  bool watch_idle = false;
};

/// The adopted descriptor for a new connection, or the error that there is none left.
Result<net::UniqueFd> take_adopted(std::atomic<int>& fd);

/// Ownership: borrows the settings (they outlive it). Thread-safety: one thread at a time.
class ClientConnection {
 public:
  enum class Wait { None, Read, Write };
  using Clock = std::chrono::steady_clock;

  explicit ClientConnection(const ClientSettings& settings);
  /// A connection kept between calls says its goodbye (a WebSocket's Close), if the socket
  /// takes it at once.
  ~ClientConnection();
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  /// The request to send (head and body) goes here before begin().
  Buffer& request() noexcept { return request_; }
  /// Scratch space for building the request's head (kept: no allocation per call).
  Buffer& head_scratch() noexcept { return head_scratch_; }
  /// Starts an exchange of the bytes in request()[offset..]. A new connection looks its peer up
  /// (a name on a lookup thread: step() then waits on fd()) and connects.
  ///
  /// `blocking_until`: the synchronous path's deadline. Once connected, the socket then
  /// blocks in send and recv with SO_SNDTIMEO/SO_RCVTIMEO kept at most a little past the
  /// deadline, so a call costs one send and one recv (a Want* result then means the timeout
  /// expired: poll for what is left). Without it (the event loop) the socket never blocks.
  void begin(size_t offset, std::optional<Clock::time_point> blocking_until = std::nullopt);
  /// JSON-RPC: what the answer to the request in request() must be, kept until the next
  /// expect_json (a retry on a fresh connection expects the same). `calls` requests with ids
  /// first_id, first_id + 1, ... in that order; `batch`: the request was an array (results
  /// then in batch_results(), result() a nil Value when the exchange succeeded). No calls:
  /// notifications only, answered by a 204 or a 200.
  void expect_json(uint64_t first_id, size_t calls, bool batch) noexcept {
    answers_->expect_json(first_id, calls, batch);
  }
  /// A typed call: the answer's result goes to `sink` as it is read (result() is then nil),
  /// until set back to null (a JSON-RPC batch's results are read as Values all the same).
  void set_result_sink(ValueSink* sink) noexcept { answers_->set_result_sink(sink); }
  /// The answer's HTTP head goes to `out` (cleared at each begin()) until set back to null.
  void set_head_out(HttpHead* out) noexcept { head_out_ = out; }
  /// After a JSON-RPC batch exchange: one result per call, in request order.
  std::vector<Result<Value>>& batch_results() noexcept { return answers_->batch_results(); }
  /// For the retry after stale(): the fresh connection goes to the addresses this one was
  /// connected through instead of looking the name up again.
  void reuse_addresses() noexcept {
    if (!addresses_.empty()) resolved_ = true;
  }
  /// Advances as far as it can without blocking: Wait::Read/Write says what to wait for;
  /// Wait::None means the exchange is over (see result()).
  Wait step();
  /// Ends the exchange with `error` (a deadline passed, the client stopped).
  void fail(Error error);

  /// After Wait::None: the call's result, or its error.
  Result<Value>& result() noexcept { return result_; }
  /// The connection can carry another exchange.
  bool reusable() const noexcept { return reusable_; }
  /// It was used before and the server closed it without a byte of answer: the request may
  /// be sent again on a fresh connection (the server never saw it, or closed it idle).
  bool stale() const noexcept { return stale_; }
  /// What to wait on: the socket, or while a name is looked up (on a thread of its own, so
  /// neither the caller's deadline nor an event loop waits for getaddrinfo) the lookup's
  /// descriptor, readable once it is done.
  int fd() const noexcept {
    return state_ == State::Resolving ? lookup_->ready_fd() : stream_.fd();
  }
  bool tls() const noexcept { return stream_.is_tls(); }
  /// A kept connection between exchanges has bytes to read (the pool's idle watcher saw it
  /// readable): reads what is there without blocking and gives it to the answer's parser
  /// (a WebSocket's notifications and pings). False when the connection cannot carry another
  /// call (closed, broken, or sent what nobody asked for): drop it.
  bool read_idle();
  /// Client::adopt: hands the given connection back (non-blocking again) for the next call,
  /// whichever connection object makes it. Only between exchanges, and only when reusable().
  net::UniqueFd release_adopted() noexcept;

 private:
  enum class State { Idle, Resolving, Connecting, Tunnelling, Opening, Sending, Receiving, Done };
  // Looks the peer's name up (a literal at once, a name on a lookup thread) for a new
  // connection, unless the addresses are known.
  void start_resolving();
  Wait finish_resolving();
  void take_addresses(Result<std::vector<net::SocketAddress>> found);
  // Puts the socket in the mode the exchange wants, and its timeouts near the deadline.
  void apply_blocking_mode();
  // False when the deadline has passed.
  bool refresh_socket_timeout();
  // Writes bytes[sent..] as far as the socket takes them now (keeping a blocking socket's
  // timeout near the deadline). Ok: all sent; WantWrite or WantRead: wait; Eof or Error:
  // failed (stream_error() says why). Inline, defined in client_connection.cpp (the only
  // user): it is the request's send loop, and out of line it cost 25 instructions a call.
  inline net::IoStatus write_from(std::string_view bytes, size_t& sent);
  // The stream's last error, or "connection closed" when it has none (the peer closed).
  std::string stream_error() const;
  // A read that failed (reset, TLS alert) as the call's error.
  Error receive_error() const;
  // An I/O status that waits (WantRead, WantWrite), and the wait it asks for.
  static bool blocked(net::IoStatus s) noexcept {
    return s == net::IoStatus::WantRead || s == net::IoStatus::WantWrite;
  }
  static Wait wait_for(net::IoStatus s) noexcept {
    return s == net::IoStatus::WantRead ? Wait::Read : Wait::Write;
  }
  Wait connect_next();
  Wait finish_connect();
  // Connected (and through the proxy's tunnel, if any): TLS if https, then the request.
  Wait start_exchange();
  // https through a proxy: sends CONNECT and reads the proxy's answer.
  Wait tunnel();
  Wait fail_tunnel(Error error);
  // A transport an HTTP upgrade opens (WebSocket): sends the opening request and reads the
  // server's 101; bytes after it stay in in_ for the answer's parser.
  Wait open_upgrade();
  // Sends what the answer's parser owes the server (a Pong, a Close), as far as the socket
  // takes it now; the rest waits for the next read.
  void send_owed_output();
  // Where the connections go (the proxy, if any), and how messages name it.
  const net::Endpoint& peer_endpoint() const noexcept;
  std::string peer_name() const;
  // After an answer through a proxy in absolute form: a 407 is the proxy's, and says so.
  void name_proxy_refusal();
  Wait send();
  Wait receive();
  // Drops from in_ what the answer's parser is done with (a packet stream's NOPs).
  void drop_consumed() noexcept;
  // A write failed: the server may have answered before taking the whole request (413 over
  // its body limit, 401, 503) and closed. True when such an answer was there and the call
  // ends with it (an HttpStatus error naming the request's size and the server's words).
  bool read_early_refusal();
  // The answer came in a packet or a JSON line: it has no HTTP head (its parser reports a 200
  // of its own).
  bool streamed_answer() const noexcept;
  // Hands the answer, as received, to the wire trace.
  void trace_answer(const http::Response& response) const;
  // A large answer read while its body arrives (client/arriving_answer.cpp): whether this one
  // is, and the read, which leaves the body whole in in_ and the outcome in read_already_
  // (false: the call ended, done() said why).
  // `length`: the body's (Content-Length), or 0 for a chunked one, whose data so far is in
  // chunked_body_ (a server sends chunks while it writes a long answer).
  class ArrivingBody;
  class ArrivingChunks;
  bool worth_reading_while_arriving(std::string_view so_far, uint64_t length) const;
  bool read_while_arriving(std::string_view so_far, uint64_t length);
  bool read_chunks_while_arriving(std::string_view so_far);
  // Both: the reader over `storage` fed by `source`, then the rest of the body read.
  bool read_arriving(std::string_view storage, xml::DocumentSource& source);
  // One read of at most `most` bytes onto the end of `into` (in_, or chunked_body_ for a
  // chunk's data read straight) for an answer read while it arrives, under the call's
  // deadline: Ok when bytes came or the socket's wait ran out with time left; the error that
  // ends the call else.
  Status read_on(Buffer& into, size_t most);
  // What a parse's Error means for the call.
  Error parse_error(const http::ResponseParseResult& p) const;
  // `trailing_bytes`: the server sent more than this answer; the connection is not reused.
  void decode(const http::Response& response, bool trailing_bytes);
  void done(Result<Value> result, bool reusable);
  // As done(), with result_ set already.
  void finish(bool reusable);

  const ClientSettings& settings_;
  const bool upgraded_;  // the transport opens with an HTTP upgrade (WebSocket)
  State state_ = State::Idle;
  net::Stream stream_;
  std::vector<net::SocketAddress> addresses_;
  bool resolved_ = false;  // addresses_ (or connect_error_) is ready for the next connect
  // The lookup in progress, or the last one: kept until the next begin() so its descriptor,
  // which an event loop may still watch, is not closed and reused under it.
  std::shared_ptr<net::PendingLookup> lookup_;
  // A socket this connection is done with, kept open until the next begin() (or the end):
  // an event loop may still have it registered, and closing it at once would let its number
  // be reused (by this loop or another thread) before the loop removes it by that number.
  net::Stream retired_;
  size_t next_address_ = 0;
  Error connect_error_;
  bool used_before_ = false;
  std::optional<Clock::time_point> blocking_until_;
  bool blocking_ = false;                        // the socket's current mode
  std::chrono::microseconds socket_timeout_{0};  // SO_RCVTIMEO/SO_SNDTIMEO as set; 0: none
  bool timeout_fresh_ = false;  // checked against the clock since the last send or receive

  Buffer request_;
  Buffer head_scratch_;
  size_t sent_ = 0;
  size_t tunnel_sent_ = 0;  // bytes of the CONNECT request sent
  // The opening request of an upgraded transport, what its answer must carry, and the parser
  // of that answer (made at the first opening).
  Buffer opening_;
  size_t opening_sent_ = 0;
  std::string opening_expected_;
  std::unique_ptr<http::ResponseParser> opening_parser_;
  Buffer in_;              // the answer's bytes received, less those its parser has dropped
  bool received_ = false;  // a byte of this exchange's answer has arrived
  Buffer chunked_body_;
  Buffer inflated_;
  std::unique_ptr<AnswerParser> parser_;
  std::unique_ptr<AnswerReader> answers_;  // the protocol's: the body to the call's outcome
  HttpHead* head_out_ = nullptr;
  Result<Value> result_{Value()};
  bool reusable_ = false;
  bool stale_ = false;
  bool body_arrived_ = false;                  // the answers' reader saw part of this call's answer
  std::optional<Result<Value>> read_already_;  // the answer, read while it arrived
};

}  // namespace callwire::detail
