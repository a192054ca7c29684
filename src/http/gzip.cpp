#include "http/gzip.hpp"

#include <zlib.h>

#include <climits>
#include <cstdint>
#include <new>
#include <string>

namespace callwire::http {
namespace {

// 16 + 15: zlib's gzip wrapper only (no zlib wrapper, no raw deflate), 32 KiB window.
constexpr int kGzipWindowBits = 16 + MAX_WBITS;
// zlib counts in uInt (32 bits): bigger inputs are fed in slices.
constexpr size_t kMaxSlice = size_t{1} << 30;
// How much decoded output zlib may write per call; small enough that the cap is checked often.
constexpr size_t kOutChunk = 64 * 1024;

struct Deflater {
  z_stream s{};
  bool live = false;
  ~Deflater() {
    if (live) deflateEnd(&s);
  }
};

struct Inflater {
  z_stream s{};
  bool live = false;
  ~Inflater() {
    if (live) inflateEnd(&s);
  }
};

// Room for n more bytes in `out` without its capacity passing hard_cap: when the Buffer's
// geometric growth would overshoot, the contents move once into storage of exactly hard_cap.
char* room_capped(Buffer& out, size_t n, size_t hard_cap) {
  if (out.capacity() - out.size() >= n) return out.data() + out.size();
  size_t cap = out.capacity();
  size_t geometric = cap < 256 ? 256 : cap + cap / 2;
  if (geometric > hard_cap) out.reserve_exact(hard_cap);  // large blocks grow without a copy
  return out.prepare(n);
}

}  // namespace

Status gzip_compress(std::string_view in, Buffer& out, int level) {
  if (level < -1 || level > 9)
    return Error(Errc::InvalidArgument, "gzip level " + std::to_string(level) + " not in -1..9");
  Deflater d;
  // Only Z_MEM_ERROR is possible with these constant arguments and a checked level.
  if (deflateInit2(&d.s, level, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::bad_alloc();
  d.live = true;
  const size_t start = out.size();
  // deflateBound covers the gzip header and trailer: one reservation, one pass.
  out.reserve(start + size_t(deflateBound(&d.s, uLong(in.size()))));
  const auto* next = reinterpret_cast<const Bytef*>(in.data());
  size_t left = in.size();
  int flush = Z_NO_FLUSH;
  do {
    size_t slice = left < kMaxSlice ? left : kMaxSlice;
    d.s.next_in = const_cast<Bytef*>(next);  // zlib's API is not const-correct; it only reads
    d.s.avail_in = uInt(slice);
    next += slice;
    left -= slice;
    flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
    int rc = Z_OK;
    do {
      size_t room = out.capacity() - out.size();
      if (room < 64) room = kOutChunk;
      if (room > kMaxSlice) room = kMaxSlice;
      d.s.next_out = reinterpret_cast<Bytef*>(out.prepare(room));
      d.s.avail_out = uInt(room);
      rc = deflate(&d.s, flush);
      out.commit(room - d.s.avail_out);
      if (rc == Z_STREAM_ERROR) {  // cannot happen with a valid stream; never append half
        out.truncate(start);
        return Error(Errc::InvalidArgument, "gzip: zlib stream error");
      }
    } while (flush == Z_FINISH ? rc != Z_STREAM_END : d.s.avail_out == 0);
  } while (flush != Z_FINISH);
  return {};
}

const char* inflate_status_name(InflateStatus status) noexcept {
  switch (status) {
    case InflateStatus::Ok:
      return "ok";
    case InflateStatus::OverLimit:
      return "gzip data decodes to more than the limit";
    case InflateStatus::Corrupt:
      return "gzip data corrupt";
    case InflateStatus::Truncated:
      return "gzip data truncated";
    case InflateStatus::TrailingGarbage:
      return "garbage after the gzip data";
  }
  return "unknown";
}

InflateStatus gzip_inflate(std::string_view in, Buffer& out, size_t max_out) {
  const size_t base = out.size();
  const size_t hard_cap =
      max_out >= SIZE_MAX - base - 1 ? SIZE_MAX : base + max_out + 1;  // saturating
  auto failed = [&](InflateStatus why) {
    out.truncate(base);
    return why;
  };
  if (in.empty()) return InflateStatus::Truncated;

  Inflater z;
  if (inflateInit2(&z.s, kGzipWindowBits) != Z_OK) throw std::bad_alloc();
  z.live = true;
  size_t fed = 0;  // bytes of `in` handed to zlib so far
  size_t produced = 0;
  for (;;) {
    // One member.
    int rc = Z_OK;
    do {
      if (z.s.avail_in == 0 && fed < in.size()) {
        size_t slice = in.size() - fed < kMaxSlice ? in.size() - fed : kMaxSlice;
        z.s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + fed));
        z.s.avail_in = uInt(slice);
        fed += slice;
      }
      // Never room for more than max_out + 1 bytes in all: one byte over tells "too big".
      size_t remaining = max_out - produced;
      size_t window = remaining >= kOutChunk ? kOutChunk : remaining + 1;
      z.s.next_out = reinterpret_cast<Bytef*>(room_capped(out, window, hard_cap));
      z.s.avail_out = uInt(window);
      rc = inflate(&z.s, Z_NO_FLUSH);
      size_t got = window - z.s.avail_out;
      out.commit(got);
      produced += got;
      if (produced > max_out) return failed(InflateStatus::OverLimit);
      switch (rc) {
        case Z_OK:
        case Z_BUF_ERROR:
          // No progress possible: every byte given and room left over means the data ended.
          if (z.s.avail_in == 0 && fed == in.size() && z.s.avail_out != 0)
            return failed(InflateStatus::Truncated);
          break;
        case Z_STREAM_END:
          break;
        case Z_MEM_ERROR:
          out.truncate(base);
          throw std::bad_alloc();
        default:  // Z_DATA_ERROR, Z_NEED_DICT (not in gzip), Z_STREAM_ERROR
          return failed(InflateStatus::Corrupt);
      }
    } while (rc != Z_STREAM_END);

    // After a member: the end, another member (ID1 ID2 = 1f 8b), or garbage.
    const size_t used = fed - z.s.avail_in;
    if (used == in.size()) return InflateStatus::Ok;
    std::string_view rest = in.substr(used);
    if (static_cast<unsigned char>(rest[0]) != 0x1f ||
        (rest.size() > 1 && static_cast<unsigned char>(rest[1]) != 0x8b))
      return failed(InflateStatus::TrailingGarbage);
    if (rest.size() == 1) return failed(InflateStatus::Truncated);
    // Keeps next_in/avail_in: the next member starts where this one ended.
    if (inflateReset(&z.s) != Z_OK) return failed(InflateStatus::Corrupt);
  }
}

}  // namespace callwire::http
