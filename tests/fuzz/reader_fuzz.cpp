// libFuzzer driver: the XML-RPC reader, then the writer and the reader again.
//
// For any input: Reader::read never crashes; a refusal carries an interop fault code that
// matches its Errc, and a message; read_call/read_response agree with read. When the input is
// accepted: write_message (both dialects) succeeds, its output is accepted again and decodes to
// the same message (strict comparison: member order, int vs i8, doubles bit for bit). Any
// violation prints what differs and traps. The pull path (read_response into a ValueSink, a
// typed call's) must agree with the tree path on the document and on it made a response, and
// a typed blob read must not change with what was decoded while the document arrived.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "ahead_compare.hpp"
#include "arriving_compare.hpp"
#include "callwire/buffer.hpp"
#include "callwire/xml.hpp"
#include "message_compare.hpp"
#include "pull_compare.hpp"

namespace {

using callwire::Error;
using callwire::Message;
using callwire::testing::describe;
using callwire::testing::first_difference;
using callwire::testing::quote;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "\n*** reader_fuzz: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

void check_error(const Error& e, const char* entry) {
  int32_t f = e.fault_code;
  bool known =
      f == callwire::fault_code::kParseError || f == callwire::fault_code::kUnsupportedEncoding ||
      f == callwire::fault_code::kInvalidCharacter || f == callwire::fault_code::kInvalidXmlRpc;
  if (!known || callwire::errc_fault_code(e.code) != f || e.message.empty()) {
    fail("a refusal with an unexpected code or no message",
         std::string(entry) + ": Errc " + callwire::errc_name(e.code) + ", fault code " +
             std::to_string(f) + ", message " + quote(e.message));
  }
}

callwire::xml::ReaderLimits small_limits() {
  callwire::xml::ReaderLimits limits;
  limits.max_document_size = size_t{1} << 20;
  limits.max_elements = 100000;
  limits.max_string_size = size_t{1} << 20;
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Kept across inputs on purpose: a server reuses its Reader, so stale scratch state is a bug.
  static callwire::xml::Reader reader(small_limits());
  // The writer's output can be larger than its input (escapes, typed values): default limits.
  static callwire::xml::Reader rereader;

  std::string_view doc(reinterpret_cast<const char*>(data), size);
  for (const std::string& d : {std::string(doc), callwire::testing::as_response(doc)}) {
    if (auto diff = callwire::testing::pull_difference(reader, d))
      fail("the pull path differs from the tree path",
           *diff + "\ndocument: " + quote(d.substr(0, 2000)));
    // The document arriving in pieces (their size from its length), its blob decoded ahead.
    if (auto diff = callwire::testing::ahead_difference(reader, d, 1 + d.size() % 13))
      fail("decoding ahead changes the typed read",
           *diff + "\ndocument: " + quote(d.substr(0, 2000)));
    // Read as it arrives, in pieces of a size picked by its length, its end told with its
    // last byte (Content-Length) or after it (chunked), as its length picks too.
    if (auto diff =
            callwire::testing::arriving_difference(reader, d, 1 + d.size() % 11, d.size() % 2 == 1))
      fail("reading as it arrives differs from reading whole",
           *diff + "\ndocument: " + quote(d.substr(0, 2000)));
  }
  auto got = reader.read(doc);
  auto call = reader.read_call(doc);
  auto response = reader.read_response(doc);

  if (!got) {
    check_error(got.error(), "read");
    if (call) fail("read_call accepts what read refuses", got.error().message);
    if (response) fail("read_response accepts what read refuses", got.error().message);
    check_error(call.error(), "read_call");
    check_error(response.error(), "read_response");
    return 0;
  }
  const Message& m = *got;
  if (m.kind == Message::Kind::Call) {
    if (!call) fail("read_call refuses what read accepts", call.error().message);
    if (auto d = first_difference(*call, m.call)) fail("read_call differs from read", *d);
    if (response) fail("read_response accepts a methodCall", describe(m));
  } else {
    if (!response) fail("read_response refuses what read accepts", response.error().message);
    if (auto d = first_difference(*response, m.response)) {
      fail("read_response differs from read", *d);
    }
    if (call) fail("read_call accepts a methodResponse", describe(m));
  }

  for (auto dialect : {callwire::xml::Dialect::I8, callwire::xml::Dialect::Apache}) {
    callwire::Buffer out;
    callwire::Status written = callwire::xml::write_message(out, m, {dialect});
    if (!written) {
      fail("write_message refuses a message the reader produced",
           written.error().message + "\nmessage: " + describe(m));
    }
    auto again = rereader.read(out.view());
    if (!again) {
      fail("the reader refuses the writer's output",
           again.error().message + "\nwritten: " + quote(out.view().substr(0, 2000)));
    }
    if (auto d = first_difference(m, *again)) {
      fail("write then read changed the message",
           *d + "\nfirst:   " + describe(m) + "\nwritten: " + quote(out.view().substr(0, 2000)));
    }
  }
  return 0;
}
