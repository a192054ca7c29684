#include "client/client_connection.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/transports.hpp"
#include "client/answer_reader.hpp"
#include "client/proxy.hpp"
#include "client/url.hpp"
#include "http/gzip.hpp"
#include "net/socket.hpp"
#include "trace/wire_trace.hpp"

namespace callwire::detail {

namespace {

constexpr size_t kReadChunk = 16 * 1024;

}  // namespace

ClientConnection::ClientConnection(const ClientSettings& settings)
    : settings_(settings),
      upgraded_(settings.framing->transport().http_upgrade),
      parser_(settings.framing->make_answer_parser(settings.response_limits)),
      answers_(
          make_answer_reader(settings.protocol, settings.reader_limits, settings.json_limits)) {}

ClientConnection::~ClientConnection() {
  if (stream_.fd() < 0 || state_ != State::Done || !reusable_ || settings_.adopted_fd) return;
  Buffer goodbye;
  settings_.framing->append_goodbye(goodbye);
  if (goodbye.empty()) return;
  if (blocking_) net::set_blocking(stream_.fd(), false);  // never waits
  stream_.set_blocking_deadline(std::nullopt);
  stream_.write(goodbye.data(), goodbye.size());
}

void ClientConnection::begin(size_t offset, std::optional<Clock::time_point> blocking_until) {
  blocking_until_ = blocking_until;
  sent_ = offset;
  received_ = false;
  chunked_body_.clear();
  if (body_arrived_) answers_->answer_begins();  // a call that ended with its answer half read
  body_arrived_ = false;
  read_already_.reset();
  reusable_ = false;
  stale_ = false;
  result_ = Value();
  retired_ = net::Stream();  // whoever watched it has let it go by now
  if (head_out_) *head_out_ = HttpHead();
  // JSON lines: an idle connection that has closed, or holds a line nobody asked for, would
  // swallow a notification without a word (none is answered) or misanswer a call: a fresh
  // connection takes the request instead (an adopted one cannot be replaced: it is used).
  if (stream_.fd() >= 0 && settings_.framing->transport().checked_before_reuse &&
      !settings_.adopted_fd && net::peek_idle(stream_.fd()) != net::IdleState::Quiet) {
    net::shutdown_both(stream_.fd());  // the server sees the end now; the number stays ours
    retired_ = std::move(stream_);
  }
  if (stream_.fd() >= 0) {
    in_.clear();  // a parser that reads ahead (WebSocket's) took every byte already
    parser_->reset();
    used_before_ = true;
    state_ = State::Sending;
    apply_blocking_mode();
    return;
  }
  in_.clear();
  parser_->reset_stream();
  used_before_ = false;
  blocking_ = false;  // a new socket starts non-blocking (the connect is polled)
  socket_timeout_ = {};
  next_address_ = 0;
  lookup_.reset();
  state_ = State::Connecting;
  if (!resolved_) start_resolving();
  resolved_ = false;  // consumed: the next new connection resolves again
}

Result<net::UniqueFd> take_adopted(std::atomic<int>& fd) {
  int taken = fd.exchange(-1);
  if (taken < 0)
    return Error(Errc::ConnectionClosed,
                 "the connection this client was given is in use by another call, or closed");
  return net::UniqueFd(taken);
}

net::UniqueFd ClientConnection::release_adopted() noexcept {
  if (blocking_) {  // the next user may be the event loop, which never blocks
    net::set_blocking(stream_.fd(), false);
    blocking_ = false;
  }
  reusable_ = false;
  return stream_.release_plain();
}

void ClientConnection::start_resolving() {
  if (settings_.adopted_fd) return;  // nothing to look up: the connection is given
  // Through a proxy only the proxy's name is looked up: the proxy resolves the server's.
  const net::Endpoint& peer = peer_endpoint();
  if (!net::needs_lookup(peer) || settings_.lookup_inline)
    return take_addresses(net::resolve(peer));
  auto lookup = net::PendingLookup::start(peer);
  if (!lookup) return take_addresses(lookup.error());
  lookup_ = std::move(*lookup);
  state_ = State::Resolving;
}

ClientConnection::Wait ClientConnection::finish_resolving() {
  if (!lookup_->ready()) return Wait::Read;
  take_addresses(lookup_->take());
  state_ = State::Connecting;
  return Wait::None;
}

void ClientConnection::take_addresses(Result<std::vector<net::SocketAddress>> found) {
  addresses_.clear();
  const std::string proxy = settings_.proxy ? peer_name() + ": " : "";
  if (!found) {
    connect_error_ = Error(Errc::ConnectFailed, proxy + found.error().message);
  } else {
    addresses_ = std::move(*found);
    connect_error_ = Error(Errc::ConnectFailed, proxy + "no address for " + peer_name());
  }
}

ClientConnection::Wait ClientConnection::step() {
  for (;;) {
    Wait w = Wait::None;
    switch (state_) {
      case State::Idle:
      case State::Done:
        return Wait::None;
      case State::Resolving:
        w = finish_resolving();
        break;
      case State::Connecting:
        w = stream_.fd() < 0 ? connect_next() : finish_connect();
        break;
      case State::Tunnelling:
        w = tunnel();
        break;
      case State::Opening:
        w = open_upgrade();
        break;
      case State::Sending:
        w = send();
        break;
      case State::Receiving:
        w = receive();
        break;
    }
    if (w != Wait::None || state_ == State::Done) return w;
  }
}

ClientConnection::Wait ClientConnection::connect_next() {
  if (settings_.adopted_fd) {
    Result<net::UniqueFd> fd = take_adopted(*settings_.adopted_fd);
    if (!fd) {
      done(fd.error(), false);
      return Wait::None;
    }
    stream_ = net::Stream(std::move(*fd));
    state_ = State::Sending;
    apply_blocking_mode();
    return Wait::None;
  }
  while (next_address_ < addresses_.size()) {
    auto fd = net::start_connect(addresses_[next_address_++], peer_name());
    if (!fd) {
      connect_error_ = fd.error();
      continue;
    }
    stream_ = net::Stream(std::move(*fd));
    return Wait::Write;  // finish_connect once writable
  }
  done(connect_error_, false);
  return Wait::None;
}

ClientConnection::Wait ClientConnection::finish_connect() {
  int err = net::finish_connect(stream_.fd());
  if (err != 0) {
    connect_error_ =
        Error(Errc::ConnectFailed,
              net::errno_message(
                  settings_.proxy ? peer_name() + ": connect" : "connect to " + peer_name(), err));
    retired_ = std::move(stream_);  // closed at the next begin(): see retired_
    return Wait::None;              // step() loops: the next address
  }
  if (settings_.proxy && settings_.proxy->tunnel) {
    tunnel_sent_ = 0;
    state_ = State::Tunnelling;
    return Wait::None;
  }
  return start_exchange();
}

ClientConnection::Wait ClientConnection::start_exchange() {
  // TLS with the server's name (SNI and the certificate check), through a tunnel as well.
  if (settings_.tls && !stream_.start_tls(*settings_.tls, false, settings_.url->host)) {
    done(Error(Errc::TlsError, stream_.error()), false);
    return Wait::None;
  }
  if (upgraded_) {
    // Still non-blocking, as the connect was: the caller's wait keeps the deadline.
    opening_.clear();
    opening_sent_ = 0;
    opening_expected_ = settings_.framing->append_opening(opening_);
    if (!opening_parser_) opening_parser_ = std::make_unique<http::ResponseParser>();
    opening_parser_->reset();
    opening_parser_->set_upgrade_awaited(true);
    state_ = State::Opening;
    return Wait::None;
  }
  state_ = State::Sending;
  apply_blocking_mode();
  return Wait::None;
}

ClientConnection::Wait ClientConnection::open_upgrade() {
  auto fail = [&](Errc code, std::string why) {
    done(Error(code, "opening the WebSocket: " + why), false);
    return Wait::None;
  };
  const net::IoStatus sent = write_from(opening_.view(), opening_sent_);
  if (blocked(sent)) return wait_for(sent);
  if (sent != net::IoStatus::Ok) return fail(Errc::ConnectionClosed, stream_error());
  for (;;) {
    net::IoResult r = stream_.read(in_.prepare(kReadChunk), kReadChunk);
    if (r.status == net::IoStatus::WantRead) return Wait::Read;
    if (r.status == net::IoStatus::WantWrite) return Wait::Write;
    if (r.status == net::IoStatus::Eof)
      return fail(Errc::ConnectionClosed, "the server closed the connection before answering");
    if (r.status == net::IoStatus::Error) return fail(Errc::ConnectionClosed, stream_.error());
    in_.commit(r.n);
    http::ResponseParseResult p = opening_parser_->parse(in_.view(), chunked_body_);
    if (p.status == http::ParseStatus::Incomplete) continue;
    if (p.status == http::ParseStatus::Error)
      return fail(Errc::BadResponse, std::string(opening_parser_->error()));
    // A refusal's body (a 401's words) counts as read: the connection is not kept.
    if (Status s = settings_.framing->check_opening(opening_parser_->response(), opening_expected_);
        !s) {
      done(s.error(), false);
      return Wait::None;
    }
    // What came after the 101 is the server's first frames.
    in_.drop_front(p.consumed);
    chunked_body_.clear();
    state_ = State::Sending;
    apply_blocking_mode();
    return Wait::None;
  }
}

void ClientConnection::apply_blocking_mode() {
  bool want = blocking_until_.has_value();
  if (want != blocking_) {
    net::set_blocking(stream_.fd(), want);
    blocking_ = want;
  }
  // A TLS record trickled a byte at a time satisfies every socket read inside OpenSSL: the
  // stream itself must give up at the deadline.
  stream_.set_blocking_deadline(blocking_until_);
  if (blocking_) refresh_socket_timeout();
}

bool ClientConnection::refresh_socket_timeout() {
  using std::chrono::microseconds;
  auto left = std::chrono::duration_cast<microseconds>(*blocking_until_ - Clock::now());
  // A peer that trickles (a byte every millisecond) satisfies every blocking recv or send
  // long before SO_RCVTIMEO/SO_SNDTIMEO fires: only the clock says the deadline has passed.
  timeout_fresh_ = left.count() > 0;
  if (!timeout_fresh_) return false;
  // Lower the timeout when it would overshoot the deadline by more than a little; keep it
  // otherwise (the usual case: the same timeout call after call costs no system call).
  microseconds slack = microseconds(1000) + left / 64;
  if (socket_timeout_.count() != 0 && socket_timeout_ <= left + slack) return true;
  if (left < microseconds(1000)) left = microseconds(1000);  // set_io_timeout's least
  net::set_io_timeout(stream_.fd(), left);
  socket_timeout_ = left;
  return true;
}

inline net::IoStatus ClientConnection::write_from(std::string_view bytes, size_t& sent) {
  while (sent < bytes.size()) {
    // Checked against the clock again only once time may have passed in an earlier send or
    // receive of this exchange (begin() just did). Past the deadline, the caller's wait on
    // the socket says so.
    if (blocking_ && !timeout_fresh_ && !refresh_socket_timeout()) return net::IoStatus::WantWrite;
    timeout_fresh_ = false;
    net::IoResult r = stream_.write(bytes.data() + sent, bytes.size() - sent);
    if (r.status != net::IoStatus::Ok) return r.status;
    sent += r.n;
  }
  return net::IoStatus::Ok;
}

Error ClientConnection::receive_error() const {
  const bool tls_failure = stream_.is_tls() && stream_.error().starts_with("TLS");
  return Error(tls_failure ? Errc::TlsError : Errc::ConnectionClosed,
               "receiving the response: " + stream_.error());
}

std::string ClientConnection::stream_error() const {
  return stream_.error().empty() ? std::string("connection closed") : stream_.error();
}

ClientConnection::Wait ClientConnection::send() {
  const net::IoStatus sent = write_from(request_.view(), sent_);
  if (blocked(sent)) return wait_for(sent);
  if (sent != net::IoStatus::Ok) {
    if (read_early_refusal()) return Wait::None;
    if (used_before_) stale_ = true;
    done(Error(stream_.is_tls() && !stream_.error().starts_with("send") ? Errc::TlsError
                                                                        : Errc::ConnectionClosed,
               "sending the request: " + stream_error()),
         false);
    return Wait::None;
  }
  state_ = State::Receiving;
  // A notification over JSON lines is done once sent: no answer is due.
  if (!settings_.framing->transport().answers_notifications && !answers_->awaits_answer())
    done(Value(), true);
  return Wait::None;
}

ClientConnection::Wait ClientConnection::receive() {
  for (int reads = 0;; ++reads) {
    // Blocking: the deadline passed (the caller's wait on the socket says so). Not blocking:
    // a server that sends as fast as this reads must not keep the event loop here, away from
    // its other calls and from the sweep that ends this one at its deadline.
    // (Bytes TLS has decrypted already would not wake the loop: they are read first.)
    if (blocking_ ? !timeout_fresh_ && !refresh_socket_timeout()
                  : reads >= kReadsPerTurn && !stream_.has_buffered_input())
      return Wait::Read;
    timeout_fresh_ = false;
    size_t want = kReadChunk;
    // A known body: room for all of it at once (the head fits in the extra chunk), so a large
    // answer takes a few reads into one block (a recycled mapping whose pages are warm) rather
    // than a growing buffer faulting in fresh pages at every step. A declared length may be a
    // lie, but the parser has refused one over max_response_size already, and untouched room
    // costs address space, not memory.
    if (parser_->headers_complete() && parser_->response().content_length) {
      size_t total = static_cast<size_t>(*parser_->response().content_length);
      in_.reserve(std::max(in_.size(), total) + kReadChunk);
      want = std::max(want, total > in_.size() ? total - in_.size() : 0);
    }
    char* dst = in_.prepare(want);
    net::IoResult r = stream_.read(dst, want);
    http::ResponseParseResult p;
    if (r.status == net::IoStatus::Ok) {
      in_.commit(r.n);
      received_ = true;
      p = parser_->parse(in_.view(), chunked_body_);
      if (p.status == http::ParseStatus::Incomplete) {
        drop_consumed();
        uint64_t length = 0;
        std::string_view so_far = parser_->arriving_body(in_.view(), length);
        if (!so_far.empty()) {
          answers_->body_arriving(so_far, length);
          body_arrived_ = true;
          if (worth_reading_while_arriving(so_far, length)) {
            if (!read_while_arriving(so_far, length)) return Wait::None;
            p = parser_->parse(in_.view(), chunked_body_);  // the body is whole now
          }
        } else if (std::string_view chunks = parser_->arriving_chunks(chunked_body_);
                   !chunks.empty() && worth_reading_while_arriving(chunks, 0)) {
          if (!read_chunks_while_arriving(chunks)) return Wait::None;
          p = parser_->parse(in_.view(), chunked_body_);  // the body is whole now
        }
      }
      if (upgraded_) send_owed_output();  // a WebSocket's Pongs and Closes
    } else if (r.status == net::IoStatus::WantRead) {
      return Wait::Read;
    } else if (r.status == net::IoStatus::WantWrite) {
      return Wait::Write;
    } else if (r.status == net::IoStatus::Eof) {
      p = parser_->parse_eof(in_.view(), chunked_body_);
    } else {
      // A server or proxy that refuses a request (401, 407, 413) often answers and closes
      // before reading all of it; its kernel then resets the connection, and the reset may
      // cut the answer's body short. The head said what matters: the status.
      if (parser_->headers_complete() && parser_->response().status >= 300) {
        done(http_status_error(parser_->response()), false);
        if (settings_.proxy && !settings_.proxy->tunnel) name_proxy_refusal();
        return Wait::None;
      }
      stale_ = used_before_ && !received_;
      done(receive_error(), false);
      return Wait::None;
    }
    if (p.status == http::ParseStatus::Incomplete) continue;
    if (p.status == http::ParseStatus::Error && p.error == http::ResponseError::NoResponse) {
      // Nothing of an answer came: the server closed an idle connection, or never saw the
      // request. A WebSocket's parser says how (its Close, or none).
      stale_ = used_before_;
      done(Error(Errc::ConnectionClosed,
                 upgraded_ ? std::string(parser_->error())
                           : std::string("the server closed the connection without answering")),
           false);
      return Wait::None;
    }
    if (p.status == http::ParseStatus::Error) {
      done(parse_error(p), false);
      return Wait::None;
    }
    // Bytes after the answer were never asked for (a second response smuggled into the
    // first, a confused server): the connection is dropped rather than have them read as the
    // next call's answer.
    decode(parser_->response(), p.consumed < in_.size());
    if (settings_.proxy && !settings_.proxy->tunnel) name_proxy_refusal();
    return Wait::None;
  }
}

Error ClientConnection::parse_error(const http::ResponseParseResult& p) const {
  Errc code = p.error == http::ResponseError::TooLarge    ? Errc::LimitExceeded
              : p.error == http::ResponseError::Truncated ? Errc::ConnectionClosed
                                                          : Errc::BadResponse;
  std::string message(parser_->error());
  if (code == Errc::LimitExceeded) message += " (ClientOptions::max_response_size)";
  // A TLS record (an alert, a ServerHello) where an HTTP answer should be: http:// to a
  // server that speaks TLS only.
  if (!stream_.is_tls() && !in_.empty() && (in_.data()[0] == '\x15' || in_.data()[0] == '\x16'))
    message += " (the server answered in TLS: use https://)";
  return Error(code, std::move(message));
}

bool ClientConnection::read_early_refusal() {
  // Plain streams only: after a failed write a TLS session is done with (OpenSSL forbids
  // reading on after a fatal error).
  if (stream_.is_tls()) return false;
  // The peer has closed or reset the connection: these reads return what came, never block.
  for (int reads = 0; reads < 16; ++reads) {
    net::IoResult r = stream_.read(in_.prepare(kReadChunk), kReadChunk);
    if (r.status != net::IoStatus::Ok) break;
    in_.commit(r.n);
  }
  if (in_.empty()) return false;
  http::ResponseParseResult p = parser_->parse(in_.view(), chunked_body_);
  if (p.status != http::ParseStatus::Complete) return false;
  const http::Response& response = parser_->response();
  if (response.status < 400) return false;
  Error e = http_status_error(response);  // with the server's words: a 413 names its limit
  e.message = "the server refused the request of " + std::to_string(request_.size()) +
              " bytes before it was all sent: " + e.message;
  done(std::move(e), false);
  return true;
}

void ClientConnection::send_owed_output() {
  for (std::string_view owed = parser_->owed_output(); !owed.empty();
       owed = parser_->owed_output()) {
    net::IoResult r = stream_.write(owed.data(), owed.size());
    if (r.status != net::IoStatus::Ok) return;  // full, or gone: the next read says which
    parser_->output_sent(r.n);
  }
}

bool ClientConnection::read_idle() {
  if (stream_.fd() < 0) return false;
  // No call's deadline applies: the reads must not block.
  if (blocking_) {
    net::set_blocking(stream_.fd(), false);
    blocking_ = false;
  }
  stream_.set_blocking_deadline(std::nullopt);
  in_.clear();  // the last answer's bytes, read already
  for (int reads = 0; reads < kReadsPerTurn; ++reads) {
    net::IoResult r = stream_.read(in_.prepare(kReadChunk), kReadChunk);
    if (r.status == net::IoStatus::WantRead || r.status == net::IoStatus::WantWrite) break;
    if (r.status != net::IoStatus::Ok) return reusable_ = false;
    in_.commit(r.n);
    const bool alive = parser_->read_idle(in_.view());
    in_.clear();  // the parser took every byte
    send_owed_output();
    if (!alive) return reusable_ = false;
  }
  return true;
}

void ClientConnection::drop_consumed() noexcept { in_.drop_front(parser_->take_consumed()); }

bool ClientConnection::streamed_answer() const noexcept {
  return !settings_.framing->transport().carries_fields;
}

void ClientConnection::trace_answer(const http::Response& response) const {
  // A packet stream's or a JSON line's answer has no head (its parser reports a 200 of its
  // own).
  std::string head;
  if (!streamed_answer()) head = trace::response_head(response);
  Buffer inflated;
  std::string_view body = trace::shown_body(response.body, response.content_encoding_gzip,
                                            settings_.max_response_size, inflated);
  trace::emit(settings_.trace, TraceKind::ClientAnswer, settings_.url_text, head, body);
}

void ClientConnection::decode(const http::Response& response, bool trailing_bytes) {
  if (settings_.trace) trace_answer(response);
  settings_.framing->answer_came(response.body.size());
  bool keep = response.keep_alive && !trailing_bytes;
  if (head_out_ && !streamed_answer()) *head_out_ = head_of(response);
  if (response.status != 200 && !answers_->reads_error_statuses()) {
    done(http_status_error(response), keep);
    return;
  }
  std::string_view body = response.body;
  if (response.content_encoding_gzip) {
    inflated_.clear();
    http::InflateStatus s = http::gzip_inflate(body, inflated_, settings_.max_response_size);
    if (s != http::InflateStatus::Ok) {
      const bool over = s == http::InflateStatus::OverLimit;
      done(Error(over ? Errc::LimitExceeded : Errc::BadResponse,
                 std::string("gzip response: ") + http::inflate_status_name(s) +
                     (over ? " (ClientOptions::max_response_size, " +
                                 std::to_string(settings_.max_response_size) + " bytes)"
                           : "")),
           false);
      return;
    }
    body = inflated_.view();
  } else if (!response.content_encoding.empty() &&
             !http::iequals(response.content_encoding, "identity")) {
    done(Error(Errc::BadResponse,
               "unsupported Content-Encoding: " + std::string(response.content_encoding)),
         false);
    return;
  }
  if (read_already_) {
    result_ = std::move(*read_already_);
    read_already_.reset();
    finish(keep);
    return;
  }
  const size_t readable_after =
      answers_->reads_in_place() ? std::max({in_.room_after(body), chunked_body_.room_after(body),
                                             inflated_.room_after(body)})
                                 : 0;
  const bool in_step = answers_->read(response, body, readable_after, result_);
  finish(keep && in_step);
}

void ClientConnection::done(Result<Value> result, bool reusable) {
  result_ = std::move(result);
  finish(reusable);
}

void ClientConnection::finish(bool reusable) {
  reusable_ = reusable;
  state_ = State::Done;
  // Closed at the next begin() (see retired_); an empty stream_ must not replace one retired
  // earlier, which a loop may still watch.
  if (!reusable && stream_.fd() >= 0) retired_ = std::move(stream_);
  // A large exchange leaves large buffers: let them go rather than pin them in the pool.
  constexpr size_t kKeep = 1 << 20;
  if (in_.capacity() > kKeep) in_ = Buffer();
  if (inflated_.capacity() > kKeep) inflated_ = Buffer();
  if (chunked_body_.capacity() > kKeep) chunked_body_ = Buffer();
}

void ClientConnection::fail(Error error) { done(std::move(error), false); }

const net::Endpoint& ClientConnection::peer_endpoint() const noexcept {
  return settings_.proxy ? settings_.proxy->endpoint : settings_.url->endpoint;
}

std::string ClientConnection::peer_name() const {
  return settings_.proxy ? "proxy " + settings_.proxy->name : settings_.url->endpoint.to_string();
}

void ClientConnection::name_proxy_refusal() {
  if (result_ || result_.error().code != Errc::HttpStatus || result_.error().http_status != 407)
    return;
  Error named = result_.error();
  named.message = peer_name() + ": " + named.message;
  result_ = std::move(named);
}

ClientConnection::Wait ClientConnection::fail_tunnel(Error error) {
  error.message = peer_name() + ": " + error.message;
  done(std::move(error), false);
  return Wait::None;
}

ClientConnection::Wait ClientConnection::tunnel() {
  const net::IoStatus sent = write_from(settings_.proxy->connect_request, tunnel_sent_);
  if (blocked(sent)) return wait_for(sent);
  if (sent != net::IoStatus::Ok)
    return fail_tunnel(Error(Errc::ConnectionClosed, "sending CONNECT: " + stream_error()));
  for (;;) {
    // The answer is a head alone (a 2xx to CONNECT has no body; another status's body is
    // not read): small reads, so nothing of the tunnel's own bytes is taken from the socket.
    constexpr size_t kHeadChunk = 1024;
    char* dst = in_.prepare(kHeadChunk);
    net::IoResult r = stream_.read(dst, kHeadChunk);
    if (r.status == net::IoStatus::WantRead) return Wait::Read;
    if (r.status == net::IoStatus::WantWrite) return Wait::Write;
    if (r.status == net::IoStatus::Eof)
      return fail_tunnel(Error(Errc::ConnectionClosed,
                               "the proxy closed the connection before answering CONNECT"));
    if (r.status == net::IoStatus::Error)
      return fail_tunnel(
          Error(Errc::ConnectionClosed, "reading the answer to CONNECT: " + stream_.error()));
    in_.commit(r.n);
    http::ResponseParseResult p = parser_->parse(in_.view(), chunked_body_);
    if (p.status == http::ParseStatus::Error)
      return fail_tunnel(
          Error(Errc::BadResponse, "bad answer to CONNECT: " + std::string(parser_->error())));
    if (!parser_->headers_complete()) continue;
    const http::Response& answer = parser_->response();
    const std::string origin = settings_.url->endpoint.to_string();
    if (answer.status < 200 || answer.status > 299) {
      // Errc::HttpStatus with the proxy's status, as a server's refusal is reported.
      Error refused = http_status_error(answer);
      refused.message = "refused CONNECT " + origin + ": " + refused.message;
      return fail_tunnel(std::move(refused));
    }
    // The head must be all there is: the server speaks only once TLS has begun.
    std::string_view got = in_.view();
    if (!got.ends_with("\r\n\r\n") && !got.ends_with("\n\n"))
      return fail_tunnel(
          Error(Errc::BadResponse, "bytes after the proxy's answer to CONNECT " + origin));
    in_.clear();
    chunked_body_.clear();
    parser_->reset();
    return start_exchange();
  }
}

}  // namespace callwire::detail
