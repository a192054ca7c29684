#include "callwire/value.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "callwire/json.hpp"
#include "callwire/xml.hpp"
#include "value/value_build.hpp"

#if defined(_WIN32)
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace callwire {
namespace {

Errc error_of(auto&& f) {
  try {
    f();
  } catch (const Exception& e) {
    return e.error().code;
  }
  return Errc::Ok;
}

TEST(Value, DefaultIsNil) {
  Value v;
  EXPECT_TRUE(v.is_nil());
  EXPECT_EQ(v.type(), Type::Nil);
  EXPECT_EQ(Value(nullptr), v);
}

TEST(Value, Scalars) {
  EXPECT_EQ(Value(true).as_bool(), true);
  EXPECT_EQ(Value(false).as_bool(), false);
  EXPECT_EQ(Value(-7).as_int(), -7);
  EXPECT_EQ(Value(int16_t{300}).type(), Type::Int);
  EXPECT_EQ(Value(uint16_t{65535}).as_int(), 65535);
  EXPECT_EQ(Value(int64_t{1} << 40).type(), Type::I8);
  EXPECT_EQ(Value(int64_t{1} << 40).as_i8(), int64_t{1} << 40);
  EXPECT_EQ(Value(uint32_t{4000000000u}).as_i8(), 4000000000);
  EXPECT_EQ(Value::i8(5).type(), Type::I8);
  EXPECT_EQ(Value(2.5).as_double(), 2.5);
  EXPECT_EQ(Value(1.5f).as_double(), 1.5);
  EXPECT_EQ(Value("hi").as_string(), "hi");
  EXPECT_EQ(Value(std::string("hello")).as_string(), "hello");
}

TEST(Value, IntWidensToI8ButNotTheOtherWay) {
  EXPECT_EQ(Value(42).as_i8(), 42);
  EXPECT_EQ(error_of([] { Value::i8(42).as_int(); }), Errc::TypeMismatch);
  EXPECT_NE(Value(42), Value::i8(42));  // different types on the wire
}

TEST(Value, UnsignedAboveInt64IsRefused) {
  EXPECT_EQ(error_of([] { Value v(std::numeric_limits<uint64_t>::max()); }), Errc::Unrepresentable);
  EXPECT_EQ(Value(uint64_t{INT64_MAX}).as_i8(), INT64_MAX);
}

TEST(Value, TypeMismatchSaysWhatWasExpected) {
  try {
    Value("x").as_int();
    FAIL();
  } catch (const Exception& e) {
    EXPECT_EQ(e.error().code, Errc::TypeMismatch);
    EXPECT_STREQ(e.what(), "expected int, got string");
  }
  EXPECT_FALSE(Value("x").try_as_int());
  EXPECT_EQ(*Value(3).try_as_int(), 3);
  EXPECT_EQ(*Value(3).try_as_i8(), 3);
  EXPECT_FALSE(Value(3).try_as_string());
  EXPECT_EQ(*Value("s").try_as_string(), "s");
  EXPECT_EQ(*Value(true).try_as_bool(), true);
  EXPECT_EQ(*Value(0.5).try_as_double(), 0.5);
}

TEST(Value, StringsInlineAndOnTheHeap) {
  for (size_t n : {0, 1, 13, 14, 15, 16, 100, 100000}) {
    std::string s(n, 'x');
    for (size_t i = 0; i < n; ++i) s[i] = char('a' + i % 26);
    Value v(s);
    EXPECT_EQ(v.as_string(), s) << n;
    Value copy = v;
    EXPECT_EQ(copy.as_string(), s);
    EXPECT_EQ(copy, v);
    Value moved = std::move(copy);
    EXPECT_EQ(moved.as_string(), s);
    EXPECT_TRUE(copy.is_nil());  // NOLINT: moved-from is nil by contract
  }
}

// One writable page followed by one that may not be touched: bytes placed at the end of the
// first are the last readable ones, so a read past them faults.
class GuardedPage {
 public:
  GuardedPage() {
#if defined(_WIN32)
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    size_ = info.dwPageSize;
    base_ = static_cast<char*>(
        VirtualAlloc(nullptr, 2 * size_, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE));
    DWORD old;
    if (base_) VirtualProtect(base_ + size_, size_, PAGE_NOACCESS, &old);
#else
    size_ = size_t(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, 2 * size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
    if (base_) mprotect(base_ + size_, size_, PROT_NONE);
#endif
  }
  ~GuardedPage() {
#if defined(_WIN32)
    if (base_) VirtualFree(base_, 0, MEM_RELEASE);
#else
    if (base_) munmap(base_, 2 * size_);
#endif
  }
  GuardedPage(const GuardedPage&) = delete;
  GuardedPage& operator=(const GuardedPage&) = delete;
  bool ok() const { return base_ != nullptr; }
  char* end() const { return base_ + size_; }

 private:
  char* base_ = nullptr;
  size_t size_ = 0;
};

// Short texts are copied with word loads (Value::set_text): each length is read within its own
// bytes, comes out whole, and is laid out as make_text lays it out (unused bytes zero, which
// make_struct's comparison of short names relies on).
TEST(Value, ShortTextsAreCopiedExactlyFromTheirOwnBytes) {
  GuardedPage page;
  ASSERT_TRUE(page.ok());
  for (size_t n = 0; n <= 40; ++n) {
    SCOPED_TRACE(n);
    char* text = page.end() - n;  // its last byte is the last readable one
    for (size_t i = 0; i < n; ++i) text[i] = char(0x21 + (i * 7 + n) % 90);
    const std::string_view view(text, n);
    Value s(view);
    EXPECT_EQ(s.as_string(), view);
    Value b = Value::bytes(text, n);
    std::span<const uint8_t> got = b.as_bytes();
    EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(got.data()), got.size()), view);
    Value made;
    if (char* into = ValueAccess::make_text(made, Type::String, n); n) std::memcpy(into, text, n);
    if (n <= 13) {
      EXPECT_EQ(std::memcmp(ValueAccess::raw(s), ValueAccess::raw(made), 16), 0);
    }
    EXPECT_EQ(s, made);
  }
}

TEST(Value, StringsHoldAnyBytes) {
  std::string s("a\0b\r\n", 5);
  EXPECT_EQ(Value(s).as_string(), s);
}

TEST(Value, Bytes) {
  const uint8_t data[] = {0, 1, 2, 255, 254};
  Value v = Value::bytes(data, sizeof data);
  EXPECT_TRUE(v.is_bytes());
  ASSERT_EQ(v.as_bytes().size(), 5u);
  EXPECT_EQ(v.as_bytes()[3], 255);
  EXPECT_NE(v, Value(std::string_view(reinterpret_cast<const char*>(data), 5)));  // not a string
  EXPECT_EQ(error_of([&] { v.as_string(); }), Errc::TypeMismatch);
}

TEST(Value, Arrays) {
  Value a = Value::array({1, "two", 3.0});
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].as_int(), 1);
  EXPECT_EQ(a[1].as_string(), "two");
  a.push_back(Value::array());
  EXPECT_EQ(a.size(), 4u);
  EXPECT_TRUE(a[3].is_array());
  EXPECT_TRUE(a[3].empty());
  a[0] = Value("changed");
  EXPECT_EQ(a[0].as_string(), "changed");
  EXPECT_EQ(error_of([&] { a[4]; }), Errc::NotFound);
  EXPECT_EQ(error_of([&] { Value(1)[0]; }), Errc::TypeMismatch);

  Value grown;
  for (int i = 0; i < 1000; ++i) grown.push_back(i);  // nil becomes an array
  EXPECT_EQ(grown.size(), 1000u);
  EXPECT_EQ(grown[999].as_int(), 999);
  Value copy = grown;
  EXPECT_EQ(copy, grown);
  copy[500] = Value(-1);
  EXPECT_NE(copy, grown);
}

TEST(Value, StructsKeepInsertionOrder) {
  Value s = Value::structure({{"b", 1}, {"a", 2}, {"c", 3}});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.members()[0].name(), "b");
  EXPECT_EQ(s.members()[1].name(), "a");
  EXPECT_EQ(s.members()[2].name(), "c");
  EXPECT_EQ(s["a"].as_int(), 2);
  EXPECT_EQ(s.find("zz"), nullptr);
  EXPECT_EQ(error_of([&] { s["zz"]; }), Errc::NotFound);
}

TEST(Value, StructSetReplacesInPlace) {
  Value s = Value::structure({{"x", 1}, {"y", 2}, {"x", 3}});  // repeated: first place, last value
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.members()[0].name(), "x");
  EXPECT_EQ(s["x"].as_int(), 3);
  s.set("y", "new");
  EXPECT_EQ(s.members()[1].value().as_string(), "new");
  EXPECT_TRUE(s.erase("x"));
  EXPECT_FALSE(s.erase("x"));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.members()[0].name(), "y");
}

TEST(Value, LargeStructsAreIndexed) {
  Value s;
  for (int i = 0; i < 5000; ++i) s.set("key" + std::to_string(i), i);
  ASSERT_EQ(s.size(), 5000u);
  for (int i = 0; i < 5000; i += 7) EXPECT_EQ(s["key" + std::to_string(i)].as_int(), i);
  EXPECT_EQ(s.find("key5000"), nullptr);
  s.set("key42", "replaced");
  EXPECT_EQ(s.size(), 5000u);
  EXPECT_EQ(s["key42"].as_string(), "replaced");
  EXPECT_TRUE(s.erase("key0"));
  EXPECT_EQ(s.members()[0].name(), "key1");
  EXPECT_EQ(s["key4999"].as_int(), 4999);
  Value copy = s;
  EXPECT_EQ(copy["key4999"].as_int(), 4999);
  EXPECT_EQ(copy, s);
}

TEST(Value, StructEqualityIgnoresOrder) {
  Value a = Value::structure({{"x", 1}, {"y", 2}});
  Value b = Value::structure({{"y", 2}, {"x", 1}});
  EXPECT_EQ(a, b);
  b.set("y", 3);
  EXPECT_NE(a, b);
  EXPECT_NE(a, Value::structure({{"x", 1}}));
}

TEST(Value, DoubleEquality) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Value(nan), Value(nan));  // a copy equals its original
  EXPECT_EQ(Value(0.0), Value(-0.0));
  EXPECT_NE(Value(1.0), Value(1));
}

TEST(Value, DeepCopyIsIndependent) {
  Value v = Value::structure({{"list", Value::array({Value::structure({{"k", "v"}})})}});
  Value copy = v;
  copy.find("list")->as_array()[0].set("k", "changed");
  EXPECT_EQ(v["list"][0]["k"].as_string(), "v");
  EXPECT_EQ(copy["list"][0]["k"].as_string(), "changed");
}

TEST(Value, SelfAssignmentAndSwap) {
  Value a = Value::array({"a long string beyond inline size", 2});
  Value& alias = a;
  a = alias;
  EXPECT_EQ(a[0].as_string(), "a long string beyond inline size");
  Value b("b");
  a.swap(b);
  EXPECT_EQ(a.as_string(), "b");
  EXPECT_EQ(b.size(), 2u);
}

TEST(Value, DateTimeRoundTripsThroughValue) {
  DateTime dt;
  dt.year = 2026;
  dt.month = 11;
  dt.day = 21;
  dt.hour = 22;
  dt.minute = 5;
  dt.second = 9;
  dt.fraction_digits = 6;
  dt.nanosecond = 123456000;
  dt.zone = DateTime::Zone::Offset;
  dt.offset_minutes = -330;
  Value v(dt);
  EXPECT_TRUE(v.is_datetime());
  EXPECT_EQ(v.as_datetime(), dt);
  EXPECT_EQ(v, Value(dt));
}

// A NUL follows every text, however it was made (the C API hands strings out NUL-terminated):
// built, copied, read by either codec (which fill texts in place and shorten them when escapes
// made them smaller), inline, in a block, in a page mapping.
TEST(Value, EveryTextIsNulTerminated) {
  auto terminated = [](const Value& v) {
    std::string_view t = v.is_string() ? v.as_string() : std::string_view();
    return t.data()[t.size()] == '\0';
  };
  for (size_t n : {0, 1, 12, 13, 14, 15, 100, 4096, 200000}) {
    SCOPED_TRACE(n);
    std::string text(n, 'x');
    Value built(text);
    EXPECT_TRUE(terminated(built));
    Value copy = built;
    EXPECT_TRUE(terminated(copy));
    // With escapes, so the readers write fewer bytes than they reserved.
    std::string escaped;
    for (size_t i = 0; i < n; ++i) escaped += i % 3 ? "x" : "&amp;";
    auto xml =
        xml::Reader().read_response("<methodResponse><params><param><value><string>" + escaped +
                                    "</string></value></param></params></methodResponse>");
    ASSERT_TRUE(xml) << xml.error().message;
    EXPECT_TRUE(terminated(xml->result));
    std::string json_text;
    for (size_t i = 0; i < n; ++i) json_text += i % 3 ? "x" : "\\n";
    auto json = json::Reader().read_value("\"" + json_text + "\"");
    ASSERT_TRUE(json) << json.error().message;
    EXPECT_TRUE(terminated(*json));
  }
}

}  // namespace
}  // namespace callwire
