// A large answer read while its body arrives: a blocking call's connection hands the XML
// reader the body as far as it has come, and reads on from the socket whenever the reader
// reaches the end of it, so that parsing overlaps the transfer instead of following it (a
// 4 MB array of structs: the reading takes about as long as the transfer on loopback).
#include <algorithm>
#include <string>

#include "base/ascii.hpp"
#include "client/client_connection.hpp"

namespace callwire::detail {

namespace {
// Smaller answers are read once they have all come: the transfer is short, and reading
// while it arrives would cost the small call its bookkeeping.
constexpr uint64_t kReadWhileArrivingFrom = 256 * 1024;
// What must have come before the reading starts: enough for the answer's reader to have
// seen whether a blob follows (decoded as it comes, by Base64Ahead, instead).
constexpr size_t kFirstBytes = 4096;
}  // namespace

// The body as the document's source: each wait reads on from the socket into in_, which
// holds room for the whole body, so nothing the reader holds moves.
class ClientConnection::ArrivingBody final : public xml::DocumentSource {
 public:
  ArrivingBody(ClientConnection& c, size_t offset, size_t length)
      : c_(c), offset_(offset), length_(length) {}

  size_t arrived() const override { return std::min(c_.in_.size() - offset_, length_); }

  Status wait(size_t want) override {
    if (!failure_.ok()) return failure_;
    const size_t until = std::min(length_, arrived() + want);
    while (arrived() < until) {
      // The deadline is checked as receive() checks it: before each read once time passed.
      if (!c_.timeout_fresh_ && !c_.refresh_socket_timeout())
        return failure_ = Error(Errc::Timeout, "no answer before the deadline");
      c_.timeout_fresh_ = false;
      const size_t rest = offset_ + length_ - c_.in_.size();
      net::IoResult r = c_.stream_.read(c_.in_.prepare(rest), rest);
      if (r.status == net::IoStatus::Ok) {
        c_.in_.commit(r.n);
      } else if (r.status == net::IoStatus::Eof) {
        c_.parser_->parse_eof(c_.in_.view(), c_.chunked_body_);
        return failure_ = Error(Errc::ConnectionClosed, std::string(c_.parser_->error()));
      } else if (r.status != net::IoStatus::WantRead && r.status != net::IoStatus::WantWrite) {
        return failure_ = c_.receive_error();
      }
      // WantRead: the socket's timeout, a slice of the deadline; the loop asks the clock.
    }
    return {};
  }

 private:
  ClientConnection& c_;
  size_t offset_, length_;
  Status failure_;
};

bool ClientConnection::worth_reading_while_arriving(std::string_view so_far,
                                                    uint64_t length) const {
  // Only a call that blocks in its reads (a synchronous call with a deadline) can wait inside
  // the reader; an event loop's connection never blocks.
  if (!blocking_ || length < kReadWhileArrivingFrom || so_far.size() >= length ||
      so_far.size() < kFirstBytes || streamed_answer())
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
  Result<Value> outcome{Value()};
  answers_->read_while_arriving(std::string_view(in_.data() + offset, size_t(length)), source,
                                outcome);
  // A reader that stopped short (a malformed answer) leaves the rest to come: it is read, so
  // that the connection stays in step for the next call.
  if (Status rest = source.wait(size_t(length)); !rest) {
    done(rest.error(), false);
    return false;
  }
  read_already_ = std::move(outcome);
  return true;
}

}  // namespace callwire::detail
