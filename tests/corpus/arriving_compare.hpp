// A document read while it arrives (xml::DocumentSource, src/xml/lexer.hpp) must be read
// exactly as it is when it is all there: the same Value, the same typed pull, or the same
// error, word for word. The bytes still to come hold decoys ("</value></param>" over and over)
// until they arrive, so a read that looked past what had come goes wrong and shows. Used by
// corpus_test over every document and by reader_fuzz.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "callwire/xml.hpp"
#include "message_compare.hpp"
#include "pull_compare.hpp"
#include "xml/reader_internals.hpp"

namespace callwire::testing {

/// `document` arriving `piece` bytes at a time (or what the reader waits for, when more), into
/// storage whose part still to come holds decoys; the first piece has come at the start.
/// `end_told_last`: as a chunked answer arrives, the storage is larger than the document (the
/// spare bytes decoys too), and where the document ends is told only at the wait after its
/// last byte came (its last chunk).
class ArrivingDocument final : public xml::DocumentSource {
 public:
  static constexpr size_t kSpare = 37;
  ArrivingDocument(std::string_view document, size_t piece, bool end_told_last = false)
      : document_(document), piece_(piece), ended_(!end_told_last) {
    constexpr std::string_view kDecoy = "</value></param>";
    storage_.resize(document.size() + (end_told_last ? kSpare : 0));
    for (size_t i = 0; i < storage_.size(); ++i) storage_[i] = kDecoy[i % kDecoy.size()];
    come(piece);
  }
  /// The whole document's storage, of which arrived() bytes are the document's.
  std::string_view storage() const { return storage_; }
  size_t waits() const { return waits_; }
  /// The most the reader waited for at once (the rest of the document: it gave up reading ahead).
  size_t largest_want() const { return largest_want_; }

  size_t arrived() const override { return arrived_; }
  size_t length() const override { return ended_ ? document_.size() : storage_.size(); }
  Status wait(size_t want) override {
    ++waits_;
    largest_want_ = std::max(largest_want_, want);
    if (arrived_ == document_.size()) ended_ = true;
    come(std::max(want, piece_));
    return {};
  }

 private:
  void come(size_t n) {
    size_t until = std::min(document_.size(), arrived_ + n);
    std::copy(document_.begin() + arrived_, document_.begin() + until, storage_.begin() + arrived_);
    arrived_ = until;
  }
  std::string_view document_;
  std::string storage_;
  size_t piece_;
  size_t arrived_ = 0;
  bool ended_;
  size_t waits_ = 0;
  size_t largest_want_ = 0;
};

/// nullopt when reading `doc` as it arrives in pieces of `piece` bytes gives what reading it
/// whole gives: into a Value, and pulled into a rebuilt Value. Else what differs.
/// `end_told_last`: its end is told only after its last byte (ArrivingDocument).
inline std::optional<std::string> arriving_difference(xml::Reader& reader, std::string_view doc,
                                                      size_t piece, bool end_told_last = false) {
  const std::string how =
      " (pieces of " + std::to_string(piece) + (end_told_last ? ", the end told last)" : ")");
  auto compare = [&](const Status& whole, const Status& arriving) -> std::optional<std::string> {
    if (bool(whole) != bool(arriving))
      return std::string(whole ? "accepted whole, refused" : "refused whole, accepted") +
             " as it arrived" + how + ": " +
             (whole ? arriving.error().message : whole.error().message);
    if (!whole && (whole.error().code != arriving.error().code ||
                   whole.error().message != arriving.error().message))
      return "refused whole with " + quote(whole.error().message) + ", as it arrived" + how +
             " with " + quote(arriving.error().message);
    return std::nullopt;
  };

  Result<MethodResponse> whole = reader.read_response(doc);
  {
    ArrivingDocument source(doc, piece, end_told_last);
    Result<MethodResponse> arriving =
        xml::ReaderInternals::read_response(reader, source.storage(), &source);
    Status w = whole ? Status() : Status(whole.error());
    Status a = arriving ? Status() : Status(arriving.error());
    if (auto d = compare(w, a)) return "the Value read " + *d;
    if (whole) {
      if (auto d = first_difference(*whole, *arriving))
        return "the Value read as it arrived" + how + " differs at " + *d;
    }
  }

  PullSink whole_sink(PullMode::Rebuild), arriving_sink(PullMode::Rebuild);
  MethodResponse whole_response, arriving_response;
  Status whole_sink_status, arriving_sink_status;
  Status w = reader.read_response(doc, whole_response, whole_sink, whole_sink_status);
  ArrivingDocument source(doc, piece, end_told_last);
  Status a =
      xml::ReaderInternals::read_response(reader, source.storage(), arriving_response,
                                          arriving_sink, arriving_sink_status, nullptr, &source);
  if (auto d = compare(w, a)) return "the pulled read " + *d;
  if (auto d = compare(whole_sink_status, arriving_sink_status)) return "the pulling sink " + *d;
  if (w && whole_sink_status) {
    if (auto d = first_difference(whole_sink.value, arriving_sink.value, "result"))
      return "the value pulled as it arrived" + how + " differs at " + *d;
  }
  return std::nullopt;
}

}  // namespace callwire::testing
