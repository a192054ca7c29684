// Internal: ResultWriter, the ValueWriter a server offers a typed handler for its result
// (callwire/value_writer.hpp) over JSON-RPC: it appends a whole response object
// `{"jsonrpc":"2.0","result":…,"id":…}` (what write_result writes, byte for byte) around the
// one value it is given, written as it comes, with no Value tree between; inside a batch, the
// batch's next entry.
#pragma once

#include <optional>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "callwire/json.hpp"
#include "callwire/value_writer.hpp"
#include "json/json_writer.hpp"
#include "value/value_shape.hpp"

namespace callwire::json {

/// Appends to `out`: the response's start (after the batch's separator) with the first piece,
/// its end with finish(). Checks that the pieces make one value (ValueWriter's contract); after
/// a failure the rest is ignored, finish() returns the error and leaves `out` as it was.
/// Ownership: borrows `out`, `id` (the request's id as JSON text, Call::id) and `batch` (null
/// outside a batch; else it must write into `out`). Thread-safety: one thread.
class ResultWriter final : public ValueWriter {
 public:
  ResultWriter(Buffer& out, std::string_view id, BatchWriter* batch = nullptr)
      : out_(out), start_(out.size()), id_(id), batch_(batch), w_(out) {}

  /// A request instead: `{"jsonrpc":"2.0","method":…,"params":…,"id":…}` (what write_call
  /// writes, byte for byte) around the one value given, the params (an array or a struct);
  /// no id for an empty `id` (a notification). Ownership: borrows `method` too.
  struct Call {
    std::string_view method;
  };
  ResultWriter(Buffer& out, Call call, std::string_view id)
      : out_(out), start_(out.size()), id_(id), batch_(nullptr), call_(call), w_(out) {}

  /// Ends the response when one whole value was written (counting it as the batch's entry);
  /// else leaves `out` as it was and returns why (Errc::Unrepresentable for a value JSON cannot
  /// carry, with write_result's message; InvalidArgument for pieces that are not one value).
  Status finish();
  /// Leaves `out` as it was before anything was written.
  void discard() noexcept {
    if (shape_.used()) out_.truncate(start_);
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
  // Asks shape_ whether a value may come and writes what goes before it; false: skip it.
  bool start_value();
  // One value that `write` writes (false: JSON cannot carry it).
  template <class Write>
  void scalar(Write write);

  Buffer& out_;
  size_t start_;
  std::string_view id_;
  BatchWriter* batch_;
  std::optional<Call> call_;
  JsonWriter w_;
  detail::ValueShape shape_;
};

}  // namespace callwire::json
