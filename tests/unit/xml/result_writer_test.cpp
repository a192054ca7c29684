// ResultWriter (src/xml/result_writer.hpp), and every built-in Convert<T>::write through it:
// the fast path must write byte for byte what to_value and write_response write, and refuse
// what cannot be one value without leaving anything behind.
#include "xml/result_writer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/xml.hpp"

namespace callwire::xml {
namespace {

constexpr std::string_view kBefore = "HTTP/1.1 200 OK\r\n\r\n";  // what `out` held already

std::string via_value(const Value& v, const WriterOptions& options = {}) {
  Buffer b;
  EXPECT_TRUE(write_response(b, v, options));
  return std::string(b.view());
}

// The document the pieces make, or the error; `out` must be as it was after an error.
Result<std::string> via_writer(const std::function<void(ValueWriter&)>& pieces,
                               const WriterOptions& options = {}) {
  Buffer b;
  b.append(kBefore);
  ResultWriter w(b, options);
  pieces(w);
  Status s = w.finish();
  if (!s) {
    EXPECT_EQ(b.view(), kBefore) << "a failed result left bytes behind";
    return s.error();
  }
  return std::string(b.view().substr(kBefore.size()));
}

template <class T>
void expect_same(const T& t, const WriterOptions& options = {}) {
  Result<std::string> fast = via_writer([&](ValueWriter& w) { write_value(w, t); }, options);
  ASSERT_TRUE(fast) << fast.error().message;
  EXPECT_EQ(*fast, via_value(Convert<T>::to_value(t), options));
}

TEST(ResultWriter, EveryBuiltInWritesWhatToValueWrites) {
  expect_same(true);
  expect_same(int8_t{-5});
  expect_same(uint16_t{65535});
  expect_same(int32_t{-2147483647 - 1});
  expect_same(uint32_t{4000000000u});  // wider than int: i8
  expect_same(int64_t{-(int64_t{1} << 40)});
  expect_same(uint64_t{12});
  expect_same(0.1);
  expect_same(1.5f);
  expect_same(std::string("a <b> & c\r\nd \xc3\xa9"));
  expect_same(std::string_view("view"));
  expect_same(static_cast<const char*>("c string"));
  expect_same(nullptr);
  expect_same(Value::structure({{"a", Value::array({1, "two", Value::bytes("x", 1)})}}));
  expect_same(std::vector<uint8_t>{0, 1, 2, 250, 255});
  expect_same(std::vector<uint8_t>{});
  std::vector<uint8_t> raw(1000, 7);
  expect_same(std::span<const uint8_t>(raw));
  DateTime dt;
  dt.year = 2026;
  dt.month = 11;
  dt.day = 23;
  dt.fraction_digits = 3;
  dt.nanosecond = 123000000;
  dt.zone = DateTime::Zone::Utc;
  expect_same(dt);
  expect_same(std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000123)));
  expect_same(std::optional<int>());
  expect_same(std::optional<std::string>("set"));
  expect_same(std::vector<int>{});
  expect_same(std::vector<std::vector<std::string>>{{"a", "b"}, {}, {"a string longer than 14"}});
  expect_same(std::map<std::string, int>{{"x", 1}, {"y", 2}});
  expect_same(std::map<std::string, double>{});
  expect_same(std::unordered_map<std::string, bool>{{"only", true}});
  expect_same(std::tuple<int, std::string, std::optional<double>>{1, "two", std::nullopt});
}

TEST(ResultWriter, TheApacheDialectToo) {
  WriterOptions apache;
  apache.dialect = Dialect::Apache;
  expect_same(int64_t{1} << 40, apache);
  expect_same(std::vector<std::optional<int>>{1, std::nullopt}, apache);
}

TEST(ResultWriter, PiecesThatAreNotOneValueAreRefused) {
  struct Case {
    const char* what;
    std::function<void(ValueWriter&)> pieces;
  };
  const Case cases[] = {
      {"no result was written", [](ValueWriter&) {}},
      {"end_array() without begin_array()", [](ValueWriter& w) { w.end_array(); }},
      {"end_array() without begin_array()",
       [](ValueWriter& w) {
         w.begin_struct();
         w.end_array();
       }},
      {"end_struct() without begin_struct()",
       [](ValueWriter& w) {
         w.begin_array();
         w.end_struct();
       }},
      {"a value in a struct without member() first",
       [](ValueWriter& w) {
         w.begin_struct();
         w.int32(1);
       }},
      {"member() outside a struct", [](ValueWriter& w) { w.member("x"); }},
      {"member() outside a struct",
       [](ValueWriter& w) {
         w.begin_array();
         w.member("x");
       }},
      {"member() before the previous member's value",
       [](ValueWriter& w) {
         w.begin_struct();
         w.member("x");
         w.member("y");
       }},
      {"end_struct() with the last member's value missing",
       [](ValueWriter& w) {
         w.begin_struct();
         w.member("x");
         w.end_struct();
       }},
      {"a second value after the result",
       [](ValueWriter& w) {
         w.int32(1);
         w.int32(2);
       }},
      {"the result was left unfinished",
       [](ValueWriter& w) {
         w.begin_array();
         w.begin_struct();
         w.member("x");
         w.int32(1);
         w.end_struct();
       }},
  };
  for (const Case& c : cases) {
    Result<std::string> r = via_writer(c.pieces);
    ASSERT_FALSE(r) << c.what << ": accepted as " << *r;
    EXPECT_EQ(r.error().code, Errc::InvalidArgument);
    EXPECT_EQ(r.error().message, std::string("ValueWriter: ") + c.what);
  }
}

TEST(ResultWriter, ValuesXmlCannotCarryAreRefusedWherever) {
  for (auto pieces : std::vector<std::function<void(ValueWriter&)>>{
           [](ValueWriter& w) { w.real(std::nan("")); },
           [](ValueWriter& w) {
             w.begin_array();
             w.int32(1);
             w.real(std::numeric_limits<double>::infinity());
             w.end_array();
           },
           [](ValueWriter& w) {
             w.begin_struct();
             w.member("s");
             w.string("not UTF-8: \xff");
             w.end_struct();
           },
           [](ValueWriter& w) {
             w.begin_struct();
             w.member("\x01");
             w.int32(1);
             w.end_struct();
           },
           [](ValueWriter& w) {
             DateTime bad;
             bad.month = 13;
             w.datetime(bad);
           },
           [](ValueWriter& w) {
             w.value(Value::array({1, std::nan("")}));
           },
       }) {
    Result<std::string> r = via_writer(pieces);
    ASSERT_FALSE(r) << *r;
    EXPECT_EQ(r.error().code, Errc::Unrepresentable) << r.error().message;
  }
  // Convert's own refusals throw, as to_value does.
  Buffer b;
  ResultWriter w(b, {});
  EXPECT_THROW(write_value(w, std::numeric_limits<uint64_t>::max()), Exception);
  w.discard();
  EXPECT_TRUE(b.empty());
}

// A transport that records what the writer tells it: where the answer said it would end, and
// the buffer's size at each report. It takes the length ahead unless `refuse_length`.
struct RecordingProgress final : detail::AnswerProgress {
  Status grew(Buffer& out) override {
    reports.push_back(out.size());
    return {};
  }
  bool started() const noexcept override { return started_; }
  bool will_end_at(Buffer&, size_t end) override {
    asked_end = end;
    if (refuse_length) return false;
    started_ = true;
    next = 0;
    return true;
  }
  bool refuse_length = false;
  bool started_ = false;
  size_t asked_end = 0;
  std::vector<size_t> reports;
};

std::vector<uint8_t> long_blob() {
  std::vector<uint8_t> b(3 * detail::kBase64Slice + 12345);
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(i * 131 + i / 977);
  return b;
}

TEST(BlobAnswer, ALongBlobTellsItsEndAheadAndReportsAsItIsEncoded) {
  const std::vector<uint8_t> blob = long_blob();
  const std::string whole = via_value(Value::bytes(blob));
  for (bool typed : {false, true}) {
    SCOPED_TRACE(typed ? "ResultWriter" : "write_response");
    RecordingProgress progress;
    Buffer b;
    if (typed) {
      const WriterOptions options;  // the writer keeps a reference: it must outlive it
      ResultWriter w(b, options, &progress);
      w.bytes(blob);
      ASSERT_TRUE(w.finish());
    } else {
      ASSERT_TRUE(write_response(b, Value::bytes(blob), {}, &progress));
    }
    EXPECT_EQ(b.view(), whole);  // byte for byte the answer written whole
    EXPECT_EQ(progress.asked_end, whole.size());
    ASSERT_EQ(progress.reports.size(), 3u);  // after each slice but the last
    for (size_t i = 1; i < progress.reports.size(); ++i)
      EXPECT_GT(progress.reports[i], progress.reports[i - 1]);
    EXPECT_LT(progress.reports.back(), whole.size());
  }
}

TEST(BlobAnswer, OnlyTheAnswersOwnLongBlobIsSentAhead) {
  const std::vector<uint8_t> blob = long_blob();
  {  // a blob inside an array: what follows it is not known
    RecordingProgress progress;
    Buffer b;
    Value a = Value::array();
    a.push_back(Value::bytes(blob));
    ASSERT_TRUE(write_response(b, a, {}, &progress));
    EXPECT_EQ(progress.asked_end, 0u);
  }
  {  // a short blob is written whole
    RecordingProgress progress;
    Buffer b;
    ASSERT_TRUE(write_response(b, Value::bytes(std::vector<uint8_t>(1000, 7)), {}, &progress));
    EXPECT_EQ(progress.asked_end, 0u);
    EXPECT_TRUE(progress.reports.empty());
  }
  {  // a transport that will not take the length ahead gets the blob whole, unreported
    RecordingProgress progress;
    progress.refuse_length = true;
    Buffer b;
    ASSERT_TRUE(write_response(b, Value::bytes(blob), {}, &progress));
    EXPECT_EQ(b.view(), via_value(Value::bytes(blob)));
    EXPECT_NE(progress.asked_end, 0u);
    EXPECT_TRUE(progress.reports.empty());
  }
}

}  // namespace
}  // namespace callwire::xml
