// libFuzzer driver: the JSON-RPC response reader (a client's side), then the writers and the
// reader again.
//
// For any input, on Readers kept across inputs (as a client keeps one), one with small limits
// (so that each limit is reached) and one with the defaults:
// - read_response never crashes; a refusal carries -32700 (NotWellFormed) or -32600
//   (InvalidRequest, LimitExceeded) and a message, and leaves no responses and batch false;
// - what the small limits accept, the defaults accept the same; what the small limits refuse
//   for another reason than a limit, the defaults refuse with the same error;
// - reading into a Responses that holds the previous input's gives what a fresh one gets;
// - reading in place (read_response_padded) gives what reading a copy gives;
// - an accepted document holds one response, or a batch of 1 to max_batch_size, and is JSON
//   by simdjson's DOM parser too (but for numbers beyond a double or 64 bits);
// - each response is exactly one of: a result (no data), an error (Errc::Fault, data
//   optional), or one spoilt by its result or data (Unrepresentable -32602 or InvalidRequest
//   -32600: a nil result, no data, a message);
// - each id is a slice of the input that reads alone as a JSON null, number or string;
// - each result and data written back (write_value) reads again to the same Value, and writing
//   that gives the same bytes (member order kept);
// - the responses written back as a document (write_result / write_error, or BatchWriter for
//   a batch) read back the same: id, result, code, message, data.
// - a single response read with a sink (read_response with a ValueSink: a typed call's path)
//   agrees with the Value path, whichever way the sink reads: whole (ValueReader::read),
//   piece by piece (peek, enter_array / next_element, enter_struct / next_member,
//   read_string), its first element only, or nothing: the same document verdict (same error
//   code), the same id and error; a sink that reads everything gets the same Value. A batch is
//   refused.
// Any violation prints what differs and traps.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/json.hpp"
#include "callwire/value_reader.hpp"
#include "json_is_json.hpp"

namespace {

using callwire::Buffer;
using callwire::Errc;
using callwire::Error;
using callwire::Status;
using callwire::Value;
namespace fault_code = callwire::fault_code;
namespace json = callwire::json;

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "\n*** json_response_fuzz: %s\n%.*s\n", what, int(detail.size()),
               detail.data());
  std::fflush(stderr);
  __builtin_trap();
}

std::string describe(const Error& e) {
  return std::string(callwire::errc_name(e.code)) + " " + std::to_string(e.fault_code) + " " +
         e.message;
}

bool same_error(const Error& a, const Error& b) {
  return a.code == b.code && a.fault_code == b.fault_code && a.message == b.message;
}

bool same(const json::Response& a, const json::Response& b) {
  return a.id == b.id && a.result == b.result && same_error(a.error, b.error) &&
         a.data.has_value() == b.data.has_value() && (!a.data || *a.data == *b.data);
}

bool same(const json::Responses& a, const json::Responses& b) {
  if (a.batch != b.batch || a.responses.size() != b.responses.size()) return false;
  for (size_t i = 0; i < a.responses.size(); ++i)
    if (!same(a.responses[i], b.responses[i])) return false;
  return true;
}

json::JsonLimits small_limits() {
  json::JsonLimits limits;
  limits.max_document_size = 4096;  // below run.sh's -max_len of 16384
  limits.max_depth = 6;
  limits.max_string_size = 32;
  limits.max_batch_size = 4;
  limits.max_elements = 64;
  return limits;
}

// The whole-document checks that hold for any reader.
void check_document(Status s, const json::Responses& out, const json::JsonLimits& limits,
                    std::string_view doc) {
  if (!s) {
    const Error& e = s.error();
    bool known = e.fault_code == fault_code::kParseError
                     ? e.code == Errc::NotWellFormed
                     : e.fault_code == fault_code::kInvalidXmlRpc &&
                           (e.code == Errc::InvalidRequest || e.code == Errc::LimitExceeded);
    if (!known || e.message.empty()) fail("a refusal with an unexpected code", describe(e));
    if (!out.responses.empty() || out.batch) fail("responses left after a refusal", doc);
    return;
  }
  size_t n = out.responses.size();
  if (out.batch ? n == 0 || n > limits.max_batch_size : n != 1)
    fail("a wrong number of responses", std::to_string(n) + (out.batch ? " in a batch" : ""));
}

// A result or data value: written, read again, the same Value and the same bytes.
void check_round_trip(json::Reader& rereader, const Value& v) {
  Buffer first;
  Status w = json::write_value(first, v);
  if (!w) fail("a value read could not be written", w.error().message);
  callwire::Result<Value> reread = rereader.read_value(first.view());
  if (!reread)
    fail("a written value was refused",
         describe(reread.error()) + "\n" + std::string(first.view()));
  if (!(*reread == v)) fail("a value changed in a round trip", first.view());
  Buffer second;
  if (!json::write_value(second, *reread) || second.view() != first.view())
    fail("the round trip is not stable",
         std::string(first.view()) + "\n" + std::string(second.view()));
}

void check_response(json::Reader& rereader, const json::Response& r, std::string_view doc) {
  // The id: JSON text cut from the input, one null, number or string.
  if (r.id.empty() || doc.find(r.id) == std::string_view::npos)
    fail("an id that is not a slice of the input", r.id);
  callwire::Result<Value> id = rereader.read_value(r.id);
  bool number_text = r.id[0] == '-' || (r.id[0] >= '0' && r.id[0] <= '9');
  bool id_ok =
      id ? id->is_nil() || id->is_string() || (number_text && (id->is_integer() || id->is_double()))
         : number_text && id.error().code == Errc::Unrepresentable;
  if (!id_ok) fail("an id that is not one JSON null, number or string", r.id);

  if (r.ok()) {
    if (r.data) fail("a result with data", doc);
    check_round_trip(rereader, r.result);
  } else if (r.is_fault()) {
    if (r.data) check_round_trip(rereader, *r.data);
  } else {
    bool spoilt =
        (r.error.code == Errc::Unrepresentable &&
         r.error.fault_code == fault_code::kInvalidParams) ||
        (r.error.code == Errc::InvalidRequest && r.error.fault_code == fault_code::kInvalidXmlRpc);
    if (!spoilt || r.error.message.empty())
      fail("a response with an unexpected error", describe(r.error));
    if (!r.result.is_nil() || r.data) fail("a spoilt response keeps a result or data", doc);
  }
}

// Writes one response; false when it is spoilt (no writer writes those).
bool write_response(Buffer& out, const json::Response& r) {
  Status s;
  if (r.ok())
    s = json::write_result(out, r.id, r.result);
  else if (r.is_fault())
    s = json::write_error(out, r.id, r.error.fault_code, r.error.message,
                          r.data ? &*r.data : nullptr);
  else
    return false;
  if (!s) fail("a response read could not be written", describe(s.error()));
  return true;
}

// The responses written back as a document read back the same (spoilt ones left out).
void check_written(json::Reader& rereader, const json::Responses& in) {
  json::Responses kept;
  kept.batch = in.batch;
  Buffer doc;
  if (in.batch) {
    json::BatchWriter batch(doc);
    for (const json::Response& r : in.responses) {
      if (!r.ok() && !r.is_fault()) continue;
      Status s = r.ok() ? batch.result(r.id, r.result)
                        : batch.error(r.id, r.error.fault_code, r.error.message,
                                      r.data ? &*r.data : nullptr);
      if (!s) fail("a response read could not be written in a batch", describe(s.error()));
      kept.responses.push_back(r);
    }
    if (!batch.finish()) return;
  } else {
    if (!write_response(doc, in.responses[0])) return;
    kept.responses.push_back(in.responses[0]);
  }
  json::Responses back;
  Status s = rereader.read_response(doc.view(), back);
  if (!s)
    fail("written responses were refused", describe(s.error()) + "\n" + std::string(doc.view()));
  if (!same(back, kept)) fail("written responses do not read back the same", doc.view());
}

// ---- The sink path (Reader::read_response with a ValueSink).

enum class Reading { Whole, Pieces, Runs, FirstOnly, Nothing };

Status read_pieces(callwire::ValueReader& r, Value& out, bool runs);

// Runs: an array's elements as Convert reads a vector of strings, the runs of strings in one
// call (read_string_elements), each element that stops one read on its own.
Status read_runs(callwire::ValueReader& r, Value& out) {
  std::vector<std::string> texts;
  for (;;) {
    texts.clear();
    callwire::Result<bool> ended = r.read_string_elements(texts);
    if (!ended) return ended.error();
    for (const std::string& text : texts) out.push_back(Value(text));
    if (*ended) return {};
    Value item;
    if (Status s = read_pieces(r, item, true); !s) return s;
    out.push_back(std::move(item));
  }
}

// A value read piece by piece through the ValueReader into `out` (`runs`: arrays by read_runs).
Status read_pieces(callwire::ValueReader& r, Value& out, bool runs) {
  callwire::Result<callwire::Type> type = r.peek();
  if (!type) return type.error();
  if (*type == callwire::Type::Array || *type == callwire::Type::Struct) {
    const bool is_struct = *type == callwire::Type::Struct;
    if (Status s = is_struct ? r.enter_struct() : r.enter_array(); !s) return s;
    out = is_struct ? Value::structure() : Value::array();
    if (runs && !is_struct) return read_runs(r, out);
    for (;;) {
      std::string_view name;
      callwire::Result<bool> more = is_struct ? r.next_member(name) : r.next_element();
      if (!more) return more.error();
      if (!*more) return {};
      std::string key(name);  // valid only until the next call on the reader
      Value item;
      if (Status s = read_pieces(r, item, runs); !s) return s;
      if (is_struct) {
        out.set(key, std::move(item));
      } else {
        out.push_back(std::move(item));
      }
    }
  }
  if (*type == callwire::Type::String) {
    std::string text;
    if (Status s = r.read_string(text); !s) return s;
    out = Value(text);
    return {};
  }
  return r.read(out);
}

struct CheckingSink final : callwire::ValueSink {
  Reading how = Reading::Whole;
  Value got;
  Status read(callwire::ValueReader& r) override {
    switch (how) {
      case Reading::Whole:
        return r.read(got);
      case Reading::Pieces:
      case Reading::Runs:
        return read_pieces(r, got, how == Reading::Runs);
      case Reading::FirstOnly: {
        callwire::Result<callwire::Type> type = r.peek();
        if (!type) return type.error();
        std::string_view name;
        if (*type == callwire::Type::Array) {
          if (Status s = r.enter_array(); !s) return s;
          if (callwire::Result<bool> more = r.next_element(); !more || !*more) return {};
        } else if (*type == callwire::Type::Struct) {
          if (Status s = r.enter_struct(); !s) return s;
          if (callwire::Result<bool> more = r.next_member(name); !more || !*more) return {};
        }
        return r.read(got);
      }
      case Reading::Nothing:
        return {};
    }
    return {};
  }
};

void check_sink_path(json::Reader& reader, std::string_view doc, Status s,
                     const json::Responses& out) {
  for (Reading how :
       {Reading::Whole, Reading::Pieces, Reading::Runs, Reading::FirstOnly, Reading::Nothing}) {
    CheckingSink sink;
    sink.how = how;
    json::Response r;
    Status sunk;
    Status read = reader.read_response(doc, r, sink, sunk);
    const std::string which = "sink " + std::to_string(int(how)) + ": ";
    if (s && out.batch) {
      if (read) fail("the sink path accepts a batch", doc);
      continue;
    }
    if (!s) {
      // A batch the Value path refused may be refused for another reason here (no batch
      // limit applies to a document that is refused as a batch anyway).
      if (read) fail("the sink path accepts what the Value path refuses", which + std::string(doc));
      if (!out.batch && doc.find_first_not_of(" \t\r\n") != std::string_view::npos &&
          doc[doc.find_first_not_of(" \t\r\n")] == '{' && read.error().code != s.error().code)
        fail("the sink path refuses with another code",
             which + describe(read.error()) + "\n" + describe(s.error()));
      continue;
    }
    if (!read)
      fail("the sink path refuses what the Value path accepts", which + describe(read.error()));
    const json::Response& want = out.responses[0];
    if (r.id != want.id) fail("the sink path reads another id", which + r.id + " " + want.id);
    const bool reads_all = how == Reading::Whole || how == Reading::Pieces || how == Reading::Runs;
    if (reads_all || want.ok() || want.is_fault()) {
      // What no Value holds in a part a sink skips spoils nothing: only full readers must see it.
      if (!same_error(r.error, want.error) || r.data.has_value() != want.data.has_value() ||
          (r.data && !(*r.data == *want.data)))
        fail("the sink path reads another error",
             which + describe(r.error) + "\n" + describe(want.error));
    }
    if (want.ok() && reads_all) {
      if (!sunk) fail("a full read of a good result failed", which + describe(sunk.error()));
      if (!(sink.got == want.result)) fail("the sink read another value", which + std::string(doc));
    }
    if (!r.result.is_nil()) fail("the sink path left a result in the Response", doc);
  }
}

// What the reader accepts is JSON (json_is_json.hpp).
void check_is_json(std::string_view doc) {
  std::string why = fuzz::why_not_json(doc);
  if (!why.empty())
    fail("accepted, but simdjson's DOM parser refuses it", why + "\n" + std::string(doc));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static json::Reader small(small_limits());
  static json::Reader reader;
  static json::Reader rereader;   // for what the checks write: never the input's Readers
  static json::Responses reused;  // holds the previous input's responses
  std::string_view doc(reinterpret_cast<const char*>(data), size);

  json::Responses little;
  Status s_small = small.read_response(doc, little);
  check_document(s_small, little, small.limits(), doc);

  json::Responses out;
  Status s = reader.read_response(doc, out);
  check_document(s, out, reader.limits(), doc);
  Status s_reused = reader.read_response(doc, reused);
  if (s.ok() != s_reused.ok() || !same(out, reused) ||
      (!s && !same_error(s.error(), s_reused.error())))
    fail("reading into a used Responses differs from a fresh one", doc);

  // Read in place from a Buffer with room after the text (filled with quotes and escapes, whose
  // contents must not matter), it reads the same as copied.
  static Buffer padded;
  padded.clear();
  padded.append(doc);
  std::memset(padded.prepare(json::kPadding), size % 2 ? '"' : '\\', json::kPadding);
  Status s_padded = reader.read_response_padded(padded.view(), reused);
  if (s.ok() != s_padded.ok() || !same(out, reused) ||
      (!s && !same_error(s.error(), s_padded.error())))
    fail("reading in place differs from reading a copy", doc);

  if (s_small) {
    if (!s || !same(little, out)) fail("the small limits accept what the defaults do not", doc);
  } else if (s_small.error().code != Errc::LimitExceeded) {
    if (s || !same_error(s.error(), s_small.error()))
      fail("the small and default limits refuse differently",
           describe(s_small.error()) + "\n" + (s ? std::string("accepted") : describe(s.error())));
  }
  check_sink_path(reader, doc, s, out);
  if (!s) return 0;
  check_is_json(doc);

  for (const json::Response& r : out.responses) check_response(rereader, r, doc);
  check_written(rereader, out);
  return 0;
}
