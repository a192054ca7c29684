// Internal: a large answer's blob decoded while the answer is still arriving.
//
// A typed call's big base64 result (call<std::vector<uint8_t>>) would otherwise be decoded only
// once the last byte of the answer has come: on loopback the client then sits idle for the
// whole transfer and decodes after it, on the critical path. Base64Ahead is fed the answer's
// body as it grows and decodes the text of its first <base64> element, whole quanta at a time,
// as long as that text is plain base64 (no white space, no padding, no markup); the read then
// takes those bytes (ReaderInternals::read_response, xml/reader_internals.hpp) and decodes only
// the rest. Anything it does not understand makes it stop: the read does the work as before,
// checks and all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "callwire/message.hpp"
#include "callwire/value_reader.hpp"
#include "callwire/xml.hpp"

namespace callwire::xml {

/// What was decoded ahead: `bytes` are the decoding of the `text_length` characters at
/// `text`, the start of a <base64> element's text in the document about to be read. A
/// ValueReader::read_bytes of that element takes `bytes` (swapped into its vector) and decodes
/// only the rest; nothing else uses them.
struct DecodedAhead {
  const char* text = nullptr;
  size_t text_length = 0;
  std::vector<uint8_t> bytes;
  bool taken = false;  // read_bytes holds them (a retry of that read finds them in its vector)
};

class Base64Ahead {
 public:
  /// Answers smaller than this are decoded at the read, as before: the saving would not pay
  /// for the bookkeeping.
  static constexpr uint64_t kFrom = 256 * 1024;
  /// What has come is decoded in steps of at least this many characters: fewer calls, and
  /// the step's bytes still warm in the cache from the socket's copy.
  static constexpr size_t kStep = 64 * 1024;

  /// `from` and `step` other than the defaults are for tests, which feed small documents.
  explicit Base64Ahead(uint64_t from = kFrom, size_t step = kStep) : from_(from), step_(step) {}

  /// `so_far`: the first bytes of a document of `length` bytes (at each call the same bytes as
  /// before and more; their storage may move). reset() before each new document.
  void arriving(std::string_view so_far, uint64_t length);

  /// For reading `document`, the whole of what arrived: what was decoded ahead, pointing into
  /// `document`, or null when nothing was. Valid until the next call on this object.
  DecodedAhead* for_document(std::string_view document) noexcept {
    return text_done_ == 0 ? nullptr : offer(document);
  }

  /// Whether it is decoding a blob of the document as it arrives.
  bool decoding() const noexcept { return state_ == State::Decoding; }

  /// Forgets the document (its bytes too). Inline and next to free when nothing was decoded
  /// ahead: every call's answer passes here, sample.add's too.
  void reset() noexcept {
    if (state_ != State::Looking || ahead_.bytes.capacity() != 0) forget();
  }

 private:
  enum class State : uint8_t { Looking, Decoding, Off };
  void forget() noexcept;
  DecodedAhead* offer(std::string_view document) noexcept;
  uint64_t from_;
  size_t step_;
  State state_ = State::Looking;
  uint64_t length_ = 0;
  size_t text_start_ = 0;  // the <base64> element's text, as an offset in the document
  size_t text_done_ = 0;   // characters decoded (whole quanta)
  DecodedAhead ahead_;
};

}  // namespace callwire::xml
