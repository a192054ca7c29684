// Internal: callwire's own entry points into Reader, beside its public ones (the client's
// answers, and the tests that hold them to the public reads).
#pragma once

#include <string_view>

#include "callwire/error.hpp"
#include "callwire/message.hpp"
#include "callwire/param_stream.hpp"
#include "callwire/value_reader.hpp"
#include "callwire/xml.hpp"
#include "xml/decode_ahead.hpp"
#include "xml/lexer.hpp"

namespace callwire::xml {

/// Given a call's parameters as they are read (a server's typed handlers, through the
/// dispatcher): see ReaderInternals::read_call.
class ParamsTaker {
 public:
  enum class Took {
    Nothing,    ///< `params` untouched: the reader reads them into the call as Values
    Answered,   ///< read to their end and the call answered (`params.finish()` said true, or
                ///< the handler failed after reading and its fault is the answer)
    Abandoned,  ///< reading stopped partway: the document must be read again as Values
  };
  /// Once the method name is read (`method`, valid for the call), before the parameters.
  virtual Took take(std::string_view method, ParamStream& params) = 0;

 protected:
  ~ParamsTaker() = default;
};

struct ReaderInternals {
  /// Reader::read_call, offering the parameters to `taker` once the method name is read;
  /// `took` says what it did with them. When it answered, `call` holds the method name only
  /// (its params are nil) and the status is success; when it abandoned them, the status says
  /// nothing: read the document again with Reader::read_call.
  static Status read_call(Reader& reader, std::string_view document, MethodCall& call,
                          ParamsTaker& taker, ParamsTaker::Took& took);

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
