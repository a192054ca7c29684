// callwire bench: the JSON-RPC codec against jsoncpp, simdjson's DOM parser and memcpy (issue 12).
//
// The same three documents as the XML-RPC codec bench (codec_bench.cpp), built from the same
// data as JSON-RPC: (a) the sample.add call, (b) the response of 1000 structs, (c) the response
// holding the 16 MiB blob (a base64 string, as callwire's JSON writer sends bytes). (b) is
// compact, as callwire, libjsonrpccpp and most JSON-RPC peers write it; (b′) is the same
// response pretty-printed (one member or element a line, one space a level, as Python's
// json.dumps(indent=1)), read only.
//
// Read: callwire's json::Reader (read_request for the call, read_response for the responses)
// builds Values; jsoncpp, the parser libjsonrpccpp (the paper's C++ JSON-RPC peer) reads with,
// builds its Json::Value tree (the peer); simdjson's dom::parser::parse builds only its tape, no
// Values: the floor for reading. Both copy the text into a padded buffer they keep (callwire's
// read_request and read_response; simdjson's parse with realloc_if_needed) before parsing it.
// Write: callwire's json::write_call / write_result into a reused Buffer; jsoncpp writes its tree
// of the same document (read once outside the timed loop), compact, as libjsonrpccpp sends it;
// memcpy of the same bytes is the floor. Every benchmark reports bytes/s of the JSON text (read:
// the text given; write: what callwire writes), and "allocs", the heap allocations per document
// (alloc_count.c).
//
// bench/run.py runs this binary after codec_bench and writes bench/RESULTS.md.

#include <json/json.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/convert.hpp"
#include "callwire/json.hpp"
#include "callwire/value.hpp"
#include "callwire/value_reader.hpp"
#include "codec_common.hpp"
#include "typed_people.hpp"

namespace {

using namespace codec_bench;  // NOLINT: the shared data and timing loop

// Raised so that the 16 MiB blob (22 MB of base64 text in one string) is accepted.
const callwire::json::JsonLimits kReaderLimits{
    .max_document_size = size_t{64} << 20,
    .max_depth = 64,
    .max_string_size = size_t{32} << 20,
    .max_batch_size = 1000,
    .max_elements = size_t{1} << 20,
};

// ---------------------------------------------------------------------------------------------
// JSON text, built by hand from the data: the input of every reader, independent of callwire's
// writer (as codec_bench.cpp builds its XML).

class JsonText {
 public:
  // `indent` spaces a level, one member or element a line; 0: compact, no white space.
  explicit JsonText(int indent) : indent_(indent) {}

  void open(char bracket) {
    item();
    text_ += bracket;
    ++depth_;
    first_ = true;
  }
  void close(char bracket) {
    --depth_;
    if (!first_) line();  // an empty container closes on its own line
    text_ += bracket;
    first_ = false;
  }
  void key(std::string_view name) {
    item();
    quoted(name);
    text_ += indent_ ? ": " : ":";
    after_key_ = true;
  }
  void literal(std::string_view text) {
    item();
    text_ += text;
  }
  void string(std::string_view s) {
    item();
    quoted(s);
  }
  // The shortest text that reads back as `d`, with ".0" when it would read as an integer.
  void number(double d) {
    char buffer[32];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
    std::string_view text(buffer, size_t(end - buffer));
    literal(text);
    if (text.find_first_of(".e") == std::string_view::npos) text_ += ".0";
  }
  std::string take() { return std::move(text_); }

 private:
  // Before a member or an element: the comma after the one before, and a line of its own. A
  // value after its key goes on the key's line.
  void item() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) text_ += ',';
    if (depth_ > 0) line();
    first_ = false;
  }
  void line() {
    if (indent_ == 0) return;
    text_ += '\n';
    text_.append(size_t(depth_ * indent_), ' ');
  }
  void quoted(std::string_view s) {
    text_ += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') {
        (text_ += '\\') += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char escape[8];
        std::snprintf(escape, sizeof escape, "\\u%04x", c);
        text_ += escape;
      } else {
        text_ += c;
      }
    }
    text_ += '"';
  }

  std::string text_;
  int indent_;
  int depth_ = 0;
  bool first_ = true;
  bool after_key_ = false;
};

// {"jsonrpc":"2.0","result":<result>,"id":1}, member order as callwire writes it.
template <class Result>
std::string response_json(int indent, Result&& result) {
  JsonText j(indent);
  j.open('{');
  j.key("jsonrpc");
  j.string("2.0");
  j.key("result");
  result(j);
  j.key("id");
  j.literal("1");
  j.close('}');
  return j.take();
}

std::string people_json(const std::vector<Person>& people, int indent) {
  return response_json(indent, [&](JsonText& j) {
    j.open('[');
    for (const Person& p : people) {
      j.open('{');
      j.key("id");
      j.literal(std::to_string(p.id));
      j.key("name");
      j.string(p.name);
      j.key("email");
      j.string(p.email);
      j.key("score");
      j.number(p.score);
      j.key("tags");
      j.open('[');
      for (const std::string& tag : p.tags) j.string(tag);
      j.close(']');
      j.close('}');
    }
    j.close(']');
  });
}

// ---------------------------------------------------------------------------------------------
// The documents.

struct Document {
  std::string id;          // in benchmark names: read/<id>/<library>
  std::string json;        // what the readers parse
  bool read_only = false;  // a variant of another document's text: no write benchmarks
  bool is_call = false;
  std::string method_name;  // a call: its method and parameters
  std::vector<Value> params;
  Value result;         // a response: the Value written
  Value read_result;    // ... and the Value read: bytes come back as their base64 string
  std::string written;  // callwire's output for the values: the write byte count and memcpy
};

Document sample_add_call() {
  Document d;
  d.id = "call";
  d.json = R"({"jsonrpc":"2.0","method":"sample.add","params":[5,3],"id":1})";
  d.is_call = true;
  d.method_name = "sample.add";
  d.params = {Value(5), Value(3)};
  return d;
}

Document people_response(int indent) {
  std::vector<Person> people = make_people(1000);
  Document d;
  d.id = indent ? "structs-pretty" : "structs";
  d.json = people_json(people, indent);
  d.read_only = indent != 0;
  d.result = people_value(people);
  d.read_result = d.result;
  return d;
}

Document blob_response() {
  std::vector<uint8_t> blob = make_blob(size_t{16} << 20);
  const std::string text = base64(blob);
  Document d;
  d.id = "base64";
  d.json = response_json(0, [&](JsonText& j) { j.string(text); });
  d.result = Value::bytes(blob.data(), blob.size());
  d.read_result = Value(text);
  return d;
}

// ---------------------------------------------------------------------------------------------
// The libraries; verify() checks each once before any timing.

callwire::Status callwire_write(const Document& d, callwire::Buffer& out) {
  if (d.is_call) {
    return callwire::json::write_call(out, "1", d.method_name, std::span<const Value>(d.params));
  }
  return callwire::json::write_result(out, "1", d.result);
}

// Reads `json` as `d` says (a request or a response) with `reader`, into the reused `request`
// or `responses`; dies on an error.
void callwire_read(const Document& d, std::string_view json, callwire::json::Reader& reader,
                   callwire::json::Request& request, callwire::json::Responses& responses) {
  callwire::Status read =
      d.is_call ? reader.read_request(json, request) : reader.read_response(json, responses);
  if (!read) die("document " + d.id + ": callwire: " + read.error().message);
}

// What callwire read is what `d` holds.
void check_callwire_read(const Document& d, const callwire::json::Request& request,
                         const callwire::json::Responses& responses, const std::string& what) {
  const std::string where = "document " + d.id + ", " + what + ": ";
  if (d.is_call) {
    check(!request.batch && request.calls.size() == 1, where + "not one call");
    const callwire::json::Call& call = request.calls[0];
    check(call.ok() && call.id == "1" && call.method == d.method_name, where + "a different call");
    check(call.params.size() == d.params.size(), where + "a different parameter count");
    for (size_t i = 0; i < d.params.size(); ++i) {
      check(call.params[i] == d.params[i], where + "a different parameter");
    }
  } else {
    check(!responses.batch && responses.responses.size() == 1, where + "not one response");
    const callwire::json::Response& r = responses.responses[0];
    check(r.ok() && r.id == "1" && r.result == d.read_result, where + "a different result");
  }
}

// ---- The typed read: a response's result straight into C++ types (json::Reader::read_response
// with a sink), as Client::call<R> reads it over JSON-RPC: the structs into Person (the
// hand-written HandPerson, or DeclaredPerson declared with CALLWIRE_STRUCT), the blob's base64
// string into its bytes. No Value tree.

// Reads `d`'s response into `out`, reused; dies on an error.
template <class Person>
void callwire_read_typed(const Document& d, callwire::json::Reader& reader,
                         callwire::json::Response& response, TypedResult<Person>& out) {
  out.blob = d.id == "base64";
  callwire::Status sunk;
  callwire::Status read = reader.read_response(d.json, response, out, sunk);
  if (!read) die("document " + d.id + ": callwire typed: " + read.error().message);
  if (!sunk) die("document " + d.id + ": callwire typed: " + sunk.error().message);
  if (!response.ok()) die("document " + d.id + ": callwire typed: " + response.error.message);
}

// What the typed read gave is what `d` holds.
template <class Person>
void check_typed_read(const Document& d) {
  const std::string where = "document " + d.id + ", typed: ";
  callwire::json::Reader reader(kReaderLimits);
  callwire::json::Response response;
  TypedResult<Person> typed;
  callwire_read_typed(d, reader, response, typed);
  if (typed.blob) {
    std::span<const uint8_t> want = d.result.as_bytes();
    check(std::equal(want.begin(), want.end(), typed.bytes.begin(), typed.bytes.end()),
          where + "different bytes");
    return;
  }
  check(callwire::Convert<std::vector<Person>>::to_value(typed.people) ==
            expected_people<Person>(d.result),
        where + "different people");
}

// The typed write: a bound handler's std::vector<Person> answered by the dispatcher, as the
// server answers get_structs. Both kinds of Person answer the same bytes, which read back as
// the document's result.
const std::string kPeopleCall = R"({"jsonrpc":"2.0","method":"people","id":1})";

void check_typed_write(const Document& d) {
  callwire::Buffer hand, declared;
  TypedPeopleServer<HandPerson>(d.result).answer("application/json", kPeopleCall, hand);
  TypedPeopleServer<DeclaredPerson>(d.result).answer("application/json", kPeopleCall, declared);
  check(hand.view() == declared.view(), "typed write: the two kinds of Person answer differently");
  callwire::json::Reader reader(kReaderLimits);
  callwire::json::Responses responses;
  check(reader.read_response(hand.view(), responses).ok() && responses.responses.size() == 1 &&
            responses.responses[0].result == d.result,
        "typed write: the answer does not read back as the people");
}

// jsoncpp's reader, as libjsonrpccpp configures it (the defaults, no comments kept): one reader
// reused; the tree is rebuilt for every document, as a peer's server does per request.
std::unique_ptr<Json::CharReader> jsoncpp_reader() {
  Json::CharReaderBuilder builder;
  builder["collectComments"] = false;
  return std::unique_ptr<Json::CharReader>(builder.newCharReader());
}

Json::Value jsoncpp_parse(Json::CharReader& reader, std::string_view text) {
  Json::Value root;
  std::string errors;
  if (!reader.parse(text.data(), text.data() + text.size(), &root, &errors))
    die("jsoncpp failed: " + errors);
  return root;
}

// jsoncpp's tree of `json` has the shape of `d`, and what jsoncpp writes of it reads back in
// callwire as the same values.
void check_jsoncpp(const Document& d, callwire::json::Reader& reader,
                   callwire::json::Request& request, callwire::json::Responses& responses) {
  const std::string where = "document " + d.id + ": jsoncpp: ";
  std::unique_ptr<Json::CharReader> parser = jsoncpp_reader();
  const Json::Value root = jsoncpp_parse(*parser, d.json);
  if (d.is_call) {
    check(root["params"].size() == d.params.size(), where + "a different parameter count");
  } else if (d.read_result.is_array()) {
    check(root["result"].size() == d.read_result.size(), where + "a different array size");
  } else {
    check(root["result"].asString() == d.read_result.as_string(), where + "a different string");
  }
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  const std::string written = Json::writeString(builder, root);
  callwire_read(d, written, reader, request, responses);
  check_callwire_read(d, request, responses, "jsoncpp's output");
}

// simdjson's tape of `json` has the shape of `d`.
void check_simdjson(const Document& d, std::string_view json, const std::string& what) {
  const std::string where = "document " + d.id + ", " + what + ": simdjson: ";
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  auto error = parser.parse(json.data(), json.size()).get(root);
  check(!error, where + simdjson::error_message(error));
  if (d.is_call) {
    simdjson::dom::array params;
    check(!root["params"].get_array().get(params) && params.size() == d.params.size(),
          where + "a different parameter count");
  } else if (d.read_result.is_array()) {
    simdjson::dom::array result;
    check(!root["result"].get_array().get(result) && result.size() == d.read_result.size(),
          where + "a different array size");
  } else {
    std::string_view text;
    check(!root["result"].get_string().get(text) && text == d.read_result.as_string(),
          where + "a different string");
  }
}

void verify(Document& d) {
  callwire::json::Reader reader(kReaderLimits);
  callwire::json::Request request;
  callwire::json::Responses responses;
  callwire_read(d, d.json, reader, request, responses);
  check_callwire_read(d, request, responses, "the text");
  check_simdjson(d, d.json, "the text");
  check_jsoncpp(d, reader, request, responses);
  if (has_typed_read(d)) {
    check_typed_read<HandPerson>(d);
    check_typed_read<DeclaredPerson>(d);
    if (d.id != "base64") check_typed_read<PersonId>(d);
  }
  if (has_typed_write(d)) check_typed_write(d);

  // callwire writes something that reads back as the same values.
  callwire::Buffer out;
  callwire::Status written = callwire_write(d, out);
  check(written.ok(), "document " + d.id + ": callwire write: " +
                          (written ? std::string() : written.error().message));
  d.written.assign(out.view());
  callwire_read(d, d.written, reader, request, responses);
  check_callwire_read(d, request, responses, "callwire's output");
  check_simdjson(d, d.written, "callwire's output");
}

// ---------------------------------------------------------------------------------------------
// Benchmarks.

void read_callwire(benchmark::State& state, const Document* d) {
  // Reused, as a server reuses its reader and decoded request per thread.
  callwire::json::Reader reader(kReaderLimits);
  callwire::json::Request request;
  callwire::json::Responses responses;
  timed(state, d->json.size(), [&] {
    callwire_read(*d, d->json, reader, request, responses);
    benchmark::DoNotOptimize(request);
    benchmark::DoNotOptimize(responses);
  });
}

template <class Person>
void read_callwire_typed(benchmark::State& state, const Document* d) {
  callwire::json::Reader reader(kReaderLimits);
  callwire::json::Response response;
  timed(state, d->json.size(), [&] {
    TypedResult<Person> typed;  // a new one each time, as call<R> makes its R (and frees it after)
    callwire_read_typed(*d, reader, response, typed);
    benchmark::DoNotOptimize(typed);
  });
}

// The answer's bytes per second (a dispatcher's answer: the JSON-RPC response body).
template <class Person>
void write_callwire_typed(benchmark::State& state, const Document* d) {
  TypedPeopleServer<Person> server(d->result);
  callwire::Buffer out;  // reused, as a connection reuses its send buffer
  server.answer("application/json", kPeopleCall, out);
  timed(state, out.size(), [&] {
    server.answer("application/json", kPeopleCall, out);
    benchmark::DoNotOptimize(out.data());
  });
}

void read_simdjson(benchmark::State& state, const Document* d) {
  simdjson::dom::parser parser;  // reused: its buffers and tape keep their size
  timed(state, d->json.size(), [&] {
    simdjson::dom::element root;
    if (parser.parse(d->json.data(), d->json.size()).get(root)) die("simdjson failed");
    benchmark::DoNotOptimize(root);
  });
}

// simdjson's On Demand walk alone, as callwire's reader walks (every value visited; numbers and
// atoms as their raw text, strings without escapes as their raw bytes, member names raw),
// building nothing: the floor of any reader on On Demand, which callwire's is.
namespace walk {
namespace od = simdjson::ondemand;
size_t seen = 0;  // what the walk saw, so that nothing is optimised away

bool value(od::value& v);
bool scalar(od::value& v, od::json_type type) {
  std::string_view token = v.raw_json_token();
  if (type == od::json_type::string) {
    if (token.find('\\') == std::string_view::npos) {
      if (v.get_raw_json_string().error()) return false;
    } else if (v.get_string().get(token)) {
      return false;
    }
  }
  seen += token.size();
  return true;
}
bool value(od::value& v) {
  od::json_type type;
  if (v.type().get(type)) return false;
  if (type == od::json_type::array) {
    od::array a;
    if (v.get_array().get(a)) return false;
    for (auto item : a) {
      od::value x;
      if (item.get(x) || !value(x)) return false;
    }
    return true;
  }
  if (type == od::json_type::object) {
    od::object o;
    if (v.get_object().get(o)) return false;
    for (auto member : o) {
      od::field f;
      if (std::move(member).get(f)) return false;
      seen += f.key().raw()[0];
      if (!value(f.value())) return false;
    }
    return true;
  }
  return scalar(v, type);
}
// A response document: its members walked.
bool response(od::parser& parser, std::string_view padded, size_t size) {
  od::document doc;
  if (parser.iterate(padded.data(), size, padded.size()).get(doc)) return false;
  od::object o;
  if (doc.get_object().get(o)) return false;
  for (auto member : o) {
    od::field f;
    if (std::move(member).get(f) || !value(f.value())) return false;
  }
  return true;
}
}  // namespace walk

void read_simdjson_walk(benchmark::State& state, const Document* d) {
  simdjson::ondemand::parser parser;
  std::string padded(d->json.size() + simdjson::SIMDJSON_PADDING, ' ');
  timed(state, d->json.size(), [&] {
    std::memcpy(padded.data(), d->json.data(), d->json.size());  // as the others copy
    if (!walk::response(parser, padded, d->json.size())) die("simdjson On Demand walk failed");
    benchmark::DoNotOptimize(walk::seen);
  });
}

void read_jsoncpp(benchmark::State& state, const Document* d) {
  std::unique_ptr<Json::CharReader> reader = jsoncpp_reader();
  timed(state, d->json.size(), [&] {
    Json::Value root = jsoncpp_parse(*reader, d->json);
    benchmark::DoNotOptimize(root);
  });
}

void write_jsoncpp(benchmark::State& state, const Document* d) {
  std::unique_ptr<Json::CharReader> reader = jsoncpp_reader();
  const Json::Value root = jsoncpp_parse(*reader, d->json);
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";  // compact, as libjsonrpccpp writes
  std::unique_ptr<Json::StreamWriter> writer(builder.newStreamWriter());
  std::ostringstream out;
  timed(state, d->written.size(), [&] {
    out.str(std::string());
    writer->write(root, &out);
    benchmark::DoNotOptimize(out);
  });
}

void write_callwire(benchmark::State& state, const Document* d) {
  callwire::Buffer out;  // reused, as a connection reuses its send buffer
  timed(state, d->written.size(), [&] {
    out.clear();
    if (!callwire_write(*d, out)) die("callwire write failed");
    benchmark::DoNotOptimize(out.data());
  });
}

void register_benchmarks(const std::deque<Document>& docs) {
  auto add = [](const std::string& name, auto fn, auto arg) { register_benchmark(name, fn, arg); };
  for (const Document& d : docs) {
    add("read/" + d.id + "/callwire", read_callwire, &d);
    if (has_typed_read(d)) {
      add("read/" + d.id + "/callwire-typed", read_callwire_typed<HandPerson>, &d);
      if (d.id != "base64") {  // the blob is bytes either way
        add("read/" + d.id + "/callwire-struct", read_callwire_typed<DeclaredPerson>, &d);
        add("read/" + d.id + "/callwire-ids", read_callwire_typed<PersonId>, &d);
      }
    }
    add("read/" + d.id + "/simdjson", read_simdjson, &d);
    if (!d.is_call) add("read/" + d.id + "/simdjson-walk", read_simdjson_walk, &d);
    add("read/" + d.id + "/jsoncpp", read_jsoncpp, &d);
    add("read/" + d.id + "/memcpy", copy_memcpy, &d.json);
  }
  for (const Document& d : docs) {
    if (d.read_only) continue;
    add("write/" + d.id + "/callwire", write_callwire, &d);
    if (has_typed_write(d)) {
      add("write/" + d.id + "/callwire-typed", write_callwire_typed<HandPerson>, &d);
      add("write/" + d.id + "/callwire-struct", write_callwire_typed<DeclaredPerson>, &d);
    }
    add("write/" + d.id + "/jsoncpp", write_jsoncpp, &d);
    add("write/" + d.id + "/memcpy", copy_memcpy, &d.written);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  check_alloc_counting();

  std::deque<Document> docs;  // a deque: the benchmarks keep pointers to its elements
  docs.push_back(sample_add_call());
  docs.push_back(people_response(0));
  docs.push_back(people_response(1));
  docs.push_back(blob_response());
  for (Document& d : docs) {
    verify(d);
    benchmark::AddCustomContext("doc." + d.id + ".read_bytes", std::to_string(d.json.size()));
    benchmark::AddCustomContext("doc." + d.id + ".write_bytes", std::to_string(d.written.size()));
  }
  benchmark::AddCustomContext("compiler", compiler());
  benchmark::AddCustomContext("simdjson", SIMDJSON_STRINGIFY(SIMDJSON_VERSION));  // a bare 3.0.1
  benchmark::AddCustomContext("simdjson_implementation",
                              simdjson::get_active_implementation()->name());

  register_benchmarks(docs);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
