#include "xml/decode_ahead.hpp"

#include <algorithm>

#include "base/base64.hpp"

namespace callwire::xml {

namespace {
// Where a methodResponse's <base64> result starts: within its first bytes, after the XML
// declaration and the envelope's tags.
constexpr size_t kHeadWindow = 1024;
constexpr std::string_view kStartTag = "<base64>";
}  // namespace

void Base64Ahead::forget() noexcept {
  state_ = State::Looking;
  length_ = 0;
  text_start_ = text_done_ = 0;
  std::vector<uint8_t>().swap(ahead_.bytes);  // a read took them, or they go unused
  ahead_.taken = false;
}

void Base64Ahead::arriving(std::string_view so_far, uint64_t length) {
  if (state_ == State::Off) return;
  if (state_ == State::Looking) {
    length_ = length;
    if (length < from_) {
      state_ = State::Off;
      return;
    }
    size_t at = so_far.substr(0, kHeadWindow).find(kStartTag);
    if (at == std::string_view::npos) {
      // Not in the head: another kind of answer. Or the head has not all come.
      if (so_far.size() >= kHeadWindow || so_far.size() == length) state_ = State::Off;
      return;
    }
    text_start_ = at + kStartTag.size();
    // Room for all of it now (address space: the pages are touched as they are decoded into),
    // so the vector never moves while it grows.
    ahead_.bytes.reserve(base64::max_decoded_size(size_t(length) - text_start_));
    state_ = State::Decoding;
  }
  const size_t from = text_start_ + text_done_;
  if (so_far.size() <= from) return;
  const size_t step = (so_far.size() - from) / 4 * 4;
  if (step < step_ || step == 0) return;
  const size_t decoded = ahead_.bytes.size();
  ahead_.bytes.resize(decoded + step / 4 * 3);
  size_t error_at = 0;
  long n = base64::decode(so_far.substr(from, step), ahead_.bytes.data() + decoded, error_at);
  if (n != long(step / 4 * 3)) {
    // White space, padding, the end tag or a wrong character: the read takes it from here.
    ahead_.bytes.resize(decoded);
    state_ = State::Off;
    return;
  }
  text_done_ += step;
}

DecodedAhead* Base64Ahead::offer(std::string_view document) noexcept {
  if (document.size() != length_ || document.size() < text_start_ + text_done_) return nullptr;
  ahead_.text = document.data() + text_start_;
  ahead_.text_length = text_done_;
  ahead_.taken = false;
  return &ahead_;
}

}  // namespace callwire::xml
