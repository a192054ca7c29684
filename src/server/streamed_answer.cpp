// A long answer sent while it is written. The XML-RPC writer appends the answer to out_ as
// usual; each time it passes a mark, the part written so far is cut into a chunk (its size
// line fills a gap left before it, so nothing moves) and sent as far as the socket takes it
// without waiting. The client reads the first chunks while the server writes the next, where
// a Content-Length answer would leave it idle until the last byte was written. An answer that
// is one long blob knows its length before its text is written: it goes with a Content-Length,
// as it is encoded (will_end_at), to every client, since a length asks nothing of it.
#include <algorithm>

#include "server/connection.hpp"
#include "server/server_loop.hpp"

namespace callwire::detail {

Connection::StreamMode Connection::stream_mode(const http::Request& request,
                                               size_t start) const noexcept {
  // The framing is HTTP's own, the answer is XML-RPC's (JSON-RPC's writer sends answers
  // whole), would not be gzipped whole instead, and nothing is queued before it: its head can
  // go where its gap is.
  if (framing_kind_ != ConnectionFraming::Http || call_.protocol != Protocol::XmlRpc ||
      (call_.accept_gzip && loop_.core().options.gzip_min_size != 0) || start != out_sent_)
    return StreamMode::Whole;
  // Chunks only to a client that said it reads them (TE: trailers, which only HTTP/1.1
  // sends); a long blob's answer goes with its length to every client (Python's xmlrpc,
  // xmlrpc-c and XmlRpc++ send no TE).
  return request.accepts_trailers && request.version == http::HttpVersion::Http11
             ? StreamMode::Chunked
             : StreamMode::LengthOnly;
}

void Connection::send_without_waiting(size_t end) {
  while (out_sent_ < end) {
    net::IoResult r = stream_.write(out_.data() + out_sent_, end - out_sent_);
    if (r.status != net::IoStatus::Ok) return;  // full, or failed: flush() meets it later
    out_sent_ += r.n;
    loop_.count_sent(r.n);
    write_progress_ = loop_.now();
  }
}

void Connection::AnswerStream::arm(size_t start, size_t body_start, bool chunks) noexcept {
  started_ = false;
  length_end_ = 0;
  body_start_ = body_start;
  head_start_ = start;
  // Without chunks only will_end_at starts the answer early: grew is then never due before.
  next = chunks ? body_start + kStreamFrom : SIZE_MAX;
}

bool Connection::AnswerStream::start(Buffer& out, const uint64_t* content_length) {
  http::ResponseHead h;
  h.content_type = answer_content_type(c_.answer_protocol_);
  if (content_length) {
    h.content_length = *content_length;
    h.length_ahead = true;
  } else {
    h.chunked = true;
  }
  h.close = c_.close_after_write_;
  h.date = c_.loop_.http_date();
  h.extra = c_.http_.cors_fields();
  const size_t gap_end = content_length ? body_start_ : chunks_.begin(body_start_);
  const size_t head = c_.framing_->place_head(out, gap_end, h);
  if (head == http::kNoRoom) return false;  // never with our own fields
  c_.out_sent_ = head_start_ = head;        // nothing was queued before it (stream_mode)
  started_ = true;
  return true;
}

// The rest of the answer is one blob whose text's length is known: sent with a Content-Length,
// which every reader takes, and callwire's client reads in place, decoding the blob as it
// comes (xml/decode_ahead.hpp), where a chunked body would be read whole and then decoded.
// The head waits for the first slice of the blob (the next grew): sent alone, it woke the
// client once more for nothing (get_blob 1 MiB 18% slower).
bool Connection::AnswerStream::will_end_at(Buffer& out, size_t end) {
  const uint64_t length = end - body_start_;
  if (started_ || length > c_.answer_share_ || !start(out, &length)) return false;
  length_end_ = end;
  next = 0;  // each step of the writer goes as it is written
  return true;
}

Status Connection::AnswerStream::grew(Buffer& out) {
  if (length_end_ != 0) {
    c_.send_without_waiting(std::min(out.size(), length_end_));
    return {};
  }
  const size_t bytes = out.size() - body_start_;
  if (bytes > c_.answer_share_) {
    c_.refuse_over_share(bytes, {}, started_ ? "cut short" : "refused");
    return Error(Errc::LimitExceeded, "the answer exceeds the server's memory budget");
  }
  if (!started_ && !start(out, nullptr)) {
    next = SIZE_MAX;  // sent whole
    return {};
  }
  c_.send_without_waiting(chunks_.cut(out));
  next = out.size() + kStep;
  return {};
}

void Connection::AnswerStream::finish() {
  Connection& c = c_;
  next = SIZE_MAX;
  started_ = false;
  c.call_.response_bytes = c.out_.size() - body_start_;
  // Sent with its length, the answer is whole only if it ends where its head said.
  if (length_end_ != 0 && c.out_.size() != length_end_) c.call_.cut_short = true;
  if (c.call_.cut_short) {
    // What was not sent goes, and the connection closes after the rest of what was: the
    // client meets a body that never ends, not an answer it could take as whole.
    c.out_.truncate(length_end_ != 0 ? c.out_sent_ : std::max(chunks_.sendable(), c.out_sent_));
    c.close_after_write_ = true;
    if (c.loop_.core().options.error_log)
      c.log_message("answer to " + std::string(c.call_.method) +
                    " failed after part of it was sent (fault " +
                    std::to_string(c.call_.fault_code) + "): cut short");
  } else if (length_end_ == 0) {
    chunks_.end(c.out_);
  }
  c.answered(head_start_, 200);
  if (c.loop_.core().options.access_log)
    c.log_access(c.call_.method, 200, c.call_.fault_code, c.call_.request_bytes,
                 c.call_.response_bytes, c.call_.started);
}

}  // namespace callwire::detail
