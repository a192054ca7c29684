// The pull path of the reader (Reader::read_response with a ValueSink) against the tree path
// (Reader::read_response into a Value), for any document: the corpus test and reader_fuzz use
// it. Four sinks walk the result: one rebuilds it as a Value through the pull calls alone,
// one reads nothing (the reader skips it all), one reads only the first element or member of
// each container, and one rebuilds it asking as typed reads ask, without a peek first
// (read_string() straight away, or read() of the value whole: the reader's one-pass paths for
// the usual strings and numbers; arrays by runs of strings, read_string_elements). Every one must
// accept exactly what the tree path accepts, refuse with the same error, and the rebuilt values
// must equal the tree's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/value_reader.hpp"
#include "callwire/xml.hpp"
#include "message_compare.hpp"

namespace callwire::testing {

enum class PullMode { Rebuild, Skip, FirstOnly, Unpeeked };

class PullSink final : public ValueSink {
 public:
  explicit PullSink(PullMode mode) : mode_(mode) {}
  Value value;

  Status read(ValueReader& r) override {
    if (mode_ == PullMode::Skip) return {};
    return read_into(r, value);
  }

 private:
  Status read_into(ValueReader& r, Value& out) {
    if (mode_ == PullMode::Unpeeked) {
      // Of every three values: one as Rebuild reads it, one by read_string() at once (peeked
      // as Rebuild reads it when that refuses, which reads nothing), one read whole at once.
      switch (values_++ % 3) {
        case 1: {
          std::string s;
          Status st = r.read_string(s);
          if (st) out = Value(s);
          if (st || st.error().code != Errc::InvalidArgument) return st;
          break;
        }
        case 2:
          return r.read(out);
        default:
          break;
      }
    }
    Result<Type> type = r.peek();
    if (!type) return type.error();
    switch (*type) {
      case Type::String: {
        std::string s;
        if (Status st = r.read_string(s); !st) return st;
        out = Value(s);
        return {};
      }
      case Type::Bytes: {
        std::vector<uint8_t> b;
        if (Status st = r.read_bytes(b); !st) return st;
        out = Value::bytes(b);
        return {};
      }
      case Type::Array: {
        if (Status st = r.enter_array(); !st) return st;
        out = Value::array();
        if (mode_ == PullMode::Unpeeked) return read_elements_in_runs(r, out);
        for (bool first = true;; first = false) {
          Result<bool> more = r.next_element();
          if (!more) return more.error();
          if (!*more) return {};
          if (mode_ == PullMode::FirstOnly && !first) continue;  // left for the reader to skip
          Value item;
          if (Status st = read_into(r, item); !st) return st;
          out.push_back(std::move(item));
        }
      }
      case Type::Struct: {
        if (Status st = r.enter_struct(); !st) return st;
        out = Value::structure();
        std::string_view name;
        for (bool first = true;; first = false) {
          Result<bool> more = r.next_member(name);
          if (!more) return more.error();
          if (!*more) return {};
          if (mode_ == PullMode::FirstOnly && !first) continue;
          std::string kept(name);  // valid only until the next call on the reader
          Value item;
          if (Status st = read_into(r, item); !st) return st;
          out.set(kept, std::move(item));
        }
      }
      default:
        return r.read(out);
    }
  }

  // Unpeeked arrays as Convert reads a vector of strings: the runs of strings in one call
  // (read_string_elements), each element that stops one read on its own.
  Status read_elements_in_runs(ValueReader& r, Value& out) {
    std::vector<std::string> texts;
    for (;;) {
      texts.clear();
      Result<bool> ended = r.read_string_elements(texts);
      if (!ended) return ended.error();
      for (const std::string& text : texts) out.push_back(Value(text));
      if (*ended) return {};
      Value item;
      if (Status st = read_into(r, item); !st) return st;
      out.push_back(std::move(item));
    }
  }

  PullMode mode_;
  size_t values_ = 0;  // Unpeeked: the values met so far
};

/// What differs between the pull path and the tree path on `doc`; nothing when they agree.
inline std::optional<std::string> pull_difference(xml::Reader& reader, std::string_view doc) {
  Result<MethodResponse> tree = reader.read_response(doc);
  for (PullMode mode :
       {PullMode::Rebuild, PullMode::Skip, PullMode::FirstOnly, PullMode::Unpeeked}) {
    const std::string which = mode == PullMode::Rebuild     ? "rebuilding"
                              : mode == PullMode::Skip      ? "skipping"
                              : mode == PullMode::FirstOnly ? "reading first items only"
                                                            : "rebuilding without peeking";
    PullSink sink(mode);
    MethodResponse response;
    Status sink_status;
    Status read = reader.read_response(doc, response, sink, sink_status);
    if (!tree) {
      if (read)
        return "pull (" + which + ") accepts what the tree path refuses: " + tree.error().message;
      if (read.error().code != tree.error().code || read.error().message != tree.error().message)
        return "pull (" + which + ") refuses with " + quote(read.error().message) +
               ", the tree path with " + quote(tree.error().message);
      continue;
    }
    if (!read)
      return "pull (" + which + ") refuses what the tree path accepts: " + read.error().message;
    if (!sink_status) return "the sink (" + which + ") failed: " + sink_status.error().message;
    if (response.is_fault != tree->is_fault) return "pull (" + which + ") disagrees on the fault";
    if (response.is_fault) {
      if (response.fault.code != tree->fault.code || response.fault.string != tree->fault.string)
        return "pull (" + which + ") read another fault";
      continue;
    }
    if (!response.result.is_nil()) return "pull (" + which + ") left a result Value";
    if (mode == PullMode::Rebuild || mode == PullMode::Unpeeked) {
      if (auto d = first_difference(tree->result, sink.value, "result"))
        return "the value " + which + " differs at " + *d;
    }
  }
  return std::nullopt;
}

/// `doc` with a methodCall made into a methodResponse (root renamed, methodName dropped), so
/// that the calls of a corpus exercise the response path too; other documents unchanged.
/// Crude on purpose: whatever comes out, both paths must agree on it.
inline std::string as_response(std::string_view doc) {
  std::string out(doc);
  auto replace_first = [&out](std::string_view from, std::string_view to) {
    size_t at = out.find(from);
    if (at != std::string::npos) out.replace(at, from.size(), to);
  };
  size_t end = out.rfind("</methodCall>");
  if (end != std::string::npos) out.replace(end, 13, "</methodResponse>");
  replace_first("<methodCall>", "<methodResponse>");
  size_t name = out.find("<methodName>");
  size_t name_end = out.find("</methodName>");
  if (name != std::string::npos && name_end != std::string::npos && name < name_end)
    out.erase(name, name_end + 13 - name);
  return out;
}

}  // namespace callwire::testing
