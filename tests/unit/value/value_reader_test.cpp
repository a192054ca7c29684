// TreeReader (a ValueReader over a Value) and the Convert<T>::read fast paths driven through
// it: the same values and errors as from_value.
#include "callwire/value_reader.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "callwire/convert.hpp"

namespace callwire {
namespace {

TEST(TreeReader, WalksAValueAndRefusesMisuse) {
  Value v = Value::structure({{"a", Value::array({1, "two"})}, {"b", "text"}});
  TreeReader r(v);
  EXPECT_TRUE(*r.peek() == Type::Struct);
  std::string s;
  EXPECT_EQ(r.read_string(s).error().code, Errc::InvalidArgument);
  ASSERT_TRUE(r.enter_struct());
  std::string_view name;
  ASSERT_TRUE(*r.next_member(name));
  EXPECT_EQ(name, "a");
  EXPECT_EQ(r.next_element().error().code, Errc::InvalidArgument);  // not entered yet
  ASSERT_TRUE(r.enter_array());
  ASSERT_TRUE(*r.next_element());
  Value one;
  ASSERT_TRUE(r.read(one));
  EXPECT_EQ(one, Value(1));
  ASSERT_TRUE(*r.next_element());  // "two" left unread: skipped
  EXPECT_FALSE(*r.next_element());
  ASSERT_TRUE(*r.next_member(name));
  ASSERT_TRUE(r.read_string(s));
  EXPECT_EQ(s, "text");
  EXPECT_FALSE(*r.next_member(name));
  EXPECT_FALSE(r.peek());  // nothing is left
}

// read_value<T> through a TreeReader against from_value, value for value.
template <class T>
void expect_same(const Value& v) {
  T pulled{};
  TreeReader r(v);
  Status s = read_value(r, pulled);
  Result<T> tree = Convert<T>::from_value(v);
  ASSERT_EQ(s.ok(), tree.ok()) << (s ? "" : s.error().message);
  if (tree) {
    EXPECT_TRUE(pulled == *tree);
  } else {
    EXPECT_EQ(s.error().code, tree.error().code);
    EXPECT_EQ(s.error().message, tree.error().message);
  }
}

TEST(ConvertRead, AgreesWithFromValue) {
  const std::vector<Value> values = {
      Value(1),
      Value("x"),
      Value::bytes(std::vector<uint8_t>{1, 2, 3}),
      Value(),
      Value::array({"a", "b"}),
      Value::array({"a", 2}),
      Value::array({Value::array({"a"}), Value::array({})}),
      Value::structure({{"k", 1}, {"l", 2}}),
      Value::structure({{"k", 1}, {"l", "x"}}),
  };
  for (const Value& v : values) {
    SCOPED_TRACE(type_name(v.type()));
    expect_same<std::string>(v);
    expect_same<std::vector<uint8_t>>(v);
    expect_same<std::optional<std::string>>(v);
    expect_same<std::vector<std::string>>(v);
    expect_same<std::vector<std::vector<std::string>>>(v);
    expect_same<std::vector<int>>(v);
    expect_same<std::map<std::string, int>>(v);
    expect_same<Value>(v);
  }
}

struct Pair {
  int k = 0;
  std::string l;
};

Status read_pair(const Value& v, Pair& p) {
  TreeReader r(v);
  return read_struct(r, field("k", p.k), field("l", p.l));
}

TEST(ReadStruct, TakesMembersInAnyOrderAndNamesWhatIsWrong) {
  Pair p;
  ASSERT_TRUE(read_pair(Value::structure({{"extra", Value::array({1})}, {"l", "x"}, {"k", 3}}), p));
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.l, "x");
  Status missing = read_pair(Value::structure({{"k", 1}}), p);
  EXPECT_EQ(missing.error().code, Errc::NotFound);
  EXPECT_EQ(missing.error().message, ".l is missing");
  Status wrong = read_pair(Value::structure({{"k", "1"}, {"l", "x"}}), p);
  EXPECT_EQ(wrong.error().code, Errc::TypeMismatch);
  EXPECT_EQ(wrong.error().message, ".k must be int, got string");
  EXPECT_EQ(read_pair(Value(4), p).error().message, "must be struct, got int");
}

}  // namespace
}  // namespace callwire
