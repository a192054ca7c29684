// RequestDispatcher (callwire/dispatch.hpp): documents in, documents out, no server.
#include "callwire/dispatch.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

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
  EXPECT_EQ(read(small.dispatch(call_document("echo", {std::string(100, 'x')}))).fault.code,
            -32600);
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
