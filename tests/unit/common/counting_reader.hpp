// Tests: a ValueReader that passes every call on to another and counts the calls, to see how
// a converter walks a document (one call for an array of strings, not two per element).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/value_reader.hpp"

namespace callwire::test_support {

class CountingReader final : public ValueReader {
 public:
  explicit CountingReader(ValueReader& inner) : inner_(inner) {}

  struct Calls {
    int next_element = 0;
    int read_string = 0;
    int read_string_elements = 0;
  };
  const Calls& calls() const { return calls_; }

  Result<Type> peek() override { return inner_.peek(); }
  Status read(Value& out) override { return inner_.read(out); }
  Status read_string(std::string& out) override {
    ++calls_.read_string;
    return inner_.read_string(out);
  }
  Status read_bytes(std::vector<uint8_t>& out) override { return inner_.read_bytes(out); }
  Status enter_array() override { return inner_.enter_array(); }
  Result<bool> next_element() override {
    ++calls_.next_element;
    return inner_.next_element();
  }
  Result<bool> read_string_elements(std::vector<std::string>& out) override {
    ++calls_.read_string_elements;
    return inner_.read_string_elements(out);
  }
  Status enter_struct() override { return inner_.enter_struct(); }
  Result<bool> next_member(std::string_view& name) override { return inner_.next_member(name); }
  bool strings_stand_for_bytes_and_times() const noexcept override {
    return inner_.strings_stand_for_bytes_and_times();
  }

 private:
  ValueReader& inner_;
  Calls calls_;
};

// A sink reading its value into T through a CountingReader, as Client::call<T> reads it.
template <class T>
struct CountedInto final : ValueSink {
  T value{};
  CountingReader::Calls calls;
  Status read(ValueReader& r) override {
    CountingReader counting(r);
    Status s = read_value(counting, value);
    calls = counting.calls();
    return s;
  }
};

// Whether `sink` holds the strings "s0", "s1", ... up to `count`, read in one call to
// read_string_elements and none on its own.
inline ::testing::AssertionResult strings_read_in_one_call(
    const CountedInto<std::vector<std::string>>& sink, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (i >= sink.value.size() || sink.value[i] != "s" + std::to_string(i))
      return ::testing::AssertionFailure() << "string " << i << " is missing or wrong";
  if (sink.value.size() != count)
    return ::testing::AssertionFailure() << sink.value.size() << " strings, not " << count;
  const CountingReader::Calls& c = sink.calls;
  if (c.read_string_elements != 1 || c.next_element != 0 || c.read_string != 0)
    return ::testing::AssertionFailure()
           << c.read_string_elements << " calls of read_string_elements, " << c.next_element
           << " of next_element, " << c.read_string << " of read_string";
  return ::testing::AssertionSuccess();
}

}  // namespace callwire::test_support
