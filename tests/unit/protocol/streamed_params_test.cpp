// Bound handlers whose parameters are read straight from an XML-RPC request into their own
// types (ParamStream): the read each parameter takes, and that every request, good or
// bad, is answered exactly as the Value path answers it (the same dispatcher with a pre-invoke
// hook set, which sees Values and so keeps every call on that path).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "callwire/registry.hpp"
#include "callwire/struct.hpp"
#include "callwire/xml.hpp"
#include "protocol/dispatcher.hpp"

namespace streamed_test {

// A parameter type that tells how it was read: straight from the request, or from a Value.
struct Probe {
  int32_t n = 0;
};
int g_reads = 0;
int g_from_values = 0;

struct Point {
  int32_t x = 0;
  int32_t y = 0;
};
CALLWIRE_STRUCT(Point, x, y);

}  // namespace streamed_test

namespace callwire {
template <>
struct Convert<streamed_test::Probe> {
  static constexpr std::string_view type_name = "int";
  static Value to_value(const streamed_test::Probe& p) { return Value(p.n); }
  static Result<streamed_test::Probe> from_value(const Value& v) {
    ++streamed_test::g_from_values;
    Result<int32_t> n = Convert<int32_t>::from_value(v);
    if (!n) return n.error();
    return streamed_test::Probe{*n};
  }
  static Status read(ValueReader& r, streamed_test::Probe& p) {
    ++streamed_test::g_reads;
    Value v;
    if (Status s = r.read(v); !s) return s;
    Result<int32_t> n = Convert<int32_t>::from_value(v);
    if (!n) return n.error();
    p.n = *n;
    return {};
  }
};
}  // namespace callwire

namespace callwire::detail {
namespace {

using streamed_test::Point;
using streamed_test::Probe;

void bind_methods(Registry& r) {
  auto ok = [](Status s) { ASSERT_TRUE(s) << s.error().message; };
  ok(r.bind("probe", [](Probe a, Probe b) { return a.n + b.n; }));
  ok(r.bind("add", [](int a, int b) { return a + b; }));
  ok(r.bind("half", [](double d) { return d / 2; }));
  ok(r.bind("small", [](int8_t n) { return int(n); }));
  ok(r.bind("size", [](std::vector<uint8_t> bytes) { return int64_t(bytes.size()); }));
  ok(r.bind("sum", [](const std::vector<uint8_t>& bytes) {
    int64_t s = 0;
    for (uint8_t b : bytes) s += b;
    return s;
  }));
  ok(r.bind("greet", [](std::string who, std::optional<int> times) {
    std::string out;
    for (int i = 0; i < times.value_or(1); ++i) out += "hello " + who + ";";
    return out;
  }));
  ok(r.bind("norm", [](Point p) { return p.x * p.x + p.y * p.y; }));
  ok(r.bind("count", [](std::vector<Point> ps) { return int(ps.size()); }));
  ok(r.bind("nothing", []() { return std::string("nothing"); }));
  ok(r.bind("refuse", [](int n) -> Result<int> {
    if (n < 0) return Error(Errc::InvalidArgument, "negative");
    return n;
  }));
  ok(r.bind("context",
            [](CallContext& ctx, std::string s) { return std::string(ctx.method()) + ":" + s; }));
  // A view: read from a Value, never streamed.
  ok(r.bind("view", [](std::string_view s) { return int(s.size()); }));
}

struct Pair {
  Registry streaming;
  Registry values;  // the same methods, and a hook that keeps every call on the Value path
  std::unique_ptr<Dispatcher> streamed;
  std::unique_ptr<Dispatcher> plain;

  Pair() {
    bind_methods(streaming);
    bind_methods(values);
    EXPECT_TRUE(values.set_preinvoke(
        [](CallContext&, std::span<const Value>) -> std::optional<Fault> { return {}; }));
    streaming.freeze();
    values.freeze();
    streamed = std::make_unique<Dispatcher>(streaming, DispatchOptions{});
    plain = std::make_unique<Dispatcher>(values, DispatchOptions{});
  }
};

struct Answer {
  DispatchOutcome outcome;
  std::string document;
};

Answer answer(Dispatcher& d, std::string_view body) {
  CallContext ctx;
  Buffer out;
  Answer a;
  a.outcome = d.handle(body, ctx, out);
  a.document = std::string(out.view());
  return a;
}

std::string call_document(std::string_view method, std::initializer_list<Value> params) {
  std::vector<Value> v(params);
  Buffer b;
  EXPECT_TRUE(xml::write_call(b, method, v));
  return std::string(b.view());
}

std::string with_params(std::string_view method, std::string_view params) {
  return "<?xml version=\"1.0\"?><methodCall><methodName>" + std::string(method) +
         "</methodName><params>" + std::string(params) + "</params></methodCall>";
}

// `body` answered by both dispatchers, byte for byte the same; the streamed answer returned.
Answer same_answer(Pair& p, const std::string& body) {
  Answer s = answer(*p.streamed, body);
  Answer v = answer(*p.plain, body);
  EXPECT_EQ(s.document, v.document) << "request: " << body;
  EXPECT_EQ(s.outcome.method, v.outcome.method) << body;
  EXPECT_EQ(s.outcome.is_fault, v.outcome.is_fault) << body;
  EXPECT_EQ(s.outcome.fault_code, v.outcome.fault_code) << body;
  return s;
}

Value result_of(const Answer& a) {
  xml::Reader reader;
  auto r = reader.read_response(a.document);
  EXPECT_TRUE(r) << a.document;
  if (!r || r->is_fault) {
    ADD_FAILURE() << a.document;
    return Value();
  }
  return r->result;
}

TEST(StreamedParams, ReadStraightFromTheRequestWithoutAHook) {
  Pair p;
  streamed_test::g_reads = streamed_test::g_from_values = 0;
  EXPECT_EQ(result_of(answer(*p.streamed, call_document("probe", {2, 3}))), Value(5));
  EXPECT_EQ(streamed_test::g_reads, 2);
  EXPECT_EQ(streamed_test::g_from_values, 0);
  // With a pre-invoke hook, which sees Values: converted from them, as before.
  streamed_test::g_reads = streamed_test::g_from_values = 0;
  EXPECT_EQ(result_of(answer(*p.plain, call_document("probe", {2, 3}))), Value(5));
  EXPECT_EQ(streamed_test::g_reads, 0);
  EXPECT_EQ(streamed_test::g_from_values, 2);
}

TEST(StreamedParams, AParameterThatDoesNotReadGoesBackToTheValuePath) {
  Pair p;
  streamed_test::g_reads = streamed_test::g_from_values = 0;
  Answer a = same_answer(p, call_document("probe", {2, "three"}));
  EXPECT_TRUE(a.outcome.is_fault);
  EXPECT_NE(a.document.find("probe: parameter 2 must be int, got string"), std::string::npos)
      << a.document;
}

TEST(StreamedParams, GoodCallsAnswerAsTheValuePath) {
  Pair p;
  std::vector<uint8_t> blob(100000);
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = uint8_t(i * 7);
  int64_t blob_sum = 0;
  for (uint8_t b : blob) blob_sum += b;
  const std::vector<std::pair<std::string, Value>> calls = {
      {call_document("add", {2, 3}), Value(5)},
      {call_document("add", {Value::i8(2), 3}), Value(5)},  // an i8 in the int range
      {call_document("half", {3}), Value(1.5)},             // an int for a double
      {call_document("half", {Value::i8(5)}), Value(2.5)},
      {call_document("small", {-128}), Value(-128)},
      {call_document("size", {Value::bytes(blob.data(), blob.size())}), Value::i8(100000)},
      {call_document("sum", {Value::bytes(blob.data(), blob.size())}), Value::i8(blob_sum)},
      {call_document("size", {Value::bytes(nullptr, 0)}), Value::i8(0)},
      {call_document("greet", {"ann", 2}), Value("hello ann;hello ann;")},
      {call_document("greet", {"bo"}), Value("hello bo;")},           // the optional left out
      {call_document("greet", {"cy", Value()}), Value("hello cy;")},  // the optional as nil
      {call_document("norm", {Value::structure({{"x", 3}, {"y", 4}, {"z", 9}})}), Value(25)},
      {call_document("count", {Value::array({Value::structure({{"x", 1}, {"y", 2}}),
                                             Value::structure({{"y", 1}, {"x", 2}})})}),
       Value(2)},
      {call_document("nothing", {}), Value("nothing")},
      {call_document("refuse", {7}), Value(7)},
      {call_document("context", {"x"}), Value("context:x")},
      {call_document("view", {"four"}), Value(4)},
      // What peers send besides what write_call does.
      {with_params("add",
                   "<param><value><i4>1</i4></value></param>\n"
                   "<param><value><int>2</int></value></param>"),
       Value(3)},
      {with_params("greet", "<param><value>untyped</value></param>"), Value("hello untyped;")},
      {with_params("greet", "<param><value/></param>"), Value("hello ;")},
      {with_params("size", "<param><value><base64>AAEC\nAwQF\n</base64></value></param>"),
       Value::i8(6)},
      {"<methodCall><methodName>nothing</methodName></methodCall>", Value("nothing")},
      {"<methodCall><methodName>nothing</methodName><params/></methodCall>", Value("nothing")},
  };
  for (const auto& [body, expected] : calls) {
    Answer a = same_answer(p, body);
    EXPECT_EQ(result_of(a), expected) << body;
  }
}

TEST(StreamedParams, BadCallsAnswerAsTheValuePath) {
  Pair p;
  const std::vector<std::string> bodies = {
      call_document("add", {2}),                        // one too few
      call_document("add", {2, 3, 4}),                  // one too many
      call_document("add", {2, "3"}),                   // the wrong type
      call_document("add", {Value::i8(1LL << 40), 1}),  // an i8 beyond the int range
      call_document("half", {Value::i8((1LL << 53) + 1)}),
      call_document("small", {300}),
      call_document("size", {"not bytes"}),
      call_document("greet", {}),
      call_document("greet", {"ann", "twice"}),
      call_document("norm", {Value::structure({{"x", 3}})}),              // a member missing
      call_document("norm", {Value::structure({{"x", 3}, {"y", "4"}})}),  // a member's type
      call_document("count", {Value::array({1})}),
      call_document("refuse", {-1}),  // the handler's own fault
      call_document("nosuch", {1}),
      // Malformed documents: a parameter's value, the params, what comes after them.
      with_params("add", "<param><value><int>x</int></value></param>"),
      with_params("add", "<param><value><int>1</int></value></param><param/>"),
      with_params("add", "<param><value><int>1</int></value></param><value/>"),
      with_params("add", "<param><value><int>1</int></value><value/></param>"),
      with_params("size", "<param><value><base64>AA=A</base64></value></param>"),
      with_params("norm",
                  "<param><value><struct><member><name>x</name></member>"
                  "</struct></value></param>"),
      "<methodCall><methodName>add</methodName><params><param><value><int>1</int></value>"
      "</param><param><value><int>2</int></value></param></params></methodCall><extra/>",
      "<methodCall><methodName>add</methodName><params><param><value><int>1</int></value>"
      "</param><param><value><int>2</int></value></param></params>",
      "<methodCall><methodName>add</methodName><params><param><value><int>1</int></value>"
      "</param><param><value><int>2</int></value></param></params><params/></methodCall>",
      "<methodCall><methodName>nothing</methodName><junk/></methodCall>",
      "<methodCall><methodName>nothing</methodName></methodCall>trailing",
  };
  for (const std::string& body : bodies) {
    Answer a = same_answer(p, body);
    EXPECT_TRUE(a.outcome.is_fault) << body << "\n" << a.document;
  }
}

TEST(StreamedParams, AddStreamedTakesAHandWrittenReader) {
  Registry registry;
  int by_value = 0, by_stream = 0;
  Handler handler = [&](Params p, CallContext&) {
    ++by_value;
    return Value(int(p[0].as_string().size()));
  };
  EXPECT_FALSE(registry.add_streamed("len", handler, nullptr));
  StreamedHandler streamed = [&](ParamStream& params, CallContext&, Value& result) {
    ValueReader* r = params.next();
    std::string s;
    if (r == nullptr) return false;
    Result<Type> type = r->peek();
    if (!type || *type != Type::String || !r->read_string(s) || !params.finish()) return false;
    ++by_stream;
    result = Value(int(s.size()));
    return true;
  };
  ASSERT_TRUE(registry.add_streamed("len", handler, streamed, MethodInfo{{{"int", "string"}}}));
  registry.freeze();
  Dispatcher d(registry, {});
  EXPECT_EQ(result_of(answer(d, call_document("len", {"abc"}))), Value(3));
  EXPECT_EQ(by_stream, 1);
  EXPECT_EQ(by_value, 0);
  // Given up on: the Value path checks the signature and answers.
  Answer a = answer(d, call_document("len", {1}));
  EXPECT_NE(a.document.find("len: parameter 1 must be string, got int"), std::string::npos)
      << a.document;
  a = answer(d, call_document("len", {"abc", "def"}));
  EXPECT_NE(a.document.find("len takes 1 parameter, got 2"), std::string::npos) << a.document;
  EXPECT_EQ(by_stream, 1);
  EXPECT_EQ(by_value, 0);
}

TEST(StreamedParams, EachCallCountedOnceWhicheverPathAnswersIt) {
  Pair p;
  answer(*p.streamed, call_document("add", {1, 2}));      // streamed
  answer(*p.streamed, call_document("add", {1, "two"}));  // abandoned, then a fault
  answer(*p.streamed, with_params("add", "<param>"));     // malformed: no method counted
  std::vector<MethodStats> stats;
  p.streamed->add_stats_to(stats);
  auto add = std::find_if(stats.begin(), stats.end(), [](auto& s) { return s.name == "add"; });
  ASSERT_NE(add, stats.end());
  EXPECT_EQ(add->calls, 2u);
  EXPECT_EQ(add->faults, 1u);
}

}  // namespace
}  // namespace callwire::detail
