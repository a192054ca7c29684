// A large answer read while its body arrives: a blocking call's connection hands the XML
// reader the body as far as it has come, and reads on from the socket whenever the reader
// reaches the end of it, so that parsing overlaps the transfer instead of following it (a
// 4 MB array of structs: the reading takes about as long as the transfer on loopback). A
// body of known length (Content-Length) is read in place; a chunked one (a server sending it
// while it writes it) as its chunks are decoded, the data of long chunks read straight into
// the decoded body.
#include <algorithm>
#include <string>

#include "base/ascii.hpp"
#include "client/client_connection.hpp"

namespace callwire::detail {

namespace {
// Smaller answers are read once they have all come: the transfer is short, and reading
// while it arrives would cost the small call its bookkeeping. The same mark after which the
// client asks for streamed answers (ClientFraming::kLongAnswer).
constexpr uint64_t kReadWhileArrivingFrom = ClientFraming::kLongAnswer;
// What must have come before the reading starts: enough for the answer's reader to have
// seen whether a blob follows (decoded as it comes, by Base64Ahead, instead).
constexpr size_t kFirstBytes = 4096;
// The most a chunked answer's storage is reserved for (address space, touched as it fills).
constexpr size_t kMostReserved = size_t{256} << 20;
}  // namespace

// One read for an answer read while it arrives: the deadline is checked as receive() checks
// it, before each read once time has passed.
Status ClientConnection::read_on(Buffer& into, size_t most) {
  if (!timeout_fresh_ && !refresh_socket_timeout())
    return Error(Errc::Timeout, "no answer before the deadline");
  timeout_fresh_ = false;
  net::IoResult r = stream_.read(into.prepare(most), most);
  if (r.status == net::IoStatus::Ok) {
    into.commit(r.n);
  } else if (r.status == net::IoStatus::Eof) {
    parser_->parse_eof(in_.view(), chunked_body_);
    return Error(Errc::ConnectionClosed, std::string(parser_->error()));
  } else if (r.status != net::IoStatus::WantRead && r.status != net::IoStatus::WantWrite) {
    return receive_error();
  }
  // WantRead: the socket's timeout, a slice of the deadline; the caller reads again.
  return {};
}

// The body of known length as the document's source: each wait reads on from the socket into
// in_, which holds room for the whole body, so nothing the reader holds moves.
class ClientConnection::ArrivingBody final : public xml::DocumentSource {
 public:
  ArrivingBody(ClientConnection& c, size_t offset, size_t length)
      : c_(c), offset_(offset), length_(length) {}

  size_t arrived() const override { return std::min(c_.in_.size() - offset_, length_); }

  Status wait(size_t want) override {
    if (!failure_.ok()) return failure_;
    const size_t until = std::min(length_, arrived() + want);
    while (arrived() < until)
      if (Status s = c_.read_on(c_.in_, offset_ + length_ - c_.in_.size()); !s) return failure_ = s;
    return {};
  }

 private:
  ClientConnection& c_;
  size_t offset_, length_;
  Status failure_;
};

// A chunked body (a server sending a long answer while it writes it) as the document's
// source: each wait reads on and decodes the chunks into chunked_body_, whose storage was
// reserved for the largest answer allowed (the decoder refuses more), so nothing the reader
// holds moves. The document ends where the last chunk says; `room` is the most the reader
// may take (its max_document_size).
class ClientConnection::ArrivingChunks final : public xml::DocumentSource {
 public:
  ArrivingChunks(ClientConnection& c, size_t offset, size_t room)
      : c_(c), offset_(offset), room_(room) {}

  size_t arrived() const override { return std::min(c_.chunked_body_.size() - offset_, room_); }
  size_t length() const override { return ended_ ? arrived() : SIZE_MAX; }

  Status wait(size_t want) override {
    if (!failure_.ok()) return failure_;
    const size_t until = arrived() + std::min(want, room_);
    while (!ended_ && arrived() < until) {
      if (Status s = read_more(); !s) return failure_ = s;
      http::ResponseParseResult p = c_.parser_->parse(c_.in_.view(), c_.chunked_body_);
      if (p.status == http::ParseStatus::Error) return failure_ = c_.parse_error(p);
      ended_ = p.status == http::ParseStatus::Complete;
      if (c_.chunked_body_.size() - offset_ > room_)
        return failure_ = Error(Errc::LimitExceeded,
                                "answer of more than " + std::to_string(room_) +
                                    " bytes exceeds max_document_size (ReaderLimits)");
    }
    return {};
  }

 private:
  static constexpr size_t kReadChunk = 64 * 1024;
  // A long chunk's data is read straight into chunked_body_, not copied there from in_ (in
  // a 4 MB answer of structs the copy was 7% of the client's time); shorter ones are not worth
  // a read apiece.
  static constexpr uint64_t kStraightFrom = 16 * 1024;
  static constexpr size_t kStraightRead = 256 * 1024;
  // After data read straight, the next chunk's size line comes in a short read, so that
  // little of the data after it goes through in_.
  static constexpr size_t kFramingRead = 4 * 1024;

  Status read_more() {
    const uint64_t due = c_.parser_->chunk_data_due(c_.in_.view());
    if (due < kStraightFrom) {
      const size_t most = straight_before_ ? kFramingRead : kReadChunk;
      straight_before_ = false;
      return c_.read_on(c_.in_, most);
    }
    // Within the room reserved (the decoder took the chunk's size against max_body, which
    // the room covers), so chunked_body_ does not move under the reader.
    const size_t before = c_.chunked_body_.size();
    if (Status s = c_.read_on(c_.chunked_body_, size_t(std::min<uint64_t>(due, kStraightRead))); !s)
      return s;
    c_.parser_->chunk_data_read(c_.chunked_body_.size() - before);
    straight_before_ = true;
    return {};
  }

  ClientConnection& c_;
  size_t offset_, room_;
  bool ended_ = false;
  bool straight_before_ = false;
  Status failure_;
};

bool ClientConnection::worth_reading_while_arriving(std::string_view so_far,
                                                    uint64_t length) const {
  // Only a call that blocks in its reads (a synchronous call with a deadline) can wait inside
  // the reader; an event loop's connection never blocks. A chunked answer is long (a server
  // chunks only those), but its storage is reserved for the largest answer allowed: not past
  // kMostReserved.
  if (!blocking_ || so_far.size() < kFirstBytes || streamed_answer()) return false;
  if (length != 0 ? length < kReadWhileArrivingFrom || so_far.size() >= length
                  : settings_.max_response_size > kMostReserved)
    return false;
  const http::Response& response = parser_->response();
  if (response.status != 200 || response.content_encoding_gzip ||
      !(response.content_encoding.empty() || base::iequals(response.content_encoding, "identity")))
    return false;
  return answers_->reads_while_arriving();
}

bool ClientConnection::read_while_arriving(std::string_view so_far, uint64_t length) {
  const size_t offset = size_t(so_far.data() - in_.data());
  in_.reserve(offset + length);  // room for the whole body: what has come stays where it is
  ArrivingBody source(*this, offset, size_t(length));
  return read_arriving(std::string_view(in_.data() + offset, size_t(length)), source);
}

bool ClientConnection::read_chunks_while_arriving(std::string_view so_far) {
  const size_t offset = size_t(so_far.data() - chunked_body_.data());
  // The decoder takes at most max_response_size: with that room, chunked_body_ never moves.
  chunked_body_.reserve(offset + settings_.max_response_size);
  const size_t room =
      std::min(settings_.max_response_size, settings_.reader_limits.max_document_size);
  ArrivingChunks source(*this, offset, room);
  return read_arriving(std::string_view(chunked_body_.data() + offset, room), source);
}

bool ClientConnection::read_arriving(std::string_view storage, xml::DocumentSource& source) {
  Result<Value> outcome{Value()};
  answers_->read_while_arriving(storage, source, outcome);
  // A reader that stopped short (a malformed answer) leaves the rest to come: it is read, so
  // that the connection stays in step for the next call.
  if (Status rest = source.wait(SIZE_MAX); !rest) {
    done(rest.error(), false);
    return false;
  }
  read_already_ = std::move(outcome);
  return true;
}

}  // namespace callwire::detail
