// Internal to src/ws: UTF-8 checked incrementally, for text messages that arrive in fragments
// (a code point may be split between them) and must fail as soon as a byte cannot be UTF-8,
// not when a large message is complete. base/utf8.hpp decodes whole sequences only, so this
// is a byte-at-a-time automaton over the same rules (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), with an ASCII fast path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace callwire::ws::detail {

class Utf8Validator {
 public:
  /// Checks the next `n` bytes of the text. Returns false at the first byte no UTF-8 text can
  /// have there (and from then on, until reset).
  bool feed(const unsigned char* p, size_t n) noexcept {
    if (state_ == State::Reject) return false;
    size_t i = 0;
    while (i < n) {
      if (state_ == State::Accept) {
        while (i + 8 <= n) {
          uint64_t w;
          std::memcpy(&w, p + i, 8);
          if (w & 0x8080808080808080ull) break;
          i += 8;
        }
        if (i == n) break;
      }
      state_ = step(state_, p[i++]);
      if (state_ == State::Reject) return false;
    }
    return true;
  }
  /// Whether the text so far ends between code points.
  bool complete() const noexcept { return state_ == State::Accept; }
  void reset() noexcept { state_ = State::Accept; }

 private:
  // What the next byte may be. NeedN: any N continuation bytes (80-BF). The others narrow the
  // second byte where RFC 3629's table does: E0 A0-BF (no overlong), ED 80-9F (no
  // surrogates), F0 90-BF (no overlong), F4 80-8F (nothing above U+10FFFF).
  enum class State : uint8_t {
    Accept,
    Need1,
    Need2,
    Need3,
    AfterE0,
    AfterED,
    AfterF0,
    AfterF4,
    Reject
  };

  static State step(State s, unsigned char b) noexcept {
    const bool cont = (b & 0xC0) == 0x80;
    switch (s) {
      case State::Accept:
        if (b < 0x80) return State::Accept;
        if (b < 0xC2) return State::Reject;  // a stray continuation, or an overlong lead
        if (b < 0xE0) return State::Need1;
        if (b == 0xE0) return State::AfterE0;
        if (b == 0xED) return State::AfterED;
        if (b < 0xF0) return State::Need2;
        if (b == 0xF0) return State::AfterF0;
        if (b < 0xF4) return State::Need3;
        if (b == 0xF4) return State::AfterF4;
        return State::Reject;
      case State::Need1:
        return cont ? State::Accept : State::Reject;
      case State::Need2:
        return cont ? State::Need1 : State::Reject;
      case State::Need3:
        return cont ? State::Need2 : State::Reject;
      case State::AfterE0:
        return b >= 0xA0 && b <= 0xBF ? State::Need1 : State::Reject;
      case State::AfterED:
        return b >= 0x80 && b <= 0x9F ? State::Need1 : State::Reject;
      case State::AfterF0:
        return b >= 0x90 && b <= 0xBF ? State::Need2 : State::Reject;
      case State::AfterF4:
        return b >= 0x80 && b <= 0x8F ? State::Need2 : State::Reject;
      case State::Reject:
        break;
    }
    return State::Reject;
  }

  State state_ = State::Accept;
};

}  // namespace callwire::ws::detail
