#include "server/connection.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <new>
#include <optional>

#include "base/log_text.hpp"
#include "callwire/json.hpp"
#include "http/gzip.hpp"
#include "http/response_writer.hpp"
#include "net/socket.hpp"
#include "server/forwarded.hpp"
#include "server/server_loop.hpp"
#include "trace/wire_trace.hpp"

namespace callwire::detail {

namespace {
// Read at least this much at a time.
constexpr size_t kReadChunk = 16 * 1024;
// After an error answer: read and discard what the client still sends, for at most this long
// and this much, so closing does not reset the connection before the client reads the answer.
constexpr std::chrono::milliseconds kLingerTime{2000};
constexpr size_t kLingerBytes = 256 * 1024;

const http::Header kRetryAfter{"Retry-After", "1"};

}  // namespace

Connection::Connection(ServerLoop& loop, net::Stream stream, std::string peer,
                       ConnectionFraming framing)
    : loop_(loop),
      stream_(std::move(stream)),
      peer_(std::move(peer)),
      framing_(make_framing(framing, loop.core().request_limits)),
      // A WebSocket listener's connections speak HTTP until they upgrade.
      framing_kind_(framing == ConnectionFraming::WebSocket ? ConnectionFraming::Http : framing),
      http_(loop.core().options, loop.core().www_authenticate,
            framing_kind_ == ConnectionFraming::Http, framing == ConnectionFraming::WebSocket),
      from_trusted_proxy_(is_trusted_proxy(peer_, loop.core().trusted_proxies)),
      answer_share_(std::max(loop.core().options.max_buffer_memory / 4,
                             loop.core().options.max_pending_output)) {
  idle_since_ = request_started_ = heard_from_peer_ = loop_.now();
}

Connection::Clock::time_point Connection::answer_clock() const noexcept {
  return request_complete_ == Clock::time_point{} ? Clock::now() : request_complete_;
}

Connection::~Connection() {
  if (channel_) channel_->detach();
  loop_.core().buffer_memory.fetch_sub(accounted_);
  loop_.core().unsent_memory.fetch_sub(accounted_unsent_);
}

namespace {
// Moves a server-wide count from what this connection last accounted to what it holds now.
void move_count(std::atomic<size_t>& count, size_t& accounted, size_t now) noexcept {
  if (now > accounted)
    count.fetch_add(now - accounted);
  else if (now < accounted)
    count.fetch_sub(accounted - now);
  accounted = now;
}
}  // namespace

void Connection::account_buffers() noexcept {
  // Every buffer the connection owns, the framing's copies included. While a worker runs, it
  // may be growing inflated_body_ and job_out_: they are counted when it is done.
  size_t now = in_.capacity() + out_.capacity() + chunked_body_.capacity() +
               framing_->held_bytes() +
               (busy_ ? 0 : inflated_body_.capacity() + job_out_.capacity());
  move_count(loop_.core().buffer_memory, accounted_, now);
  // All of it goes if the connection is shed for its unsent answers.
  move_count(loop_.core().unsent_memory, accounted_unsent_, unsent_bytes() ? now : 0);
  if (channel_) channel_->note_unsent(unsent_bytes());
}

bool Connection::over_budget(size_t more) const noexcept {
  // No growth: the receive buffer has room, and the framing copies nothing of what is read.
  if (in_.capacity() - in_.size() >= more && !framing_->copies_input()) return false;
  return loop_.core().buffer_memory.load(std::memory_order_relaxed) + more >
         loop_.core().options.max_buffer_memory;
}

template <class Describe>
void Connection::log_error(Describe&& describe) noexcept {
  const auto& log = loop_.core().options.error_log;
  if (!log) return;
  try {
    // The peer (a gateway's REMOTE_ADDR) and what the message quotes (a method name, an
    // OpenSSL reason) may be a peer's choice: escaped, as the hook is promised.
    std::string message = describe(), peer, text;
    ErrorLogEntry e;
    e.peer = base::log_text(peer_, peer, base::LogField::Word);
    e.message = base::log_text(message, text, base::LogField::Text);
    log(e);
  } catch (...) {  // out of memory, or a hook that throws: the line is lost, nothing else
  }
}

void Connection::log_message(const std::string& message) noexcept {
  log_error([&] { return message; });
}

void Connection::drop_buffers() noexcept {
  in_ = Buffer();
  out_ = Buffer();
  chunked_body_ = Buffer();
  inflated_body_ = Buffer();
  job_out_ = Buffer();
  framing_->release_storage();
  request_start_ = 0;
  out_sent_ = 0;
}

void Connection::shed() noexcept {
  if (busy_ || phase_ == Phase::Closed) return;
  log_error([&] {
    return "shed: " + std::to_string(unsent_bytes()) +
           " bytes of answers unread while the buffers of all connections are over "
           "max_buffer_memory (" +
           std::to_string(loop_.core().options.max_buffer_memory) + ")";
  });
  loop_.core().connections_shed.fetch_add(1, std::memory_order_relaxed);
  close();
  // Not busy: nothing else reads these; their memory counts for newcomers at once.
  framing_->reset();  // out of a packet, so that its copy can go too
  drop_buffers();
  account_buffers();
}

bool Connection::refuse_over_share(size_t bytes, std::string_view method,
                                   std::string_view outcome) {
  log_error([&] {
    std::string message = "answer of " + std::to_string(bytes) + " bytes";
    if (!method.empty()) message += " to " + std::string(method);
    return message + " " + std::string(outcome) + ": one connection may hold at most " +
           std::to_string(answer_share_) +
           " bytes of answers (a quarter of max_buffer_memory, at least max_pending_output)";
  });
  return true;
}

bool Connection::start() {
  interest_ = net::kReadable;
  return loop_.events().add(stream_.fd(), interest_, this);
}

void Connection::set_interest(uint32_t events) {
  if (events == interest_ || phase_ == Phase::Closed) return;
  interest_ = events;
  loop_.events().modify(stream_.fd(), events, this);
}

void Connection::close() {
  if (phase_ == Phase::Closed) return;
  phase_ = Phase::Closed;
  if (channel_) channel_->detach();  // notifiers fail from now on
  loop_.events().remove(stream_.fd());
  log_tls_failure();
  stream_ = net::Stream();  // closes the socket
  if (!busy_) loop_.destroy(this);
}

void Connection::log_tls_failure() noexcept {
  // A handshake that failed is the one refusal the peer hears no HTTP status for (an
  // untrusted or expired client certificate, no shared version or cipher): the operator is
  // told instead. A peer that just went away during it is no news.
  if (!stream_.is_tls() || stream_.handshake_done() || !stream_.error().starts_with("TLS: "))
    return;
  loop_.count_tls_failure();
  log_error([&] { return "TLS handshake failed: " + stream_.error().substr(5); });
}

void Connection::on_event(uint32_t events) {
  if (phase_ == Phase::Closed) return;  // closed earlier in this batch
  try {
    handle_event(events);
  } catch (const std::bad_alloc&) {
    // Out of memory while reading, parsing or answering this peer: drop this connection,
    // keep serving the others (close() allocates nothing).
    close();
  }
  after_send_.drop();  // the answers this event made have been written (or queued: stalled)
  account_buffers();
}

void Connection::handle_event(uint32_t events) {
  if (phase_ == Phase::Lingering) {
    linger_read();
    return;
  }
  if (events & net::kError) {
    close();
    return;
  }
  if (busy_) {
    // Only earlier answers still being sent are watched while a worker runs the call, but a
    // hang-up is reported anyway (and again and again: level-triggered). The answer has
    // nowhere to go: close now; the loop deletes the connection when the worker is done.
    if (events & net::kHangup)
      close();
    else if (events & net::kWritable)
      flush();
    return;
  }
  if (events & net::kWritable) {
    flush();
    if (phase_ == Phase::Closed) return;
  }
  if ((events & (net::kReadable | net::kHangup)) && (interest_ & net::kReadable)) read_input();
}

void Connection::read_input() {
  bool body_known = false;  // a long body's low-water mark may be due (update_low_water)
  for (;;) {
    size_t want = kReadChunk;
    // A known body: read more of it at once, growing with what has arrived (never reserving
    // a declared length that may be a lie), and at least what woke this read (the low-water
    // mark: those bytes are queued).
    const size_t request_end = known_request_end();
    if (request_end > in_.size()) {
      body_known = true;
      size_t rest = request_end - in_.size();
      want = std::max({want, std::min(rest, in_.size()), std::min(rest, low_water_)});
    }
    const bool mid_request = in_request();
    if (mid_request && over_budget(want) && (!loop_.shed_unsent(this) || over_budget(want))) {
      // The server's buffers are spent, and shedding a peer that does not read its answers
      // freed too little: refuse this request rather than grow for it. (A connection between
      // requests still reads the next one into the room it has, or a first small buffer.)
      respond_error(503);
      break;
    }
    // A request's clock starts at its first byte; bytes that carry none (a packet-stream NOP,
    // a blank JSON line) are consumed before the next read and start nothing that lasts.
    const bool request_begins = !mid_request && !busy_;
    // The JSON reader's padding stays spare after what is read: a body that ends the input
    // is read in place (see room_after_body).
    char* dst = prepare_read(want, request_end);
    net::IoResult r = stream_.read(dst, want);
    if (r.status == net::IoStatus::Ok) {
      if (request_begins) request_started_ = loop_.now();
      heard_from_peer_ = loop_.now();
      ping_sent_ = {};  // whatever came answers a ping sent before it
      in_.commit(r.n);
      loop_.count_received(r.n);
      if (stream_.has_buffered_input()) continue;
      break;
    }
    if (r.status == net::IoStatus::WantRead) break;
    if (r.status == net::IoStatus::WantWrite) {  // TLS needs to write before it can read
      set_interest(net::kWritable);
      return;
    }
    // Eof or error: a half-sent request is dropped; answers still queued have nowhere to go.
    if (answer_plain_http_on_tls()) return;
    close();
    return;
  }
  process_input();
  if (phase_ == Phase::Open) flush();
  // (A short request, read whole, skips it: a head read with the start of a long body sets
  // the mark on the next read.)
  if (phase_ == Phase::Open && (body_known || low_water_ != 1)) update_low_water();
}

size_t Connection::known_request_end() const noexcept {
  if (!framing_->headers_complete() || !framing_->request().content_length) return 0;
  const http::Request& request = framing_->request();
  return request_start_ + request.body_offset +
         static_cast<size_t>(std::min<uint64_t>(*request.content_length, SIZE_MAX / 2));
}

void Connection::update_low_water() noexcept {
  // Reads woken only once a low-water mark of bytes is queued (net::set_receive_low_water):
  // a long body then arrives in a few large reads, each one wake-up, instead of one per burst
  // of segments (a 1 MiB upload: 12 wake-ups, 6 with the mark, and 11% less CPU). At most
  // 256 KiB: with 512 the copies out of the socket waited longer for the client's, and a 1 MiB
  // upload took 5% more time. Never past the body's end, so that its last bytes wake the
  // read; 1 again once it is in, for the next request.
  // Not over TLS: OpenSSL may hold bytes of the body already, which the socket never shows.
  constexpr size_t kFrom = 64 * 1024, kMost = 256 * 1024;
  const size_t end = known_request_end();
  size_t mark = 1;
  if (end > in_.size() && end - in_.size() >= kFrom && !stream_.is_tls())
    mark = std::min(end - in_.size(), kMost);
  if (mark != low_water_ && net::set_receive_low_water(stream_.fd(), mark)) low_water_ = mark;
}

char* Connection::prepare_read(size_t& want, size_t request_end) {
  const size_t room = in_.size() + want + json::kPadding;
  // Growing past a request's known end, stop there (and the padding): its bytes would
  // otherwise grow the buffer ×1.5 past them, a 22 MB body into 27 MB of fresh pages, more
  // than the thread's page cache keeps for the next one. The rest of the input (a pipelined
  // request) is read into the room left after this one is done.
  if (room > in_.capacity() && request_end > in_.size()) {
    const size_t exact = request_end + json::kPadding;
    if (in_.next_capacity(room) >= exact) {
      in_.reserve_exact(exact);
      want = std::min(want, request_end - in_.size());
    }
  }
  return in_.prepare(want + json::kPadding);
}

void Connection::process_input() {
  while (!busy_ && !close_after_write_ && phase_ == Phase::Open &&
         out_.size() - out_sent_ < loop_.core().options.max_pending_output &&
         request_start_ < in_.size()) {
    std::string_view input = in_.view().substr(request_start_);
    http::ParseResult r = framing_->parse(input, chunked_body_);
    const size_t said_from = out_.size();
    if (!framing_->own_output().empty()) queue_own_output();
    if (r.status == http::ParseStatus::Error) {
      if (!framing_->answers_own_refusals()) {
        respond_error(r.http_status);
      } else {  // its last word is queued (a fault packet, an error line, a Close)
        close_after_write_ = true;
        if (r.http_status) {
          answered(said_from, r.http_status);
          if (loop_.core().options.access_log)
            log_access({}, r.http_status, 0, 0, out_.size() - said_from, answer_clock());
        }
      }
      break;
    }
    if (r.status == http::ParseStatus::Incomplete) {
      if (r.consumed) {
        // What the framing is done with (a packet's escapes, a blank line): drop it and look
        // again, since more may be whole behind it.
        request_start_ += r.consumed;
        continue;
      }
      if (framing_->headers_complete() && !head_checked_) {
        // Refused on its head alone: answer now, never read the body.
        if (refused_on_head(framing_->request())) break;
        if (framing_->request().expect_continue) out_.append(http::kContinueResponse);
      }
      break;
    }
    call_.consumed = r.consumed;
    handle_request();
    if (busy_) return;  // job_done() carries on from here
    next_request(call_.consumed);
  }
  if (busy_) return;
  // Keep the unconsumed start of the next request at the front of the buffer.
  in_.drop_front(request_start_);
  request_start_ = 0;
}

bool Connection::refused_on_head(const http::Request& request) {
  head_checked_ = true;
  // The server-wide flag, not the loop's view of it: stop() makes health checks fail at once.
  HttpSession::Refusal refusal =
      http_.check_head(request, loop_.core().stopping.load(std::memory_order_relaxed));
  if (refusal.upgrade) {
    const size_t start = out_.size();
    static_cast<void>(http::append_switching_protocols(out_, refusal.fields));  // ours: valid
    answered(start, 101);
    if (loop_.core().options.access_log) log_access({}, 101, 0, 0, 0, answer_clock());
    upgrade_pending_ = true;
    upgrade_protocol_ = refusal.protocol;
    http_.upgraded();
    return true;
  }
  if (refusal.metrics)
    respond_text(refusal.status, loop_.core().metrics_text(), refusal.fields);
  else if (!refusal.body.empty())
    respond_text(refusal.status, refusal.body, refusal.fields);
  else if (refusal.status)
    respond_error(refusal.status, refusal.fields);
  return refusal.status != 0;
}

size_t Connection::open_answer(size_t body_hint) {
  size_t start = out_.size();
  const size_t room = loop_.core().head_room;
  out_.prepare(room + body_hint);
  out_.commit(room);
  return start;
}

void Connection::queue_own_output() {
  Buffer& said = framing_->own_output();
  out_.append(said.view());
  said.clear();
}

void Connection::next_request(size_t consumed) {
  request_start_ += consumed;
  framing_->reset();
  if (upgrade_pending_) {  // the bytes after the handshake are WebSocket frames
    upgrade_pending_ = false;
    const ServerOptions& options = loop_.core().options;
    framing_ = make_websocket_framing(
        options.websocket.max_message ? options.websocket.max_message : options.max_body,
        upgrade_protocol_);
    framing_kind_ = ConnectionFraming::WebSocket;
    if (upgrade_protocol_ == Protocol::JsonRpc)  // notifications are JSON-RPC's
      channel_ =
          std::make_shared<WebSocketChannel>(loop_.events(), *this, options.max_pending_output);
  }
  chunked_body_.clear();
  inflated_body_.clear();
  head_checked_ = false;
  served_any_ = true;
  // A whole request stops the clocks: the idle one, and the request one of what follows it
  // (a pipelined request already here starts no earlier than now).
  idle_since_ = request_started_ = loop_.now();
}

void Connection::handle_request() {
  const http::Request& request = framing_->request();
  // The access log's clock starts at the whole request, for its answer whatever it is (the
  // loop's cached clock would make a sawtooth of up to a tick).
  if (loop_.core().options.access_log) request_complete_ = Clock::now();
  if (loop_.core().trace) trace_request(request);
  if (framing_->transport().carries_fields && !head_checked_ && refused_on_head(request)) return;
  // Behind a gateway (SCGI), the client and the user it authenticated are the gateway's to
  // tell; a user our own authentication accepted stays.
  if (std::string gateway = framing_->gateway_peer(); !gateway.empty()) peer_ = std::move(gateway);
  // Through a trusted proxy, the call is the client's it names (each request may be another
  // client's on a proxy's kept-alive connection).
  forwarded_ = false;
  if (from_trusted_proxy_ && framing_->transport().carries_fields)
    if (std::string_view client = forwarded_client(request, loop_.core().trusted_proxies);
        !client.empty()) {
      forwarded_peer_.assign(client);
      forwarded_ = true;
    }
  http_.take_gateway_user(framing_->gateway_user());
  // The handshake is over by the first request: the client's certificate, once.
  if (!tls_subject_read_ && stream_.is_tls()) {
    tls_subject_ = stream_.verified_peer_subject();
    tls_subject_read_ = true;
  }
  // Inflating a gzip body is the most work a small request can cause (a bomb of 256 KB
  // inflates max_body): a worker does it when there are workers, else the loop (run_call).
  HttpSession::CallSetup setup =
      http_.setup_call(request, framing_->fixed_protocol(), loop_.stopping());
  headers_ = request.headers;
  if (!setup.keep_alive) close_after_write_ = true;
  answer_protocol_ = setup.protocol;
  call_.body = request.body;
  call_.protocol = setup.protocol;
  call_.deadline = setup.deadline;  // time in a worker's queue counts
  call_.started = request_complete_;
  call_.gzipped = request.content_encoding_gzip;
  call_.accept_gzip = request.accept_gzip;

  if (WorkerPool* pool = loop_.core().pool.get()) {
    // The worker reads the request where it lies (in_ does not change while busy_), inflates
    // it into inflated_body_ if gzipped, and writes its answer's body to job_out_; the loop
    // adds the head when it comes back (job_done).
    busy_ = true;
    set_interest(0);
    job_out_.clear();
    pool->submit([this](Dispatcher& dispatcher) noexcept {
      // The result is destroyed on this thread once the loop has the answer to send (after
      // job_finished, when this connection is the loop's again and not to be touched).
      DropAfterSend after_send;
      // Nothing may escape a worker thread: out of memory here drops this connection (on the
      // loop), as it would inline.
      call_.failed = false;
      call_.answer_gzipped = false;
      try {
        run_call(dispatcher, job_out_, after_send);
        call_.method_copy.assign(call_.method);  // the dispatcher's view ends with this job
        call_.method = call_.method_copy;
        // Compressing is work of the same order as the call: the worker does it too.
        Buffer z;
        if (!call_.refusal && http_.gzip_answer(call_.accept_gzip, job_out_.view(), z)) {
          job_out_ = std::move(z);
          call_.answer_gzipped = true;
        }
      } catch (...) {  // std::bad_alloc: nothing else escapes handle()
        call_.failed = true;
      }
      loop_.job_finished(this);
    });
    return;
  }
  size_t start = open_answer(512);
  size_t body_start = out_.size();
  const StreamMode mode = stream_mode(request, start);
  const bool stream = mode != StreamMode::Whole;
  if (stream) stream_answer_.arm(start, body_start, mode == StreamMode::Chunked);
  run_call(loop_.dispatcher(), out_, after_send_, stream ? &stream_answer_ : nullptr);
  if (stream_answer_.started()) {
    stream_answer_.finish();
    return;
  }
  stream_answer_.disarm();
  if (call_.refusal) {  // the gzip body
    out_.truncate(start);
    respond_error(call_.refusal);
    return;
  }
  answer_call(start, body_start, BodyCoding::GzipIfAccepted, nullptr);
}

[[gnu::always_inline]] inline void Connection::run_call(Dispatcher& dispatcher, Buffer& out,
                                                        DropAfterSend& after_send,
                                                        AnswerProgress* progress) {
  call_.refusal = 0;
  if (call_.gzipped) {
    if ((call_.refusal = inflate_body(call_.body))) return;
    call_.body = inflated_body_.view();
  }
  call_.request_bytes = call_.body.size();
  CallContext context(call_peer(), http_.user(), headers_);
  CallContextAccess::set_tls_subject(context, tls_subject_);
  CallContextAccess::set_deadline(context, call_.deadline);
  CallContextAccess::set_notify_channel(context, channel_.get());
  CallContextAccess::set_after_send(context, &after_send);
  const size_t body_start = out.size();
  DispatchOutcome outcome = dispatcher.handle(call_.protocol, call_.body, context, out,
                                              room_after_body(call_.body), progress);
  call_.fault_code = outcome.is_fault ? outcome.fault_code : 0;
  call_.cut_short = outcome.cut_short;
  call_.no_answer = outcome.no_answer;
  call_.method = outcome.method;
  call_.response_bytes = out.size() - body_start;
}

[[gnu::always_inline]] inline void Connection::answer_call(size_t start, size_t body_start,
                                                           BodyCoding coding, Buffer* worker_out) {
  if (call_.fault_code == fault_code::kParseError) loop_.count_parse_error();
  if (answer_over_share(call_.response_bytes, call_.method)) {
    if (worker_out)
      *worker_out = Buffer();  // its megabytes go now
    else
      out_.truncate(start);
    respond_error(500);
    return;
  }
  if (worker_out) {  // laid out like an inline answer: the head's gap, then the body
    start = open_answer(worker_out->size());
    body_start = out_.size();
    out_.append(worker_out->view());
  }
  int status = finish_response(start, body_start, coding, !close_after_write_, call_.no_answer);
  if (loop_.core().options.access_log)
    log_access(call_.method, status, call_.fault_code, call_.request_bytes, call_.response_bytes,
               call_.started);
}

size_t Connection::room_after_body(std::string_view body) const noexcept {
  return std::max(
      {in_.room_after(body), chunked_body_.room_after(body), inflated_body_.room_after(body)});
}

int Connection::inflate_body(std::string_view gzipped) {
  inflated_body_.clear();
  // Within max_body, and within what is left of the server's buffer budget.
  const ServerOptions& options = loop_.core().options;
  size_t used = loop_.core().buffer_memory.load(std::memory_order_relaxed);
  size_t room = used < options.max_buffer_memory ? options.max_buffer_memory - used : 0;
  size_t limit = std::min(options.max_body, room);
  http::InflateStatus s = http::gzip_inflate(gzipped, inflated_body_, limit);
  if (s == http::InflateStatus::Ok) return 0;
  inflated_body_ = Buffer();  // a bomb's megabytes go now, not after the answer
  if (s == http::InflateStatus::OverLimit) return limit < options.max_body ? 503 : 413;
  return 400;
}

int Connection::finish_response(size_t start, size_t body_start, BodyCoding coding, bool keep_alive,
                                bool no_answer) {
  Buffer& out = out_;
  bool gzipped = coding == BodyCoding::Gzipped;
  if (coding == BodyCoding::GzipIfAccepted) {
    Buffer& z = loop_.scratch();
    if (http_.gzip_answer(framing_->request().accept_gzip, out.view().substr(body_start), z)) {
      out.truncate(body_start);
      out.append(z.view());
      gzipped = true;
    }
  }
  http::ResponseHead h;
  if (no_answer) {
    // JSON-RPC notifications only: nothing to say, and HTTP has a status for that.
    h.status = 204;
    h.content_type = {};
  } else {
    h.content_type = answer_content_type(answer_protocol_);
  }
  h.gzip = gzipped;
  h.close = !keep_alive;
  h.date = loop_.http_date();
  h.extra = http_.cors_fields();
  // The head fits the gap: no content type or extra field of ours is long.
  size_t head_start = framing_->place_head(out, body_start, h);
  if (start == out_sent_) {
    out_sent_ = head_start;  // nothing queued before: send from the head, in place
    start = head_start;
  } else {
    size_t n = out.size() - head_start;
    std::memmove(out.data() + start, out.data() + head_start, n);
    out.truncate(start + n);
  }
  answered(start, h.status);
  return h.status;
}

void Connection::answered(size_t start, int status) {
  if (loop_.core().trace) trace_answer(start);
  loop_.count_answer(status);
}

void Connection::trace_request(const http::Request& request) const {
  std::string head;
  if (framing_->transport().carries_fields) head = trace::request_head(request);
  Buffer inflated;
  std::string_view body = trace::shown_body(request.body, request.content_encoding_gzip,
                                            loop_.core().options.max_body, inflated);
  trace::emit(loop_.core().trace, TraceKind::ServerRequest, call_peer(), head, body);
}

void Connection::trace_answer(size_t from) const {
  trace::Shown shown;
  trace::show_sent(framing_kind_, out_.view().substr(from), loop_.core().options.max_body, shown);
  trace::emit(loop_.core().trace, TraceKind::ServerAnswer, call_peer(), shown.head, shown.body);
}

void Connection::send_notifications(std::string_view frames) noexcept {
  if (phase_ != Phase::Open || close_after_write_) return;  // closing: too late for them
  try {
    out_.append(frames);
    flush();
  } catch (const std::bad_alloc&) {
    close();
  }
  account_buffers();
}

void Connection::resume_after_job() noexcept {
  try {
    job_done();
  } catch (const std::bad_alloc&) {
    close();  // not busy any more: close() destroys
  }
  after_send_.drop();  // as after an event: what an inline call kept (none with workers)
  // Also after a close: a closed connection is deleted only when the loop reaps, after this
  // batch, and its destructor gives back what this accounts.
  account_buffers();
}

void Connection::job_done() {
  busy_ = false;
  if (phase_ == Phase::Closed) {
    loop_.destroy(this);
    return;
  }
  if (call_.failed) {
    close();
    return;
  }
  if (call_.refusal) {  // the worker refused the gzip body
    respond_error(call_.refusal);
    flush();
    return;
  }
  answer_call(0, 0, call_.answer_gzipped ? BodyCoding::Gzipped : BodyCoding::Plain, &job_out_);
  next_request(call_.consumed);
  set_interest(net::kReadable);
  process_input();
  flush();
}

void Connection::respond_error(int status, std::span<const http::Header> extra) {
  // After an error the connection closes: what follows on it may be a body never read.
  close_after_write_ = true;
  const size_t start = out_.size();
  if (status == 503 && extra.empty()) extra = {&kRetryAfter, 1};  // a busy server: come back
  std::span<const http::Header> cors = http_.cors_fields();
  if (!cors.empty()) {  // a browser may read the error only with the origin allowed
    std::array<http::Header, 6> all{};
    size_t n = std::min(extra.size(), all.size() - 1);
    std::copy_n(extra.begin(), n, all.begin());
    all[n++] = cors[0];
    framing_->append_error(out_, status, {all.data(), n}, loop_.http_date());
  } else {
    framing_->append_error(out_, status, extra, loop_.http_date());
  }
  answered(start, status);
  if (loop_.core().options.access_log) log_access({}, status, 0, 0, 0, answer_clock());
}

void Connection::respond_text(int status, std::string_view body,
                              std::span<const http::Header> extra) {
  close_after_write_ = true;  // as after an error: a body it may have sent is never read
  const size_t start = out_.size();
  std::array<http::Header, 6> all{};
  size_t n = std::min(extra.size(), all.size() - 1);
  std::copy_n(extra.begin(), n, all.begin());
  if (std::span<const http::Header> cors = http_.cors_fields(); !cors.empty()) all[n++] = cors[0];
  // The session's own fields: valid, so the answer is always appended.
  static_cast<void>(
      http::append_text_response(out_, status, body, {all.data(), n}, loop_.http_date()));
  answered(start, status);
  if (loop_.core().options.access_log) log_access({}, status, 0, 0, body.size(), answer_clock());
}

void Connection::flush() {
  bool progressed = false;
  while (out_sent_ < out_.size()) {
    net::IoResult r = stream_.write(out_.data() + out_sent_, out_.size() - out_sent_);
    if (r.status == net::IoStatus::Ok) {
      out_sent_ += r.n;
      loop_.count_sent(r.n);
      progressed = true;
      continue;
    }
    if (r.status == net::IoStatus::WantWrite || r.status == net::IoStatus::WantRead) {
      // write_timeout measures a peer that stops reading: every write that sends bytes
      // restarts it, however long the answer.
      if (progressed || !(interest_ & net::kWritable)) write_progress_ = loop_.now();
      set_interest(r.status == net::IoStatus::WantWrite ? net::kWritable : net::kReadable);
      return;
    }
    close();
    return;
  }
  out_.clear();
  out_sent_ = 0;
  if (busy_) {
    // A worker is still answering the current request: its buffers (in_, the decoded
    // chunked or inflated body) stay as they are, and a closing connection waits for that
    // answer before it lingers. job_done() flushes again.
    set_interest(0);
    return;
  }
  if (close_after_write_) {
    if (!goodbye_said_) {  // the framing's last word first (a WebSocket Close), if it has one
      goodbye_said_ = true;
      framing_->append_goodbye(out_);
      if (!out_.empty()) {
        flush();
        return;
      }
    }
    begin_linger();
    return;
  }
  release_large_buffers();
  set_interest(net::kReadable);
  // Requests left waiting while output was pending.
  if (request_start_ < in_.size() && (interest_ & net::kReadable)) {
    process_input();
    if (out_sent_ < out_.size()) flush();
  }
}

void Connection::release_large_buffers() {
  // After a large request or answer, an idle keep-alive connection should not pin megabytes.
  // Only empty buffers go: one that holds part of a request (a chunked body still arriving)
  // belongs to that request. Never while a worker runs: it reads the request and writes
  // job_out_.
  if (busy_) return;
  constexpr size_t kKeep = 256 * 1024;
  auto release = [](Buffer& b) {
    if (b.capacity() > kKeep && b.empty()) b = Buffer();
  };
  release(in_);
  release(out_);
  release(chunked_body_);
  release(inflated_body_);
  job_out_.clear();
  release(job_out_);
  if (framing_->held_bytes() > kKeep) framing_->release_storage();  // between packets only
}

bool Connection::answer_plain_http_on_tls() {
  // http:// to an https:// server fails the handshake on the request's first bytes, and
  // OpenSSL sends no alert for it (SSL_R_HTTP_REQUEST): the socket is clean, so the client is
  // told in plain HTTP what went wrong (as nginx does) instead of a connection closed without
  // a word.
  if (!stream_.is_tls() || stream_.handshake_done()) return false;
  std::string_view first = stream_.first_bytes();
  if (!(first.starts_with("POST ") || first.starts_with("GET ") || first.starts_with("HEAD ") ||
        first.starts_with("PUT ")))
    return false;
  static constexpr std::string_view kAnswer =
      "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 66\r\n"
      "Connection: close\r\n\r\n"
      "400 Bad Request: a plain HTTP request to a TLS port; use https://\n";
  static_assert(kAnswer.size() - kAnswer.find("\r\n\r\n") - 4 == 66);
  net::send_now(stream_.fd(), kAnswer);  // best effort: the linger gives it time to arrive
  close_after_write_ = true;
  begin_linger();  // so that the request's unread rest does not reset the answer away
  return true;
}

void Connection::begin_linger() {
  // Nothing more is read into or sent from the buffers: a connection refused for a large
  // request (413, 503, a bomb) must not hold its megabytes through the linger.
  drop_buffers();
  stream_.close_sending();
  phase_ = Phase::Lingering;
  linger_until_ = loop_.now() + kLingerTime;
  set_interest(net::kReadable);
  linger_read();
}

void Connection::linger_read() {
  if (net::drain_input(stream_.fd(), kLingerBytes, linger_discarded_) == net::Drain::Done) close();
}

void Connection::sweep(Clock::time_point now) {
  if (busy_ || phase_ == Phase::Closed) return;
  const ServerOptions& options = loop_.core().options;
  if (phase_ == Phase::Lingering) {
    if (now >= linger_until_) close();
    return;
  }
  if (out_sent_ < out_.size()) {
    if (now - write_progress_ >= options.write_timeout) close();
    return;
  }
  // A request in progress runs from its first byte to its last. Between requests the time
  // runs from the last whole request (or from the connection's start): what carries no
  // request (a NOP, a blank line, a TLS handshake that stalls) does not make a connection
  // less idle, and one that never completed a request has request_timeout to do so.
  const bool in_progress = in_request();
  if (framing_kind_ == ConnectionFraming::WebSocket && !in_progress) {
    sweep_websocket(now);
    return;
  }
  if (in_progress || !served_any_) {
    if (now - (in_progress ? request_started_ : idle_since_) >= options.request_timeout) {
      respond_error(408);
      flush();
    }
    return;
  }
  close_if_idle(now);
}

void Connection::close_if_idle(Clock::time_point now) {
  if (now - idle_since_ < loop_.core().options.idle_timeout) return;
  if (framing_kind_ != ConnectionFraming::WebSocket) return close();
  close_after_write_ = true;
  flush();  // says goodbye (a Close), then lingers
}

void Connection::sweep_websocket(Clock::time_point now) {
  const std::chrono::milliseconds interval = loop_.core().options.websocket.ping_interval;
  if (interval.count() <= 0) return close_if_idle(now);  // no pings: idle as HTTP is
  if (ping_sent_ == Clock::time_point{}) {
    if (now - heard_from_peer_ < interval) return;
    ping_sent_ = now;
    framing_->append_ping(out_);
    flush();
    return;
  }
  if (now - ping_sent_ >= interval) {
    close_after_write_ = true;
    flush();
  }
}

void Connection::on_stop() {
  if (phase_ != Phase::Open) return;
  // A request partly received is read to its end and answered, with "Connection: close"
  // (handle_request closes after every answer while stopping); past stop_grace the loop
  // closes the connection anyway.
  if (!busy_ && request_start_ < in_.size()) return;
  // With a health path the listeners accept through the grace; a connection accepted just
  // before the stop, its first request still on the way (a health check, a call), is served as
  // those accepted after it are (each answer closing it), not closed unanswered.
  if (!busy_ && !served_any_ && !loop_.core().options.health_path.empty()) return;
  // Also when a worker is running the call (busy_): job_done() then answers with
  // "Connection: close" and closes, instead of keeping an idle connection open until the
  // stop grace runs out.
  close_after_write_ = true;
  if (!busy_ && out_sent_ == out_.size() && request_start_ == in_.size()) {
    if (framing_kind_ == ConnectionFraming::WebSocket)
      flush();  // a Close first (going away), then the lingering close
    else
      close();
  }
}

void Connection::log_access(std::string_view method, int status, int32_t fault_code,
                            size_t request_bytes, size_t response_bytes,
                            Clock::time_point started) {
  // Every text a peer chose (the method, an address from SCGI or X-Forwarded-For, a user
  // name), escaped: no hook can be made to print a forged line or a terminal escape.
  std::string peer, user, name;
  AccessLogEntry e;
  e.peer = base::log_text(call_peer(), peer, base::LogField::Word);
  e.user = base::log_text(http_.user(), user, base::LogField::Word);
  e.method = base::log_text(method, name, base::LogField::Word);
  e.http_status = status;
  e.fault_code = fault_code;
  e.request_bytes = request_bytes;
  e.response_bytes = response_bytes;
  e.duration = Clock::now() - started;
  e.time = std::chrono::system_clock::now();
  loop_.core().options.access_log(e);
}

}  // namespace callwire::detail
