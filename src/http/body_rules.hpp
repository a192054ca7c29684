// Internal: HTTP/1.1's rules for where a message's body ends and whether its connection goes
// on (RFC 9112 §6, §9.3), from the fields that decide them: Content-Length, Transfer-Encoding,
// Connection and Content-Encoding. The request and the response parser both read their heads
// through one BodyRules, so the two ends of a connection can never frame one message two ways:
// the rules that decide request smuggling are written once. Stateless beyond one head; never
// throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "http/syntax.hpp"

namespace callwire::http {

/// Why a head's framing fields cannot be used.
enum class BodyRuling {
  Ok,
  LengthAndChunked,     ///< Content-Length and Transfer-Encoding together
  ChunkedBeforeHttp11,  ///< Transfer-Encoding in an HTTP/1.0 message
  NotOnlyChunked,       ///< a transfer coding other than one `chunked`
};

class BodyRules {
 public:
  /// Content-Length: false when it is repeated (even with the same value) or not 1*DIGIT.
  bool content_length(std::string_view value) noexcept {
    if (length_) return false;
    uint64_t n = 0;
    if (syntax::parse_length(value, n) != syntax::LengthText::Ok) return false;
    length_ = n;
    return true;
  }
  /// Transfer-Encoding: several fields form one list, so `chunked` twice is not `chunked`.
  void transfer_encoding(std::string_view value) noexcept {
    if (seen_te_ || !base::iequals(value, "chunked")) chunked_only_ = false;
    seen_te_ = true;
  }
  /// Connection: its `close` and `keep-alive` options.
  void connection(std::string_view value) noexcept {
    syntax::for_each_element(value, [&](std::string_view token) {
      if (base::iequals(token, "close")) close_ = true;
      if (base::iequals(token, "keep-alive")) keep_alive_ = true;
    });
  }
  /// Content-Encoding: false when repeated; gzip() says whether it names gzip.
  bool content_encoding(std::string_view value) noexcept {
    if (seen_encoding_) return false;
    seen_encoding_ = true;
    gzip_ = base::iequals(value, "gzip") || base::iequals(value, "x-gzip");
    return true;
  }

  /// Once the head is read: whether its framing fields can be used.
  BodyRuling ruling(bool http11) const noexcept {
    if (seen_te_ && length_) return BodyRuling::LengthAndChunked;
    if (seen_te_ && !http11) return BodyRuling::ChunkedBeforeHttp11;
    if (seen_te_ && !chunked_only_) return BodyRuling::NotOnlyChunked;
    return BodyRuling::Ok;
  }
  /// HTTP/1.1 keeps the connection unless told `close`; HTTP/1.0 only when told `keep-alive`.
  bool keep_alive(bool http11) const noexcept {
    return http11 ? !close_ : (keep_alive_ && !close_);
  }
  bool chunked() const noexcept { return seen_te_; }
  const std::optional<uint64_t>& length() const noexcept { return length_; }
  bool gzip() const noexcept { return gzip_; }

  void reset() noexcept { *this = BodyRules(); }

 private:
  std::optional<uint64_t> length_;
  bool seen_te_ = false;
  bool chunked_only_ = true;
  bool close_ = false;
  bool keep_alive_ = false;
  bool seen_encoding_ = false;
  bool gzip_ = false;
};

}  // namespace callwire::http
