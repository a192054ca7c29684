// TreeReader (a ValueReader over a Value) and the Convert<T>::read fast paths driven through
// it: the same values and errors as from_value.
#include "callwire/value_reader.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "callwire/convert.hpp"
#include "counting_reader.hpp"

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

// A vector is read into a scratch vector this thread keeps, then moved into the result at its
// size (detail::ScratchVector): a vector of the same type inside it reads on its own, an error
// midway leaves nothing behind for the next read, and no element outlives the read.
struct Tree {
  int id = 0;
  std::vector<Tree> children;
};

Status read_tree(ValueReader& r, Tree& t);
}  // namespace

template <>
struct Convert<Tree> {
  static constexpr std::string_view type_name = "struct";
  static Result<Tree> from_value(const Value& v) {
    Tree t;
    TreeReader r(v);
    if (Status s = read_tree(r, t); !s) return s.error();
    return t;
  }
  static Status read(ValueReader& r, Tree& t) { return read_tree(r, t); }
};

namespace {
Status read_tree(ValueReader& r, Tree& t) {
  return read_struct(r, field("id", t.id), field("children", t.children));
}

Value tree_value(int id, int depth) {
  Value children = Value::array();
  for (int i = 0; depth > 0 && i < 3; ++i) children.push_back(tree_value(id * 10 + i, depth - 1));
  return Value::structure({{"id", id}, {"children", std::move(children)}});
}

int count_nodes(const Tree& t) {
  int n = 1;
  for (const Tree& c : t.children) n += count_nodes(c);
  return n;
}

TEST(ConvertRead, VectorsOfTheSameTypeInsideEachOtherReadWhole) {
  std::vector<Tree> trees;
  Value v = Value::array({tree_value(1, 3), tree_value(2, 2)});
  TreeReader r(v);
  ASSERT_TRUE(read_value(r, trees));
  ASSERT_EQ(trees.size(), 2u);
  EXPECT_EQ(count_nodes(trees[0]), 1 + 3 + 9 + 27);
  EXPECT_EQ(trees[0].children[2].children[1].id, 121);
  EXPECT_EQ(count_nodes(trees[1]), 1 + 3 + 9);
  EXPECT_EQ(trees.capacity(), trees.size());  // allocated once, to size
}

struct Counted {
  static inline int alive = 0;
  std::string s;
  Counted() { ++alive; }
  Counted(Counted&& o) noexcept : s(std::move(o.s)) { ++alive; }
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --alive; }
};
}  // namespace

template <>
struct Convert<Counted> {
  static constexpr std::string_view type_name = "string";
  static Result<Counted> from_value(const Value& v) {
    if (!v.is_string()) return Error(Errc::TypeMismatch, "must be string");
    Counted c;
    c.s = std::string(v.as_string());
    return c;
  }
  static Status read(ValueReader& r, Counted& c) { return Convert<std::string>::read(r, c.s); }
};

namespace {
TEST(ConvertRead, AVectorReadKeepsNoElementAndAFailureLeavesNothingBehind) {
  {
    std::vector<Counted> got;
    Value v = Value::array({"a", "b", "c"});
    TreeReader r(v);
    ASSERT_TRUE(read_value(r, got));
    EXPECT_EQ(Counted::alive, 3);  // the result's, no more
    EXPECT_EQ(got[2].s, "c");
    // An element that does not convert: the error names it, and the next read starts clean.
    std::vector<Counted> bad;
    Value w = Value::array({"x", 2, "y"});
    TreeReader rb(w);
    Status s = read_value(rb, bad);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("[1]"), std::string::npos) << s.error().message;
    EXPECT_EQ(Counted::alive, 3 + int(bad.size()));
    std::vector<Counted> again;
    TreeReader ra(v);
    ASSERT_TRUE(read_value(ra, again));
    ASSERT_EQ(again.size(), 3u);
    EXPECT_EQ(again[0].s, "a");
  }
  EXPECT_EQ(Counted::alive, 0);
}

// An array of strings in one call to the reader, from the tree as from a document: the runs
// of strings, what stops them left before the reader, and the same refusal as from_value.
TEST(ConvertRead, StringsOfAnArrayInOneCall) {
  Value v = Value::array({"a", "bc", Value::bytes("\x01", 1), "d"});
  TreeReader r(v);
  ASSERT_TRUE(r.enter_array());
  std::vector<std::string> texts = {"kept"};
  Result<bool> end = r.read_string_elements(texts);
  ASSERT_TRUE(end);
  EXPECT_FALSE(*end);
  EXPECT_EQ(texts, (std::vector<std::string>{"kept", "a", "bc"}));
  EXPECT_EQ(r.peek().value(), Type::Bytes);  // before the reader, unread
  end = r.read_string_elements(texts);       // passes it by, as next_element() would
  ASSERT_TRUE(end);
  EXPECT_TRUE(*end);
  EXPECT_EQ(texts.back(), "d");
  EXPECT_EQ(r.read_string_elements(texts).error().code, Errc::InvalidArgument);  // outside

  std::vector<std::string> got;
  Value strings = Value::array({"x", "y", "z"});
  TreeReader rs(strings);
  test_support::CountingReader counted(rs);
  ASSERT_TRUE(read_value(counted, got));
  EXPECT_EQ(got, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(counted.calls().read_string_elements, 1);
  EXPECT_EQ(counted.calls().next_element + counted.calls().read_string, 0);

  TreeReader rv(v);
  Status refused = read_value(rv, got);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            Convert<std::vector<std::string>>::from_value(v).error().message);
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
