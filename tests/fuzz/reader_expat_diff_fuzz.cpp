// libFuzzer driver: the reader's accept/reject decisions against expat.
//
// On inputs without "<!DOCTYPE" that are not UTF-16 (both refused by design; see
// tests/corpus/expat_strings.hpp):
//  (a) expat says not well formed  => the reader refuses it, unless a name holds a non-ASCII
//      character (expat knows only XML 1.0 4th edition's name characters: has_non_ascii_name);
//  (b) the reader refuses it with -32700 or -32702 => expat says not well formed, except where
//      expat is known to be lenient (expat_known_lenient);
//  (c) the reader accepts it => the strings both extract are the same, in document order.
// A violation prints both verdicts and traps.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "callwire/xml.hpp"
#include "expat_strings.hpp"
#include "message_compare.hpp"

namespace {

[[noreturn]] void fail(const char* rule, const std::string& detail) {
  std::fprintf(stderr, "\n*** reader_expat_diff_fuzz: %s\n%s\n", rule, detail.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace callwire::testing;
  static callwire::xml::Reader reader([] {
    callwire::xml::ReaderLimits limits;
    limits.max_document_size = size_t{1} << 20;
    limits.max_elements = 100000;
    return limits;
  }());

  std::string_view doc(reinterpret_cast<const char*>(data), size);
  if (has_doctype(doc) || declares_utf16(doc)) return 0;

  auto ours = reader.read(doc);
  ExpatOutcome theirs = expat_parse(doc);
  if (!theirs.well_formed) {
    if (ours && !has_non_ascii_name(doc))
      fail("(a) expat says not well formed, the reader accepts", theirs.error);
    return 0;
  }
  if (!ours) {
    int32_t code = ours.error().fault_code;
    if ((code == callwire::fault_code::kParseError ||
         code == callwire::fault_code::kInvalidCharacter) &&
        !expat_known_lenient(doc)) {
      fail("(b) the reader calls well-formed XML malformed",
           std::to_string(code) + " " + ours.error().message);
    }
    return 0;
  }
  auto our_strings = message_strings(*ours);
  if (our_strings != theirs.strings) {
    std::string detail = "reader:";
    for (const auto& s : our_strings) detail += " " + quote(s);
    detail += "\nexpat: ";
    for (const auto& s : theirs.strings) detail += " " + quote(s);
    fail("(c) the strings differ", detail);
  }
  return 0;
}
