// Internal: gzip (RFC 1952) bodies for `Content-Encoding: gzip`, on zlib.
//
// Both functions are I/O-free and stateless: thread-safe for distinct Buffers. They borrow
// `in` for the call only and append to the caller's `out`. No zlib type appears here.
#pragma once

#include <cstddef>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"

namespace callwire::http {

/// Appends one gzip member holding `in` to `out`, compressed at `level` (0 = stored, 1 =
/// fastest, 9 = smallest; -1 = zlib's default, 6). Reserves zlib's bound up front, so `out`
/// grows at most once.
/// Errors: Errc::InvalidArgument for a level outside -1..9 (nothing appended). Throws
/// std::bad_alloc when `out` cannot grow or zlib cannot allocate its state.
Status gzip_compress(std::string_view in, Buffer& out, int level = 1);

/// The outcome of gzip_inflate; each one is distinct so the client can say what went wrong.
enum class InflateStatus {
  Ok,               ///< every member decoded and checked (CRC-32 and length)
  OverLimit,        ///< the decoded size would exceed max_out (a gzip bomb, or just too big)
  Corrupt,          ///< not gzip, a bad header, bad deflate data, a CRC or length mismatch
  Truncated,        ///< the input ends inside a member (or is empty)
  TrailingGarbage,  ///< bytes after the last member that do not start another member
};

/// A short English description ("gzip data corrupt", ...). Static storage, never null.
const char* inflate_status_name(InflateStatus status) noexcept;

/// Decodes the gzip data `in` (one or more concatenated members, RFC 1952 §2.2) and appends
/// the decoded bytes to `out`.
///
/// The cap is enforced as the data is decoded: zlib is never given room for more than
/// max_out + 1 decoded bytes, so a bomb (1 GiB of zeros in 1 MiB) stops after max_out + 1
/// bytes of work, and `out` never grows past its size at the call plus max_out + 1 (it may
/// be copied once into exactly that capacity rather than grow geometrically past it).
///
/// Returns Ok with the bytes appended; on any other outcome `out` is truncated back to its
/// size at the call (nothing appended). Throws std::bad_alloc when `out` cannot grow or zlib
/// cannot allocate its state (about 45 KiB).
InflateStatus gzip_inflate(std::string_view in, Buffer& out, size_t max_out);

}  // namespace callwire::http
