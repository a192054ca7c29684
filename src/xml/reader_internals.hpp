// Internal: callwire's own entry points into Reader, beside its public ones (the client's
// answers, and the tests that hold them to the public reads).
#pragma once

#include <string_view>

#include "callwire/error.hpp"
#include "callwire/message.hpp"
#include "callwire/value_reader.hpp"
#include "callwire/xml.hpp"
#include "xml/decode_ahead.hpp"
#include "xml/lexer.hpp"

namespace callwire::xml {

struct ReaderInternals {
  /// Reader::read_response into a sink, with `ahead` (may be null) decoded already, of a
  /// document still arriving from `source` (null: it is all there). `document` spans the
  /// whole document, of which only the bytes the source says have arrived may be read. After
  /// a read that failed, the rest may still be due.
  static Status read_response(Reader& reader, std::string_view document, MethodResponse& response,
                              ValueSink& sink, Status& sink_status, DecodedAhead* ahead,
                              DocumentSource* source = nullptr);
  /// Reader::read_response into a Value, of a document still arriving from `source`.
  static Result<MethodResponse> read_response(Reader& reader, std::string_view document,
                                              DocumentSource* source);
};

}  // namespace callwire::xml
