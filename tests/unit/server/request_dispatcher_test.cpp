// RequestDispatcher (callwire/dispatch.hpp): documents in, documents out, no server.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "callwire/dispatch.hpp"
#include "callwire/xml.hpp"

namespace callwire {
namespace {

std::string call_document(std::string_view method, std::vector<Value> params) {
  Buffer b;
  EXPECT_TRUE(xml::write_call(b, method, params));
  return std::string(b.view());
}

MethodResponse read(const std::string& document) {
  xml::Reader reader;
  Result<MethodResponse> r = reader.read_response(document);
  EXPECT_TRUE(r) << r.error().message << "\n" << document;
  return r ? std::move(*r) : MethodResponse{};
}

// Registry::set_default_method: names nobody registered go to it, with their parameters
// unchecked and the name in the context; system.* stays the server's; counted on its own.
TEST(RequestDispatcher, TheDefaultMethodTakesUnknownNames) {
  Registry registry;
  ASSERT_TRUE(registry.bind("sample.add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(registry.set_default_method([](Params params, CallContext& ctx) -> Value {
    if (ctx.method() == "forbidden") throw FaultError(-32601, "no forbidden here");
    return Value::structure(
        {{"called", Value(std::string(ctx.method()))}, {"count", Value(int(params.size()))}});
  }));
  RequestDispatcher dispatcher(registry);
  EXPECT_FALSE(registry.set_default_method(nullptr));  // frozen

  MethodResponse proxied = read(dispatcher.dispatch(call_document("any.thing", {1, "x", 2.5})));
  ASSERT_FALSE(proxied.is_fault);
  EXPECT_EQ(proxied.result["called"], Value("any.thing"));
  EXPECT_EQ(proxied.result["count"], Value(3));
  EXPECT_EQ(read(dispatcher.dispatch(call_document("sample.add", {2, 3}))).result, Value(5));
  MethodResponse refused = read(dispatcher.dispatch(call_document("forbidden", {})));
  EXPECT_TRUE(refused.is_fault);
  EXPECT_EQ(refused.fault.code, -32601);
  EXPECT_EQ(read(dispatcher.dispatch(call_document("system.nope", {}))).fault.code, -32601);
  MethodResponse exists =
      read(dispatcher.dispatch(call_document("system.methodExist", {"any.thing"})));
  EXPECT_EQ(exists.result, Value(false));  // introspection lists what is registered
  MethodResponse list = read(dispatcher.dispatch(call_document("system.listMethods", {})));
  for (const Value& name : list.result.as_array()) EXPECT_NE(name, Value("(default method)"));

  bool counted = false;
  for (const MethodStats& s : dispatcher.stats())
    if (s.name == "(default method)") {
      counted = true;
      EXPECT_EQ(s.calls, 2u);
      EXPECT_EQ(s.faults, 1u);
    }
  EXPECT_TRUE(counted);
}

// Registry::set_preinvoke: runs before every call (multicall entries and unknown names too),
// sees the method, the parameters and the header fields, and refuses with a fault.
TEST(RequestDispatcher, ThePreInvokeHookSeesEveryCallAndMayRefuse) {
  Registry registry;
  ASSERT_TRUE(registry.bind("sample.add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(registry.bind("admin.reset", [] { return true; }));
  std::vector<std::string> seen;
  ASSERT_TRUE(registry.set_preinvoke(
      [&](CallContext& ctx, std::span<const Value> params) -> std::optional<Fault> {
        seen.push_back(std::string(ctx.method()) + "/" + std::to_string(params.size()));
        if (ctx.method().starts_with("admin.") && ctx.user() != "root")
          return Fault{403, "admin methods need root"};
        if (ctx.method() == "boom") throw std::runtime_error("hook failed");
        return std::nullopt;
      }));
  RequestDispatcher dispatcher(registry);
  EXPECT_FALSE(registry.set_preinvoke(nullptr));  // frozen

  EXPECT_EQ(read(dispatcher.dispatch(call_document("sample.add", {2, 3}))).result, Value(5));
  MethodResponse refused = read(dispatcher.dispatch(call_document("admin.reset", {})));
  ASSERT_TRUE(refused.is_fault);
  EXPECT_EQ(refused.fault.code, 403);
  EXPECT_EQ(refused.fault.string, "admin methods need root");
  EXPECT_EQ(read(dispatcher.dispatch(call_document("nope", {1}))).fault.code, -32601);
  MethodResponse boom = read(dispatcher.dispatch(call_document("boom", {})));
  EXPECT_EQ(boom.fault.code, -32603);
  EXPECT_EQ(boom.fault.string, "hook failed");
  // Each multicall entry is asked too: the refused one is a fault entry, the others run.
  Value calls = Value::array(
      {Value::structure({{"methodName", Value("sample.add")}, {"params", Value::array({1, 1})}}),
       Value::structure({{"methodName", Value("admin.reset")}, {"params", Value::array()}})});
  MethodResponse multi = read(dispatcher.dispatch(call_document("system.multicall", {calls})));
  ASSERT_FALSE(multi.is_fault);
  EXPECT_EQ(multi.result[0][0], Value(2));
  EXPECT_EQ(multi.result[1]["faultCode"], Value(403));
  std::vector<std::string> want = {"sample.add/2",       "admin.reset/0", "nope/1",       "boom/0",
                                   "system.multicall/1", "sample.add/2",  "admin.reset/0"};
  EXPECT_EQ(seen, want);
  for (const MethodStats& s : dispatcher.stats())
    if (s.name == "admin.reset") {
      EXPECT_EQ(s.calls, 2u);  // refused calls count as the method's faults
      EXPECT_EQ(s.faults, 2u);
    }
}

TEST(RequestDispatcher, AnswersCallsAndFaults) {
  Registry registry;
  ASSERT_TRUE(registry.bind("sample.add", [](int a, int b) { return a + b; }));
  RequestDispatcher dispatcher(registry);
  EXPECT_TRUE(registry.frozen());
  EXPECT_FALSE(registry.bind("late", [] { return 1; }));  // read-only once dispatching

  MethodResponse ok = read(dispatcher.dispatch(call_document("sample.add", {5, 3})));
  ASSERT_FALSE(ok.is_fault);
  EXPECT_EQ(ok.result, Value(8));

  auto fault_code = [&](const std::string& request) {
    MethodResponse r = read(dispatcher.dispatch(request));
    EXPECT_TRUE(r.is_fault);
    return r.fault.code;
  };
  EXPECT_EQ(fault_code("<methodCall"), -32700);
  EXPECT_EQ(fault_code("<x/>"), -32600);
  EXPECT_EQ(fault_code(call_document("nope", {})), -32601);
  EXPECT_EQ(fault_code(call_document("sample.add", {1})), -32602);
  EXPECT_EQ(fault_code(""), -32700);

  MethodResponse list = read(dispatcher.dispatch(call_document("system.listMethods", {})));
  ASSERT_FALSE(list.is_fault);
  EXPECT_EQ(list.result[0], Value("sample.add"));

  std::vector<MethodStats> stats = dispatcher.stats();
  ASSERT_FALSE(stats.empty());
  EXPECT_EQ(stats[0].name, "sample.add");
  EXPECT_EQ(stats[0].calls, 2u);
  EXPECT_EQ(stats[0].faults, 1u);
}

TEST(RequestDispatcher, TheContentTypeChoosesJsonRpc) {
  Registry registry;
  ASSERT_TRUE(registry.bind("sample.add", [](int a, int b) { return a + b; }));
  RequestDispatcher dispatcher(registry);
  Buffer out;
  CallContext context;
  EXPECT_EQ(dispatcher.dispatch("application/json; charset=utf-8",
                                R"({"jsonrpc":"2.0","method":"sample.add","params":[5,3],"id":1})",
                                out, context),
            "application/json");
  EXPECT_EQ(out.view(), R"({"jsonrpc":"2.0","result":8,"id":1})");

  out.clear();  // a notification: no answer, and no type for it
  EXPECT_EQ(dispatcher.dispatch("application/json",
                                R"({"jsonrpc":"2.0","method":"sample.add","params":[5,3]})", out,
                                context),
            "");
  EXPECT_EQ(out.size(), 0u);

  out.clear();
  EXPECT_EQ(dispatcher.dispatch("text/xml", call_document("sample.add", {1, 2}), out, context),
            "text/xml");
  EXPECT_EQ(read(std::string(out.view())).result, Value(3));
  EXPECT_EQ(dispatcher.stats()[0].calls, 3u);  // one core counts both protocols
}

TEST(RequestDispatcher, AppendsToTheCallersBufferWithItsContext) {
  Registry registry;
  ASSERT_TRUE(registry.bind("whoami", [](CallContext& ctx) {
    return std::string(ctx.peer()) + " " + std::string(ctx.user()) + " " +
           std::string(ctx.header("x-trace"));
  }));
  RequestDispatcher dispatcher(registry);
  HeaderField fields[] = {{"X-Trace", "t1"}};
  CallContext context("10.0.0.1:5", "ann", fields);
  Buffer out;
  out.append("HEAD");
  dispatcher.dispatch(call_document("whoami", {}), out, context);
  ASSERT_TRUE(out.view().starts_with("HEAD<?xml"));
  EXPECT_EQ(read(std::string(out.view().substr(4))).result, Value("10.0.0.1:5 ann t1"));
}

TEST(RequestDispatcher, OptionsApply) {
  Registry registry;
  ASSERT_TRUE(registry.bind("big", [] { return int64_t{1} << 40; }));
  ASSERT_TRUE(registry.bind("remaining", [](CallContext& ctx) {
    return ctx.deadline() != std::chrono::steady_clock::time_point::max();
  }));
  DispatcherOptions o;
  o.dialect = OutputDialect::Apache;
  o.introspection = false;
  o.max_multicall_calls = 1;
  o.call_timeout = std::chrono::seconds(5);
  RequestDispatcher dispatcher(registry, o);
  EXPECT_NE(dispatcher.dispatch(call_document("big", {})).find("<ex:i8>"), std::string::npos);
  EXPECT_EQ(read(dispatcher.dispatch(call_document("system.listMethods", {}))).fault.code, -32601);
  EXPECT_EQ(read(dispatcher.dispatch(call_document("remaining", {}))).result, Value(true));
  Value two = Value::array({Value::structure({{"methodName", "big"}, {"params", Value::array()}}),
                            Value::structure({{"methodName", "big"}, {"params", Value::array()}})});
  EXPECT_EQ(read(dispatcher.dispatch(call_document("system.multicall", {two}))).fault.code, -32600);

  DispatcherOptions tiny;
  tiny.reader_limits.max_document_size = 64;
  Registry r2;
  ASSERT_TRUE(r2.bind("echo", [](std::string s) { return s; }));
  RequestDispatcher small(r2, tiny);
  MethodResponse over = read(small.dispatch(call_document("echo", {std::string(100, 'x')})));
  EXPECT_EQ(over.fault.code, -32600);
  // The fault names the limit, its value and where it was set.
  EXPECT_NE(over.fault.string.find(
                "max_document_size (64 bytes), set in DispatcherOptions::reader_limits"),
            std::string::npos)
      << over.fault.string;
}

TEST(RequestDispatcher, OnePerThreadOverOneRegistry) {
  Registry registry;
  ASSERT_TRUE(registry.bind("sample.add", [](int a, int b) { return a + b; }));
  RequestDispatcher first(registry);
  std::thread other([&registry] {
    RequestDispatcher second(registry);
    for (int i = 0; i < 200; ++i)
      EXPECT_EQ(read(second.dispatch(call_document("sample.add", {i, 1}))).result, Value(i + 1));
  });
  for (int i = 0; i < 200; ++i)
    EXPECT_EQ(read(first.dispatch(call_document("sample.add", {i, 2}))).result, Value(i + 2));
  other.join();
}

}  // namespace
}  // namespace callwire
