// callwire bench: the XML-RPC codec against xmlrpc-c, expat, libxml2 and memcpy.
//
// Three documents: (a) the sample.add call, (b) a ~1 MB response of 1000 structs, (c) a response
// holding one 16 MiB base64 blob. For each: read and write with callwire and xmlrpc-c, memcpy
// of the same bytes (the floor), and for reading also expat and libxml2 SAX with empty handlers
// (they only tokenize: no values are built, no base64 is decoded).
//
// Every benchmark reports bytes/s of one byte count per document and direction, so the ratios
// between libraries are ratios of time per document:
//   read:  the size of the XML text every reader parses;
//   write: the size of the document callwire writes for the same values (xmlrpc-c writes more
//          bytes for the same values: line breaks, a longer XML declaration).
// The "allocs" counter is heap allocations per document in the timed loop (alloc_count.c).
//
// bench/run.py runs this binary and writes bench/RESULTS.md.

#include <benchmark/benchmark.h>
#include <expat.h>
#include <libxml/parser.h>
#include <xmlrpc-c/base.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/value.hpp"
#include "callwire/xml.hpp"
#include "codec_common.hpp"
#include "typed_people.hpp"

namespace {

using namespace codec_bench;  // NOLINT: the shared data and timing loop

// Raised so that the 16 MiB blob (22 MB of base64 text) is accepted.
const callwire::xml::ReaderLimits kReaderLimits{
    .max_document_size = size_t{64} << 20,
    .max_depth = 64,
    .max_elements = size_t{1} << 20,
    .max_string_size = size_t{32} << 20,
};
constexpr size_t kXmlrpcSizeLimit = size_t{64} << 20;

// ---------------------------------------------------------------------------------------------
// XML text, built by hand: the input of every reader, independent of both libraries' writers.

// Appends elements one per line, indented by `indent` spaces a level, as pretty-printing peers
// (PHP's xmlrpc-epi, xmllint --format) send them; with `indent` 0, with no white space at all.
class XmlText {
 public:
  explicit XmlText(int indent) : indent_(indent) { text_ = R"(<?xml version="1.0"?>)"; }

  void open(std::string_view tag) {
    line();
    tag_open(tag);
    ++depth_;
  }
  void close(std::string_view tag) {
    --depth_;
    line();
    tag_close(tag);
  }
  // <value><type>text</type></value> on one line.
  void scalar(std::string_view type, std::string_view text) {
    line();
    tag_open("value");
    tag_open(type);
    escaped(text);
    tag_close(type);
    tag_close("value");
  }
  void member_name(std::string_view name) {
    line();
    tag_open("name");
    escaped(name);
    tag_close("name");
  }
  std::string take() { return std::move(text_); }

 private:
  void line() {
    if (indent_ == 0) return;
    text_ += '\n';
    text_.append(size_t(depth_ * indent_), ' ');
  }
  void tag_open(std::string_view tag) { (text_ += '<').append(tag) += '>'; }
  void tag_close(std::string_view tag) { (text_ += "</").append(tag) += '>'; }
  void escaped(std::string_view text) {
    for (char c : text) {
      switch (c) {
        case '&':
          text_ += "&amp;";
          break;
        case '<':
          text_ += "&lt;";
          break;
        case '>':
          text_ += "&gt;";
          break;
        default:
          text_ += c;
      }
    }
  }

  std::string text_;
  int indent_;
  int depth_ = 0;
};

std::string format_score(double score) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", score);
  return text;
}

std::string people_xml(const std::vector<Person>& people, int indent) {
  XmlText x(indent);
  x.open("methodResponse");
  x.open("params");
  x.open("param");
  x.open("value");
  x.open("array");
  x.open("data");
  for (const Person& p : people) {
    x.open("value");
    x.open("struct");
    auto member = [&x](std::string_view name, std::string_view type, std::string_view text) {
      x.open("member");
      x.member_name(name);
      x.scalar(type, text);
      x.close("member");
    };
    member("id", "int", std::to_string(p.id));
    member("name", "string", p.name);
    member("email", "string", p.email);
    member("score", "double", format_score(p.score));
    x.open("member");
    x.member_name("tags");
    x.open("value");
    x.open("array");
    x.open("data");
    for (const std::string& tag : p.tags) x.scalar("string", tag);
    x.close("data");
    x.close("array");
    x.close("value");
    x.close("member");
    x.close("struct");
    x.close("value");
  }
  x.close("data");
  x.close("array");
  x.close("value");
  x.close("param");
  x.close("params");
  x.close("methodResponse");
  return x.take();
}

// Start tags in a document: what the SAX readers must have seen.
size_t count_start_tags(std::string_view xml) {
  size_t n = 0;
  for (size_t i = 0; i + 1 < xml.size(); ++i) {
    if (xml[i] == '<' && xml[i + 1] != '/' && xml[i + 1] != '?' && xml[i + 1] != '!') ++n;
  }
  return n;
}

// xmlrpc-c reports errors through an env; any fault here is a bug in this file.
class XmlrpcEnv {
 public:
  XmlrpcEnv() { xmlrpc_env_init(&env_); }
  ~XmlrpcEnv() { xmlrpc_env_clean(&env_); }
  XmlrpcEnv(const XmlrpcEnv&) = delete;
  XmlrpcEnv& operator=(const XmlrpcEnv&) = delete;

  operator xmlrpc_env*() { return &env_; }  // NOLINT: passed where xmlrpc-c wants an env
  bool failed() const { return env_.fault_occurred != 0; }
  void check(const std::string& what) const {
    if (failed()) die(what + ": " + env_.fault_string);
  }

 private:
  xmlrpc_env env_;
};

// Moves `item` into `array` (xmlrpc-c's append takes a reference of its own).
void xr_append(xmlrpc_value* array, xmlrpc_value* item) {
  XmlrpcEnv env;
  xmlrpc_array_append_item(env, array, item);
  env.check("xmlrpc_array_append_item");
  xmlrpc_DECREF(item);
}

void xr_set(xmlrpc_value* strct, const char* name, xmlrpc_value* item) {
  XmlrpcEnv env;
  xmlrpc_struct_set_value(env, strct, name, item);
  env.check("xmlrpc_struct_set_value");
  xmlrpc_DECREF(item);
}

xmlrpc_value* xr_string(const std::string& s) {
  XmlrpcEnv env;
  xmlrpc_value* v = xmlrpc_string_new_lp(env, s.size(), s.data());
  env.check("xmlrpc_string_new_lp");
  return v;
}

xmlrpc_value* people_xmlrpc(const std::vector<Person>& people) {
  XmlrpcEnv env;
  xmlrpc_value* array = xmlrpc_array_new(env);
  for (const Person& p : people) {
    xmlrpc_value* s = xmlrpc_struct_new(env);
    xr_set(s, "id", xmlrpc_int_new(env, p.id));
    xr_set(s, "name", xr_string(p.name));
    xr_set(s, "email", xr_string(p.email));
    xr_set(s, "score", xmlrpc_double_new(env, p.score));
    xmlrpc_value* tags = xmlrpc_array_new(env);
    for (const std::string& tag : p.tags) xr_append(tags, xr_string(tag));
    xr_set(s, "tags", tags);
    xr_append(array, s);
  }
  env.check("building the xmlrpc-c values");
  return array;
}

// ---------------------------------------------------------------------------------------------
// The documents.

struct Document {
  std::string id;          // in benchmark names: read/<id>/<library>
  std::string xml;         // what the readers parse
  bool read_only = false;  // a variant of another document's text: no write benchmarks
  size_t start_tags = 0;
  // What the writers write: a call (method name and parameters) or a response (one result).
  bool is_call = false;
  std::string method_name;
  std::vector<Value> params;          // a call
  Value result;                       // a response
  xmlrpc_value* xr_values = nullptr;  // the parameter array of a call, or the result
  std::string written;  // callwire's output for the values: the write byte count and memcpy
};

Document sample_add_call() {
  Document d;
  d.id = "call";
  d.xml = R"(<?xml version="1.0"?><methodCall><methodName>sample.add</methodName><params>)"
          R"(<param><value><int>5</int></value></param><param><value><int>3</int></value></param>)"
          R"(</params></methodCall>)";
  d.is_call = true;
  d.method_name = "sample.add";
  d.params = {Value(5), Value(3)};
  XmlrpcEnv env;
  d.xr_values = xmlrpc_array_new(env);
  xr_append(d.xr_values, xmlrpc_int_new(env, 5));
  xr_append(d.xr_values, xmlrpc_int_new(env, 3));
  env.check("building sample.add");
  return d;
}

// One space a level brings 1000 structs of this shape to about 1 MB (0.96); written compactly
// they take 0.62 MB.
constexpr int kPeopleIndent = 1;

Document people_response() {
  std::vector<Person> people = make_people(1000);
  Document d;
  d.id = "structs";
  d.xml = people_xml(people, kPeopleIndent);
  d.result = people_value(people);
  d.xr_values = people_xmlrpc(people);
  return d;
}

// The same values with no white space between the elements, as callwire and Apache write them:
// the densest form of document (b).
Document people_response_compact(const Document& pretty) {
  Document d;
  d.id = "structs-compact";
  d.xml = people_xml(make_people(1000), 0);
  d.read_only = true;
  d.result = pretty.result;
  d.xr_values = pretty.xr_values;
  xmlrpc_INCREF(d.xr_values);
  return d;
}

Document blob_response() {
  std::vector<uint8_t> blob = make_blob(size_t{16} << 20);
  Document d;
  d.id = "base64";
  d.xml = R"(<?xml version="1.0"?><methodResponse><params><param><value><base64>)" + base64(blob) +
          "</base64></value></param></params></methodResponse>";
  d.result = Value::bytes(blob.data(), blob.size());
  XmlrpcEnv env;
  d.xr_values = xmlrpc_base64_new(env, blob.size(), blob.data());
  env.check("xmlrpc_base64_new");
  return d;
}

// A string dense with markup, as a method returning an HTML page or an XML fragment sends:
// about a quarter of its bytes are <, & or >, which every XML-RPC writer escapes and every
// reader decodes. 1 MiB of text.
Document markup_response() {
  const std::string row =
      "<tr><td class=\"name\">Ada &amp; Grace</td><td>x &lt; 3 &gt; y</td></tr>\n";
  std::string text;
  while (text.size() + row.size() <= (size_t{1} << 20)) text += row;
  std::string escaped;  // by the definition, not by callwire's writer
  for (char c : text)
    escaped += c == '<' ? "&lt;" : c == '&' ? "&amp;" : c == '>' ? "&gt;" : std::string(1, c);
  Document d;
  d.id = "markup";
  d.xml = R"(<?xml version="1.0"?><methodResponse><params><param><value><string>)" + escaped +
          "</string></value></param></params></methodResponse>";
  d.result = Value(text);
  d.xr_values = xr_string(text);
  return d;
}

// ---------------------------------------------------------------------------------------------
// The libraries, one function each way; verify() checks each once before any timing.

callwire::Status callwire_write(const Document& d, callwire::Buffer& out) {
  if (d.is_call) return callwire::xml::write_call(out, d.method_name, d.params);
  return callwire::xml::write_response(out, d.result);
}

// Writes into `out` (cleared first); returns false on a fault.
bool xmlrpc_write(const Document& d, xmlrpc_mem_block* out) {
  XmlrpcEnv env;
  xmlrpc_mem_block_resize(env, out, 0);
  if (d.is_call) {
    xmlrpc_serialize_call(env, out, d.method_name.c_str(), d.xr_values);
  } else {
    xmlrpc_serialize_response(env, out, d.xr_values);
  }
  return !env.failed();
}

// Parses with xmlrpc-c; returns the parameter array or the result (the caller DECREFs), or null.
xmlrpc_value* xmlrpc_read(const Document& d, std::string_view xml) {
  XmlrpcEnv env;
  xmlrpc_value* values = nullptr;
  if (d.is_call) {
    const char* method = nullptr;
    xmlrpc_parse_call(env, xml.data(), xml.size(), &method, &values);
    std::free(const_cast<char*>(method));  // xmlrpc-c mallocs it
  } else {
    int fault_code = 0;
    const char* fault_string = nullptr;
    xmlrpc_parse_response2(env, xml.data(), xml.size(), &values, &fault_code, &fault_string);
    std::free(const_cast<char*>(fault_string));
  }
  if (env.failed()) {
    if (values) xmlrpc_DECREF(values);
    return nullptr;
  }
  return values;
}

// SAX handlers: empty for timing, counting for verify().
struct SaxCount {
  size_t start_tags = 0;
  size_t text_bytes = 0;
};

void XMLCALL expat_start(void*, const XML_Char*, const XML_Char**) {}
void XMLCALL expat_end(void*, const XML_Char*) {}
void XMLCALL expat_text(void*, const XML_Char*, int) {}
void XMLCALL expat_count_start(void* user, const XML_Char*, const XML_Char**) {
  ++static_cast<SaxCount*>(user)->start_tags;
}
void XMLCALL expat_count_text(void* user, const XML_Char*, int len) {
  static_cast<SaxCount*>(user)->text_bytes += size_t(len);
}

// Resets `parser` (a server would reuse one) and parses `xml` whole.
bool expat_parse(XML_Parser parser, std::string_view xml, SaxCount* count) {
  XML_ParserReset(parser, nullptr);
  if (count) {
    XML_SetUserData(parser, count);
    XML_SetElementHandler(parser, expat_count_start, expat_end);
    XML_SetCharacterDataHandler(parser, expat_count_text);
  } else {
    XML_SetElementHandler(parser, expat_start, expat_end);
    XML_SetCharacterDataHandler(parser, expat_text);
  }
  return XML_Parse(parser, xml.data(), static_cast<int>(xml.size()), XML_TRUE) == XML_STATUS_OK;
}

void libxml_start(void*, const xmlChar*, const xmlChar*, const xmlChar*, int, const xmlChar**, int,
                  int, const xmlChar**) {}
void libxml_end(void*, const xmlChar*, const xmlChar*, const xmlChar*) {}
void libxml_text(void*, const xmlChar*, int) {}
void libxml_count_start(void* user, const xmlChar*, const xmlChar*, const xmlChar*, int,
                        const xmlChar**, int, int, const xmlChar**) {
  ++static_cast<SaxCount*>(user)->start_tags;
}
void libxml_count_text(void* user, const xmlChar*, int len) {
  static_cast<SaxCount*>(user)->text_bytes += size_t(len);
}

xmlSAXHandler libxml_handler(bool counting) {
  xmlSAXHandler h;
  std::memset(&h, 0, sizeof h);
  h.initialized = XML_SAX2_MAGIC;  // the namespace-aware SAX2 callbacks: libxml2's fast path
  h.startElementNs = counting ? libxml_count_start : libxml_start;
  h.endElementNs = libxml_end;
  h.characters = counting ? libxml_count_text : libxml_text;
  h.ignorableWhitespace = h.characters;
  return h;
}

// Parses `xml` with a reused context. xmlCtxtReadMemory copies the input first; that copy is part
// of what is measured. (libxml2 2.9's zero-copy xmlParserInputBufferCreateStatic read out of
// bounds on document (b) under valgrind, so it is not used.)
bool libxml_parse(xmlParserCtxtPtr ctxt, std::string_view xml, const xmlSAXHandler& handler,
                  void* user) {
  *ctxt->sax = handler;
  ctxt->userData = user;
  xmlCtxtReadMemory(ctxt, xml.data(), static_cast<int>(xml.size()), nullptr, nullptr,
                    XML_PARSE_HUGE | XML_PARSE_NONET);  // no tree is built: returns null
  return ctxt->wellFormed != 0;
}

// ---- The typed read: a response's result straight into C++ types (xml::Reader::read_response
// with a sink), as Client::call<R> reads it: the structs into Person (the hand-written
// HandPerson, or DeclaredPerson declared with CALLWIRE_STRUCT), the blob into its bytes.

template <class Person>
void callwire_read_typed(const Document& d, callwire::xml::Reader& reader,
                         TypedResult<Person>& out) {
  out.blob = d.id == "base64";
  callwire::MethodResponse response;
  callwire::Status sunk;
  callwire::Status read = reader.read_response(d.xml, response, out, sunk);
  if (!read) die("document " + d.id + ": callwire typed: " + read.error().message);
  if (!sunk) die("document " + d.id + ": callwire typed: " + sunk.error().message);
  if (response.is_fault) die("document " + d.id + ": callwire typed: a fault");
}

template <class Person>
void check_typed_read(const Document& d) {
  callwire::xml::Reader reader(kReaderLimits);
  TypedResult<Person> typed;
  callwire_read_typed(d, reader, typed);
  if (typed.blob) {
    std::span<const uint8_t> want = d.result.as_bytes();
    check(std::equal(want.begin(), want.end(), typed.bytes.begin(), typed.bytes.end()),
          "document " + d.id + ", typed: different bytes");
    return;
  }
  check(callwire::Convert<std::vector<Person>>::to_value(typed.people) ==
            expected_people<Person>(d.result),
        "document " + d.id + ", typed: different people");
}

// The typed write: a bound handler's std::vector<Person> answered by the dispatcher, as the
// server answers get_structs. Both kinds of Person answer the same bytes, which read back as
// the document's result.
const std::string kPeopleCall =
    "<?xml version=\"1.0\"?><methodCall><methodName>people</methodName></methodCall>";

void check_typed_write(const Document& d) {
  callwire::Buffer hand, declared;
  TypedPeopleServer<HandPerson>(d.result).answer("text/xml", kPeopleCall, hand);
  TypedPeopleServer<DeclaredPerson>(d.result).answer("text/xml", kPeopleCall, declared);
  check(hand.view() == declared.view(), "typed write: the two kinds of Person answer differently");
  callwire::xml::Reader reader(kReaderLimits);
  auto response = reader.read_response(hand.view());
  check(response.ok() && response->result == d.result,
        "typed write: the answer does not read back as the people");
}

void verify(Document& d) {
  const std::string where = "document " + d.id + ": ";
  d.start_tags = count_start_tags(d.xml);

  // callwire reads the text into exactly the values the writers start from.
  callwire::xml::Reader reader(kReaderLimits);
  if (d.is_call) {
    auto call = reader.read_call(d.xml);
    check(call.ok(), where + "callwire read_call: " + (call ? "" : call.error().message));
    check(call->method_name == d.method_name && call->params.as_array().size() == d.params.size(),
          where + "callwire read a different call");
    for (size_t i = 0; i < d.params.size(); ++i) {
      check(call->params[i] == d.params[i], where + "callwire read a different parameter");
    }
  } else {
    auto response = reader.read_response(d.xml);
    check(response.ok(),
          where + "callwire read_response: " + (response ? "" : response.error().message));
    check(!response->is_fault && response->result == d.result,
          where + "callwire read a different result");
  }

  if (has_typed_read(d)) {
    check_typed_read<HandPerson>(d);
    check_typed_read<DeclaredPerson>(d);
    if (d.id != "base64") check_typed_read<PersonId>(d);
  }
  if (has_typed_write(d)) check_typed_write(d);

  // callwire writes something it reads back as the same values.
  callwire::Buffer out;
  callwire::Status written = callwire_write(d, out);
  check(written.ok(), where + "callwire write: " + written.error().message);
  d.written.assign(out.view());
  if (d.is_call) {
    auto call = reader.read_call(d.written);
    check(call.ok() && call->method_name == d.method_name &&
              call->params.as_array().size() == d.params.size() && call->params[0] == d.params[0] &&
              call->params[1] == d.params[1],
          where + "callwire does not read back what it wrote");
  } else {
    auto response = reader.read_response(d.written);
    check(response.ok() && response->result == d.result,
          where + "callwire does not read back what it wrote");
  }

  // xmlrpc-c reads the text, and reads back what it writes.
  auto xmlrpc_check = [&](std::string_view xml, const std::string& what) {
    xmlrpc_value* v = xmlrpc_read(d, xml);
    check(v != nullptr, where + what + ": xmlrpc-c could not parse it");
    XmlrpcEnv env;
    if (d.is_call) {
      check(xmlrpc_array_size(env, v) == int(d.params.size()), where + what + ": param count");
    } else if (d.result.is_array()) {
      check(xmlrpc_array_size(env, v) == int(d.result.size()), where + what + ": array size");
    } else if (d.result.is_string()) {
      size_t length = 0;
      const char* text = nullptr;
      xmlrpc_read_string_lp(env, v, &length, &text);
      if (!env.failed()) {
        check(std::string_view(text, length) == d.result.as_string(), where + what + ": text");
        std::free(const_cast<char*>(text));
      }
    } else {
      size_t size = 0;
      xmlrpc_read_base64_size(env, v, &size);
      check(size == d.result.as_bytes().size(), where + what + ": base64 size");
    }
    env.check(where + what);
    xmlrpc_DECREF(v);
  };
  xmlrpc_check(d.xml, "the text");
  {
    XmlrpcEnv env;
    xmlrpc_mem_block* block = xmlrpc_mem_block_new(env, 0);
    check(xmlrpc_write(d, block), where + "xmlrpc-c write failed");
    xmlrpc_check(std::string_view(static_cast<const char*>(xmlrpc_mem_block_contents(block)),
                                  xmlrpc_mem_block_size(block)),
                 "xmlrpc-c's output");
    xmlrpc_mem_block_free(block);
  }

  // expat and libxml2 see every element and all the text.
  SaxCount ex;
  XML_Parser parser = XML_ParserCreate(nullptr);
  if (!expat_parse(parser, d.xml, &ex)) {
    die(where + "expat: " + XML_ErrorString(XML_GetErrorCode(parser)));
  }
  XML_ParserFree(parser);
  check(ex.start_tags == d.start_tags, where + "expat saw a different element count");

  SaxCount lx;
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  check(libxml_parse(ctxt, d.xml, libxml_handler(true), &lx), where + "libxml2 failed");
  xmlFreeParserCtxt(ctxt);
  check(lx.start_tags == d.start_tags, where + "libxml2 saw a different element count");
  check(lx.text_bytes == ex.text_bytes, where + "libxml2 and expat saw different text");
}

void read_callwire(benchmark::State& state, const Document* d) {
  callwire::xml::Reader reader(kReaderLimits);  // reused, as a server reuses one per thread
  timed(state, d->xml.size(), [&] {
    if (d->is_call) {
      auto call = reader.read_call(d->xml);
      if (!call) die("callwire read_call failed");
      benchmark::DoNotOptimize(call);
    } else {
      auto response = reader.read_response(d->xml);
      if (!response) die("callwire read_response failed");
      benchmark::DoNotOptimize(response);
    }
  });
}

template <class Person>
void read_callwire_typed(benchmark::State& state, const Document* d) {
  callwire::xml::Reader reader(kReaderLimits);
  timed(state, d->xml.size(), [&] {
    TypedResult<Person> typed;  // a new one each time, as call<R> makes its R (and frees it after)
    callwire_read_typed(*d, reader, typed);
    benchmark::DoNotOptimize(typed);
  });
}

// The answer's bytes per second (a dispatcher's answer: the methodResponse document).
template <class Person>
void write_callwire_typed(benchmark::State& state, const Document* d) {
  TypedPeopleServer<Person> server(d->result);
  callwire::Buffer out;  // reused, as a connection reuses its send buffer
  server.answer("text/xml", kPeopleCall, out);
  timed(state, out.size(), [&] {
    server.answer("text/xml", kPeopleCall, out);
    benchmark::DoNotOptimize(out.data());
  });
}

void read_xmlrpc_c(benchmark::State& state, const Document* d) {
  timed(state, d->xml.size(), [&] {
    xmlrpc_value* v = xmlrpc_read(*d, d->xml);
    if (!v) die("xmlrpc-c parse failed");
    xmlrpc_DECREF(v);
  });
}

void read_expat(benchmark::State& state, const Document* d) {
  XML_Parser parser = XML_ParserCreate(nullptr);
  timed(state, d->xml.size(), [&] {
    if (!expat_parse(parser, d->xml, nullptr)) die("expat failed");
  });
  XML_ParserFree(parser);
}

void read_libxml2(benchmark::State& state, const Document* d) {
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  const xmlSAXHandler handler = libxml_handler(false);
  timed(state, d->xml.size(), [&] {
    if (!libxml_parse(ctxt, d->xml, handler, nullptr)) die("libxml2 failed");
  });
  xmlFreeParserCtxt(ctxt);
}

void write_callwire(benchmark::State& state, const Document* d) {
  callwire::Buffer out;  // reused, as a connection reuses its send buffer
  timed(state, d->written.size(), [&] {
    out.clear();
    if (!callwire_write(*d, out)) die("callwire write failed");
    benchmark::DoNotOptimize(out.data());
  });
}

void write_xmlrpc_c(benchmark::State& state, const Document* d) {
  XmlrpcEnv env;
  xmlrpc_mem_block* out = xmlrpc_mem_block_new(env, 0);
  timed(state, d->written.size(), [&] {
    if (!xmlrpc_write(*d, out)) die("xmlrpc-c write failed");
    benchmark::DoNotOptimize(xmlrpc_mem_block_contents(out));
  });
  xmlrpc_mem_block_free(out);
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
    add("read/" + d.id + "/xmlrpc-c", read_xmlrpc_c, &d);
    add("read/" + d.id + "/memcpy", copy_memcpy, &d.xml);
    add("read/" + d.id + "/expat", read_expat, &d);
    add("read/" + d.id + "/libxml2", read_libxml2, &d);
  }
  for (const Document& d : docs) {
    if (d.read_only) continue;
    add("write/" + d.id + "/callwire", write_callwire, &d);
    if (has_typed_write(d)) {
      add("write/" + d.id + "/callwire-typed", write_callwire_typed<HandPerson>, &d);
      add("write/" + d.id + "/callwire-struct", write_callwire_typed<DeclaredPerson>, &d);
    }
    add("write/" + d.id + "/xmlrpc-c", write_xmlrpc_c, &d);
    add("write/" + d.id + "/memcpy", copy_memcpy, &d.written);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  check_alloc_counting();
  xmlrpc_limit_set(XMLRPC_XML_SIZE_LIMIT_ID, kXmlrpcSizeLimit);
  xmlInitParser();

  std::deque<Document> docs;  // a deque: the benchmarks keep pointers to its elements
  docs.push_back(sample_add_call());
  docs.push_back(people_response());
  docs.push_back(people_response_compact(docs.back()));
  docs.push_back(blob_response());
  docs.push_back(markup_response());
  for (Document& d : docs) {
    verify(d);
    benchmark::AddCustomContext("doc." + d.id + ".read_bytes", std::to_string(d.xml.size()));
    benchmark::AddCustomContext("doc." + d.id + ".write_bytes", std::to_string(d.written.size()));
  }
  benchmark::AddCustomContext("compiler", compiler());
  benchmark::AddCustomContext("people_indent", std::to_string(kPeopleIndent));

  register_benchmarks(docs);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (Document& d : docs) xmlrpc_DECREF(d.xr_values);
  return 0;
}
