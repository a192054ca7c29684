#include "http/chunked.hpp"

#include <cstring>

namespace callwire::http {

bool Cursor::next_line(std::string_view input, size_t& line_end, size_t& next) noexcept {
  if (scan < pos) scan = pos;
  const char* base = input.data();
  const char* lf =
      scan < input.size() ? syntax::find_lf(base + scan, base + input.size()) : nullptr;
  if (!lf) {
    scanned += input.size() - scan;
    scan = input.size();
    return false;
  }
  size_t at = size_t(lf - base);
  scanned += at + 1 - scan;
  next = at + 1;
  scan = next;
  line_end = (at > pos && base[at - 1] == '\r') ? at - 1 : at;
  return true;
}

void ChunkedDecoder::begin(size_t body_start, const Buffer& out) noexcept {
  *this = ChunkedDecoder();
  body_start_ = body_start;
  out_start_ = out.size();
}

ChunkedDecoder::Error ChunkedDecoder::parse_size_line(std::string_view line,
                                                      const ChunkedLimits& limits) noexcept {
  // chunk-size [ BWS ";" ext ... ]: hex digits, then optional extensions, ignored.
  size_t i = 0;
  uint64_t size = 0;
  while (i < line.size()) {
    char c = line[i];
    int digit = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
    if (digit < 0) break;
    if (size > (UINT64_MAX >> 4)) return Error::SizeOverflow;
    size = (size << 4) | uint64_t(digit);
    ++i;
  }
  if (i == 0) return Error::BadSizeLine;
  size_t j = i;
  while (j < line.size() && syntax::is_ows(line[j])) ++j;
  if (j < line.size()) {
    if (line[j] != ';' || !syntax::is_field_value(line.substr(j))) return Error::BadSizeLine;
  } else if (j != i) {
    return Error::BadSizeLine;  // white space with no extension after it
  }
  if (size > limits.max_body - total_) return Error::BodyTooLarge;
  total_ += size;
  remaining_ = size;
  return Error::None;
}

ChunkedDecoder::Status ChunkedDecoder::decode(std::string_view input, Cursor& c, Buffer& out,
                                              const ChunkedLimits& limits) {
  for (;;) {
    switch (state_) {
      case State::SizeLine:
      case State::Trailers: {
        const bool size_line = state_ == State::SizeLine;
        const size_t line_limit = size_line ? c.pos : trailer_start_;
        const Error too_long = size_line ? Error::SizeLineTooLong : Error::TrailersTooLarge;
        size_t line_end = 0, next = 0;
        if (!c.next_line(input, line_end, next)) {
          if (input.size() - line_limit >= limits.max_line) return fail(too_long);
          return Status::Incomplete;
        }
        if (next - line_limit > limits.max_line) return fail(too_long);
        c.scanned += line_end - c.pos;
        std::string_view line = input.substr(c.pos, line_end - c.pos);
        if (size_line) {
          if (Error e = parse_size_line(line, limits); e != Error::None) return fail(e);
          // Bound the wire size of the chunked section, framing included (and the data read
          // past the input, straight into the output).
          uint64_t wire = next - body_start_ + straight_ + remaining_ + 2;
          if (wire > 2 * uint64_t(limits.max_body) + limits.max_line)
            return fail(Error::FramingTooLarge);
          c.pos = next;
          if (remaining_ == 0) {
            state_ = State::Trailers;
            trailer_start_ = c.pos;
          } else {
            state_ = State::Data;
          }
        } else if (line.empty()) {
          c.pos = next;
          state_ = State::Done;
          return Status::Done;
        } else {
          if (++trailer_count_ > limits.max_fields) return fail(Error::TooManyTrailers);
          if (syntax::is_ows(line[0])) return fail(Error::FoldedTrailer);
          size_t colon = 0;
          trailer_error_ = syntax::scan_field_line(line, colon);
          if (trailer_error_ != syntax::FieldLineError::None) return fail(Error::BadTrailer);
          c.pos = next;
        }
        break;
      }
      case State::Data: {
        size_t avail = input.size() - c.pos;
        size_t n = avail < remaining_ ? avail : size_t(remaining_);
        if (n) {
          out.append(input.data() + c.pos, n);
          c.scanned += n;
          c.pos += n;
          remaining_ -= n;
        }
        c.scan = c.pos;
        if (remaining_) return Status::Incomplete;
        state_ = State::DataEnd;
        break;
      }
      case State::DataEnd: {
        if (input.size() == c.pos) return Status::Incomplete;
        char ch = input[c.pos];
        ++c.scanned;
        if (ch == '\n') {
          c.pos += 1;
        } else if (ch == '\r') {
          if (input.size() - c.pos < 2) return Status::Incomplete;
          ++c.scanned;
          if (input[c.pos + 1] != '\n') return fail(Error::NoLineEndAfterData);
          c.pos += 2;
        } else {
          return fail(Error::NoLineEndAfterData);
        }
        c.scan = c.pos;
        state_ = State::SizeLine;
        break;
      }
      case State::Done:
        return Status::Done;
      case State::Failed:
        return Status::Error;
    }
  }
}

namespace {

// The size line of a chunk of `n` bytes (n <= kMaxChunk), eight digits wide.
void write_size_line(char* dst, uint64_t n) {
  static const char kHex[] = "0123456789abcdef";
  for (int i = 7; i >= 0; --i, n >>= 4) dst[i] = kHex[n & 15];
  dst[8] = '\r';
  dst[9] = '\n';
}

}  // namespace

size_t ChunkedBodyWriter::begin(size_t body_start) {
  line_ = body_start - kSizeLine;
  return line_;
}

size_t ChunkedBodyWriter::cut(Buffer& out) {
  const size_t data = line_ + kSizeLine;
  if (out.size() == data) return line_;
  write_size_line(out.data() + line_, out.size() - data);
  out.append("\r\n");
  line_ = out.size();
  out.prepare(kSizeLine);
  out.commit(kSizeLine);  // the next size line's gap
  return line_;
}

void ChunkedBodyWriter::end(Buffer& out) {
  if (out.size() == line_ + kSizeLine) {
    out.truncate(line_);
  } else {
    write_size_line(out.data() + line_, out.size() - line_ - kSizeLine);
    out.append("\r\n");
  }
  out.append("0\r\n\r\n");
  line_ = out.size();
}

}  // namespace callwire::http
