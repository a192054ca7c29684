// A typed read of a document's base64 result with the bytes Base64Ahead decoded while it
// "arrived" (src/xml/decode_ahead.hpp) must be exactly the read without them: the same bytes,
// or the same error. Used by corpus_test over every document and by reader_fuzz.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/xml.hpp"
#include "xml/reader_internals.hpp"

namespace callwire::testing {

// What a typed read of `doc`'s result into std::vector<uint8_t> gave, as text to compare.
inline std::string typed_bytes_read(xml::Reader& reader, std::string_view doc,
                                    xml::DecodedAhead* ahead) {
  struct BytesSink final : ValueSink {
    std::vector<uint8_t> bytes;
    Status read(ValueReader& r) override { return read_value(r, bytes); }
  } sink;
  MethodResponse response;
  Status sink_status;
  Status s = xml::ReaderInternals::read_response(reader, doc, response, sink, sink_status, ahead);
  if (!s) return "document error: " + s.error().message;
  if (response.is_fault) return "fault";
  if (!sink_status) return "sink error: " + sink_status.error().message;
  return "bytes: " + std::string(sink.bytes.begin(), sink.bytes.end());
}

// nullopt when the read with `doc` arriving in pieces of `piece` bytes (decoded ahead in
// steps of 4 characters, however small the document) is the read without; else both.
inline std::optional<std::string> ahead_difference(xml::Reader& reader, std::string_view doc,
                                                   size_t piece) {
  std::string plain = typed_bytes_read(reader, doc, nullptr);
  xml::Base64Ahead ahead(0, 4);
  for (size_t n = piece;; n += piece) {
    ahead.arriving(doc.substr(0, std::min(n, doc.size())), doc.size());
    if (n >= doc.size()) break;
  }
  std::string with = typed_bytes_read(reader, doc, ahead.for_document(doc));
  if (with == plain) return std::nullopt;
  return "without what was decoded ahead: " + plain.substr(0, 300) + "\nwith it (pieces of " +
         std::to_string(piece) + "): " + with.substr(0, 300);
}

}  // namespace callwire::testing
