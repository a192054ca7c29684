// Internal: what the request and response parsers share — finding line ends without ever
// rescanning, and decoding a chunked body (RFC 9112 §7.1) incrementally. I/O-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "callwire/buffer.hpp"
#include "http/syntax.hpp"

namespace callwire::http {

/// Where a parser is in its input: the next unprocessed byte, how far the search for the next
/// LF got (>= pos), and how many bytes have been examined (the proof that parsing stays linear
/// however the input is split).
struct Cursor {
  size_t pos = 0;
  size_t scan = 0;
  uint64_t scanned = 0;

  /// Finds the next LF at or after `scan`: true with the line [pos, line_end) (a CR before the
  /// LF stripped) and `next` the byte after the LF. False when no LF has arrived yet; the
  /// search resumes where it stopped.
  bool next_line(std::string_view input, size_t& line_end, size_t& next) noexcept;
};

/// Limits of one chunked body.
struct ChunkedLimits {
  size_t max_line = 16 * 1024;  ///< a chunk-size line; the whole trailer section
  size_t max_fields = 64;       ///< trailer fields
  size_t max_body = 32 << 20;   ///< the decoded body, decided from each chunk size
};

/// Decodes one chunked body, appending the data to a Buffer. Chunk extensions are checked for
/// control characters and ignored; trailer fields are checked like header fields and dropped.
/// The wire size of the chunked section (data plus framing) may not exceed
/// 2 * max_body + max_line, which bounds what tiny chunks with long extensions make a caller
/// buffer. Thread-safety: none. Never throws (but the Buffer's std::bad_alloc).
class ChunkedDecoder {
 public:
  enum class Status { Incomplete, Done, Error };
  enum class Error {
    None,
    SizeLineTooLong,  ///< a chunk-size line over max_line
    BadSizeLine,      ///< not hex digits, a bad extension
    SizeOverflow,     ///< a chunk size beyond 64 bits
    BodyTooLarge,     ///< the declared chunks add up to more than max_body
    FramingTooLarge,  ///< the chunked section on the wire is too large
    NoLineEndAfterData,
    TrailersTooLarge,  ///< the trailer section over max_line
    TooManyTrailers,   ///< more than max_fields trailer fields
    FoldedTrailer,     ///< a trailer line starting with white space (obs-fold)
    BadTrailer,        ///< a trailer field that is not a valid field line (trailer_error())
  };

  /// Starts a body whose first byte is at `body_start` in the input; decoded bytes go after
  /// what `out` holds now.
  void begin(size_t body_start, const Buffer& out) noexcept;
  /// Decodes what `input` holds from `cursor.pos` on. Done: `cursor.pos` is past the trailers.
  Status decode(std::string_view input, Cursor& cursor, Buffer& out, const ChunkedLimits& limits);
  /// How many bytes of the current chunk's data are still to come, when every byte of `input`
  /// is decoded and the next byte on the wire is data: that many may be read straight to the
  /// end of `out` (then told to data_read_straight) instead of through the input. 0 otherwise.
  uint64_t data_due(std::string_view input, const Cursor& cursor) const noexcept {
    return state_ == State::Data && cursor.pos == input.size() ? remaining_ : 0;
  }
  /// `n` (at most data_due()) bytes of data were appended to `out` by the caller, straight from
  /// the wire: they are not in the input, and count as decoded and as scanned.
  void data_read_straight(size_t n, Cursor& cursor) noexcept {
    remaining_ -= n;
    straight_ += n;
    cursor.scanned += n;
  }

  Error error() const noexcept { return error_; }
  /// With Error::BadTrailer: what is wrong with the field line.
  syntax::FieldLineError trailer_error() const noexcept { return trailer_error_; }
  /// Decoded bytes so far, and where they start in `out`.
  uint64_t decoded() const noexcept { return total_ - remaining_; }
  size_t out_start() const noexcept { return out_start_; }
  /// Still in the middle of a chunk-size line, chunk data, or the trailers (for messages).
  bool in_trailers() const noexcept { return state_ == State::Trailers; }

 private:
  enum class State { SizeLine, Data, DataEnd, Trailers, Done, Failed };
  Status fail(Error e) noexcept {
    error_ = e;
    state_ = State::Failed;
    return Status::Error;
  }
  Error parse_size_line(std::string_view line, const ChunkedLimits& limits) noexcept;

  State state_ = State::SizeLine;
  Error error_ = Error::None;
  syntax::FieldLineError trailer_error_ = syntax::FieldLineError::None;
  size_t body_start_ = 0;
  size_t out_start_ = 0;
  size_t trailer_start_ = 0;
  size_t trailer_count_ = 0;
  uint64_t total_ = 0;      // the sizes declared so far
  uint64_t remaining_ = 0;  // of the current chunk
  uint64_t straight_ = 0;   // data read straight into the output, not in the input
};

/// Writes a body as chunks while it grows in one Buffer (a server sending a long answer as it
/// is written). Each chunk's size line is written into a gap left before its data, eight hex
/// digits wide (leading zeros are allowed: RFC 9112 §7.1's chunk-size is 1*HEXDIG), so that no
/// byte of the body ever moves. Thread-safety: none. Throws std::bad_alloc where a Buffer grows.
class ChunkedBodyWriter {
 public:
  /// A size line: eight hex digits and CRLF.
  static constexpr size_t kSizeLine = 10;
  /// Chunks are at most this big (the size line's eight digits): the caller cuts them
  /// smaller (an answer's share of the server's memory is far below).
  static constexpr uint64_t kMaxChunk = 0xFFFFFFFF;

  /// The body so far, out[body_start..], becomes the first chunk; its size line goes in the
  /// kSizeLine bytes before body_start (which the caller reserved: a head's gap). Returns
  /// where the size line starts: the head goes before it.
  size_t begin(size_t body_start);
  /// Ends the chunk open since the last cut at out.size() (nothing when it is empty) and
  /// leaves the gap for the next one's size line. Returns the end of what may be sent: the
  /// bytes before the open chunk's size line.
  size_t cut(Buffer& out);
  /// Ends the body: the open chunk (when not empty) and the last chunk, with no trailer.
  void end(Buffer& out);
  /// The end of what may be sent so far (as cut returned).
  size_t sendable() const noexcept { return line_; }

 private:
  size_t line_ = 0;  // where the open chunk's size line is
};

}  // namespace callwire::http
