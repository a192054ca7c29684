// The reader against the corpus in tests/corpus (see tests/corpus/README.md).
//
// valid/NAME.xml: Reader::read accepts it, and the message equals valid/NAME.json read with
// json_form::message_from_json, under the strict comparison of message_compare.hpp (member order,
// int vs i8, doubles bit for bit). Then it is written back (both dialects) and read again: the
// same message. read_call/read_response agree with read.
// invalid/NAME.xml: Reader::read refuses it with the fault code of invalid/NAME.expect, and the
// message contains one of its words (case-insensitive).
//
// The files are found when the test runs, so a new file is a new case.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "ahead_compare.hpp"
#include "arriving_compare.hpp"
#include "callwire/buffer.hpp"
#include "callwire/xml.hpp"
#include "corpus_files.hpp"
#include "json_form.hpp"
#include "message_compare.hpp"
#include "pull_compare.hpp"

#ifndef CALLWIRE_CORPUS_DIR
#error "CALLWIRE_CORPUS_DIR must name tests/corpus"
#endif

namespace callwire::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = CALLWIRE_CORPUS_DIR;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// At most `n` bytes of a document, for failure messages.
std::string excerpt(std::string_view doc, size_t n = 600) {
  std::string out = quote(doc.substr(0, n));
  if (doc.size() > n) out += "... (" + std::to_string(doc.size()) + " bytes)";
  return out;
}

std::string describe_error(const Error& e) {
  return std::to_string(e.fault_code) + " (" + errc_name(e.code) + ") \"" + e.message + "\"";
}

std::string parameter_name(const ::testing::TestParamInfo<CorpusFile>& info) {
  return test_name(info.param);
}

// ---- the corpus as a whole ------------------------------------------------------------------

TEST(Corpus, IsThere) {
  EXPECT_FALSE(scan_corpus(kCorpus / "valid", "valid", ".xml").empty()) << kCorpus;
  EXPECT_FALSE(scan_corpus(kCorpus / "invalid", "invalid", ".xml").empty()) << kCorpus;
}

TEST(Corpus, EveryFileHasItsPair) {
  struct Pair {
    const char* dir;
    const char* main;
    const char* sidecar;
  };
  for (Pair p : {Pair{"valid", ".xml", ".json"}, Pair{"invalid", ".xml", ".expect"}}) {
    for (const auto& f : scan_corpus(kCorpus / p.dir, p.dir, "")) {
      fs::path path = f.path;
      std::string ext = path.extension().string();
      if (ext == p.main) {
        EXPECT_TRUE(fs::exists(fs::path(path).replace_extension(p.sidecar)))
            << path << " has no " << p.sidecar << " sidecar";
      } else if (ext == p.sidecar) {
        EXPECT_TRUE(fs::exists(fs::path(path).replace_extension(p.main)))
            << path << " has no " << p.main << " document";
      } else {
        ADD_FAILURE() << path << ": only " << p.main << " and " << p.sidecar << " belong in "
                      << p.dir << "/";
      }
    }
  }
}

// ---- valid ----------------------------------------------------------------------------------

class ValidCorpus : public ::testing::TestWithParam<CorpusFile> {};

TEST_P(ValidCorpus, DecodesAsExpected) {
  const CorpusFile& f = GetParam();
  std::string doc = read_file(f.path);
  fs::path json_path = fs::path(f.path).replace_extension(".json");
  ASSERT_TRUE(fs::exists(json_path)) << f.path << " has no .json sidecar";
  std::string json = read_file(json_path);

  auto expected = json_form::message_from_json(json);
  ASSERT_TRUE(expected) << json_path
                        << " is not a message in the JSON form: " << expected.error().message;

  xml::Reader reader;
  auto got = reader.read(doc);
  ASSERT_TRUE(got) << f.path << " refused: " << describe_error(got.error())
                   << "\ndocument: " << excerpt(doc);
  auto diff = first_difference(*expected, *got);
  EXPECT_FALSE(diff) << f.path << ": expected vs got at " << diff.value_or("")
                     << "\nexpected: " << describe(*expected) << "\ngot:      " << describe(*got);

  // The kind-specific entry points agree with read().
  if (got->kind == Message::Kind::Call) {
    auto call = reader.read_call(doc);
    ASSERT_TRUE(call) << "read_call refused what read accepted: " << describe_error(call.error());
    EXPECT_FALSE(first_difference(*call, got->call)) << "read_call differs from read";
    EXPECT_FALSE(reader.read_response(doc)) << "read_response accepted a methodCall";
  } else {
    auto response = reader.read_response(doc);
    ASSERT_TRUE(response) << "read_response refused what read accepted: "
                          << describe_error(response.error());
    EXPECT_FALSE(first_difference(*response, got->response)) << "read_response differs from read";
    EXPECT_FALSE(reader.read_call(doc)) << "read_call accepted a methodResponse";
  }
}

// Read as it arrives, in pieces, the reader waiting for more at the end of what came: the
// same as read whole (tests/corpus/arriving_compare.hpp), whether its length is known from the
// start (Content-Length) or told after its last byte (chunked). For the valid and invalid
// corpus.
void expect_read_as_it_arrives_as_read_whole(const CorpusFile& f) {
  std::string doc = read_file(f.path);
  xml::Reader reader;
  for (const std::string& d : {doc, as_response(doc)}) {
    for (bool end_told_last : {false, true}) {
      for (size_t piece : {size_t{1}, size_t{2}, size_t{5}, size_t{17}, size_t{64}}) {
        auto diff = arriving_difference(reader, d, piece, end_told_last);
        EXPECT_FALSE(diff) << f.path << ": " << diff.value_or("") << "\ndocument: " << excerpt(d);
      }
    }
  }
}

TEST_P(ValidCorpus, ReadAsItArrivesAsReadWhole) {
  expect_read_as_it_arrives_as_read_whole(GetParam());
}

// Reading a response's result by pulling (a typed call's path) agrees with reading it whole.
TEST_P(ValidCorpus, PullingAgreesWithTheTree) {
  const CorpusFile& f = GetParam();
  std::string doc = read_file(f.path);
  xml::Reader reader;
  for (const std::string& d : {doc, as_response(doc)}) {
    auto diff = pull_difference(reader, d);
    EXPECT_FALSE(diff) << f.path << ": " << diff.value_or("") << "\ndocument: " << excerpt(d);
    // And a typed blob read with what was decoded as the document arrived.
    for (size_t piece : {size_t{1}, size_t{7}, size_t{64}}) {
      auto ahead = ahead_difference(reader, d, piece);
      EXPECT_FALSE(ahead) << f.path << ": " << ahead.value_or("") << "\ndocument: " << excerpt(d);
    }
  }
}

TEST_P(ValidCorpus, RoundTripsThroughTheWriter) {
  const CorpusFile& f = GetParam();
  std::string doc = read_file(f.path);
  xml::Reader reader;
  auto got = reader.read(doc);
  ASSERT_TRUE(got) << f.path << " refused: " << describe_error(got.error());

  for (auto dialect : {xml::Dialect::I8, xml::Dialect::Apache}) {
    const char* dialect_name = dialect == xml::Dialect::I8 ? "i8" : "apache";
    Buffer out;
    Status written = xml::write_message(out, *got, {dialect});
    ASSERT_TRUE(written) << "write_message (" << dialect_name
                         << ") refused what was read: " << describe_error(written.error())
                         << "\nmessage: " << describe(*got);
    auto again = reader.read(out.view());
    ASSERT_TRUE(again) << "the reader refuses the writer's output (" << dialect_name
                       << "): " << describe_error(again.error())
                       << "\nwritten: " << excerpt(out.view());
    auto diff = first_difference(*got, *again);
    EXPECT_FALSE(diff) << "round trip (" << dialect_name << ") changed " << diff.value_or("")
                       << "\nwritten: " << excerpt(out.view());
  }
}

TEST_P(ValidCorpus, RoundTripsThroughTheJsonForm) {
  const CorpusFile& f = GetParam();
  xml::Reader reader;
  auto got = reader.read(read_file(f.path));
  ASSERT_TRUE(got) << f.path << " refused: " << describe_error(got.error());
  std::string json = json_form::to_json(*got);
  auto back = json_form::message_from_json(json);
  ASSERT_TRUE(back) << "message_from_json refuses to_json's output: " << back.error().message
                    << "\njson: " << excerpt(json);
  auto diff = first_difference(*got, *back);
  EXPECT_FALSE(diff) << "JSON form round trip changed " << diff.value_or("")
                     << "\njson: " << excerpt(json);
}

// Start tags in a well-formed document (comments, CDATA, PIs and the declaration skipped).
size_t count_start_tags(std::string_view doc) {
  size_t count = 0;
  for (size_t i = 0; i < doc.size(); ++i) {
    if (doc[i] != '<') continue;
    std::string_view rest = doc.substr(i);
    auto skip_to = [&](std::string_view end) {
      size_t at = doc.find(end, i);
      i = at == std::string_view::npos ? doc.size() : at + end.size() - 1;
    };
    if (rest.substr(0, 4) == "<!--") {
      skip_to("-->");
    } else if (rest.substr(0, 9) == "<![CDATA[") {
      skip_to("]]>");
    } else if (rest.substr(0, 2) == "<?") {
      skip_to("?>");
    } else if (rest.size() > 1 && rest[1] != '/' && rest[1] != '!') {
      ++count;
    }
  }
  return count;
}

// Arrays and structs nested in the deepest value.
uint32_t depth_of(const Value& v) {
  uint32_t inner = 0;
  if (v.is_array()) {
    for (const Value& item : v.as_array()) inner = std::max(inner, depth_of(item));
  } else if (v.is_struct()) {
    for (const Member& m : v.members()) inner = std::max(inner, depth_of(m.value()));
  } else {
    return 0;
  }
  return inner + 1;
}

// The longest methodName, member name or string, in bytes.
size_t longest_text(const Value& v) {
  size_t n = v.is_string() ? v.as_string().size() : 0;
  if (v.is_array()) {
    for (const Value& item : v.as_array()) n = std::max(n, longest_text(item));
  } else if (v.is_struct()) {
    for (const Member& m : v.members()) {
      n = std::max({n, m.name().size(), longest_text(m.value())});
    }
  }
  return n;
}

// Each limit is exact on every valid document: set to what the document needs, it is read;
// one less, it is refused with -32600.
TEST_P(ValidCorpus, LimitsAreExact) {
  const CorpusFile& f = GetParam();
  std::string doc = read_file(f.path);
  xml::Reader plain;
  auto got = plain.read(doc);
  ASSERT_TRUE(got) << f.path << " refused: " << describe_error(got.error());

  struct Case {
    const char* limit;
    size_t needed;
    void (*set)(xml::ReaderLimits&, size_t);
  };
  size_t depth = 0, longest = 0;
  if (got->kind == Message::Kind::Call) {
    depth = depth_of(got->call.params) - 1;  // the params array is not a nesting level
    longest = std::max(got->call.method_name.size(), longest_text(got->call.params));
  } else if (got->response.is_fault) {
    // The fault's struct is one level, and its member names are texts too.
    depth = 1;
    longest = std::max(got->response.fault.string.size(), std::string_view("faultString").size());
  } else {
    depth = depth_of(got->response.result);
    longest = longest_text(got->response.result);
  }
  std::vector<Case> cases = {
      {"max_document_size", doc.size(),
       [](xml::ReaderLimits& l, size_t n) { l.max_document_size = n; }},
      {"max_elements", count_start_tags(doc),
       [](xml::ReaderLimits& l, size_t n) { l.max_elements = n; }},
      {"max_depth", depth, [](xml::ReaderLimits& l, size_t n) { l.max_depth = uint32_t(n); }},
  };
  // base64 text and a fault's other members (faultCause) count too, but are not in the message.
  if (doc.find("base64") == std::string::npos && doc.find("faultCause") == std::string::npos) {
    cases.push_back({"max_string_size", longest,
                     [](xml::ReaderLimits& l, size_t n) { l.max_string_size = n; }});
  }
  for (const Case& c : cases) {
    xml::ReaderLimits exact;
    c.set(exact, c.needed);
    xml::Reader at_limit(exact);
    auto ok = at_limit.read(doc);
    EXPECT_TRUE(ok) << f.path << ": " << c.limit << " = " << c.needed
                    << " (what the document needs) refused: "
                    << (ok ? "" : describe_error(ok.error()));
    if (c.needed == 0) continue;
    xml::ReaderLimits under;
    c.set(under, c.needed - 1);
    xml::Reader below(under);
    auto refused = below.read(doc);
    if (refused) {
      ADD_FAILURE() << f.path << ": " << c.limit << " = " << c.needed - 1
                    << " (one less than needed) accepted";
    } else {
      EXPECT_EQ(refused.error().fault_code, fault_code::kInvalidXmlRpc)
          << f.path << ": " << c.limit << " = " << c.needed - 1 << ": "
          << describe_error(refused.error());
      EXPECT_EQ(refused.error().code, Errc::LimitExceeded)
          << c.limit << " = " << c.needed - 1 << ": " << describe_error(refused.error());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, ValidCorpus,
                         ::testing::ValuesIn(scan_corpus(kCorpus / "valid", "valid", ".xml")),
                         parameter_name);

// ---- invalid --------------------------------------------------------------------------------

class InvalidCorpus : public ::testing::TestWithParam<CorpusFile> {};

TEST_P(InvalidCorpus, IsRefusedAsExpected) {
  const CorpusFile& f = GetParam();
  std::string doc = read_file(f.path);
  fs::path expect_path = fs::path(f.path).replace_extension(".expect");
  ASSERT_TRUE(fs::exists(expect_path)) << f.path << " has no .expect sidecar";

  // One line: the fault code, a space, then the words: "a|b" means a or b.
  std::string line = trim(read_file(expect_path));
  ASSERT_EQ(line.find('\n'), std::string::npos) << expect_path << ": one line expected";
  size_t space = line.find(' ');
  int32_t code = std::stoi(line.substr(0, space));
  std::vector<std::string> words;
  if (space != std::string::npos) {
    std::string rest = trim(line.substr(space + 1));
    size_t start = 0;
    while (start <= rest.size()) {
      size_t bar = rest.find('|', start);
      if (bar == std::string::npos) bar = rest.size();
      if (bar > start) words.push_back(lower(rest.substr(start, bar - start)));
      start = bar + 1;
    }
  }

  xml::Reader reader;
  auto got = reader.read(doc);
  ASSERT_FALSE(got) << f.path << " accepted, expected " << line << "\ndecoded: " << describe(*got)
                    << "\ndocument: " << excerpt(doc);
  const Error& e = got.error();
  EXPECT_EQ(e.fault_code, code) << f.path << ": got " << describe_error(e) << ", expected " << line;
  EXPECT_EQ(errc_fault_code(e.code), e.fault_code)
      << "Errc " << errc_name(e.code) << " does not match fault code " << e.fault_code;
  EXPECT_FALSE(e.message.empty());
  if (!words.empty()) {
    std::string message = lower(e.message);
    bool found = std::any_of(words.begin(), words.end(), [&](const std::string& w) {
      return message.find(w) != std::string::npos;
    });
    EXPECT_TRUE(found) << f.path << ": message \"" << e.message << "\" has none of: " << line;
  }
  // The kind-specific entry points refuse it too.
  EXPECT_FALSE(reader.read_call(doc)) << "read_call accepted what read refused";
  EXPECT_FALSE(reader.read_response(doc)) << "read_response accepted what read refused";
}

TEST_P(InvalidCorpus, ReadAsItArrivesAsReadWhole) {
  expect_read_as_it_arrives_as_read_whole(GetParam());
}

TEST_P(InvalidCorpus, PullingAgreesWithTheTree) {
  const CorpusFile& f = GetParam();
  std::string doc = read_file(f.path);
  xml::Reader reader;
  for (const std::string& d : {doc, as_response(doc)}) {
    auto diff = pull_difference(reader, d);
    EXPECT_FALSE(diff) << f.path << ": " << diff.value_or("") << "\ndocument: " << excerpt(d);
    // And a typed blob read with what was decoded as the document arrived.
    for (size_t piece : {size_t{1}, size_t{7}, size_t{64}}) {
      auto ahead = ahead_difference(reader, d, piece);
      EXPECT_FALSE(ahead) << f.path << ": " << ahead.value_or("") << "\ndocument: " << excerpt(d);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, InvalidCorpus,
                         ::testing::ValuesIn(scan_corpus(kCorpus / "invalid", "invalid", ".xml")),
                         parameter_name);

// ---- read as it arrives: what the corpus does not reach --------------------------------

// A response of `n` structs of short members, with attributes on every <value> (checked, not
// kept): lexed in two goes when a tag straddles what has come.
std::string many_structs(size_t n) {
  std::string doc = "<?xml version=\"1.0\"?><methodResponse><params><param><value><array><data>";
  for (size_t i = 0; i < n; ++i) {
    doc += "<value a=\"1\"><struct><member><name>id</name><value><int>" + std::to_string(i) +
           "</int></value></member><member><name>name</name><value>student " + std::to_string(i) +
           " &amp; co</value></member></struct></value>\n";
  }
  return doc + "</data></array></value></param></params></methodResponse>";
}

// The element limit counts each element once, however often a tag is lexed again: what has
// come ends at every place in turn (a tag cut in its attribute is lexed twice).
TEST(ReadAsItArrives, CountsEachElementOnce) {
  const std::string doc = many_structs(3);
  const size_t elements = count_start_tags(doc);
  for (size_t limit : {elements, elements - 1}) {
    xml::ReaderLimits limits;
    limits.max_elements = limit;
    xml::Reader reader(limits);
    ASSERT_EQ(bool(reader.read_response(doc)), limit == elements);
    for (size_t piece = 1; piece < doc.size(); ++piece) {
      for (bool end_told_last : {false, true}) {
        auto diff = arriving_difference(reader, doc, piece, end_told_last);
        EXPECT_FALSE(diff) << "limit " << limit << ": " << diff.value_or("");
      }
    }
  }
}

// Text with a comment, a PI and a CDATA section in it, cut at every place: a `<` that has
// come without what follows it is not yet the end of the text.
TEST(ReadAsItArrives, MarkupInsideTextCutAnywhere) {
  const std::string doc =
      "<?xml version=\"1.0\"?><methodResponse><params><param><value><string>a<!-- c -->b"
      "<?pi x?>c<![CDATA[<d>]]>e&amp;f\r\ng]]</string></value></param></params>"
      "</methodResponse>";
  xml::Reader reader;
  ASSERT_TRUE(reader.read_response(doc));
  for (size_t piece = 1; piece < doc.size(); ++piece) {
    for (bool end_told_last : {false, true}) {
      auto diff = arriving_difference(reader, doc, piece, end_told_last);
      EXPECT_FALSE(diff) << diff.value_or("");
    }
  }
}

// A long answer is read while it arrives, never waiting for the whole of it: the reader asks
// for little more than a token at a time (its tokens are short), so the reading keeps up with
// the arriving.
TEST(ReadAsItArrives, ReadsWhatHasComeWithoutWaitingForEverything) {
  const std::string doc = many_structs(20000);  // about 2.3 MB
  xml::Reader reader;
  ArrivingDocument source(doc, 16 * 1024);
  auto response = xml::ReaderInternals::read_response(reader, source.storage(), &source);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->result.size(), 20000u);
  EXPECT_EQ(response->result[19999]["name"].as_string(), "student 19999 & co");
  EXPECT_LT(source.largest_want(), 1024u) << "waited for the rest at once";
  EXPECT_GE(source.waits(), doc.size() / (16 * 1024) - 1);
}

// When the bytes stop coming, the read ends with the source's own error.
TEST(ReadAsItArrives, TheSourcesErrorEndsTheRead) {
  struct Stalled final : xml::DocumentSource {
    size_t arrived_bytes;
    size_t arrived() const override { return arrived_bytes; }
    Status wait(size_t) override { return Error(Errc::Timeout, "the answer stopped coming"); }
  };
  const std::string doc = many_structs(200);
  for (size_t arrived : {size_t{0}, size_t{10}, doc.size() / 2, doc.size() - 1}) {
    Stalled source;
    source.arrived_bytes = arrived;
    xml::Reader reader;
    auto response = xml::ReaderInternals::read_response(reader, doc, &source);
    ASSERT_FALSE(response) << arrived;
    EXPECT_EQ(response.error().code, Errc::Timeout) << arrived;
    EXPECT_NE(response.error().message.find("the answer stopped coming"), std::string::npos)
        << response.error().message;
  }
}

}  // namespace
}  // namespace callwire::testing
