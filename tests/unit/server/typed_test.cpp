// Typed binding and calling end to end: Server::bind on 127.0.0.1:0, Client::call<R>.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"

namespace demo {
struct Point {
  int x = 0;
  int y = 0;
  std::string label;
  bool operator==(const Point&) const = default;
};
}  // namespace demo

template <>
struct callwire::Convert<demo::Point> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const demo::Point& p) {
    return Value::structure({{"x", p.x}, {"y", p.y}, {"label", p.label}});
  }
  static Result<demo::Point> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    auto x = member_as<int>(v, "x");
    if (!x) return x.error();
    auto y = member_as<int>(v, "y");
    if (!y) return y.error();
    auto label = member_as<std::string>(v, "label");
    if (!label) return label.error();
    return demo::Point{*x, *y, std::move(*label)};
  }
};

namespace shop {
// Declared in one line each (callwire/struct.hpp), as the tutorial teaches.
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
  bool operator==(const Order&) const = default;
};
CALLWIRE_STRUCT(Item, sku, qty, price);
CALLWIRE_STRUCT(Order, id, items, note);
}  // namespace shop

namespace demo {
// A type with the reading fast path (Convert::read through read_struct) beside from_value.
struct Pulled {
  int x = 0;
  std::string label;
  std::vector<std::string> tags;
  bool operator==(const Pulled&) const = default;
};
}  // namespace demo

template <>
struct callwire::Convert<demo::Pulled> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const demo::Pulled& p) {
    return Value::structure({{"x", p.x},
                             {"label", p.label},
                             {"tags", Convert<std::vector<std::string>>::to_value(p.tags)}});
  }
  static Result<demo::Pulled> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    auto x = member_as<int>(v, "x");
    if (!x) return x.error();
    auto label = member_as<std::string>(v, "label");
    if (!label) return label.error();
    auto tags = member_as<std::vector<std::string>>(v, "tags");
    if (!tags) return tags.error();
    return demo::Pulled{*x, std::move(*label), std::move(*tags)};
  }
  static Status read(ValueReader& r, demo::Pulled& p) {
    return read_struct(r, field("x", p.x), field("label", p.label), field("tags", p.tags));
  }
};

namespace demo {
// A type with the fast path (Convert::write) beside to_value; `mode` makes write misbehave.
struct Fast {
  enum Mode { Good, ThrowMidway, ForgetTheEnd, NotUtf8 };
  int n = 0;
  std::string text;
  Mode mode = Good;
  bool operator==(const Fast& o) const { return n == o.n && text == o.text; }
};
}  // namespace demo

template <>
struct callwire::Convert<demo::Fast> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const demo::Fast& f) {
    return Value::structure({{"n", f.n}, {"text", f.text}});
  }
  static void write(ValueWriter& w, const demo::Fast& f) {
    w.begin_struct();
    w.member("n");
    w.int32(f.n);
    if (f.mode == demo::Fast::ThrowMidway)
      throw Exception(Error(Errc::Unrepresentable, "thrown halfway through"));
    w.member("text");
    w.string(f.mode == demo::Fast::NotUtf8 ? std::string("\xff") : f.text);
    if (f.mode != demo::Fast::ForgetTheEnd) w.end_struct();
  }
  static Result<demo::Fast> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    auto n = member_as<int>(v, "n");
    if (!n) return n.error();
    auto text = member_as<std::string>(v, "text");
    if (!text) return text.error();
    return demo::Fast{*n, std::move(*text)};
  }
};

namespace callwire {
namespace {

using namespace std::chrono_literals;
using demo::Fast;
using demo::Point;
static_assert(Writable<Fast> && !Writable<Point> && Writable<std::vector<Fast>>);

// Compile-time: what converts, what does not, and which way.
static_assert(FromValue<int> && ToValue<int>);
static_assert(FromValue<Point> && ToValue<Point>);
static_assert(!FromValue<std::set<int>> && !ToValue<std::set<int>>);  // no Convert: refused
static_assert(ToValue<const char*> && !FromValue<const char*>);       // results/arguments only
static_assert(!FromValue<char> && !FromValue<std::map<int, int>>);
static_assert(Convert<int16_t>::type_name == "int" && Convert<uint16_t>::type_name == "int");
static_assert(Convert<uint32_t>::type_name == "i8" && Convert<int64_t>::type_name == "i8");
static_assert(Convert<std::optional<double>>::type_name == "double");
static_assert(Convert<std::vector<uint8_t>>::type_name == "base64");
static_assert(Convert<std::chrono::system_clock::time_point>::type_name == "dateTime.iso8601");

int add(int a, int b) { return a + b; }

struct Concat {
  std::string sep;
  std::string operator()(const std::string& a, std::string_view b) const {
    return a + sep + std::string(b);
  }
};

class TypedTest : public ::testing::Test {
 protected:
  static ServerOptions options() {
    ServerOptions o;
    o.listen = {"127.0.0.1:0"};
    o.threads = 1;
    return o;
  }
  void start() {
    Status s = server.start();
    ASSERT_TRUE(s) << s.error().message;
    client.emplace(server.url());
  }
  Server server{options()};
  std::optional<Client> client;
};

// Each test binds its methods, then starts the server (bind must come before start).
TEST_F(TypedTest, OneLineServerAndClient) {
  ASSERT_TRUE(server.bind(
      "sample.add", [](int a, int b) { return a + b; }, "Adds."));
  ASSERT_TRUE(server.bind("fnptr", &add));
  ASSERT_TRUE(server.bind(
      "function", std::function<double(double, double)>([](double a, double b) { return a * b; })));
  ASSERT_TRUE(server.bind("functor", Concat{"-"}));
  start();
  Result<int> r = client->call<int>("sample.add", 3, 5);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, 8);
  EXPECT_EQ(*client->call<int>("fnptr", 40, 2), 42);
  EXPECT_DOUBLE_EQ(*client->call<double>("function", 1.5, 4), 6.0);  // an int for a double
  EXPECT_EQ(*client->call<std::string>("functor", "a", std::string("b")), "a-b");
  // The untyped call is still there and unchanged.
  EXPECT_EQ(client->call("sample.add", {Value(1), Value(2)})->as_int(), 3);
  EXPECT_EQ(*client->call<Value>("sample.add", 1, 2), Value(3));
}

TEST_F(TypedTest, ScalarsBothWays) {
  // Each echo binds first; bind before start, so collect results after start.
  std::vector<std::function<void()>> checks;
  auto later = [&](auto v) {
    using T = decltype(v);
    std::string name = "e" + std::to_string(checks.size());
    ASSERT_TRUE(server.bind(name, [](T x) { return x; }));
    checks.push_back([this, name, v] {
      Result<T> r = client->call<T>(name, v);
      ASSERT_TRUE(r) << name << ": " << r.error().message;
      EXPECT_EQ(*r, v) << name;
    });
  };
  later(true);
  later(false);
  later(int8_t{-128});
  later(uint8_t{255});
  later(int16_t{-32768});
  later(uint16_t{65535});
  later(int32_t{std::numeric_limits<int32_t>::min()});
  later(uint32_t{std::numeric_limits<uint32_t>::max()});
  later(int64_t{std::numeric_limits<int64_t>::min()});
  later(uint64_t{uint64_t{INT64_MAX}});
  later(2.5);
  later(0.25f);
  later(std::string("héllo <&>"));
  later(std::vector<uint8_t>{0, 1, 2, 255});
  later(DateTime{2024, 2, 29, 23, 59, 58, 0, 0, DateTime::Zone::Utc, 0});
  // Microseconds: libc++'s system_clock counts no finer (libstdc++'s counts nanoseconds).
  later(std::chrono::system_clock::time_point(1700000000123456us));
  later(std::chrono::sys_seconds(std::chrono::seconds(-86400 * 365)));
  later(std::optional<int>(7));
  later(std::optional<int>());
  later(std::vector<std::string>{"a", "b"});
  later(std::vector<int>{});
  later(std::map<std::string, int>{{"a", 1}, {"b", 2}});
  later(std::unordered_map<std::string, std::vector<double>>{{"v", {1.0, 2.0}}});
  later(std::tuple<int, std::string, bool>{1, "x", true});
  later(Value::structure({{"any", Value::array({1, "two"})}}));
  later(Point{1, 2, "p"});
  later(std::vector<Point>{{1, 2, "a"}, {3, 4, "b"}});
  later(std::map<std::string, std::optional<Point>>{{"some", Point{5, 6, "c"}}, {"none", {}}});
  start();
  for (auto& c : checks) c();
}

TEST_F(TypedTest, StringViewArgumentAndConstCharResult) {
  ASSERT_TRUE(server.bind("len", [](std::string_view s) { return s.size(); }));
  ASSERT_TRUE(server.bind("hello", []() -> const char* { return "hello"; }));
  ASSERT_TRUE(server.bind("bytes", [](std::span<const uint8_t> b) { return int(b.size()); }));
  start();
  Result<size_t> n = client->call<size_t>("len", "abcdef");
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, 6u);
  EXPECT_EQ(*client->call<std::string>("hello"), "hello");
  EXPECT_EQ(*client->call<int>("bytes", std::vector<uint8_t>{1, 2, 3}), 3);
}

// system.methodSignature shows the deduced types; help comes through.
TEST_F(TypedTest, IntrospectionSignatures) {
  ASSERT_TRUE(server.bind(
      "sample.add", [](int a, int b) { return a + b; }, "Adds two ints."));
  ASSERT_TRUE(server.bind("mix", [](CallContext&, int64_t, const std::string&, std::vector<int>,
                                    std::map<std::string, Value>, Point, bool, DateTime,
                                    std::vector<uint8_t>, double) { return 1u; }));
  ASSERT_TRUE(server.bind("opt", [](std::optional<int>, std::string) {}));
  start();
  using Sigs = std::vector<std::vector<std::string>>;
  Result<Sigs> add = client->call<Sigs>("system.methodSignature", "sample.add");
  ASSERT_TRUE(add) << add.error().message;
  EXPECT_EQ(*add, (Sigs{{"int", "int", "int"}}));
  EXPECT_EQ(*client->call<std::string>("system.methodHelp", "sample.add"), "Adds two ints.");
  EXPECT_EQ(*client->call<Sigs>("system.methodSignature", "mix"),
            (Sigs{{"i8", "i8", "string", "array", "struct", "struct", "boolean", "dateTime.iso8601",
                   "base64", "double"}}));
  EXPECT_EQ(*client->call<Sigs>("system.methodSignature", "opt"),
            (Sigs{{"nil", "int", "string"}, {"nil", "nil", "string"}}));
}

TEST_F(TypedTest, WrongArityAndTypesAreFault32602) {
  ASSERT_TRUE(server.bind("sample.add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(server.bind("none", [] { return true; }));
  ASSERT_TRUE(server.bind("small", [](uint8_t b) { return b; }));
  ASSERT_TRUE(server.bind("i32", [](int32_t n) { return n; }));
  ASSERT_TRUE(server.bind("list", [](const std::vector<int>& v) { return v.size(); }));
  ASSERT_TRUE(server.bind("point", [](Point p) { return p.x; }));
  ASSERT_TRUE(server.bind("pair", [](std::tuple<int, int> t) { return std::get<0>(t); }));
  start();
  auto fault = [&](Status s) {
    EXPECT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::Fault);
    EXPECT_EQ(s.error().fault_code, fault_code::kInvalidParams);
    return s.error().message;
  };
  EXPECT_EQ(fault(client->call<void>("sample.add", 1, "x")),
            "sample.add: parameter 2 must be int, got string");
  EXPECT_EQ(fault(client->call<void>("sample.add", 1)), "sample.add takes 2 parameters, got 1");
  EXPECT_EQ(fault(client->call<void>("none", 1)), "none takes no parameters, got 1");
  EXPECT_EQ(fault(client->call<void>("small", 300)),
            "small: parameter 1 must be int in 0..255, got int 300");
  EXPECT_EQ(fault(client->call<void>("small", -1)),
            "small: parameter 1 must be int in 0..255, got int -1");
  EXPECT_EQ(fault(client->call<void>("i32", Value::i8(int64_t{1} << 40))),
            "i32: parameter 1 must be int, got i8 out of the int range");
  EXPECT_EQ(fault(client->call<void>("list", std::vector<Value>{1, 2, "x"})),
            "list: parameter 1[2] must be int, got string");
  EXPECT_EQ(fault(client->call<void>("point", Value::structure({{"x", 1}, {"y", "2"}}))),
            "point: parameter 1.y must be int, got string");
  EXPECT_EQ(fault(client->call<void>("point", Value::structure({{"x", 1}}))),
            "point: parameter 1.y is missing");
  EXPECT_EQ(fault(client->call<void>("pair", std::vector<int>{1, 2, 3})),
            "pair: parameter 1 must be array of 2, got array of 3");
  // In range: an i8 for an int parameter is taken.
  EXPECT_EQ(*client->call<int>("i32", Value::i8(-5)), -5);
  EXPECT_EQ(*client->call<int>("small", Value::i8(200)), 200);
}

TEST_F(TypedTest, ResultOfTheWrongTypeIsTypeMismatch) {
  ASSERT_TRUE(server.bind("str", [] { return std::string("x"); }));
  ASSERT_TRUE(server.bind("big", [] { return int64_t{1} << 40; }));
  ASSERT_TRUE(server.bind("list", [] { return std::vector<Value>{1, "two"}; }));
  start();
  Result<int> a = client->call<int>("str");
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, Errc::TypeMismatch);
  EXPECT_EQ(a.error().message, "str: result must be int, got string");
  Result<int> b = client->call<int>("big");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message, "big: result must be int, got i8 out of the int range");
  EXPECT_EQ(*client->call<int64_t>("big"), int64_t{1} << 40);
  Result<std::vector<int>> c = client->call<std::vector<int>>("list");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "list: result[1] must be int, got string");
  // Transport errors come through as they are.
  Result<int> d = client->call<int>("nope");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().fault_code, fault_code::kMethodNotFound);
  EXPECT_THROW(client->call<int>("str").value(), Exception);
}

// call<R> for a type with Convert<R>::read decodes straight from the answer: the same values
// and the same errors as from_value, in XML-RPC (pulled) and JSON-RPC (through a TreeReader).
TEST_F(TypedTest, ResultsReadStraightFromTheAnswerMatchFromValue) {
  const Value good =
      Value::structure({{"extra", Value::structure({{"deep", Value::array({1, 2})}})},
                        {"tags", Value::array({"a", "b&<c>"})},
                        {"label", "point"},
                        {"x", 7}});
  ASSERT_TRUE(server.bind("good", [&] { return good; }));
  ASSERT_TRUE(server.bind("list", [&] { return std::vector<Value>{good, good}; }));
  ASSERT_TRUE(server.bind("missing", [] {
    return Value::structure({{"x", 1}, {"tags", Value::array()}});
  }));
  ASSERT_TRUE(server.bind("wrong", [&] {
    Value v = good;
    v.set("label", 5);
    return std::vector<Value>{good, v};
  }));
  ASSERT_TRUE(server.bind("not_struct", [] { return 3; }));
  ASSERT_TRUE(server.bind("bad_tag", [&] {
    Value v = good;
    v.set("tags", Value::array({"a", Value::i8(5)}));
    return v;
  }));
  ASSERT_TRUE(server.bind("blob", [] { return std::vector<uint8_t>(100000, 0xA5); }));
  ASSERT_TRUE(server.bind(
      "fails", []() -> Result<demo::Pulled> { return Error(Errc::Fault, 7, "no point"); }));
  start();
  ClientOptions json_options;
  json_options.protocol = Protocol::JsonRpc;
  Client json_client(server.url(), json_options);
  for (Client* c : {&*client, &json_client}) {
    SCOPED_TRACE(c == &json_client ? "JSON-RPC" : "XML-RPC");
    const demo::Pulled expected{7, "point", {"a", "b&<c>"}};
    EXPECT_EQ(c->call<demo::Pulled>("good").value(), expected);
    EXPECT_EQ(c->call<std::vector<demo::Pulled>>("list").value(),
              (std::vector<demo::Pulled>{expected, expected}));
    auto message = [&]<class T>(const char* method, const Result<T>& result) {
      EXPECT_FALSE(result) << method;
      if (result) return std::string();
      EXPECT_EQ(result.error().code, Errc::TypeMismatch) << method;
      // The tree path (call + from_value) says the same.
      Result<Value> raw = c->call(method);
      EXPECT_TRUE(raw);
      auto again = Convert<T>::from_value(*raw);
      EXPECT_FALSE(again);
      if (again) return result.error().message;
      EXPECT_EQ(
          result.error().message,
          std::string(method) + ": result" +
              (again.error().message[0] == '[' || again.error().message[0] == '.' ? "" : " ") +
              again.error().message);
      return result.error().message;
    };
    EXPECT_EQ(message("missing", c->call<demo::Pulled>("missing")),
              "missing: result.label is missing");
    EXPECT_EQ(message("wrong", c->call<std::vector<demo::Pulled>>("wrong")),
              "wrong: result[1].label must be string, got int");
    EXPECT_EQ(message("not_struct", c->call<demo::Pulled>("not_struct")),
              "not_struct: result must be struct, got int");
    // JSON has one kind of number, and carries bytes as base64 text.
    const bool json = c == &json_client;
    EXPECT_EQ(message("bad_tag", c->call<demo::Pulled>("bad_tag")),
              json ? "bad_tag: result.tags[1] must be string, got int"
                   : "bad_tag: result.tags[1] must be string, got i8");
    if (!json) {
      EXPECT_EQ(c->call<std::vector<uint8_t>>("blob").value(), std::vector<uint8_t>(100000, 0xA5));
    }
    Result<demo::Pulled> fault = c->call<demo::Pulled>("fails");
    ASSERT_FALSE(fault);
    EXPECT_EQ(fault.error().code, Errc::Fault);
    EXPECT_EQ(fault.error().fault_code, 7);
    // The connection is sound after every one of those.
    EXPECT_EQ(c->call<demo::Pulled>("good").value(), expected);
  }
}

// CALLWIRE_STRUCT types as parameters and results, over XML-RPC and JSON-RPC: the typed write
// on the server, the typed read on the client, errors with the method and path in front, and
// system.methodHelp spelling the struct out.
TEST_F(TypedTest, DeclaredStructsEndToEnd) {
  const shop::Order order{7, {{"A-1", 2, 9.5}, {"B-2", 1, 0.25}}, "fragile"};
  ASSERT_TRUE(server.bind(
      "get_order", {"id"},
      [&](int id) {
        shop::Order o = order;
        o.id = id;
        return o;
      },
      "One order."));
  ASSERT_TRUE(server.bind("total", [](const shop::Order& o) {
    double sum = 0;
    for (const shop::Item& i : o.items) sum += i.qty * i.price;
    return sum;
  }));
  ASSERT_TRUE(server.bind("bad_order", [] {
    Value v = Convert<shop::Order>::to_value(shop::Order{1, {{"x", 1, 1}, {"y", 1, 1}}, {}});
    (*v.find("items"))[1].set("price", "cheap");
    return v;
  }));
  start();
  ClientOptions json_options;
  json_options.protocol = Protocol::JsonRpc;
  Client json_client(server.url(), json_options);
  for (Client* c : {&*client, &json_client}) {
    SCOPED_TRACE(c == &json_client ? "JSON-RPC" : "XML-RPC");
    Result<shop::Order> got = c->call<shop::Order>("get_order", 9);
    ASSERT_TRUE(got) << got.error().message;
    shop::Order want = order;
    want.id = 9;
    EXPECT_EQ(*got, want);
    Result<double> total = c->call<double>("total", order);
    ASSERT_TRUE(total) << total.error().message;
    EXPECT_DOUBLE_EQ(*total, 19.25);
    shop::Order no_note = order;
    no_note.note.reset();
    EXPECT_DOUBLE_EQ(*c->call<double>("total", no_note), 19.25);  // an absent optional

    Result<shop::Order> bad = c->call<shop::Order>("bad_order");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, Errc::TypeMismatch);
    EXPECT_EQ(bad.error().message, "bad_order: result.items[1].price must be double, got string");
    // A parameter missing a member: the server names the parameter and the path.
    Result<double> missing = c->call<double>(
        "total",
        Value::structure(
            {{"id", 1}, {"items", Value::array({Value::structure({{"sku", "x"}, {"qty", 1}})})}}));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().fault_code, fault_code::kInvalidParams);
    EXPECT_NE(missing.error().message.find("total: parameter 1.items[0].price is missing"),
              std::string::npos)
        << missing.error().message;
  }
  Result<std::string> help = client->call<std::string>("system.methodHelp", "get_order");
  ASSERT_TRUE(help) << help.error().message;
  EXPECT_EQ(*help,
            "One order.\n\nParameters:\n  id: int\nResult: Order {id: int, items: [Item {sku: "
            "string, qty: int, price: double}], note?: string}");
  help = client->call<std::string>("system.methodHelp", "total");
  EXPECT_EQ(*help,
            "Parameters:\n  Order {id: int, items: [Item {sku: string, qty: int, price: double}], "
            "note?: string}\nResult: double");
  // The signatures still say "struct"; scalar-only methods keep their plain help.
  EXPECT_EQ(*client->call<Value>("system.methodSignature", "total"),
            Value::array({Value::array({"double", "struct"})}));
}

// xmlrpc-c's set_shutdown: system.shutdown calls the program's hook with the comment, which
// decides (here: it records, and refuses once with a fault of its own).
TEST(Shutdown, TheHookDecidesWhatSystemShutdownDoes) {
  std::mutex mutex;
  std::vector<std::string> comments;
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  o.on_shutdown = [&](std::string_view comment) {
    if (comment == "refuse") throw FaultError(7, "not now");
    std::lock_guard lock(mutex);
    comments.emplace_back(comment);
  };
  Server server(o);
  ASSERT_TRUE(server.start());
  Client client(server.url());
  EXPECT_EQ(*client.call<int>("system.shutdown", "maintenance"), 0);
  EXPECT_EQ(*client.call<int>("system.shutdown"), 0);
  Result<int> refused = client.call<int>("system.shutdown", "refuse");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().fault_code, 7);
  EXPECT_EQ(refused.error().message, "not now");
  // The hook did not stop the server: it still serves.
  EXPECT_TRUE(client.call<Value>("system.listMethods"));
  std::lock_guard lock(mutex);
  EXPECT_EQ(comments, (std::vector<std::string>{"maintenance", ""}));
}

TEST_F(TypedTest, UnrepresentableArgumentIsAnErrorNotAThrow) {
  ASSERT_TRUE(server.bind("u", [](uint64_t n) { return n; }));
  start();
  Result<uint64_t> r = client->call<uint64_t>("u", std::numeric_limits<uint64_t>::max());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Unrepresentable);
  Result<uint64_t> neg = client->call<uint64_t>("u", int64_t{-1});
  ASSERT_FALSE(neg);
  EXPECT_EQ(neg.error().fault_code, fault_code::kInvalidParams);
}

TEST_F(TypedTest, VoidHandlerAnswersNil) {
  std::atomic<int> hits{0};
  ASSERT_TRUE(server.bind("touch", [&hits](int n) { hits += n; }));
  start();
  Status s = client->call<void>("touch", 2);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(hits.load(), 2);
  EXPECT_TRUE(client->call("touch", {Value(1)})->is_nil());
  EXPECT_EQ(*client->call<std::optional<int>>("touch", 1), std::nullopt);
}

TEST_F(TypedTest, OptionalParameterTakesNil) {
  ASSERT_TRUE(server.bind(
      "greet", [](std::optional<std::string> name) { return "hello " + name.value_or("world"); }));
  start();
  EXPECT_EQ(*client->call<std::string>("greet", std::optional<std::string>()), "hello world");
  EXPECT_EQ(*client->call<std::string>("greet", nullptr), "hello world");
  EXPECT_EQ(*client->call<std::string>("greet", "you"), "hello you");
  EXPECT_FALSE(client->call<std::string>("greet", 1));
}

// Trailing optional parameters may be left out; a left-out one is an empty optional.
TEST_F(TypedTest, TrailingOptionalParametersMayBeLeftOut) {
  ASSERT_TRUE(server.bind("f", [](int a, std::optional<int> b) {
    return std::to_string(a) + "/" + (b ? std::to_string(*b) : "none");
  }));
  ASSERT_TRUE(server.bind(
      "g", [](CallContext&, std::string s, std::optional<int> n, std::optional<std::string> t) {
        return s + ":" + std::to_string(n.value_or(-1)) + ":" + t.value_or("-");
      }));
  // Not trailing: the optional must be passed (nil or a value).
  ASSERT_TRUE(server.bind("h", [](std::optional<int> a, int b) { return a.value_or(0) + b; }));
  start();
  EXPECT_EQ(*client->call<std::string>("f", 1), "1/none");
  EXPECT_EQ(*client->call<std::string>("f", 1, nullptr), "1/none");
  EXPECT_EQ(*client->call<std::string>("f", 1, 2), "1/2");
  EXPECT_EQ(*client->call<std::string>("g", "x"), "x:-1:-");
  EXPECT_EQ(*client->call<std::string>("g", "x", 5), "x:5:-");
  EXPECT_EQ(*client->call<std::string>("g", "x", nullptr, "t"), "x:-1:t");
  EXPECT_EQ(*client->call<int>("h", nullptr, 2), 2);
  auto fault = [&](Status s) {
    EXPECT_FALSE(s);
    EXPECT_EQ(s.error().fault_code, fault_code::kInvalidParams);
    return s.error().message;
  };
  EXPECT_EQ(fault(client->call<void>("f")), "f takes 1 or 2 parameters, got 0");
  EXPECT_EQ(fault(client->call<void>("f", 1, 2, 3)), "f takes 1 or 2 parameters, got 3");
  EXPECT_EQ(fault(client->call<void>("g")), "g takes 1, 2 or 3 parameters, got 0");
  EXPECT_EQ(fault(client->call<void>("h", 2)), "h takes 2 parameters, got 1");
  EXPECT_EQ(fault(client->call<void>("f", 1, "x")),
            "f: parameter 2 must be int or nil, got string");

  using Sigs = std::vector<std::vector<std::string>>;
  EXPECT_EQ(*client->call<Sigs>("system.methodSignature", "f"),
            (Sigs{{"string", "int", "int"}, {"string", "int", "nil"}, {"string", "int"}}));
  EXPECT_EQ(*client->call<Sigs>("system.methodSignature", "g"),
            (Sigs{{"string", "string", "int", "string"},
                  {"string", "string", "nil", "string"},
                  {"string", "string", "int", "nil"},
                  {"string", "string", "nil", "nil"},
                  {"string", "string", "int"},
                  {"string", "string", "nil"},
                  {"string", "string"}}));
  EXPECT_EQ(*client->call<Sigs>("system.methodSignature", "h"),
            (Sigs{{"int", "int", "int"}, {"int", "nil", "int"}}));
}

// Past 64 variants the nullable slots become "any" and only the lengths vary.
TEST(DeducedSignatures, CapAt64Variants) {
  using O = std::optional<int>;
  // Six trailing optionals: 2^6 + 2^5 + ... + 1 = 127 variants, over the cap.
  auto six = detail::deduced_signatures<int, int, O, O, O, O, O, O>();
  ASSERT_EQ(six.size(), 7u);
  EXPECT_EQ(six.front(),
            (std::vector<std::string>{"int", "int", "any", "any", "any", "any", "any", "any"}));
  EXPECT_EQ(six.back(), (std::vector<std::string>{"int", "int"}));
  // Five: 63 variants, all listed.
  EXPECT_EQ((detail::deduced_signatures<int, int, O, O, O, O, O>().size()), 63u);
  // Not trailing: six optionals then an int: 64 variants of one length.
  EXPECT_EQ((detail::deduced_signatures<void, O, O, O, O, O, O, int>().size()), 64u);
  EXPECT_EQ((detail::deduced_signatures<void, O, O, O, O, O, O, O, int>().size()), 1u);
  // Forty trailing optionals: no shift overflow, 41 signatures.
  auto many = []<size_t... I>(std::index_sequence<I...>) {
    return detail::deduced_signatures<int, decltype((void)I, O())...>();
  }
  (std::make_index_sequence<40>{});
  EXPECT_EQ(many.size(), 41u);
}

TEST_F(TypedTest, HandlerFaultsAndExceptions) {
  ASSERT_TRUE(server.bind("fail", [](int code) -> int { throw FaultError(code, "no luck"); }));
  ASSERT_TRUE(server.bind("oops", []() -> int { throw std::runtime_error("boom"); }));
  ASSERT_TRUE(server.bind("toobig", [] { return std::numeric_limits<uint64_t>::max(); }));
  start();
  Result<int> f = client->call<int>("fail", 42);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code, Errc::Fault);
  EXPECT_EQ(f.error().fault_code, 42);
  EXPECT_EQ(f.error().message, "no luck");
  Result<int> o = client->call<int>("oops");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().fault_code, fault_code::kInternalError);
  Result<uint64_t> t = client->call<uint64_t>("toobig");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().fault_code, fault_code::kInternalError);
}

// A result whose Convert has write() goes straight into the response; the client cannot tell.
TEST_F(TypedTest, ResultsWrittenByTheFastPathAnswerAsToValueWould) {
  ASSERT_TRUE(server.bind("one", [](int n) { return Fast{n, "a string longer than 14 bytes"}; }));
  ASSERT_TRUE(server.bind("many", [](int n) {
    std::vector<Fast> out;
    for (int i = 0; i < n; ++i) out.push_back({i, std::string(size_t(i), 'x')});
    return out;
  }));
  ASSERT_TRUE(server.bind("maybe", [](bool ok) -> Result<std::vector<Fast>> {
    if (!ok) return Error(Errc::Fault, 7, "not this time");
    return std::vector<Fast>{{1, "<&>"}};
  }));
  ASSERT_TRUE(server.bind("point", [] { return Point{1, 2, "slow path"}; }));
  start();
  EXPECT_EQ(*client->call<Fast>("one", 5), (Fast{5, "a string longer than 14 bytes"}));
  EXPECT_EQ(*client->call<Value>("one", 5),
            Convert<Fast>::to_value({5, "a string longer than 14 bytes"}));
  Result<std::vector<Fast>> many = client->call<std::vector<Fast>>("many", 40);
  ASSERT_TRUE(many) << many.error().message;
  ASSERT_EQ(many->size(), 40u);
  EXPECT_EQ((*many)[39], (Fast{39, std::string(39, 'x')}));
  EXPECT_EQ(client->call<std::vector<Fast>>("maybe", true)->at(0).text, "<&>");
  EXPECT_EQ(client->call<std::vector<Fast>>("maybe", false).error().fault_code, 7);
  EXPECT_EQ(client->call<Point>("point")->label, "slow path");
  // Inside system.multicall the same methods answer through to_value.
  std::vector<MethodCall> calls(3);
  calls[0].method_name = "one";
  calls[0].params = Value::array({3});
  calls[1].method_name = "many";
  calls[1].params = Value::array({2});
  calls[2].method_name = "maybe";
  calls[2].params = Value::array({false});
  auto r = client->multicall(calls);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)[0].value(), Convert<Fast>::to_value({3, "a string longer than 14 bytes"}));
  EXPECT_EQ((*r)[1].value(),
            Value::array({Convert<Fast>::to_value({0, ""}), Convert<Fast>::to_value({1, "x"})}));
  EXPECT_EQ((*r)[2].error().fault_code, 7);
}

// A write that throws, breaks off or writes what XML cannot carry halfway through the result:
// the client gets fault -32603 saying why, never half a document, and the server goes on.
TEST_F(TypedTest, AFastPathThatFailsHalfwayAnswersAFault) {
  ASSERT_TRUE(server.bind("bad", [](int mode) {
    return std::vector<Fast>{{1, "fine"}, {2, "then", static_cast<Fast::Mode>(mode)}};
  }));
  start();
  const std::pair<Fast::Mode, std::string> cases[] = {
      {Fast::ThrowMidway, "thrown halfway through"},
      {Fast::ForgetTheEnd,
       "the result of bad cannot be sent: ValueWriter: end_array() without "
       "begin_array()"},
      {Fast::NotUtf8, "the result of bad cannot be sent: string is not valid UTF-8"},
  };
  for (const auto& [mode, message] : cases) {
    Result<std::vector<Fast>> r = client->call<std::vector<Fast>>("bad", int(mode));
    ASSERT_FALSE(r) << mode;
    EXPECT_EQ(r.error().code, Errc::Fault) << r.error().message;
    EXPECT_EQ(r.error().fault_code, fault_code::kInternalError);
    EXPECT_EQ(r.error().message, message);
  }
  EXPECT_EQ(client->call<std::vector<Fast>>("bad", int(Fast::Good))->size(), 2u);
}

// A handler may return Result<T> (a value or a fault) or Status (nil or a fault).
TEST_F(TypedTest, ResultAndStatusReturns) {
  ASSERT_TRUE(server.bind("half", [](int n) -> Result<int> {
    if (n % 2) return Error(Errc::Fault, 42, "odd: " + std::to_string(n));
    return n / 2;
  }));
  ASSERT_TRUE(server.bind("kinds", [](std::string kind) -> Result<std::vector<int>> {
    if (kind == "mismatch") return Error(Errc::TypeMismatch, "a mismatch");  // -32602
    if (kind == "timeout") return Error(Errc::Timeout, 0, "slow");       // no code: errc_fault_code
    if (kind == "ok-code") return Error(Errc::Ok, 0, "no code at all");  // -32603
    if (kind == "empty") return Error(Errc::NotFound, 0, "");            // the Errc's name
    return std::vector<int>{1, 2};
  }));
  std::atomic<int> hits{0};
  ASSERT_TRUE(server.bind("check", [&hits](CallContext&, bool fine) -> Status {
    ++hits;
    if (!fine) return Error(Errc::InvalidArgument, -32000, "not fine");
    return {};
  }));
  ASSERT_TRUE(server.bind("huge", []() -> Result<uint64_t> { return UINT64_MAX; }));
  start();
  auto fault = [&](Status s, int32_t code) {
    EXPECT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::Fault);
    EXPECT_EQ(s.error().fault_code, code);
    return s.error().message;
  };
  EXPECT_EQ(*client->call<int>("half", 8), 4);
  EXPECT_EQ(fault(client->call<void>("half", 3), 42), "odd: 3");
  EXPECT_EQ(*client->call<std::vector<int>>("kinds", "fine"), (std::vector<int>{1, 2}));
  EXPECT_EQ(fault(client->call<void>("kinds", "mismatch"), fault_code::kInvalidParams),
            "a mismatch");
  EXPECT_EQ(fault(client->call<void>("kinds", "timeout"), fault_code::kTransportError), "slow");
  EXPECT_EQ(fault(client->call<void>("kinds", "ok-code"), fault_code::kInternalError),
            "no code at all");
  EXPECT_EQ(fault(client->call<void>("kinds", "empty"), fault_code::kInternalError),
            errc_name(Errc::NotFound));
  EXPECT_TRUE(client->call("check", {Value(true)})->is_nil());
  EXPECT_EQ(fault(client->call<void>("check", false), -32000), "not fine");
  EXPECT_EQ(hits.load(), 2);
  EXPECT_FALSE(fault(client->call<void>("huge"), fault_code::kInternalError).empty());
  // The signature shows T (nil for Status), not the Result.
  using Sigs = std::vector<std::vector<std::string>>;
  EXPECT_EQ(*client->call<Sigs>("system.methodSignature", "half"), (Sigs{{"int", "int"}}));
  EXPECT_EQ(*client->call<Sigs>("system.methodSignature", "kinds"), (Sigs{{"array", "string"}}));
  EXPECT_EQ(*client->call<Sigs>("system.methodSignature", "check"), (Sigs{{"nil", "boolean"}}));
  // Faults from a Result count as faults in the statistics.
  for (const MethodStats& m : server.method_stats()) {
    if (m.name == "half" || m.name == "check") {
      EXPECT_EQ(m.faults, 1u) << m.name;
    }
  }
}

TEST_F(TypedTest, HandlerWithCallContext) {
  ASSERT_TRUE(server.bind("whoami", [](CallContext& ctx, const std::string& greeting) {
    return std::map<std::string, std::string>{{"greeting", greeting},
                                              {"method", std::string(ctx.method())},
                                              {"agent", std::string(ctx.header("x-test"))}};
  }));
  ASSERT_TRUE(server.bind("peer", [](const CallContext& ctx) { return std::string(ctx.peer()); }));
  start();
  CallOptions opts;
  opts.headers = {{"X-Test", "yes"}};
  auto r = client->call_with<std::map<std::string, std::string>>(opts, "whoami", "hi");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["greeting"], "hi");
  EXPECT_EQ((*r)["method"], "whoami");
  EXPECT_EQ((*r)["agent"], "yes");
  EXPECT_EQ(client->call<std::string>("peer")->rfind("127.0.0.1:", 0), 0u);
  // The context is not an XML-RPC parameter: the signature has none for it.
  EXPECT_EQ(*client->call<std::vector<std::vector<std::string>>>("system.methodSignature", "peer"),
            (std::vector<std::vector<std::string>>{{"string"}}));
}

TEST_F(TypedTest, AsyncTypedCalls) {
  ASSERT_TRUE(server.bind("sq", [](int n) { return int64_t{n} * n; }));
  ASSERT_TRUE(server.bind("touch", [] {}));
  start();
  std::vector<std::future<Result<int64_t>>> futures;
  for (int i = 0; i < 20; ++i) futures.push_back(client->async_call<int64_t>("sq", i));
  for (int i = 0; i < 20; ++i) {
    Result<int64_t> r = futures[i].get();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, int64_t{i} * i);
  }
  Result<std::string> wrong = client->async_call<std::string>("sq", 3).get();
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().message, "sq: result must be string, got i8");
  EXPECT_TRUE(client->async_call<void>("touch").get());
  CallOptions opts;
  opts.timeout = 5000ms;
  EXPECT_EQ(*client->async_call_with<int64_t>(opts, "sq", 9).get(), 81);
  Result<int64_t> unrep =
      client->async_call<int64_t>("sq", std::numeric_limits<uint64_t>::max()).get();
  ASSERT_FALSE(unrep);
  EXPECT_EQ(unrep.error().code, Errc::Unrepresentable);
}

// The callback forms: `done` gets the converted result on the client's I/O thread.
TEST_F(TypedTest, AsyncTypedCallbacks) {
  ASSERT_TRUE(server.bind("sq", [](int n) { return int64_t{n} * n; }));
  ASSERT_TRUE(server.bind("touch", [] {}));
  ASSERT_TRUE(server.bind("hdr", [](CallContext& ctx) { return std::string(ctx.header("X-T")); }));
  start();
  const std::thread::id caller = std::this_thread::get_id();
  // Each result with the thread it was delivered on.
  auto expect = [&]<class Out>(std::type_identity<Out>) {
    auto p = std::make_shared<std::promise<std::pair<Out, std::thread::id>>>();
    std::function<void(Out)> done = [p](Out r) {
      p->set_value({std::move(r), std::this_thread::get_id()});
    };
    return std::pair{done, p->get_future()};
  };
  {
    auto [done, future] = expect(std::type_identity<Result<int64_t>>{});
    client->async_call<int64_t>(done, "sq", 7);
    auto [r, thread] = future.get();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, 49);
    EXPECT_NE(thread, caller);
  }
  {
    auto [done, future] = expect(std::type_identity<Status>{});
    client->async_call<void>(done, "touch");
    auto [s, thread] = future.get();
    EXPECT_TRUE(s) << s.error().message;
    EXPECT_NE(thread, caller);
  }
  {  // A result of the wrong type: converted on the I/O thread.
    auto [done, future] = expect(std::type_identity<Result<std::string>>{});
    client->async_call<std::string>(done, "sq", 3);
    auto [r, thread] = future.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "sq: result must be string, got i8");
    EXPECT_NE(thread, caller);
  }
  {  // An argument that cannot be sent: reported through `done`, on the I/O thread too.
    auto [done, future] = expect(std::type_identity<Result<int64_t>>{});
    client->async_call<int64_t>(done, "sq", std::numeric_limits<uint64_t>::max());
    auto [r, thread] = future.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::Unrepresentable);
    EXPECT_NE(thread, caller);
  }
  {  // With options; a lambda converts to the callback without naming std::function.
    CallOptions opts;
    opts.headers = {{"X-T", "opt"}};
    std::promise<Result<std::string>> p;
    client->async_call_with<std::string>(
        opts, [&p](Result<std::string> r) { p.set_value(std::move(r)); }, "hdr");
    EXPECT_EQ(p.get_future().get().value(), "opt");
  }
  {  // A header the client refuses: the untyped callback form reports it on the I/O thread.
    CallOptions bad;
    bad.headers = {{"X-T", "a\r\nInjected: 1"}};
    auto [done, future] = expect(std::type_identity<Result<std::string>>{});
    client->async_call_with<std::string>(bad, done, "hdr");
    auto [r, thread] = future.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::InvalidArgument);
    EXPECT_NE(thread, caller);
  }
  // The future forms are unchanged beside them.
  EXPECT_EQ(*client->async_call<int64_t>("sq", 4).get(), 16);
}

// The bulk path, both ways: 16 MiB of bytes that are all different (base64 is 22 MB of XML),
// with gzip off (the default) and on, checked byte for byte.
TEST(TypedBulk, SixteenMebibytesBothWaysWithAndWithoutGzip) {
  std::vector<uint8_t> blob(16 << 20);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint8_t& b : blob) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b = static_cast<uint8_t>(x >> 24);
  }
  for (bool gzip : {false, true}) {
    SCOPED_TRACE(gzip ? "gzip" : "plain");
    ServerOptions o;
    o.listen = {"127.0.0.1:0"};
    o.threads = 1;
    o.gzip_min_size = gzip ? 4096 : 0;
    Server server(o);
    ASSERT_TRUE(server.bind(
        "get_blob", [&](int n) { return std::vector<uint8_t>(blob.begin(), blob.begin() + n); }));
    ASSERT_TRUE(server.bind("put_blob", [&](std::span<const uint8_t> b) {
      return b.size() == blob.size() && std::equal(b.begin(), b.end(), blob.begin());
    }));
    ASSERT_TRUE(server.start());
    ClientOptions co;
    co.accept_gzip = gzip;
    co.gzip_request_min_size = gzip ? 4096 : 0;
    Client client(server.url(), co);
    auto got = client.call<std::vector<uint8_t>>("get_blob", static_cast<int>(blob.size()));
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_TRUE(*got == blob);
    auto same = client.call<bool>("put_blob", blob);
    ASSERT_TRUE(same) << same.error().message;
    EXPECT_TRUE(*same);
    // And a size that is no multiple of 3 or of the wide blocks.
    auto odd = client.call<std::vector<uint8_t>>("get_blob", 1000001);
    ASSERT_TRUE(odd) << odd.error().message;
    EXPECT_TRUE(std::equal(odd->begin(), odd->end(), blob.begin()) && odd->size() == 1000001u);
  }
}

// ---- one knob a side: max_body and max_response_size carry the readers' limits with them

// A server with get_blob(n) and put_blob(bytes) -> size, and a client to it, over `scheme`
// ("http" or "jsonrpc+http").
struct BlobPair {
  BlobPair(ServerOptions o, ClientOptions co, const std::string& scheme) : server(init(o)) {
    EXPECT_TRUE(server.bind("get_blob", [](int n) { return std::vector<uint8_t>(size_t(n), 7); }));
    EXPECT_TRUE(server.bind("put_blob", [](std::span<const uint8_t> b) { return int(b.size()); }));
    EXPECT_TRUE(server.start());
    std::string url = server.url();
    client.emplace(scheme == "http" ? url : scheme + url.substr(4), co);
  }
  static ServerOptions init(ServerOptions o) {
    o.listen = {"127.0.0.1:0"};
    o.threads = 1;
    return o;
  }
  void round_trip(size_t bytes) {
    auto got = client->call<std::vector<uint8_t>>("get_blob", int(bytes));
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_EQ(got->size(), bytes);
    auto put = client->call<int>("put_blob", std::vector<uint8_t>(bytes, 9));
    ASSERT_TRUE(put) << put.error().message;
    EXPECT_EQ(size_t(*put), bytes);
  }
  Server server;
  std::optional<Client> client;
};

TEST(MessageLimits, BlobsAsLargeAsTheBodyLimitAllowsPassAtTheDefaults) {
  // 20 MiB of bytes is 26.7 MiB of base64: within the 32 MiB body limit both ways, so the
  // defaults take it (before: "base64 exceeds the size limit", the string limit's 16 MiB).
  // Over JSON-RPC the base64 is one JSON string.
  for (const char* scheme : {"http", "jsonrpc+http"}) {
    SCOPED_TRACE(scheme);
    BlobPair pair({}, {}, scheme);
    pair.round_trip(20u << 20);
  }
}

TEST(MessageLimits, RaisingTheBodyLimitRaisesTheReadersToo) {
  // 40 MiB of bytes (53 MiB of base64) with 64 MiB on each side's one knob (before: the
  // readers' own 32 MiB document limit refused it whatever max_body said).
  ServerOptions o;
  o.max_body = 64u << 20;
  ClientOptions co;
  co.max_response_size = 64u << 20;
  for (const char* scheme : {"http", "jsonrpc+http"}) {
    SCOPED_TRACE(scheme);
    BlobPair pair(o, co, scheme);
    pair.round_trip(40u << 20);
  }
}

TEST(MessageLimits, AReaderLimitSetLowerStaysLower) {
  // The fault names the limit, its value and the option that set it.
  ServerOptions o;
  o.reader_limits.max_string_size = 1u << 20;
  o.json_limits.max_string_size = 1u << 20;
  for (const char* scheme : {"http", "jsonrpc+http"}) {
    SCOPED_TRACE(scheme);
    const bool json = std::string_view(scheme) != "http";
    BlobPair pair(o, {}, scheme);
    auto put = pair.client->call<int>("put_blob", std::vector<uint8_t>(2u << 20, 9));
    ASSERT_FALSE(put);
    const std::string& said = put.error().message;
    EXPECT_EQ(put.error().fault_code, -32600) << said;
    EXPECT_NE(said.find("max_string_size (1048576 bytes)"), std::string::npos) << said;
    const char* option = json ? "bytes), set in ServerOptions::json_limits"
                              : "bytes), set in ServerOptions::reader_limits";
    EXPECT_NE(said.find(option), std::string::npos) << said;
  }
}

TEST(MessageLimits, AnAnswerOverTheClientsLimitSaysSo) {
  // Over max_response_size by its length, or over a reader limit set lower: the client's own
  // limit, named with its value, never "the response is not XML-RPC".
  ClientOptions by_size;
  by_size.max_response_size = 1u << 20;
  ClientOptions by_string;
  by_string.reader_limits.max_string_size = 1u << 20;
  for (const ClientOptions& co : {by_size, by_string}) {
    BlobPair pair({}, co, "http");
    auto got = pair.client->call<std::vector<uint8_t>>("get_blob", 2 << 20);
    ASSERT_FALSE(got);
    const std::string& m = got.error().message;
    EXPECT_EQ(m.find("not XML-RPC"), std::string::npos) << m;
    EXPECT_NE(m.find("1048576"), std::string::npos) << m;
    EXPECT_NE(m.find(co.max_response_size == (1u << 20) ? "max_response_size" : "max_string_size"),
              std::string::npos)
        << m;
  }
}

TEST(MessageLimits, ARequestOverTheServersLimitReportsTheServers413) {
  // The server answers 413 from the head alone and closes; the client's write then fails. The
  // answer is there to read and says why (before: "sending the request: Broken pipe").
  BlobPair pair({}, {}, "http");
  for (bool async : {false, true}) {
    SCOPED_TRACE(async ? "async" : "sync");
    std::vector<uint8_t> big(30u << 20, 9);  // 40 MiB of base64
    auto put = async ? pair.client->async_call<int>("put_blob", big).get()
                     : pair.client->call<int>("put_blob", big);
    ASSERT_FALSE(put);
    EXPECT_EQ(put.error().code, Errc::HttpStatus) << put.error().message;
    EXPECT_EQ(put.error().http_status, 413) << put.error().message;
    EXPECT_NE(put.error().message.find("33554432 bytes (max_body)"), std::string::npos)
        << put.error().message;
  }
}

TEST_F(TypedTest, BindRefusesDuplicatesLikeAdd) {
  ASSERT_TRUE(server.bind("m", [] { return 1; }));
  Status again = server.bind("m", [] { return 2; });
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Errc::InvalidArgument);
  EXPECT_FALSE(server.bind("system.x", [] { return 1; }));
}

// ---- deadlines: ServerOptions::call_timeout, X-Callwire-Timeout, ClientOptions::send_timeout

ServerOptions deadline_options(std::chrono::milliseconds call_timeout,
                               unsigned handler_threads = 0) {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  o.handler_threads = handler_threads;
  o.call_timeout = call_timeout;
  return o;
}

// The milliseconds left of the call's deadline as the handler sees it; -1 when it has none.
int64_t left_ms(const CallContext& ctx) {
  if (ctx.deadline() == std::chrono::steady_clock::time_point::max()) {
    EXPECT_FALSE(ctx.expired());
    EXPECT_EQ(ctx.remaining(), std::chrono::steady_clock::duration::max());
    return -1;
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(ctx.remaining()).count();
}

CallOptions timeout_header(std::string value) {
  CallOptions o;
  o.headers = {{"X-Callwire-Timeout", std::move(value)}};
  return o;
}

TEST(Deadline, NoneByDefault) {
  Server server(deadline_options(0ms));
  std::atomic<int> runs{0};
  ASSERT_TRUE(server.bind("left", [&runs](CallContext& ctx) {
    ++runs;
    return left_ms(ctx);
  }));
  ASSERT_TRUE(server.start());
  Client client(server.url());
  EXPECT_EQ(*client.call<int64_t>("left"), -1);
  // The header alone gives a deadline; one of another form is ignored.
  Result<int64_t> sent = client.call_with<int64_t>(timeout_header("800"), "left");
  ASSERT_TRUE(sent) << sent.error().message;
  EXPECT_GE(*sent, 0);
  EXPECT_LE(*sent, 800);
  for (const char* bad : {"abc", "1234567890", "", "-5", "+5", "12a", "5.0", "0x10", "1e3"}) {
    Result<int64_t> r = client.call_with<int64_t>(timeout_header(bad), "left");
    ASSERT_TRUE(r) << bad << ": " << r.error().message;
    EXPECT_EQ(*r, -1) << "'" << bad << "'";
  }
  // Nine digits are still a valid header.
  EXPECT_GT(*client.call_with<int64_t>(timeout_header("999999999"), "left"), 999000000);
  // 0: the deadline is the request's completion; the handler is not run.
  runs = 0;
  Result<int64_t> zero = client.call_with<int64_t>(timeout_header("0"), "left");
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().fault_code, fault_code::kTransportError);
  EXPECT_EQ(zero.error().message, "deadline exceeded");
  EXPECT_EQ(runs.load(), 0);
}

TEST(Deadline, CallTimeoutAndTheEarlierHeader) {
  Server server(deadline_options(5000ms));
  ASSERT_TRUE(server.bind("left", [](CallContext& ctx) { return left_ms(ctx); }));
  ASSERT_TRUE(server.start());
  Client client(server.url());
  Result<int64_t> r = client.call<int64_t>("left");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GT(*r, 1000);
  EXPECT_LE(*r, 5000);
  // The header is earlier: it wins.
  Result<int64_t> early = client.call_with<int64_t>(timeout_header("800"), "left");
  ASSERT_TRUE(early) << early.error().message;
  EXPECT_LE(*early, 800);
  // The header is later: call_timeout wins.
  Result<int64_t> late = client.call_with<int64_t>(timeout_header("60000"), "left");
  ASSERT_TRUE(late) << late.error().message;
  EXPECT_GT(*late, 1000);
  EXPECT_LE(*late, 5000);
  // An invalid one changes nothing.
  EXPECT_GT(*client.call_with<int64_t>(timeout_header("soon"), "left"), 1000);
}

// An entry that outlasts the request's deadline: the later entries are not run.
TEST(Deadline, MulticallEntriesAfterTheDeadlineAreFaults) {
  Server server(deadline_options(0ms));
  std::atomic<int> runs{0};
  ASSERT_TRUE(server.bind("count", [&runs] { return ++runs; }));
  ASSERT_TRUE(server.bind("outlast", [](CallContext& ctx) {
    while (!ctx.expired()) std::this_thread::sleep_for(1ms);  // a handler polling its deadline
    return true;
  }));
  ASSERT_TRUE(server.start());
  Client client(server.url());
  std::vector<MethodCall> calls(4);
  calls[0].method_name = "count";
  calls[1].method_name = "outlast";
  calls[2].method_name = "count";
  calls[3].method_name = "outlast";
  auto r = client.multicall(calls, timeout_header("100"));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].value(), Value(1));
  EXPECT_EQ((*r)[1].value(), Value(true));
  for (size_t i : {2, 3}) {
    ASSERT_FALSE((*r)[i]) << i;
    EXPECT_EQ((*r)[i].error().fault_code, fault_code::kTransportError);
    EXPECT_EQ((*r)[i].error().message, "deadline exceeded");
  }
  EXPECT_EQ(runs.load(), 1);
}

// With a worker pool, the time a call waits in the queue counts against its deadline.
TEST(Deadline, QueuedCallPastItsDeadlineIsNotRun) {
  Server server(deadline_options(0ms, 1));
  std::atomic<int> runs{0};
  ASSERT_TRUE(server.bind("count", [&runs] { return ++runs; }));
  ASSERT_TRUE(server.bind("outlast", [](CallContext& ctx) {
    while (!ctx.expired()) std::this_thread::sleep_for(1ms);
    return true;
  }));
  ASSERT_TRUE(server.start());
  Client client(server.url());
  // The one worker is busy for 500 ms; the second call, sent at once, may wait only 20.
  auto first = client.async_call_with<bool>(timeout_header("500"), "outlast");
  auto second = client.async_call_with<int>(timeout_header("20"), "count");
  EXPECT_TRUE(first.get().value());
  Result<int> queued = second.get();
  ASSERT_FALSE(queued);
  EXPECT_EQ(queued.error().fault_code, fault_code::kTransportError);
  EXPECT_EQ(runs.load(), 0);
}

TEST(Deadline, ClientSendsItsRemainingTime) {
  Server server(deadline_options(0ms));
  ASSERT_TRUE(server.bind(
      "sent", [](CallContext& ctx) { return std::string(ctx.header("X-Callwire-Timeout")); }));
  ASSERT_TRUE(server.bind("left", [](CallContext& ctx) { return left_ms(ctx); }));
  ASSERT_TRUE(server.start());
  auto millis = [](const Result<std::string>& r) -> int64_t {
    EXPECT_TRUE(r) << r.error().message;
    if (!r || r->empty() || r->size() > 9) return -1;
    return std::stoll(*r);
  };
  {  // Off by default: nothing is sent.
    Client plain(server.url());
    EXPECT_EQ(*plain.call<std::string>("sent"), "");
    EXPECT_EQ(*plain.call<int64_t>("left"), -1);
  }
  ClientOptions o;
  o.timeout = 5000ms;
  o.send_timeout = true;
  Client client(server.url(), o);
  int64_t sent = millis(client.call<std::string>("sent"));
  EXPECT_GT(sent, 1000);
  EXPECT_LE(sent, 5000);
  // The server honours it.
  int64_t left = *client.call<int64_t>("left");
  EXPECT_GE(left, 0);
  EXPECT_LE(left, 5000);
  // A per-call timeout, with extra headers (the head is then built per call), async too.
  CallOptions call;
  call.timeout = 1234ms;
  call.headers = {{"X-Other", "1"}};
  sent = millis(client.call_with<std::string>(call, "sent"));
  EXPECT_GT(sent, 200);
  EXPECT_LE(sent, 1234);
  call.headers.clear();
  sent = millis(client.async_call_with<std::string>(call, "sent").get());
  EXPECT_GT(sent, 200);
  EXPECT_LE(sent, 1234);
}

// Conversions without a server: the edges the wire does not reach.
TEST(Convert, TimePointEdges) {
  using namespace std::chrono;
  Value v = Convert<system_clock::time_point>::to_value(system_clock::time_point(1500ms));
  EXPECT_EQ(v.as_datetime().to_string(), "19700101T00:00:01.500Z");
  DateTime offset = *DateTime::parse("1970-01-01T02:00:00+02:00");
  EXPECT_EQ(Convert<sys_seconds>::from_value(Value(offset))->time_since_epoch(), 0s);
  DateTime far = *DateTime::parse("99990101T00:00:00");
  auto r = Convert<system_clock::time_point>::from_value(Value(far));
  // libstdc++'s system_clock counts nanoseconds, up to 2262; libc++'s microseconds reach 9999.
  if (floor<days>(system_clock::time_point::max()) < sys_days(year(9999) / 1 / 1)) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message,
              "must be dateTime.iso8601 within the time_point range, got 99990101T00:00:00");
  } else {
    ASSERT_TRUE(r);
    EXPECT_EQ(floor<days>(*r), sys_days(year(9999) / 1 / 1));
  }
  EXPECT_TRUE(Convert<sys_seconds>::from_value(Value(far)));  // seconds reach that far
}

TEST(Convert, DoubleFloatAndIntegers) {
  EXPECT_EQ(*Convert<double>::from_value(Value(int64_t{1} << 53)), 9007199254740992.0);
  EXPECT_FALSE(Convert<double>::from_value(Value((int64_t{1} << 53) + 1)));
  EXPECT_FALSE(Convert<float>::from_value(Value(1e300)));
  EXPECT_EQ(Convert<int64_t>::from_value(Value(5)).value(), 5);
  EXPECT_EQ(Convert<int>::from_value(Value(true)).error().message, "must be int, got boolean");
  EXPECT_EQ(Convert<std::string>::from_value(Value(1)).error().message, "must be string, got int");
  EXPECT_THROW(Convert<uint64_t>::to_value(std::numeric_limits<uint64_t>::max()), Exception);
}

}  // namespace
}  // namespace callwire
