// Internal: ResultWriter, the ValueWriter a server offers a typed handler for its result
// (callwire/value_writer.hpp): it appends a whole `<methodResponse>` around the one value it
// is given, written as it comes, with no Value tree between.
#pragma once

#include <optional>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "callwire/value_writer.hpp"
#include "callwire/xml.hpp"
#include "value/value_shape.hpp"
#include "xml/xml_writer.hpp"

namespace callwire::xml {

/// write_response (callwire/xml.hpp) telling `progress` as the answer grows: on failure `out`
/// is left as it was unless part of the answer was sent.
Status write_response(Buffer& out, const Value& result, const WriterOptions& options,
                      detail::AnswerProgress* progress);

/// Appends to `out`: the document's start with the first piece, its end with finish().
/// Checks that the pieces make one value (ValueWriter's contract); after a failure the rest is
/// ignored, finish() returns the error and leaves `out` as it was, unless `progress` has sent
/// part of it (then it stays, for the transport to cut short). `progress`, when given, is told
/// as the answer grows, between values. Ownership: borrows `out`, `options` and `progress`.
/// Thread-safety: one thread.
class ResultWriter final : public ValueWriter {
 public:
  ResultWriter(Buffer& out, const WriterOptions& options,
               detail::AnswerProgress* progress = nullptr)
      : out_(out), start_(out.size()), w_(out, options) {
    w_.report_to(progress);
  }

  /// A `<methodCall>` instead (what write_call writes, byte for byte), its params given as one
  /// array: each element is a `<param>`. Ownership: borrows `method` too.
  struct Call {
    std::string_view method;
  };
  ResultWriter(Buffer& out, const WriterOptions& options, Call call)
      : out_(out), start_(out.size()), call_(call), w_(out, options) {}

  /// Anything has been written (or tried).
  bool used() const noexcept { return shape_.used(); }
  /// Ends the document when one whole value was written; else leaves `out` as it was and
  /// returns why (Errc::Unrepresentable for a value XML-RPC cannot carry, InvalidArgument for
  /// pieces that are not one value).
  Status finish();
  /// Leaves `out` as it was before anything was written (unless part of it was sent).
  void discard() noexcept {
    if (shape_.used() && !w_.sent_any()) out_.truncate(start_);
  }

  void nil() override;
  void boolean(bool b) override;
  void int32(int32_t n) override;
  void int64(int64_t n) override;
  void real(double d) override;
  void string(std::string_view s) override;
  void datetime(const DateTime& dt) override;
  void bytes(std::span<const uint8_t> b) override;
  void value(const Value& v) override;
  void begin_array() override;
  void end_array() override;
  void begin_struct() override;
  void member(std::string_view name) override;
  void end_struct() override;

 private:
  // Asks shape_ whether a value may come, starting the document for the first (a call's
  // must be the params' array); false: skip it.
  bool start_value(bool array = false);
  // Inside a call's params' array: each element is a <param>.
  bool in_params() const noexcept { return call_ && shape_.depth() == 1; }
  // Ends a value: a member's value closes its member.
  void end_value();
  void scalar(const Value& v);

  Buffer& out_;
  size_t start_;
  std::optional<Call> call_;
  XmlWriter w_;
  detail::ValueShape shape_;
};

}  // namespace callwire::xml
