// Internal: one connection of the server: read into one buffer, parse in place, dispatch,
// answer every pipelined request in order with one send. Written once against net::Stream
// (plain TCP, Unix sockets and TLS share it) and a RequestFraming (HTTP/1.1, SCGI, the packet
// stream, JSON lines, or WebSocket after an upgrade).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/answer_progress.hpp"
#include "callwire/buffer.hpp"
#include "callwire/registry.hpp"
#include "http/chunked.hpp"
#include "http/request_parser.hpp"
#include "net/event_loop.hpp"
#include "net/stream.hpp"
#include "protocol/dispatcher.hpp"
#include "server/framing.hpp"
#include "server/http_session.hpp"
#include "server/websocket_channel.hpp"

namespace callwire::detail {

class ServerLoop;

/// Ownership: owned by its ServerLoop (intrusive list), which deletes it after it closes.
/// Thread-safety: the loop's thread only; while a worker runs its call (busy), the worker
/// reads the request bytes and writes job_out_, and the loop touches neither.
class Connection final : public net::Watcher {
 public:
  using Clock = std::chrono::steady_clock;

  Connection(ServerLoop& loop, net::Stream stream, std::string peer, ConnectionFraming framing);
  ~Connection();

  /// Registers with the loop; false when the loop refuses (the caller destroys it).
  bool start();
  void on_event(uint32_t events) override;
  /// The coarse tick: closes the connection when its current phase ran out of time.
  void sweep(Clock::time_point now);
  /// The server is stopping: close now if idle, else after the answer in progress.
  void on_stop();
  /// Closes the socket and hands itself to the loop for deletion (never while busy).
  void close();

  bool busy() const noexcept { return busy_; }
  /// Answers built and not yet sent (0 while a worker runs the call: it cannot be shed then).
  size_t unsent_bytes() const noexcept { return busy_ ? 0 : out_.size() - out_sent_; }
  /// The server's buffers are over budget and this connection holds the most unsent answers:
  /// closes it and gives its buffers back now (not busy).
  void shed() noexcept;

  // The loop's intrusive list.
  Connection* prev = nullptr;
  Connection* next = nullptr;
  // The loop's list of finished worker jobs (ServerLoop::job_finished).
  Connection* finished_next = nullptr;

  /// On the loop, after the worker's job_finished: sends the answer and reads on; drops the
  /// connection if the job or this runs out of memory.
  void resume_after_job() noexcept;
  /// On the loop: WebSocket frames of notifications (WebSocketChannel), sent after what is
  /// queued; dropped once the connection is closing.
  void send_notifications(std::string_view frames) noexcept;

 private:
  enum class Phase : uint8_t { Open, Lingering, Closed };
  void handle_event(uint32_t events);
  // Answers the request the parser completed (or queues it to the pool).
  void handle_request();
  enum class BodyCoding : uint8_t { Plain, GzipIfAccepted, Gzipped };
  // Wraps the answer body at out_[body_start..] (after a kHeadRoom gap that starts at
  // `start`) with its HTTP head. GzipIfAccepted: gzips it first when the client accepts gzip
  // and it is worth it; Gzipped: a worker already did.
  // No answer (JSON-RPC notifications only): 204 with no body. Returns the status sent.
  int finish_response(size_t start, size_t body_start, BodyCoding coding, bool keep_alive,
                      bool no_answer);
  void job_done();
  // Runs call_ (inflating its body first if gzipped: call_.refusal when that fails) and
  // writes its answer's body to `out`. On the loop (out_) or a worker (job_out_). `progress`:
  // the answer may be sent while it is written (on the loop only). `after_send` keeps the
  // handler's result until the answer is sent: after_send_ on the loop, the worker's own there.
  void run_call(Dispatcher& dispatcher, Buffer& out, DropAfterSend& after_send,
                AnswerProgress* progress = nullptr);

  // A long answer sent while it is written (streamed_answer.cpp): to an HTTP/1.1 client whose
  // TE lists trailers, an XML-RPC answer that passes kStreamFrom bytes goes out as chunks, the
  // head first, each step as far as the socket takes it without waiting; the rest goes with
  // the usual flush once it is whole. Answers below the mark are sent whole, as before. An
  // answer that is one long blob goes with its Content-Length instead (will_end_at), to
  // every client.
  class AnswerStream final : public AnswerProgress {
   public:
    static constexpr size_t kStreamFrom = 256 * 1024;
    static constexpr size_t kStep = 256 * 1024;
    explicit AnswerStream(Connection& c) noexcept : c_(c) {}
    // Before a call whose answer's head gap starts at `start` and body at `body_start`.
    // `chunks`: the client reads chunked answers; without, only a long blob's answer goes
    // before it is whole (with its length).
    void arm(size_t start, size_t body_start, bool chunks) noexcept;
    void disarm() noexcept {
      next = SIZE_MAX;
      started_ = false;
      length_end_ = 0;
    }
    Status grew(Buffer& out) override;
    bool started() const noexcept override { return started_; }
    bool will_end_at(Buffer& out, size_t end) override;
    // After the call: ends the chunked body (or cuts it short when the call failed after it
    // started), logs and counts the answer.
    void finish();

   private:
    Connection& c_;
    // Sends the head (its length `content_length`, or chunked) into the gap before the body.
    bool start(Buffer& out, const uint64_t* content_length);
    http::ChunkedBodyWriter chunks_;
    size_t body_start_ = 0;
    size_t head_start_ = 0;
    size_t length_end_ = 0;  // sent with its length: where the answer ends; 0: chunked
    bool started_ = false;
  };
  friend class AnswerStream;
  // How the current request's answer may be sent while it is written: not at all, only as
  // a long blob with its length, or also in chunks.
  enum class StreamMode : uint8_t { Whole, LengthOnly, Chunked };
  StreamMode stream_mode(const http::Request& request, size_t start) const noexcept;
  // Sends out_ up to `end` as far as the socket takes it now; a failure is left for the next
  // flush to meet (and close on).
  void send_without_waiting(size_t end);
  // The end of both paths, on the loop: the answer's body is at out_[body_start..] after a
  // head gap at `start` (inline), or in `worker_out`, appended after a gap made here. Answers
  // 500 instead when it is over one connection's share; logs it.
  void answer_call(size_t start, size_t body_start, BodyCoding coding, Buffer* worker_out);
  // Inflates a gzip body into inflated_body_, within max_body and the server's buffer budget:
  // 0, or the status to refuse it with (413 over max_body, 503 over the budget, 400 not gzip).
  // On the loop, or on the worker while busy.
  int inflate_body(std::string_view gzipped);
  // The readable bytes after a request body in whichever of our buffers holds it (in_, the
  // chunked or the inflated body), or 0: with enough, the JSON reader reads it in place. The
  // buffer must not change while the dispatcher reads (it does not: the loop waits, or the
  // worker owns them while busy).
  size_t room_after_body(std::string_view body) const noexcept;
  // 4xx/5xx with a short text body; the connection closes after it.
  void respond_error(int status, std::span<const http::Header> extra = {});
  // A complete text/plain answer of the session's (the health path's), then close.
  void respond_text(int status, std::string_view body, std::span<const http::Header> extra);
  // The wire trace (ServerCore::trace, when set): the request as received; the answer that
  // starts at out_[from] as it will be sent.
  void trace_request(const http::Request& request) const;
  void trace_answer(size_t from) const;
  // Every answer, once queued at out_[start]: the trace and the count by status.
  void answered(size_t start, int status);
  // Asks the HTTP session what the head alone decides, once per request, and answers a
  // refusal: true when refused (or upgraded: answered 101, WebSocket from the next request).
  bool refused_on_head(const http::Request& request);
  // Queues what the framing said of its own accord (a WebSocket Pong or Close).
  void queue_own_output();
  // A WebSocket connection the peer has been quiet on: pings it, or closes it when a ping
  // went unanswered (WebSocketOptions::ping_interval).
  void sweep_websocket(Clock::time_point now);
  // Closes a connection idle for idle_timeout: at once, or after a WebSocket's Close.
  void close_if_idle(Clock::time_point now);
  // Opens an answer in out_: reserves the head's gap (and room for the body); returns where
  // the answer starts; its body goes at out_.size().
  size_t open_answer(size_t body_hint);
  // Done with the request of `consumed` bytes: on to the next one.
  void next_request(size_t consumed);
  void read_input();
  // Room in in_ to read `want` bytes (lowered to what the request still lacks when the room
  // stops at its end, `request_end`; 0: unknown).
  char* prepare_read(size_t& want, size_t request_end);
  // Where in in_ the request being read ends: 0 until its head has given its length.
  size_t known_request_end() const noexcept;
  // The socket's low-water mark for the body still to come (see the definition).
  void update_low_water() noexcept;
  void process_input();
  void flush();
  void release_large_buffers();
  void begin_linger();
  // A plain HTTP request reached this TLS connection: answers 400 in plain HTTP saying so and
  // lingers (true), or false for any other failure.
  bool answer_plain_http_on_tls();
  void linger_read();
  void set_interest(uint32_t events);
  // Reports a failed TLS handshake to ServerOptions::error_log, with OpenSSL's reason.
  void log_tls_failure() noexcept;
  // Tells ServerOptions::error_log, if set, what describe() returns, the peer and the text
  // escaped. Never throws: out of memory, or a hook that throws, loses the line.
  template <class Describe>
  void log_error(Describe&& describe) noexcept;
  void log_message(const std::string& message) noexcept;
  // Gives back every buffer (the connection reads and sends no more from them).
  void drop_buffers() noexcept;
  void log_access(std::string_view method, int status, int32_t fault_code, size_t request_bytes,
                  size_t response_bytes, Clock::time_point started);
  // Where an answer's duration starts: the whole request, or now for an answer to none (a
  // 408, a refusal at the head).
  Clock::time_point answer_clock() const noexcept;
  // Brings the server-wide count of buffer memory up to date with this connection's buffers
  // (not job_out_ while a worker writes it).
  void account_buffers() noexcept;
  // Reading `more` bytes would grow what this connection holds (its receive buffer, or the
  // framing's copy of a packet) past the server's memory budget.
  bool over_budget(size_t more) const noexcept;
  // Part of a request has arrived and is not answered yet (in the receive buffer, or consumed
  // by the framing): the request clock runs.
  bool in_request() const noexcept { return request_start_ < in_.size() || framing_->in_request(); }
  // An answer of `bytes` is over one connection's share of the memory budget: tells the
  // error log (naming the limit) and true. The caller answers 500 instead.
  bool answer_over_share(size_t bytes, std::string_view method) {
    return bytes > answer_share_ && refuse_over_share(bytes, method);
  }
  bool refuse_over_share(size_t bytes, std::string_view method,
                         std::string_view outcome = "refused (500)");

  ServerLoop& loop_;
  net::Stream stream_;
  std::string peer_;
  Phase phase_ = Phase::Open;
  uint32_t interest_ = 0;

  Buffer in_;  // received bytes; the current request starts at request_start_
  size_t request_start_ = 0;
  size_t low_water_ = 1;                     // the socket's SO_RCVLOWAT, as update_low_water set it
  std::unique_ptr<RequestFraming> framing_;  // the parser and the heads
  ConnectionFraming framing_kind_;           // which, for the wire trace
  // A WebSocket handshake was answered 101: the framing changes once its request is done.
  bool upgrade_pending_ = false;
  Protocol upgrade_protocol_ = Protocol::JsonRpc;
  bool goodbye_said_ = false;  // the framing's last word before we close is queued
  // A WebSocket connection carrying JSON-RPC: how handlers' notifiers reach its peer.
  std::shared_ptr<WebSocketChannel> channel_;
  Clock::time_point heard_from_peer_{};  // the last read that brought bytes
  Clock::time_point ping_sent_{};        // a WebSocket ping unanswered since; zero: none
  HttpSession http_;                     // the HTTP rules: refusals, user, call setup, gzip
  // ServerOptions::trusted_proxies: the peer is one, and the current request came through it
  // for the client in forwarded_peer_.
  const bool from_trusted_proxy_;
  // The most one answer may be: a quarter of the memory budget, and never less than what one
  // connection may queue anyway (max_pending_output).
  const size_t answer_share_;
  bool forwarded_ = false;
  std::string forwarded_peer_;
  // Who the current call is from: the peer, or the client a trusted proxy named.
  std::string_view call_peer() const noexcept { return forwarded_ ? forwarded_peer_ : peer_; }
  std::string tls_subject_;  // the verified client certificate's subject (mutual TLS)
  bool tls_subject_read_ = false;
  Buffer chunked_body_;                          // a chunked request's decoded body
  Buffer inflated_body_;                         // a gzipped request's inflated body
  bool head_checked_ = false;                    // check_head ran for the current request
  bool served_any_ = false;                      // a request was answered on this connection
  Protocol answer_protocol_ = Protocol::XmlRpc;  // the current request's, for its answer

  Buffer out_;  // answers waiting to be sent, from out_sent_
  size_t out_sent_ = 0;
  AnswerStream stream_answer_{*this};
  bool close_after_write_ = false;

  // The request being answered, from the framing to its answer, whether the loop runs it or a
  // worker does (while busy_, the worker alone touches it).
  struct Call {
    std::string_view body;  // as received; inflated by run_call when gzipped
    Protocol protocol = Protocol::XmlRpc;
    Clock::time_point deadline;
    Clock::time_point started;  // when the request was whole (with an access log)
    bool gzipped = false;       // the body is gzip
    bool accept_gzip = false;   // the client takes a gzip answer
    size_t consumed = 0;        // bytes of the request in the receive buffer
    // What running it gave.
    int refusal = 0;              // the HTTP status refusing its gzip body instead of an answer
    bool failed = false;          // a worker ran out of memory: no answer, drop the connection
    bool no_answer = false;       // JSON-RPC notifications only: no body (204)
    bool cut_short = false;       // a streamed answer failed after part of it was sent
    bool answer_gzipped = false;  // a worker gzipped its answer
    int32_t fault_code = 0;
    std::string_view method;  // the dispatcher's, or method_copy after a worker
    std::string method_copy;
    size_t request_bytes = 0;   // the body as dispatched (after inflating)
    size_t response_bytes = 0;  // the answer's body before gzip
  };
  Call call_;
  bool busy_ = false;  // a worker is running call_
  Buffer job_out_;     // the worker's answer body
  // The last inline call's result, destroyed once its answer has gone to the socket: at the
  // end of the event that sent it (on_event), not before the send.
  DropAfterSend after_send_;
  // When the current request was whole (set only with an access log; zero when none was).
  Clock::time_point request_complete_{};
  // The current request's fields, as its framing holds them (valid until the next request).
  std::span<const HeaderField> headers_;

  Clock::time_point idle_since_;
  Clock::time_point request_started_;
  Clock::time_point write_progress_;  // the last write that sent bytes (or the first wait)
  Clock::time_point linger_until_;
  size_t linger_discarded_ = 0;
  size_t accounted_ = 0;         // this connection's share of ServerCore::buffer_memory
  size_t accounted_unsent_ = 0;  // ...and of ServerCore::unsent_memory (accounted_ or 0)
};

}  // namespace callwire::detail
