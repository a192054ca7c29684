// Test helpers for src/ws: bytes written as hex-ish lists, and a FrameReader driven the way a
// connection drives it, in pieces of any size, its events copied out for comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ws/frame_reader.hpp"

namespace callwire::ws::test {

inline std::string bytes(std::initializer_list<int> list) {
  std::string s;
  for (int b : list) s.push_back(char(b));
  return s;
}

/// An event with its views copied, so it outlives the reader's next call.
struct Seen {
  EventKind kind;
  std::string payload;
  uint16_t code = 0;
  std::string error;
  bool operator==(const Seen&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Seen& s) {
  static const char* const names[] = {"NeedMore", "Text",  "Binary", "Ping",
                                      "Pong",     "Close", "Error"};
  os << names[int(s.kind)] << "(" << s.payload.size() << " bytes";
  if (s.payload.size() <= 40) os << " \"" << s.payload << "\"";
  if (s.code) os << ", code " << s.code;
  if (!s.error.empty()) os << ", " << s.error;
  return os << ")";
}

inline Seen seen(const Event& e) {
  return {e.kind, std::string(e.payload), e.code, std::string(e.error)};
}

/// Feeds `stream` to `reader` in pieces that end at each of `cuts` (ascending offsets), each
/// piece in a buffer of its own size (so an over-read shows under ASan), and returns the events
/// up to the first Close or Error.
inline std::vector<Seen> read_cut(FrameReader& reader, std::string_view stream,
                                  const std::vector<size_t>& cuts) {
  std::vector<Seen> out;
  size_t from = 0;
  auto feed = [&](size_t to) {
    auto piece = std::make_unique<char[]>(to - from + 1);
    std::string_view in(piece.get(), to - from);
    std::copy(stream.begin() + long(from), stream.begin() + long(to), piece.get());
    from = to;
    for (;;) {
      Event e = reader.next(in);
      if (e.consumed > in.size()) ADD_FAILURE() << "consumed past the input";
      in.remove_prefix(e.consumed);
      if (e.kind == EventKind::NeedMore) {
        if (!in.empty()) ADD_FAILURE() << "NeedMore with input left";
        return true;
      }
      out.push_back(seen(e));
      if (e.kind == EventKind::Close || e.kind == EventKind::Error) return false;
    }
  };
  for (size_t cut : cuts)
    if (!feed(cut)) return out;
  feed(stream.size());
  return out;
}

inline std::vector<Seen> read_whole(Role role, std::string_view stream, ReaderLimits limits = {}) {
  FrameReader reader(role, limits);
  return read_cut(reader, stream, {});
}

/// In pieces of `piece` bytes (1: byte by byte).
inline std::vector<Seen> read_pieces(Role role, std::string_view stream, size_t piece,
                                     ReaderLimits limits = {}) {
  std::vector<size_t> cuts;
  for (size_t at = piece; at < stream.size(); at += piece) cuts.push_back(at);
  FrameReader reader(role, limits);
  return read_cut(reader, stream, cuts);
}

/// Checks that every way of feeding `stream` gives `expected`: whole, byte by byte, and (for
/// streams up to `max_split_all` bytes) cut in two at every offset and in three at every pair.
inline void expect_any_split(Role role, std::string_view stream, const std::vector<Seen>& expected,
                             ReaderLimits limits = {}, size_t max_split_all = 300) {
  EXPECT_EQ(read_whole(role, stream, limits), expected) << "whole";
  EXPECT_EQ(read_pieces(role, stream, 1, limits), expected) << "byte by byte";
  EXPECT_EQ(read_pieces(role, stream, 7, limits), expected) << "7 bytes at a time";
  if (stream.size() > max_split_all) {
    for (size_t cut : {size_t(1), size_t(2), size_t(3), stream.size() / 2, stream.size() - 1}) {
      FrameReader reader(role, limits);
      EXPECT_EQ(read_cut(reader, stream, {cut}), expected) << "cut at " << cut;
    }
    return;
  }
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    FrameReader reader(role, limits);
    EXPECT_EQ(read_cut(reader, stream, {cut}), expected) << "cut at " << cut;
  }
  if (stream.size() <= 40)
    for (size_t a = 0; a <= stream.size(); ++a)
      for (size_t b = a; b <= stream.size(); ++b) {
        FrameReader reader(role, limits);
        EXPECT_EQ(read_cut(reader, stream, {a, b}), expected) << "cut at " << a << ", " << b;
      }
}

inline Seen text(std::string_view s) { return {EventKind::Text, std::string(s)}; }
inline Seen binary(std::string_view s) { return {EventKind::Binary, std::string(s)}; }
inline Seen error(uint16_t code, std::string_view message) {
  return {EventKind::Error, "", code, std::string(message)};
}

}  // namespace callwire::ws::test
