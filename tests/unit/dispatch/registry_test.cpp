// The registry's rules for adding methods, and CallContext's accessors.
#include "callwire/registry.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace callwire {
namespace {

Value nothing(Params, CallContext&) { return Value(); }

TEST(Registry, AddsInRegistrationOrder) {
  Registry r;
  EXPECT_TRUE(r.add("b.second", nothing));
  EXPECT_TRUE(r.add("a.first", nothing, MethodInfo{{{"int", "int"}}, "help"}));
  EXPECT_TRUE(r.add("c", nothing));
  EXPECT_EQ(r.size(), 3u);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"b.second", "a.first", "c"}));
  EXPECT_TRUE(r.contains("a.first"));
  EXPECT_TRUE(r.contains(std::string_view("c.xyz", 1)));
  EXPECT_FALSE(r.contains("a.firs"));
  EXPECT_FALSE(r.contains("system.listMethods"));
}

void expect_refused(Registry& r, std::string name, Handler h, MethodInfo info,
                    std::string_view words) {
  size_t before = r.size();
  Status s = r.add(name, std::move(h), std::move(info));
  ASSERT_FALSE(s) << name;
  EXPECT_EQ(s.error().code, Errc::InvalidArgument);
  EXPECT_NE(s.error().message.find(words), std::string::npos) << s.error().message;
  EXPECT_EQ(r.size(), before);
}

TEST(Registry, RefusesWhatTheHeaderSays) {
  Registry r;
  ASSERT_TRUE(r.add("m", nothing));
  expect_refused(r, "", nothing, {}, "empty");
  expect_refused(r, "m", nothing, {}, "already registered");
  expect_refused(r, "system.listMethods", nothing, {}, "system.");
  expect_refused(r, "system.mine", nothing, {}, "system.");
  expect_refused(r, "n", Handler(), {}, "handler is empty");
  expect_refused(r, "n", nothing, MethodInfo{{{"int"}, {}}, ""}, "signature 2: no return type");
  expect_refused(r, "n", nothing, MethodInfo{{{"int", "integer"}}, ""},
                 "unknown type name 'integer'");
  expect_refused(r, "n", nothing, MethodInfo{{{"Int"}}, ""}, "unknown type name 'Int'");
  EXPECT_FALSE(r.contains("n"));
  // A name that merely contains "system." is the user's.
  EXPECT_TRUE(r.add("my.system.call", nothing));
  EXPECT_TRUE(r.add("systemic", nothing));
}

TEST(Registry, AcceptsEveryDocumentedTypeName) {
  Registry r;
  EXPECT_TRUE(
      r.add("all", nothing,
            MethodInfo{{{"int", "i4", "i8", "boolean", "double", "string", "dateTime.iso8601",
                         "base64", "array", "struct", "nil", "undef", "any"}},
                       ""}));
}

TEST(Registry, FrozenRefusesAdds) {
  Registry r;
  EXPECT_FALSE(r.frozen());
  ASSERT_TRUE(r.add("m", nothing));
  r.freeze();
  EXPECT_TRUE(r.frozen());
  expect_refused(r, "n", nothing, {}, "frozen");
  EXPECT_TRUE(r.contains("m"));
}

// Several servers (or C dispatchers) sharing one registry each freeze it from their own
// thread; under TSan this caught a plain bool.
TEST(Registry, FreezingFromSeveralThreadsIsNotARace) {
  Registry r;
  ASSERT_TRUE(r.add("m", nothing));
  std::thread a([&] { r.freeze(); });
  std::thread b([&] { r.freeze(); });
  a.join();
  b.join();
  EXPECT_TRUE(r.frozen());
  EXPECT_FALSE(r.add("late", nothing));
}

TEST(CallContext, HeadersAreCaseInsensitiveFirstMatch) {
  HeaderField fields[] = {
      {"Host", "example.com"}, {"user-AGENT", "first"}, {"User-Agent", "second"}, {"X-Empty", ""}};
  CallContext ctx("127.0.0.1:4000", "alice", fields);
  EXPECT_EQ(ctx.peer(), "127.0.0.1:4000");
  EXPECT_EQ(ctx.user(), "alice");
  EXPECT_EQ(ctx.headers().size(), 4u);
  EXPECT_EQ(ctx.header("User-Agent"), "first");
  EXPECT_EQ(ctx.header("HOST"), "example.com");
  EXPECT_EQ(ctx.header("host"), "example.com");
  EXPECT_EQ(ctx.header("Hos"), "");
  EXPECT_EQ(ctx.header("Hostx"), "");
  EXPECT_EQ(ctx.header("X-Empty"), "");
  // Only ASCII letters fold: '@' (0x40) and '`' (0x60) are not a pair.
  HeaderField odd[] = {{"a@b", "1"}};
  CallContext other("", "", odd);
  EXPECT_EQ(other.header("A@B"), "1");
  EXPECT_EQ(other.header("a`b"), "");
  EXPECT_EQ(CallContext().header("Host"), "");
}

TEST(CallContext, LatchKeepsTheLastFault) {
  CallContext ctx;
  EXPECT_EQ(ctx.latched_fault(), nullptr);
  ctx.latch_fault(Fault{1, "one"});
  ctx.latch_fault(Fault{2, "two"});
  ASSERT_NE(ctx.latched_fault(), nullptr);
  EXPECT_EQ(*ctx.latched_fault(), (Fault{2, "two"}));
}

TEST(Registry, ParameterNamesAreChecked) {
  Registry r;
  auto add = [](int a, int b) { return a + b; };
  EXPECT_TRUE(r.bind("ok", {"a", "b"}, add));
  for (std::vector<std::string> bad :
       std::vector<std::vector<std::string>>{{"a"}, {"a", "b", "c"}, {"a", "a"}, {"a", ""}}) {
    Status s = r.bind("bad", bad, add);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::InvalidArgument) << s.error().message;
  }
  EXPECT_FALSE(r.contains("bad"));
  // With add(): as many names as the longest signature's parameters, or no signatures.
  auto handler = [](Params, CallContext&) { return Value(); };
  EXPECT_TRUE(r.add("untyped", handler, MethodInfo{{}, "", {"x", "y"}}));
  EXPECT_TRUE(
      r.add("sigs", handler, MethodInfo{{{"int", "int"}, {"int", "int", "int"}}, "", {"x", "y"}}));
  EXPECT_FALSE(r.add("short", handler, MethodInfo{{{"int", "int", "int"}}, "", {"x"}}));
}

}  // namespace
}  // namespace callwire
