// CALLWIRE_STRUCT (callwire/struct.hpp): a user struct declared in one line converts both
// ways on every path (Value, typed read from XML-RPC and JSON-RPC, typed write), with the
// errors and shapes the rest of the typed API gives.
#include "callwire/struct.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "callwire/json.hpp"
#include "callwire/xml.hpp"
#include "json/result_writer.hpp"
#include "xml/result_writer.hpp"

namespace shop {

enum class Status { Open = 1, Shipped = 2 };
enum class Grade : char { A = 'A', B = 'B' };

struct Item {
  std::string sku;
  int qty = 0;
  double price = 0;
  bool operator==(const Item&) const = default;
};

struct Order {
  int id = 0;
  std::vector<Item> items;
  std::optional<std::string> note;
  Status status = Status::Open;
  std::vector<uint8_t> receipt;
  std::chrono::sys_time<std::chrono::seconds> placed{};
  std::map<std::string, int> counts;
  bool operator==(const Order&) const = default;
};

CALLWIRE_STRUCT(Item, sku, qty, price);
CALLWIRE_STRUCT(Order, id, items, note, status, receipt, placed, counts);

// Private members, declared inside the class.
class Account {
 public:
  Account() = default;
  Account(std::string owner, int64_t balance) : owner_(std::move(owner)), balance_(balance) {}
  bool operator==(const Account&) const = default;

 private:
  std::string owner_;
  int64_t balance_ = 0;
  Grade grade_ = Grade::A;
  CALLWIRE_STRUCT_INTRUSIVE(Account, owner_, balance_, grade_);
};

// A recursive type, and one whose listed members include a base class's.
struct Node {
  int value = 0;
  std::vector<Node> children;
  bool operator==(const Node&) const = default;
};
CALLWIRE_STRUCT(Node, value, children);

struct Base {
  int id = 0;
};
struct Derived : Base {
  std::string name;
};
CALLWIRE_STRUCT(Derived, id, name);

struct Empty {};
CALLWIRE_STRUCT(Empty);

// Declares Base's members only: Convert<Derived2> must not borrow them.
struct Base2 {
  int id = 0;
};
CALLWIRE_STRUCT(Base2, id);
struct Derived2 : Base2 {
  int extra = 0;
};

}  // namespace shop

namespace callwire {
namespace {

using shop::Item;
using shop::Order;

Order sample_order() {
  Order o;
  o.id = 42;
  o.items = {{"A-1", 2, 9.5}, {"B-7", 1, 120.25}};
  o.note = "leave at the door";
  o.status = shop::Status::Shipped;
  o.receipt = {0, 1, 2, 255};
  o.placed = std::chrono::sys_time<std::chrono::seconds>(std::chrono::seconds(1700000000));
  o.counts = {{"boxes", 3}};
  return o;
}

template <class T>
struct Into final : ValueSink {
  T value{};
  Status read(ValueReader& r) override { return read_value(r, value); }
};

std::string xml_response(const Value& result) {
  Buffer b;
  EXPECT_TRUE(xml::write_response(b, result));
  return std::string(b.view());
}
std::string json_response(const Value& result) {
  Buffer b;
  EXPECT_TRUE(json::write_result(b, "1", result));
  return std::string(b.view());
}

// T read straight out of an XML-RPC answer, as call<T> reads it.
template <class T>
Result<T> read_xml(const std::string& document) {
  xml::Reader reader;
  MethodResponse response;
  Into<T> sink;
  Status sunk;
  if (Status s = reader.read_response(document, response, sink, sunk); !s) return s.error();
  if (!sunk) return sunk.error();
  return sink.value;
}
template <class T>
Result<T> read_json(const std::string& document) {
  json::Reader reader;
  json::Response response;
  Into<T> sink;
  Status sunk;
  if (Status s = reader.read_response(document, response, sink, sunk); !s) return s.error();
  if (!sunk) return sunk.error();
  return sink.value;
}

TEST(DeclaredStruct, ValueRoundTripUsesTheMemberNamesAsKeys) {
  Order o = sample_order();
  Value v = Convert<Order>::to_value(o);
  ASSERT_TRUE(v.is_struct());
  EXPECT_EQ(v.size(), 7u);
  EXPECT_EQ(v["id"].as_int(), 42);
  EXPECT_EQ(v["items"][1]["sku"].as_string(), "B-7");
  EXPECT_EQ(v["status"].as_int(), 2);  // an enum as its number
  EXPECT_TRUE(v["receipt"].is_bytes());
  EXPECT_TRUE(v["placed"].is_datetime());
  EXPECT_EQ(v["counts"]["boxes"].as_int(), 3);
  Result<Order> back = Convert<Order>::from_value(v);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, o);
  EXPECT_EQ(Convert<Order>::type_name, "struct");
}

TEST(DeclaredStruct, AnEmptyOptionalIsLeftOutAndAnAbsentOneReadsEmpty) {
  Order o = sample_order();
  o.note.reset();
  Value v = Convert<Order>::to_value(o);
  EXPECT_EQ(v.find("note"), nullptr);
  Result<Order> back = Convert<Order>::from_value(v);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->note);

  v.set("note", Value());  // nil reads as empty too
  back = Convert<Order>::from_value(v);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->note);

  // Read into an Order that had a note: an absent member empties it.
  Order reused = sample_order();
  v.erase("note");
  TreeReader reader(v);
  ASSERT_TRUE(read_value(reader, reused));
  EXPECT_FALSE(reused.note);
}

TEST(DeclaredStruct, UnknownMembersAreSkippedOrderDoesNotMatterTheLastRepeatCounts) {
  Value v =
      Value::structure({{"price", 2.5}, {"extra", Value::array({1, 2})}, {"qty", 3}, {"sku", "X"}});
  Result<Item> item = Convert<Item>::from_value(v);
  ASSERT_TRUE(item) << item.error().message;
  EXPECT_EQ(*item, (Item{"X", 3, 2.5}));

  std::string doc =
      "<?xml version=\"1.0\"?><methodResponse><params><param><value><struct>"
      "<member><name>sku</name><value>first</value></member>"
      "<member><name>qty</name><value><int>1</int></value></member>"
      "<member><name>price</name><value><double>1</double></value></member>"
      "<member><name>sku</name><value>last</value></member>"
      "</struct></value></param></params></methodResponse>";
  Result<Item> read = read_xml<Item>(doc);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->sku, "last");
}

TEST(DeclaredStruct, ErrorsNameThePath) {
  Value v = Convert<Order>::to_value(sample_order());
  Value& second = (*v.find("items"))[1];
  second.erase("price");
  // Both paths (the Value and the typed read from each protocol) say the same.
  const std::string missing = "items[1].price is missing";
  Result<Order> from_tree = Convert<Order>::from_value(v);
  ASSERT_FALSE(from_tree);
  EXPECT_EQ(from_tree.error().code, Errc::NotFound);
  EXPECT_EQ(from_tree.error().message, "." + missing);
  Result<Order> from_xml = read_xml<Order>(xml_response(v));
  ASSERT_FALSE(from_xml);
  EXPECT_EQ(from_xml.error().message, "." + missing);

  second.set("price", "cheap");
  Result<Order> wrong = Convert<Order>::from_value(v);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, Errc::TypeMismatch);
  EXPECT_EQ(wrong.error().message, ".items[1].price must be double, got string");
  Result<Order> wrong_json = read_json<Order>(json_response(v));
  ASSERT_FALSE(wrong_json);
  EXPECT_EQ(wrong_json.error().message, ".items[1].price must be double, got string");

  Result<Order> not_struct = Convert<Order>::from_value(Value(5));
  ASSERT_FALSE(not_struct);
  EXPECT_EQ(not_struct.error().message, "must be struct, got int");
}

TEST(DeclaredStruct, TypedReadsFromXmlAndJsonGiveTheSameStruct) {
  Order o = sample_order();
  Value v = Convert<Order>::to_value(o);
  Result<Order> from_xml = read_xml<Order>(xml_response(v));
  ASSERT_TRUE(from_xml) << from_xml.error().message;
  EXPECT_EQ(*from_xml, o);
  // JSON has no bytes or times: they travel as base64 and ISO 8601 strings.
  std::string json = json_response(v);
  EXPECT_NE(json.find("\"receipt\":\"AAEC/w==\""), std::string::npos) << json;
  Result<Order> from_json = read_json<Order>(json);
  ASSERT_TRUE(from_json) << from_json.error().message;
  EXPECT_EQ(*from_json, o);
}

TEST(DeclaredStruct, TheTypedWriteWritesWhatToValueWrites) {
  for (bool with_note : {true, false}) {
    Order o = sample_order();
    if (!with_note) o.note.reset();
    Buffer fast;
    const xml::WriterOptions options;  // the writer keeps a reference: it must outlive it
    xml::ResultWriter w(fast, options);
    write_value(w, o);
    ASSERT_TRUE(w.finish());
    EXPECT_EQ(fast.view(), xml_response(Convert<Order>::to_value(o)));

    Buffer fast_json;
    json::ResultWriter jw(fast_json, "1");
    write_value(jw, o);
    ASSERT_TRUE(jw.finish());
    EXPECT_EQ(fast_json.view(), json_response(Convert<Order>::to_value(o)));
  }
}

TEST(DeclaredStruct, PrivateMembersBaseMembersRecursionAndNoMembers) {
  shop::Account account("ada", int64_t{1} << 40);
  Value v = Convert<shop::Account>::to_value(account);
  EXPECT_EQ(v["owner_"].as_string(), "ada");
  EXPECT_EQ(v["balance_"].as_i8(), int64_t{1} << 40);
  EXPECT_EQ(v["grade_"].as_int(), 'A');
  Result<shop::Account> back = Convert<shop::Account>::from_value(v);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, account);
  v.set("grade_", 300);  // a char-based enum takes a char's range
  back = Convert<shop::Account>::from_value(v);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message.find(".grade_ must be int in"), std::string::npos)
      << back.error().message;

  shop::Node tree{1, {{2, {}}, {3, {{4, {}}}}}};
  Result<shop::Node> node = read_xml<shop::Node>(xml_response(Convert<shop::Node>::to_value(tree)));
  ASSERT_TRUE(node) << node.error().message;
  EXPECT_EQ(*node, tree);

  shop::Derived d;
  d.id = 7;
  d.name = "seven";
  Value dv = Convert<shop::Derived>::to_value(d);
  EXPECT_EQ(dv, Value::structure({{"id", 7}, {"name", "seven"}}));
  EXPECT_EQ(Convert<shop::Derived>::from_value(dv)->id, 7);

  EXPECT_EQ(Convert<shop::Empty>::to_value({}), Value::structure());
  EXPECT_TRUE(Convert<shop::Empty>::from_value(Value::structure({{"x", 1}})));
  EXPECT_FALSE(Convert<shop::Empty>::from_value(Value::array()));

  static_assert(FromValue<shop::Base2>);
  static_assert(!FromValue<shop::Derived2>, "a base's declaration must not serve a derived type");
}

TEST(DeclaredStruct, ShapesSpellMembersOutOnce) {
  detail::ShapeText order;
  detail::append_shape<Order>(order);
  EXPECT_EQ(order.text,
            "Order {id: int, items: [Item {sku: string, qty: int, price: double}], "
            "note?: string, status: int, receipt: base64, placed: dateTime.iso8601, "
            "counts: {string: int}}");
  detail::ShapeText node;
  detail::append_shape<std::vector<shop::Node>>(node);
  EXPECT_EQ(node.text, "[Node {value: int, children: [Node]}]");
  detail::ShapeText optional;
  detail::append_shape<std::optional<std::tuple<int, std::string>>>(optional);
  EXPECT_EQ(optional.text, "[int, string] or nil");
}

}  // namespace
}  // namespace callwire
