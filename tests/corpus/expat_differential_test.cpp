// The reader against expat, on every corpus file (valid/, invalid/, tests/fuzz/corpus/).
//
// For each document without a DOCTYPE:
//  (a) expat says not well formed  => the reader refuses it (any code), except when a name holds
//      a non-ASCII character (expat knows only XML 1.0 4th edition's name characters: see
//      has_non_ascii_name in expat_strings.hpp);
//  (b) the reader refuses it with -32700 or -32702 => expat says not well formed: we must never
//      call well-formed XML malformed (except where expat is known to be lenient: see
//      expat_known_lenient in expat_strings.hpp);
//  (c) the reader accepts it => expat accepts it, and the strings both extract are the same, in
//      document order (methodName, member names, <string> texts, untyped <value> texts).
//
// Left out: documents with a DOCTYPE (the reader refuses them by design, expat expands them)
// and documents that are or declare UTF-16 (expat reads UTF-16; the reader refuses it by design
// with -32701).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "callwire/xml.hpp"
#include "corpus_files.hpp"
#include "expat_strings.hpp"
#include "message_compare.hpp"

#ifndef CALLWIRE_CORPUS_DIR
#error "CALLWIRE_CORPUS_DIR must name tests/corpus"
#endif
#ifndef CALLWIRE_FUZZ_CORPUS_DIR
#error "CALLWIRE_FUZZ_CORPUS_DIR must name tests/fuzz/corpus"
#endif

namespace callwire::testing {
namespace {

namespace fs = std::filesystem;

std::vector<CorpusFile> all_documents() {
  std::vector<CorpusFile> files;
  for (auto&& part : {scan_corpus(fs::path(CALLWIRE_CORPUS_DIR) / "valid", "valid", ".xml"),
                      scan_corpus(fs::path(CALLWIRE_CORPUS_DIR) / "invalid", "invalid", ".xml"),
                      scan_corpus(fs::path(CALLWIRE_FUZZ_CORPUS_DIR), "fuzz", "")}) {
    files.insert(files.end(), part.begin(), part.end());
  }
  return files;
}

std::string excerpt(std::string_view doc, size_t n = 400) {
  std::string out = quote(doc.substr(0, n));
  if (doc.size() > n) out += "... (" + std::to_string(doc.size()) + " bytes)";
  return out;
}

// The harness itself: what the expat side collects.
TEST(ExpatHarness, CollectsStringsInDocumentOrder) {
  ExpatOutcome r = expat_parse(
      "<methodCall><methodName>m</methodName><params><param><value>u<!-- c -->v</value></param>"
      "<param><value><struct><member><name>a</name><value><string>1</string></value></member>"
      "<member><name>b</name><value><int>2</int></value></member><member><name>a</name>"
      "<value><![CDATA[3]]></value></member></struct></value></param><param><value>"
      "<array><data><value/><value><string>x&amp;y</string></value></data></array></value>"
      "</param></params></methodCall>");
  ASSERT_TRUE(r.well_formed) << r.error;
  EXPECT_EQ(r.strings, (std::vector<std::string>{"m", "uv", "a", "3", "b", "", "x&y"}));

  r = expat_parse(
      "<methodResponse><fault><value><struct><member><name>faultString</name><value>s</value>"
      "</member><member><name>faultCause</name><value>c</value></member><member>"
      "<name>faultCode</name><value><int>1</int></value></member></struct></value></fault>"
      "</methodResponse>");
  ASSERT_TRUE(r.well_formed) << r.error;
  EXPECT_EQ(r.strings, (std::vector<std::string>{"faultCode", "faultString", "s"}));

  r = expat_parse("<a>&#1;</a>");
  EXPECT_FALSE(r.well_formed);
  EXPECT_TRUE(declares_utf16("<?xml version='1.0' encoding='utf-16'?><a/>"));
  EXPECT_FALSE(declares_utf16("<?xml version='1.0' encoding='UTF-8'?><a/>"));
  EXPECT_TRUE(expat_known_lenient("<?xml version='2.0'?><a/>"));
  EXPECT_TRUE(has_non_ascii_name("<a x\u0351=\"1\"/>"));
  EXPECT_TRUE(has_non_ascii_name("<?\u00e9 x?><a/>"));
  EXPECT_FALSE(has_non_ascii_name("<a x=\"\u00e9\">\u00e9<!-- \u00e9 --><![CDATA[\u00e9]]></a>"));
  EXPECT_FALSE(expat_known_lenient("<?xml version='1.0'?><a/>"));
}

class ExpatDifferential : public ::testing::TestWithParam<CorpusFile> {};

TEST_P(ExpatDifferential, AgreesWithExpat) {
  const CorpusFile& f = GetParam();
  std::string doc = read_file(f.path);
  if (has_doctype(doc)) GTEST_SKIP() << "has a DOCTYPE: refused by design, expat expands it";
  if (declares_utf16(doc)) GTEST_SKIP() << "UTF-16: refused by design (-32701), expat reads it";

  xml::Reader reader;
  auto ours = reader.read(doc);
  ExpatOutcome theirs = expat_parse(doc);

  if (!theirs.well_formed) {
    if (ours && has_non_ascii_name(doc)) return;  // see has_non_ascii_name
    EXPECT_FALSE(ours) << "(a) expat says not well formed (" << theirs.error
                       << ") but the reader accepts: " << describe(*ours)
                       << "\ndocument: " << excerpt(doc);
    return;
  }
  if (!ours) {
    int32_t code = ours.error().fault_code;
    bool malformed_verdict =
        code == fault_code::kParseError || code == fault_code::kInvalidCharacter;
    if (malformed_verdict && !expat_known_lenient(doc)) {
      ADD_FAILURE() << "(b) the reader calls well-formed XML malformed: " << code << " \""
                    << ours.error().message << "\"; expat accepts it\ndocument: " << excerpt(doc);
    }
    return;
  }
  std::vector<std::string> our_strings = message_strings(*ours);
  const auto& expat_strings = theirs.strings;
  size_t n = std::min(our_strings.size(), expat_strings.size());
  for (size_t i = 0; i < n; ++i) {
    if (our_strings[i] != expat_strings[i]) {
      ADD_FAILURE() << "(c) string " << i << " differs: reader " << quote(our_strings[i])
                    << ", expat " << quote(expat_strings[i]) << "\ndocument: " << excerpt(doc);
      return;
    }
  }
  EXPECT_EQ(our_strings.size(), expat_strings.size())
      << "(c) the reader found " << our_strings.size() << " strings, expat " << expat_strings.size()
      << "\ndocument: " << excerpt(doc);
}

INSTANTIATE_TEST_SUITE_P(Corpus, ExpatDifferential, ::testing::ValuesIn(all_documents()),
                         [](const ::testing::TestParamInfo<CorpusFile>& info) {
                           return test_name(info.param);
                         });

}  // namespace
}  // namespace callwire::testing
