// Allocations per dispatched call: once warm, a call costs the allocations of its values and
// nothing else (the reader, the MethodCall, the output buffer and the counters are reused).
// The binary replaces malloc to count (so it is not built under the sanitizers).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/xml.hpp"
#include "protocol/dispatcher.hpp"
#include "value/value_build.hpp"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
}

namespace {
std::atomic<size_t> g_allocations{0};
}  // namespace

extern "C" {
void* malloc(size_t n) {
  ++g_allocations;
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t m) {
  ++g_allocations;
  return __libc_calloc(n, m);
}
void* realloc(void* old, size_t n) {
  ++g_allocations;
  return __libc_realloc(old, n);
}
void free(void* p) { __libc_free(p); }
}

namespace callwire::detail {
namespace {

// Allocations of one handle() of `body`, after a few warm-up rounds.
size_t allocations_per_call(Dispatcher& d, const std::string& body, CallContext& ctx,
                            Protocol protocol = Protocol::XmlRpc) {
  Buffer out;
  for (int i = 0; i < 3; ++i) {
    out.clear();
    d.handle(protocol, body, ctx, out);
  }
  out.clear();
  size_t before = g_allocations.load();
  DispatchOutcome outcome = d.handle(protocol, body, ctx, out);
  size_t n = g_allocations.load() - before;
  EXPECT_FALSE(outcome.is_fault) << out.view();
  return n;
}

std::string document(std::string_view method, std::vector<Value> params) {
  Buffer b;
  EXPECT_TRUE(xml::write_call(b, method, params));
  return std::string(b.view());
}

TEST(Allocations, OnlyTheValuesOfACall) {
  Registry registry;
  ASSERT_TRUE(registry.add(
      "validator1.simpleAdd",
      [](Params p, CallContext&) { return Value(p[0].as_int() + p[1].as_int()); },
      MethodInfo{{{"int", "int", "int"}}, ""}));
  ASSERT_TRUE(registry.add("nothing", [](Params, CallContext&) { return Value(); }));
  registry.freeze();
  Dispatcher d(registry, {});
  HeaderField headers[] = {{"Host", "x"}, {"User-Agent", "Python-xmlrpc/3.11"}};
  CallContext ctx("127.0.0.1:1", "", headers);
  // The parameters' array is the one block (ints and the result live inside Values), and once
  // warm it comes from the thread's cache of value blocks where there is one.
  const size_t params_array = value_cache_limit() > 0 ? 0u : 1u;
  EXPECT_EQ(allocations_per_call(d, document("validator1.simpleAdd", {Value::i8(1), 2}), ctx),
            params_array);
  EXPECT_EQ(allocations_per_call(d, document("nothing", {}), ctx), 0u);
}

// A typed result is written straight into the JSON-RPC answer, as into the XML-RPC one: a
// table of strings and structs costs no allocation of its own, where its Value would cost one
// per string and container.
TEST(Allocations, TypedResultsWrittenDirectlyCostNothingOfTheirOwn) {
  using Entry = std::map<std::string, std::vector<std::string>>;
  static const std::vector<Entry> table(
      100,
      Entry{{"names", {"a string longer than 16 bytes", "another string too long"}}, {"more", {}}});
  Registry registry;
  ASSERT_TRUE(registry.bind("table", []() -> const std::vector<Entry>& { return table; }));
  ASSERT_TRUE(registry.add("table.value", [](Params, CallContext&) {
    return Convert<std::vector<Entry>>::to_value(table);
  }));
  ASSERT_TRUE(registry.bind("nothing", [] { return std::vector<Entry>(); }));
  registry.freeze();
  Dispatcher d(registry, {});
  CallContext ctx;
  auto json = [&](std::string_view method) {
    return allocations_per_call(
        d, R"({"jsonrpc":"2.0","method":")" + std::string(method) + R"(","id":1})", ctx,
        Protocol::JsonRpc);
  };
  const size_t baseline = json("nothing");
  EXPECT_EQ(json("table"), baseline);
  EXPECT_GT(json("table.value"), baseline + 100);
  EXPECT_EQ(allocations_per_call(d, document("table", {}), ctx),
            allocations_per_call(d, document("nothing", {}), ctx));
}

}  // namespace
}  // namespace callwire::detail
