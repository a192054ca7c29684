// callwire: a call's parameters read one at a time, straight out of the request.
//
// Why: a bound handler that takes `std::vector<uint8_t>`, `std::string` or a struct would get
// each parameter decoded into a Value and then copied into its own type. Read through a
// ParamStream, a 4 MiB upload is decoded once, straight into the handler's vector
// (docs/server-dispatch.md, "Parameters read straight into the handler's types").
// Registry::bind uses it for you; Registry::add_streamed takes a hand-written reader.
#pragma once

#include "callwire/export.hpp"
#include "callwire/value_reader.hpp"

namespace callwire {

/// The parameters of the request being dispatched, in order, each lent as a ValueReader until
/// the next call. Whoever reads them must read them all and then call finish(): only then is
/// the request known to be well formed, and a handler may run. Anything unexpected (a document
/// error, a parameter that does not convert, one too many) is not reported here: the reader
/// gives up, and the dispatcher reads the request again the usual way, which says what is
/// wrong with the tree path's words. Thread-safety: the dispatching thread only.
class CALLWIRE_API ParamStream {
 public:
  /// The next parameter, or null after the last one or once the document has failed.
  virtual ValueReader* next() = 0;
  /// Whether the document has failed (a null next() then says so, not the end).
  virtual bool failed() const noexcept = 0;
  /// After the parameters wanted: true when no parameter is left and the rest of the request
  /// is well formed.
  virtual bool finish() = 0;

 protected:
  ParamStream() = default;
  ParamStream(const ParamStream&) = default;
  ParamStream& operator=(const ParamStream&) = default;
  ~ParamStream() = default;
};

}  // namespace callwire
