// callwire: reading one value piece by piece, straight out of the message received.
//
// The fast path beside Value for the other direction (ValueWriter is the one for writing): a
// Convert<T> may offer `static Status read(ValueReader&, T&)` (callwire/convert.hpp), and a
// typed call's result (Client::call<R>) is then decoded from the response into R as the
// document is walked, with no Value tree in between: a string goes straight into its
// std::string, a blob is decoded straight into its vector.
//
// A ValueReader stands before exactly one value. peek() says its type. A scalar is read
// whole with read() (or read_string()/read_bytes() when peek() says String/Bytes); an array
// with enter_array() and then next_element() before each element, until it says there is no
// more; a struct with enter_struct() and then next_member() before each member's value. An
// element or member left unread is skipped at the next next_element()/next_member().
//
// Errors: a malformed document is reported by whichever call meets it, and every later call
// returns the same error; a call that does not fit the value (read_string() on an int,
// enter_array() on a struct) is Errc::InvalidArgument and reads nothing. Thread-safety: one
// thread at a time. Ownership: the reader is lent for one value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "callwire/export.hpp"
#include "callwire/value.hpp"

namespace callwire {

class CALLWIRE_API ValueReader {
 public:
  virtual ~ValueReader();

  /// The type of the value before the reader (an untyped `<value>text</value>` is a String).
  virtual Result<Type> peek() = 0;
  /// Reads the value whole (a container with everything in it).
  virtual Status read(Value& out) = 0;
  /// When peek() is String: its text, replacing `out`'s.
  virtual Status read_string(std::string& out) = 0;
  /// When peek() is Bytes: the decoded bytes, replacing `out`'s.
  virtual Status read_bytes(std::vector<uint8_t>& out) = 0;

  /// When peek() is Array: goes inside it.
  virtual Status enter_array() = 0;
  /// Inside an array: true when an element is before the reader, false when the array ended
  /// (the reader is then after it).
  virtual Result<bool> next_element() = 0;
  /// Inside an array with no element before the reader (just entered, or an element read):
  /// reads on the elements that are strings, each appended to `out` as read_string() reads it,
  /// and stops at the array's end (true: the reader is after the array, as when next_element()
  /// says false) or at an element it did not read (false: that element is before the reader,
  /// as when next_element() says true). One call for an array of strings, where element by
  /// element costs two calls and a Result each. A reader may read fewer this way than it could
  /// (this default reads none: it steps to the next element with next_element()). Errors: the
  /// document's, as next_element()'s; InvalidArgument outside an array.
  virtual Result<bool> read_string_elements(std::vector<std::string>& out);

  /// When peek() is Struct: goes inside it.
  virtual Status enter_struct() = 0;
  /// Inside a struct: true with the next member's `name` (valid until the next call on this
  /// reader) and its value before the reader; false when the struct ended.
  virtual Result<bool> next_member(std::string_view& name) = 0;

  /// Whether strings stand for bytes and times, as in JSON-RPC (JSON has neither): a typed
  /// read of base64 or a dateTime then takes a String too, read_bytes() decoding its base64 and
  /// the converter parsing its ISO 8601 text. False for XML-RPC and by default.
  virtual bool strings_stand_for_bytes_and_times() const noexcept { return false; }

 protected:
  ValueReader() = default;
  ValueReader(const ValueReader&) = default;
  ValueReader& operator=(const ValueReader&) = default;
};

/// Bytes from their base64 text, where a string stands for them
/// (strings_stand_for_bytes_and_times). Errors: TypeMismatch "must be base64, got a string
/// that is not base64".
CALLWIRE_API Status bytes_from_text(std::string_view text, std::vector<uint8_t>& out);

/// Something that reads one value: what Client::call_reading hands the result to.
class CALLWIRE_API ValueSink {
 public:
  virtual ~ValueSink();
  virtual Status read(ValueReader& reader) = 0;

 protected:
  ValueSink() = default;
  ValueSink(const ValueSink&) = default;
  ValueSink& operator=(const ValueSink&) = default;
};

/// A ValueReader over a Value already decoded: the same reads where the document has been
/// read into a tree (a JSON-RPC answer, a server's parameters, tests). Borrows `value`. With
/// `strings_for_bytes_and_times` (a tree read from JSON), strings stand for bytes and times.
class CALLWIRE_API TreeReader final : public ValueReader {
 public:
  explicit TreeReader(const Value& value, bool strings_for_bytes_and_times = false) noexcept;
  ~TreeReader() override;

  Result<Type> peek() override;
  Status read(Value& out) override;
  Status read_string(std::string& out) override;
  Status read_bytes(std::vector<uint8_t>& out) override;
  Status enter_array() override;
  Result<bool> next_element() override;
  Result<bool> read_string_elements(std::vector<std::string>& out) override;
  Status enter_struct() override;
  Result<bool> next_member(std::string_view& name) override;
  bool strings_stand_for_bytes_and_times() const noexcept override { return text_types_; }

 private:
  struct Frame {
    const Value* container;
    size_t next;  // the index of the next element or member
  };
  Status misuse(const char* what) const;

  const Value* current_;  // the value before the reader, or null when there is none
  bool text_types_;
  std::vector<Frame> frames_;
};

}  // namespace callwire
