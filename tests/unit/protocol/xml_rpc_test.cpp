// The dispatcher, rule by rule (docs/server-dispatch.md): the fault mapping, signature checks,
// the system methods, multicall's cap and latch, the output dialect, the counters.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "callwire/xml.hpp"
#include "protocol/dispatcher.hpp"

namespace callwire::detail {
namespace {

// A registry with a few sample methods, frozen.
struct Fixture {
  Registry registry;
  int runs = 0;  // calls of sample.count

  Fixture() {
    auto ok = [](Status s) { ASSERT_TRUE(s) << s.error().message; };
    ok(registry.add(
        "sample.add", [](Params p, CallContext&) { return Value(p[0].as_int() + p[1].as_int()); },
        MethodInfo{{{"int", "int", "int"}}, "Adds two integers."}));
    ok(registry.add("echo", [](Params p, CallContext&) {
      Value a = Value::array();
      for (Value& v : p) a.push_back(std::move(v));
      return a;
    }));
    ok(registry.add("unchecked.add",
                    [](Params p, CallContext&) { return Value(p[0].as_int() + p[1].as_int()); }));
    ok(registry.add(
        "member", [](Params p, CallContext&) { return p[0]["x"]; },
        MethodInfo{{{"any", "any"}}, ""}));
    ok(registry.add("fault", [](Params p, CallContext&) -> Value {
      throw FaultError(int32_t(p[0].as_int()), std::string(p[1].as_string()));
    }));
    ok(registry.add("throw.runtime", [](Params, CallContext&) -> Value {
      throw std::runtime_error("disk on fire");
    }));
    ok(registry.add("throw.int", [](Params, CallContext&) -> Value { throw 42; }));
    ok(registry.add("throw.bad_alloc",
                    [](Params, CallContext&) -> Value { throw std::bad_alloc(); }));
    ok(registry.add("throw.unrepresentable", [](Params, CallContext&) -> Value {
      return Value(std::numeric_limits<uint64_t>::max());
    }));
    ok(registry.add("nan", [](Params, CallContext&) {
      return Value::array({1, std::numeric_limits<double>::quiet_NaN()});
    }));
    ok(registry.add("bad.utf8", [](Params, CallContext&) { return Value("caf\xC3"); }));
    ok(registry.add("fault.bad.utf8", [](Params, CallContext&) -> Value {
      throw FaultError(7, "bad \xFF byte and \x01 control");
    }));
    ok(registry.add("count", [this](Params, CallContext&) { return Value(++runs); }));
    ok(registry.add("pause", [](Params, CallContext&) {  // takes a known least time
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return Value(true);
    }));
    ok(registry.add("latch", [](Params, CallContext& ctx) {
      ctx.latch_fault(Fault{401, "authentication failed"});
      return Value("latched");
    }));
    ok(registry.add("context", [](Params, CallContext& ctx) {
      return Value::structure({{"method", ctx.method()},
                               {"peer", ctx.peer()},
                               {"user", ctx.user()},
                               {"agent", ctx.header("user-agent")}});
    }));
    ok(registry.add(
        "i8", [](Params, CallContext&) { return Value::i8(1LL << 40); }, MethodInfo{{{"i8"}}, ""}));
    ok(registry.add(
        "poly", [](Params p, CallContext&) { return Value(type_name(p[0].type())); },
        MethodInfo{{{"string", "int"}, {"string", "double"}, {"string", "string", "string"}},
                   "Polymorphic."}));
    registry.freeze();
  }
};

std::string call_document(std::string_view method, std::initializer_list<Value> params) {
  std::vector<Value> v(params);
  Buffer b;
  Status s = xml::write_call(b, method, v);
  EXPECT_TRUE(s) << s.error().message;
  return std::string(b.view());
}

// Dispatches `body`; checks that exactly one complete response document was appended.
struct Reply {
  DispatchOutcome outcome;
  MethodResponse response;
  std::string document;
};

Reply dispatch(Dispatcher& d, std::string_view body, CallContext& ctx) {
  Buffer out;
  out.append("PREFIX");  // handle() appends
  Reply r;
  r.outcome = d.handle(body, ctx, out);
  EXPECT_TRUE(out.view().starts_with("PREFIX"));
  r.document = std::string(out.view().substr(6));
  xml::Reader reader;
  auto read = reader.read_response(r.document);
  EXPECT_TRUE(read) << (read ? "" : read.error().message) << "\n" << r.document;
  if (read) r.response = std::move(*read);
  EXPECT_EQ(r.outcome.is_fault, r.response.is_fault);
  if (r.response.is_fault) {
    EXPECT_EQ(r.outcome.fault_code, r.response.fault.code);
  }
  return r;
}

Reply dispatch(Dispatcher& d, std::string_view body) {
  CallContext ctx;
  return dispatch(d, body, ctx);
}

Reply call(Dispatcher& d, std::string_view method, std::initializer_list<Value> params = {}) {
  return dispatch(d, call_document(method, params));
}

::testing::AssertionResult is_fault(const Reply& r, int32_t code, std::string_view words = {}) {
  if (!r.response.is_fault) return ::testing::AssertionFailure() << "not a fault: " << r.document;
  if (r.response.fault.code != code)
    return ::testing::AssertionFailure() << "fault " << r.response.fault.code << " ("
                                         << r.response.fault.string << "), expected " << code;
  if (r.response.fault.string.find(words) == std::string::npos)
    return ::testing::AssertionFailure()
           << "'" << r.response.fault.string << "' lacks '" << words << "'";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult is_result(const Reply& r, const Value& expected) {
  if (r.response.is_fault)
    return ::testing::AssertionFailure()
           << "fault " << r.response.fault.code << ": " << r.response.fault.string;
  if (!(r.response.result == expected)) return ::testing::AssertionFailure() << r.document;
  return ::testing::AssertionSuccess();
}

// ---- basics ----

TEST(Dispatcher, CallsTheHandler) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply r = call(d, "sample.add", {2, 3});
  EXPECT_TRUE(is_result(r, Value(5)));
  EXPECT_EQ(r.outcome.method, "sample.add");
  EXPECT_FALSE(r.outcome.is_fault);
  EXPECT_EQ(r.outcome.fault_code, 0);
  // One reader, one reused call: names and parameters of every size in turn.
  EXPECT_TRUE(is_result(call(d, "echo", {"a somewhat longer string than fits inline", 1}),
                        Value::array({"a somewhat longer string than fits inline", 1})));
  EXPECT_TRUE(is_result(call(d, "echo"), Value::array()));
  EXPECT_TRUE(is_result(call(d, "sample.add", {40, 2}), Value(42)));
}

TEST(Dispatcher, NeedsAFrozenRegistry) {
  Registry r;
  try {
    Dispatcher d(r, {});
    FAIL() << "constructed";
  } catch (const Exception& e) {
    EXPECT_EQ(e.error().code, Errc::InvalidArgument);
  }
}

TEST(Dispatcher, HandlerSeesItsContext) {
  Fixture f;
  Dispatcher d(f.registry, {});
  HeaderField headers[] = {{"User-Agent", "tests/1.0"}};
  CallContext ctx("[::1]:5000", "bob", headers);
  Reply r = dispatch(d, call_document("context", {}), ctx);
  EXPECT_TRUE(is_result(r, Value::structure({{"method", "context"},
                                             {"peer", "[::1]:5000"},
                                             {"user", "bob"},
                                             {"agent", "tests/1.0"}})));
}

// ---- the fault mapping ----

TEST(Dispatcher, ReadErrorsKeepTheirFaultCodeAndMessage) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply r = dispatch(d, "<methodCall><methodName>x</methodName>");
  EXPECT_TRUE(is_fault(r, -32700, "1:"));
  EXPECT_EQ(r.outcome.method, "");
  EXPECT_TRUE(
      is_fault(dispatch(d, "<?xml version=\"1.0\" encoding=\"EBCDIC\"?><methodCall/>"), -32701));
  EXPECT_TRUE(
      is_fault(dispatch(d, "<methodCall><methodName>\xFF</methodName></methodCall>"), -32702));
  EXPECT_TRUE(
      is_fault(dispatch(d, "<methodResponse><params/></methodResponse>"), -32600, "<methodCall>"));
  EXPECT_TRUE(is_fault(dispatch(d, "<!DOCTYPE x><methodCall/>"), -32600, "DOCTYPE"));
  // The reader error's message is the one sent.
  xml::Reader reader;
  Status direct =
      reader.read_call("<methodCall><methodName>x</methodName>", *std::make_unique<MethodCall>());
  EXPECT_EQ(dispatch(d, "<methodCall><methodName>x</methodName>").response.fault.string,
            direct.error().message);
}

TEST(Dispatcher, ReaderLimitsComeFromTheOptions) {
  Fixture f;
  DispatchOptions o;
  o.xml_rpc.limits.max_depth = 2;
  Dispatcher d(f.registry, o);
  Value deep = Value::array({Value::array({Value::array()})});
  EXPECT_TRUE(is_fault(dispatch(d, call_document("echo", {deep})), -32600, "depth"));
  EXPECT_TRUE(is_result(call(d, "echo", {Value::array({Value::array()})}),
                        Value::array({Value::array({Value::array()})})));
}

TEST(Dispatcher, UnknownMethodIsNamed) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply r = call(d, "no.such.method", {1});
  EXPECT_TRUE(is_fault(r, -32601, "unknown method 'no.such.method'"));
  EXPECT_EQ(r.outcome.method, "no.such.method");
  // A long name is cut in what is sent back, on a character boundary.
  std::string name(300, 'x');
  name[199] = '\xC3';  // a two-byte character across the cut
  name[200] = '\xA9';
  Reply long_name = call(d, name);
  EXPECT_TRUE(is_fault(long_name, -32601, std::string(199, 'x') + "...'"));
  EXPECT_LT(long_name.response.fault.string.size(), 230u);
}

TEST(Dispatcher, FaultErrorBecomesThatFault) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply r = call(d, "fault", {-32099, "custom trouble"});
  EXPECT_TRUE(is_fault(r, -32099));
  EXPECT_EQ(r.response.fault.string, "custom trouble");
  EXPECT_EQ(r.outcome.fault_code, -32099);
  EXPECT_TRUE(is_fault(call(d, "fault", {4, "four"}), 4, "four"));
}

TEST(Dispatcher, WrongValueTypesInTheHandlerAreInvalidParams) {
  Fixture f;
  Dispatcher d(f.registry, {});
  EXPECT_TRUE(is_fault(call(d, "unchecked.add", {1, "two"}), -32602, "expected int, got string"));
  // NotFound: a missing member or index.
  EXPECT_TRUE(
      is_fault(call(d, "member", {Value::structure({{"y", 1}})}), -32602, "no member named 'x'"));
  EXPECT_TRUE(is_fault(call(d, "member", {Value::array()}), -32602, "expected struct"));
}

TEST(Dispatcher, OtherExceptionsAreInternalErrors) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply runtime = call(d, "throw.runtime");
  EXPECT_TRUE(is_fault(runtime, -32603));
  EXPECT_EQ(runtime.response.fault.string, "disk on fire");
  Reply unknown = call(d, "throw.int");
  EXPECT_TRUE(is_fault(unknown, -32603));
  EXPECT_EQ(unknown.response.fault.string, "unknown exception");
  EXPECT_TRUE(is_fault(call(d, "throw.bad_alloc"), -32603, "bad_alloc"));
  // A callwire::Exception of another kind than a wrong type or a missing item.
  EXPECT_TRUE(is_fault(call(d, "throw.unrepresentable"), -32603));
}

TEST(Dispatcher, UnrepresentableResultsAreInternalErrors) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply nan = call(d, "nan");
  EXPECT_TRUE(is_fault(nan, -32603, "cannot be sent"));
  EXPECT_TRUE(is_fault(nan, -32603, "NaN"));
  EXPECT_TRUE(is_fault(call(d, "bad.utf8"), -32603, "UTF-8"));
}

TEST(Dispatcher, FaultStringsXmlCannotCarryAreRepaired) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply r = call(d, "fault.bad.utf8");
  EXPECT_TRUE(is_fault(r, 7));
  EXPECT_EQ(r.response.fault.string, "bad \xEF\xBF\xBD byte and \xEF\xBF\xBD control");
}

TEST(Dispatcher, XmlSafeText) {
  EXPECT_EQ(xml_safe_text("plain caf\xC3\xA9 \xF0\x9F\x98\x80\t\n"),
            "plain caf\xC3\xA9 \xF0\x9F\x98\x80\t\n");
  EXPECT_EQ(xml_safe_text("\xC3"), "\xEF\xBF\xBD");
  EXPECT_EQ(xml_safe_text(std::string_view("a\x00"
                                           "b",
                                           3)),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(xml_safe_text("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(xml_safe_text("\xEF\xBF\xBE"), "\xEF\xBF\xBD");  // U+FFFE is no XML character
}

// ---- signatures ----

TEST(Dispatcher, ParametersAreCheckedAgainstTheSignatures) {
  Fixture f;
  Dispatcher d(f.registry, {});
  EXPECT_TRUE(is_fault(call(d, "sample.add", {1, "two"}), -32602,
                       "sample.add: parameter 2 must be int, got string"));
  EXPECT_TRUE(
      is_fault(call(d, "sample.add", {1, 2, 3}), -32602, "sample.add takes 2 parameters, got 3"));
  // An i8 in range reaches the handler as an int (as_int() would refuse an i8).
  EXPECT_TRUE(is_result(call(d, "sample.add", {Value::i8(2), Value::i8(3)}), Value(5)));
  EXPECT_TRUE(
      is_fault(call(d, "sample.add", {Value::i8(1LL << 32), 1}), -32602, "out of the int range"));
  EXPECT_TRUE(is_result(call(d, "poly", {1}), Value("int")));
  EXPECT_TRUE(is_result(call(d, "poly", {Value::i8(1LL << 40)}), Value("double")));
  EXPECT_TRUE(is_result(call(d, "poly", {"a", "b"}), Value("string")));
  EXPECT_TRUE(
      is_fault(call(d, "poly", {"a"}), -32602, "parameter 1 must be int or double, got string"));
  EXPECT_TRUE(is_fault(call(d, "poly"), -32602, "poly takes 1 or 2 parameters, got 0"));
}

// ---- system methods ----

TEST(Dispatcher, ListMethods) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply r = call(d, "system.listMethods");
  ASSERT_TRUE(r.response.result.is_array()) << r.document;
  std::vector<std::string> names;
  for (const Value& v : r.response.result.as_array()) names.emplace_back(v.as_string());
  std::vector<std::string> expected = f.registry.names();
  for (const char* s : {"system.listMethods", "system.methodSignature", "system.methodHelp",
                        "system.methodExist", "system.multicall", "system.getCapabilities"})
    expected.push_back(s);
  EXPECT_EQ(names, expected);
  EXPECT_TRUE(is_fault(call(d, "system.listMethods", {1}), -32602, "takes no parameters"));
}

TEST(Dispatcher, MethodSignature) {
  Fixture f;
  Dispatcher d(f.registry, {});
  auto sig = [](std::initializer_list<Value> types) { return Value::array(types); };
  EXPECT_TRUE(is_result(call(d, "system.methodSignature", {"sample.add"}),
                        Value::array({sig({"int", "int", "int"})})));
  EXPECT_TRUE(is_result(call(d, "system.methodSignature", {"poly"}),
                        Value::array({sig({"string", "int"}), sig({"string", "double"}),
                                      sig({"string", "string", "string"})})));
  EXPECT_TRUE(is_result(call(d, "system.methodSignature", {"echo"}), Value("undef")));
  EXPECT_TRUE(is_result(call(d, "system.methodSignature", {"system.methodHelp"}),
                        Value::array({sig({"string", "string"})})));
  EXPECT_TRUE(is_fault(call(d, "system.methodSignature", {"nope"}), -32601, "'nope'"));
  EXPECT_TRUE(is_fault(call(d, "system.methodSignature", {1}), -32602, "must be string, got int"));
}

TEST(Dispatcher, MethodHelpAndExist) {
  Fixture f;
  Dispatcher d(f.registry, {});
  EXPECT_TRUE(is_result(call(d, "system.methodHelp", {"sample.add"}), Value("Adds two integers.")));
  EXPECT_TRUE(is_result(call(d, "system.methodHelp", {"echo"}), Value("")));
  Reply help = call(d, "system.methodHelp", {"system.multicall"});
  ASSERT_TRUE(help.response.result.is_string());
  EXPECT_NE(help.response.result.as_string().find("At most 1000 calls"), std::string::npos);
  EXPECT_TRUE(is_fault(call(d, "system.methodHelp", {"nope"}), -32601, "'nope'"));
  EXPECT_TRUE(is_result(call(d, "system.methodExist", {"sample.add"}), Value(true)));
  EXPECT_TRUE(is_result(call(d, "system.methodExist", {"system.multicall"}), Value(true)));
  EXPECT_TRUE(is_result(call(d, "system.methodExist", {"nope"}), Value(false)));
  EXPECT_TRUE(is_result(call(d, "system.methodExist", {"system.shutdown"}), Value(false)));
}

TEST(Dispatcher, IntrospectionOff) {
  Fixture f;
  DispatchOptions o;
  o.core.introspection = false;
  Dispatcher d(f.registry, o);
  for (const char* m :
       {"system.listMethods", "system.methodSignature", "system.methodHelp", "system.methodExist"})
    EXPECT_TRUE(is_fault(call(d, m, {"sample.add"}), -32601, m));
  Reply caps = call(d, "system.getCapabilities");
  ASSERT_TRUE(caps.response.result.is_struct());
  EXPECT_EQ(caps.response.result.find("introspection"), nullptr);
  Value calls = Value::array(
      {Value::structure({{"methodName", "sample.add"}, {"params", Value::array({1, 2})}}),
       Value::structure({{"methodName", "system.listMethods"}, {"params", Value::array()}})});
  Reply multi = call(d, "system.multicall", {calls});
  ASSERT_TRUE(multi.response.result.is_array()) << multi.document;
  EXPECT_EQ(multi.response.result[0], Value::array({3}));
  EXPECT_EQ(multi.response.result[1]["faultCode"], Value(-32601));
}

TEST(Dispatcher, GetCapabilities) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply r = call(d, "system.getCapabilities");
  ASSERT_TRUE(r.response.result.is_struct()) << r.document;
  const Value& caps = r.response.result;
  EXPECT_EQ(caps["faults_interop"]["specUrl"],
            Value("http://xmlrpc-epi.sourceforge.net/specs/rfc.fault_codes.php"));
  EXPECT_EQ(caps["faults_interop"]["specVersion"], Value(20010516));
  EXPECT_EQ(caps["json-rpc"]["specVersion"], Value(2));  // every protocol served is listed
  for (const char* name : {"introspection", "multicall", "nil", "i8", "json-rpc"}) {
    ASSERT_NE(caps.find(name), nullptr) << name;
    EXPECT_TRUE(caps[name]["specUrl"].is_string()) << name;
    EXPECT_TRUE(caps[name]["specVersion"].is_int()) << name;
  }
}

TEST(Dispatcher, ShutdownOnlyWhenEnabled) {
  Fixture f;
  {
    Dispatcher d(f.registry, {});
    EXPECT_TRUE(is_fault(call(d, "system.shutdown"), -32601, "system.shutdown"));
  }
  int shutdowns = 0;
  DispatchOptions o;
  o.core.on_shutdown = [&](std::string_view) { ++shutdowns; };
  Dispatcher d(f.registry, o);
  EXPECT_TRUE(is_result(call(d, "system.shutdown"), Value(0)));
  EXPECT_TRUE(is_result(call(d, "system.shutdown", {"maintenance"}), Value(0)));
  EXPECT_EQ(shutdowns, 2);
  EXPECT_TRUE(is_fault(call(d, "system.shutdown", {1}), -32602));
  EXPECT_EQ(shutdowns, 2);
  Reply list = call(d, "system.listMethods");
  EXPECT_EQ(list.response.result.as_array().back(), Value("system.shutdown"));
  EXPECT_TRUE(is_result(call(d, "system.methodExist", {"system.shutdown"}), Value(true)));
}

// ---- system.multicall ----

Value entry(std::string_view method, std::initializer_list<Value> params = {}) {
  return Value::structure({{"methodName", method}, {"params", Value::array(params)}});
}

Value fault_entry(int32_t code, std::string_view string) {
  return Value::structure({{"faultCode", code}, {"faultString", string}});
}

TEST(Dispatcher, MulticallAnswersEachEntry) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Value calls = Value::array({entry("sample.add", {1, 2}), entry("fault", {3, "three"}),
                              entry("nope"), entry("sample.add", {1}),
                              entry("system.methodExist", {"echo"}), entry("throw.runtime")});
  Reply r = call(d, "system.multicall", {calls});
  EXPECT_EQ(r.outcome.method, "system.multicall");
  EXPECT_TRUE(
      is_result(r, Value::array({Value::array({3}), fault_entry(3, "three"),
                                 fault_entry(-32601, "unknown method 'nope'"),
                                 fault_entry(-32602, "sample.add takes 2 parameters, got 1"),
                                 Value::array({true}), fault_entry(-32603, "disk on fire")})));
  EXPECT_TRUE(is_result(call(d, "system.multicall", {Value::array()}), Value::array()));
}

TEST(Dispatcher, MulticallRefusesMalformedEntries) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Value calls = Value::array({
      Value("sample.add"),
      Value::structure({{"params", Value::array()}}),
      Value::structure({{"methodName", 5}, {"params", Value::array()}}),
      Value::structure({{"methodName", "echo"}}),
      Value::structure({{"methodName", "echo"}, {"params", "x"}}),
      entry("system.multicall", {Value::array({entry("echo", {1})})}),
      entry("echo", {1}),
  });
  Reply r = call(d, "system.multicall", {calls});
  ASSERT_TRUE(r.response.result.is_array()) << r.document;
  const Value& out = r.response.result;
  ASSERT_EQ(out.size(), 7u);
  const char* words[] = {"call 1 is not a struct",     "call 2 has no methodName",
                         "call 3 has no methodName",   "call 4 has no params array",
                         "call 5 has no params array", "cannot be nested"};
  for (size_t i = 0; i < 6; ++i) {
    ASSERT_TRUE(out[i].is_struct()) << i;
    EXPECT_EQ(out[i]["faultCode"], Value(-32600)) << i;
    EXPECT_NE(out[i]["faultString"].as_string().find(words[i]), std::string::npos)
        << out[i]["faultString"].as_string();
  }
  EXPECT_EQ(out[6], Value::array({Value::array({1})}));
  // Not one array parameter: the whole call is refused.
  EXPECT_TRUE(
      is_fault(call(d, "system.multicall", {entry("echo")}), -32602, "must be array, got struct"));
  EXPECT_TRUE(is_fault(call(d, "system.multicall"), -32602));
}

TEST(Dispatcher, MulticallIsCapped) {
  Fixture f;
  DispatchOptions o;
  o.core.max_multicall_calls = 3;
  Dispatcher d(f.registry, o);
  Value three = Value::array({entry("count"), entry("count"), entry("count")});
  EXPECT_TRUE(is_result(call(d, "system.multicall", {three}),
                        Value::array({Value::array({1}), Value::array({2}), Value::array({3})})));
  Value four = Value::array({entry("count"), entry("count"), entry("count"), entry("count")});
  Reply r = call(d, "system.multicall", {four});
  EXPECT_TRUE(is_fault(r, -32600, "4 calls exceed the limit of 3 (max_multicall_calls)"));
  EXPECT_EQ(r.outcome.fault_code, -32600);
  EXPECT_EQ(f.runs, 3);  // none of the four ran
}

TEST(Dispatcher, LatchedFaultAnswersTheRestOfTheMulticall) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Value calls = Value::array(
      {entry("count"), entry("latch"), entry("count"), entry("nope"), entry("sample.add", {1, 2})});
  Reply r = call(d, "system.multicall", {calls});
  Fault latched{401, "authentication failed"};
  EXPECT_TRUE(is_result(r, Value::array({Value::array({1}), Value::array({"latched"}),
                                         fault_entry(401, "authentication failed"),
                                         fault_entry(401, "authentication failed"),
                                         fault_entry(401, "authentication failed")})));
  EXPECT_EQ(f.runs, 1);
  // The latch lasts one request, even with the same context.
  CallContext ctx;
  dispatch(d, call_document("system.multicall", {Value::array({entry("latch")})}), ctx);
  ASSERT_NE(ctx.latched_fault(), nullptr);
  Reply next =
      dispatch(d, call_document("system.multicall", {Value::array({entry("count")})}), ctx);
  EXPECT_TRUE(is_result(next, Value::array({Value::array({2})})));
  EXPECT_EQ(ctx.latched_fault(), nullptr);
  // Outside a multicall a latch changes nothing.
  EXPECT_TRUE(is_result(call(d, "latch"), Value("latched")));
}

// A handler whose deadline has passed is not run: fault -32300, counted as a fault.
TEST(Dispatcher, DeadlinePassedIsFault32300) {
  using Clock = std::chrono::steady_clock;
  using namespace std::chrono_literals;
  Registry registry;
  int runs = 0;
  ASSERT_TRUE(registry.add("count", [&runs](Params, CallContext&) { return Value(++runs); }));
  ASSERT_TRUE(registry.add("outlast", [](Params, CallContext& ctx) {
    while (!ctx.expired()) std::this_thread::sleep_for(1ms);
    return Value(true);
  }));
  registry.freeze();
  Dispatcher d(registry, {});

  CallContext none;
  EXPECT_EQ(none.deadline(), Clock::time_point::max());
  EXPECT_FALSE(none.expired());
  EXPECT_TRUE(is_result(dispatch(d, call_document("count", {}), none), Value(1)));

  CallContext future;
  CallContextAccess::set_deadline(future, Clock::now() + 1h);
  EXPECT_FALSE(future.expired());
  EXPECT_GT(future.remaining(), 59min);
  EXPECT_TRUE(is_result(dispatch(d, call_document("count", {}), future), Value(2)));

  CallContext past;
  CallContextAccess::set_deadline(past, Clock::now() - 1ms);
  EXPECT_TRUE(past.expired());
  EXPECT_EQ(past.remaining(), Clock::duration::zero());
  Reply r = dispatch(d, call_document("count", {}), past);
  EXPECT_TRUE(is_fault(r, -32300, "deadline exceeded"));
  EXPECT_EQ(r.outcome.fault_code, -32300);
  EXPECT_EQ(runs, 2);
  // A whole multicall past its deadline is one fault.
  EXPECT_TRUE(is_fault(
      dispatch(d, call_document("system.multicall", {Value::array({entry("count")})}), past),
      -32300));
  EXPECT_EQ(runs, 2);

  // The entries after one that outlasted the deadline are answered without running.
  CallContext soon;
  CallContextAccess::set_deadline(soon, Clock::now() + 50ms);
  Value calls = Value::array({entry("count"), entry("outlast"), entry("count"), entry("nope")});
  Reply m = dispatch(d, call_document("system.multicall", {calls}), soon);
  EXPECT_TRUE(is_result(m, Value::array({Value::array({3}), Value::array({true}),
                                         fault_entry(-32300, "deadline exceeded"),
                                         fault_entry(-32601, "unknown method 'nope'")})));
  EXPECT_EQ(runs, 3);

  std::vector<MethodStats> sums;
  d.add_stats_to(sums);
  EXPECT_EQ(sums[0].name, "count");
  EXPECT_EQ(sums[0].calls, 5u);  // three ran, two answered with the deadline fault
  EXPECT_EQ(sums[0].faults, 2u);
}

TEST(Dispatcher, MulticallEntriesSeeTheirOwnMethod) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Reply r = call(d, "system.multicall", {Value::array({entry("context")})});
  ASSERT_TRUE(r.response.result.is_array()) << r.document;
  EXPECT_EQ(r.response.result[0][0]["method"], Value("context"));
}

TEST(Dispatcher, MulticallEntriesThatCannotBeWrittenBecomeFaults) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Value calls = Value::array({entry("sample.add", {1, 1}), entry("nan"), entry("fault.bad.utf8"),
                              entry("bad.utf8"), entry("sample.add", {2, 2})});
  Reply r = call(d, "system.multicall", {calls});
  ASSERT_FALSE(r.response.is_fault) << r.document;
  const Value& out = r.response.result;
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], Value::array({2}));
  EXPECT_EQ(out[1]["faultCode"], Value(-32603));
  EXPECT_NE(out[1]["faultString"].as_string().find("NaN"), std::string::npos);
  EXPECT_EQ(out[2], fault_entry(7, "bad \xEF\xBF\xBD byte and \xEF\xBF\xBD control"));
  EXPECT_EQ(out[3]["faultCode"], Value(-32603));
  EXPECT_EQ(out[4], Value::array({4}));
}

// ---- dialect ----

bool apache_output(const Reply& r) { return r.document.find("xmlns:ex=") != std::string::npos; }

TEST(Dispatcher, DialectFixedByTheOptions) {
  Fixture f;
  DispatchOptions o;
  o.xml_rpc.dialect = OutputDialect::Apache;
  Dispatcher apache(f.registry, o);
  Reply a = call(apache, "i8");
  EXPECT_NE(a.document.find("<ex:i8>1099511627776</ex:i8>"), std::string::npos) << a.document;
  EXPECT_TRUE(is_result(a, Value::i8(1LL << 40)));
  EXPECT_TRUE(apache_output(call(apache, "nope")));  // faults too
  o.xml_rpc.dialect = OutputDialect::I8;
  Dispatcher i8(f.registry, o);
  HeaderField agent[] = {{"User-Agent", "Apache XML RPC 3.1.3 (Sun HTTP Transport)"}};
  CallContext ctx("", "", agent);
  Reply b = dispatch(i8, call_document("i8", {}), ctx);
  EXPECT_NE(b.document.find("<i8>1099511627776</i8>"), std::string::npos) << b.document;
  EXPECT_FALSE(apache_output(b));
}

TEST(Dispatcher, DialectAutoAnswersInKind) {
  Fixture f;
  Dispatcher d(f.registry, {});
  EXPECT_FALSE(apache_output(call(d, "i8")));
  // A prefixed type in the request.
  std::string prefixed =
      "<methodCall><methodName>echo</methodName><params><param><value><ex:nil/></value></param>"
      "</params></methodCall>";
  Reply r = dispatch(d, prefixed);
  EXPECT_TRUE(apache_output(r)) << r.document;
  EXPECT_NE(r.document.find("<ex:nil/>"), std::string::npos) << r.document;
  EXPECT_TRUE(is_result(r, Value::array({Value()})));
  // The next request starts afresh.
  EXPECT_FALSE(apache_output(call(d, "i8")));
  // The namespace declared, nothing prefixed.
  std::string declared =
      "<methodCall xmlns:ex=\"http://ws.apache.org/xmlrpc/namespaces/extensions\"><methodName>i8"
      "</methodName></methodCall>";
  EXPECT_TRUE(apache_output(dispatch(d, declared)));
  // Apache's User-Agent, in any case of the field name.
  HeaderField agent[] = {
      {"user-agent", "Apache XML RPC 3.1.3 (Jakarta Commons httpclient Transport)"}};
  CallContext ctx("", "", agent);
  EXPECT_TRUE(apache_output(dispatch(d, call_document("i8", {}), ctx)));
  HeaderField other[] = {{"User-Agent", "Python-xmlrpc/3.11"}};
  CallContext python("", "", other);
  EXPECT_FALSE(apache_output(dispatch(d, call_document("i8", {}), python)));
}

// ---- counters ----

const MethodStats* stats_of(const std::vector<MethodStats>& all, std::string_view name) {
  for (const MethodStats& s : all)
    if (s.name == name) return &s;
  return nullptr;
}

TEST(Dispatcher, CountsCallsFaultsAndTime) {
  Fixture f;
  DispatchOptions o;
  o.core.on_shutdown = [](std::string_view) {};
  Dispatcher d(f.registry, o);
  call(d, "sample.add", {1, 2});
  call(d, "sample.add", {1, "x"});  // a signature fault
  call(d, "nan");                   // a result that cannot be sent
  call(d, "fault", {1, "x"});
  call(d, "nope");          // not counted anywhere
  dispatch(d, "<not-xml");  // nor this
  call(d, "system.multicall",
       {Value::array({entry("sample.add", {1, 1}), entry("throw.int"), entry("nan"), entry("pause"),
                      entry("latch"), entry("echo")})});

  std::vector<MethodStats> sums;
  d.add_stats_to(sums);
  ASSERT_EQ(sums.size(), f.registry.size() + 7);
  // Indexed like the registry, then the system methods.
  std::vector<std::string> names = f.registry.names();
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(sums[i].name, names[i]);
  EXPECT_EQ(sums[names.size()].name, "system.listMethods");
  EXPECT_EQ(sums.back().name, "system.shutdown");

  const MethodStats* add = stats_of(sums, "sample.add");
  EXPECT_EQ(add->calls, 3u);
  EXPECT_EQ(add->faults, 1u);
  EXPECT_GT(add->total_time.count(), 0);
  EXPECT_EQ(stats_of(sums, "nan")->calls, 2u);
  EXPECT_EQ(stats_of(sums, "nan")->faults, 2u);
  EXPECT_EQ(stats_of(sums, "fault")->faults, 1u);
  EXPECT_EQ(stats_of(sums, "throw.int")->faults, 1u);
  EXPECT_EQ(stats_of(sums, "latch")->calls, 1u);
  EXPECT_EQ(stats_of(sums, "echo")->calls, 0u);  // answered by the latch, never run
  EXPECT_EQ(stats_of(sums, "system.multicall")->calls, 1u);
  EXPECT_EQ(stats_of(sums, "system.multicall")->faults, 0u);
  // The multicall's time holds its entries' times: it ran the pause, so it took at least as long.
  const MethodStats* pause = stats_of(sums, "pause");
  EXPECT_EQ(pause->calls, 1u);
  EXPECT_GE(pause->total_time, std::chrono::milliseconds(2));
  EXPECT_GE(stats_of(sums, "system.multicall")->total_time, pause->total_time);
  uint64_t total = 0;
  for (const MethodStats& s : sums) total += s.calls;
  EXPECT_EQ(total, 3u + 2u + 1u + 1u + 1u + 1u + 1u);

  // Summing a second dispatcher's counters into the same vector.
  Dispatcher other(f.registry, o);
  call(other, "sample.add", {5, 5});
  other.add_stats_to(sums);
  EXPECT_EQ(stats_of(sums, "sample.add")->calls, 4u);
  EXPECT_EQ(sums.size(), f.registry.size() + 7);
}

TEST(Dispatcher, CountersReadFromAnotherThread) {
  Fixture f;
  Dispatcher d(f.registry, {});
  const std::string body = call_document("sample.add", {1, 2});
  constexpr int kCalls = 2000;
  std::atomic<bool> done{false};
  uint64_t last_seen = 0;
  bool went_back = false;
  std::thread reader([&] {
    while (!done.load()) {
      std::vector<MethodStats> sums;
      d.add_stats_to(sums);
      uint64_t calls = sums[0].calls;
      if (calls < last_seen) went_back = true;
      last_seen = calls;
    }
  });
  Buffer out;
  CallContext ctx;
  for (int i = 0; i < kCalls; ++i) {
    out.clear();
    d.handle(body, ctx, out);
  }
  done.store(true);
  reader.join();
  EXPECT_FALSE(went_back);
  std::vector<MethodStats> sums;
  d.add_stats_to(sums);
  EXPECT_EQ(sums[0].calls, uint64_t(kCalls));
}

}  // namespace
}  // namespace callwire::detail
