// A handler's result outlives the dispatch when the transport offers a DropAfterSend: the
// adapters (XML-RPC and JSON-RPC) leave it there, typed or a Value, once it is written into
// the answer, so that it is destroyed after the send; without one, or when the answer is a
// fault, it is gone when handle() returns, as before.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "callwire/convert.hpp"
#include "protocol/dispatcher.hpp"

namespace aftersend {
std::atomic<int> g_live{0};  // Ledgers alive that hold their entries (not moved from)

// A result whose destruction is seen: a vector of entries and a count of live ones.
struct Ledger {
  std::vector<int> entries;
  bool counted = false;
  Ledger() = default;
  explicit Ledger(std::vector<int> e) : entries(std::move(e)), counted(true) { ++g_live; }
  Ledger(Ledger&& o) noexcept
      : entries(std::move(o.entries)), counted(std::exchange(o.counted, false)) {}
  Ledger& operator=(Ledger&&) = delete;
  ~Ledger() {
    if (counted) --g_live;
  }
};
}  // namespace aftersend

template <>
struct callwire::Convert<aftersend::Ledger> {
  static constexpr std::string_view type_name = "array";
  static Value to_value(const aftersend::Ledger& l) {
    return Convert<std::vector<int>>::to_value(l.entries);
  }
  static void write(ValueWriter& w, const aftersend::Ledger& l) { write_value(w, l.entries); }
};

namespace callwire::detail {
namespace {

using aftersend::g_live;
using aftersend::Ledger;

struct Fixture {
  Registry registry;
  std::vector<int> kept{1, 2, 3};
  Fixture() {
    EXPECT_TRUE(registry.bind("ledger", [] { return Ledger({4, 5, 6}); }));
    EXPECT_TRUE(registry.bind("ledger.result", []() -> Result<Ledger> { return Ledger({7}); }));
    EXPECT_TRUE(registry.bind("ledger.refused",
                              []() -> Result<Ledger> { return Error(Errc::NotFound, "none"); }));
    EXPECT_TRUE(registry.bind("kept", [this]() -> const std::vector<int>& { return kept; }));
    // Returned const, by value: bound as before, and still dropped after the send.
    EXPECT_TRUE(registry.bind("const.ledger", []() -> const Ledger { return Ledger({9}); }));
    EXPECT_TRUE(
        registry.bind("const.string", []() -> const std::string { return std::string(40, 'c'); }));
    EXPECT_TRUE(
        registry.bind("const.result", []() -> const Result<Ledger> { return Ledger({10}); }));
    EXPECT_TRUE(registry.add("value", [](Params, CallContext&) {
      return Value::array({Value(std::string(100, 'v')), Value(1)});
    }));
    registry.freeze();
  }
};

std::string xml_call(const std::string& method) {
  return "<?xml version=\"1.0\"?><methodCall><methodName>" + method +
         "</methodName><params/></methodCall>";
}
std::string json_call(const std::string& method) {
  return R"({"jsonrpc":"2.0","id":1,"method":")" + method + R"("})";
}

struct Answered {
  std::string answer;
  bool holding = false;
  int live_after_handle = 0;
};

Answered dispatch(Dispatcher& d, Protocol protocol, const std::string& method,
                  DropAfterSend* keeper) {
  Buffer out;
  CallContext ctx;
  if (keeper) CallContextAccess::set_after_send(ctx, keeper);
  const std::string body = protocol == Protocol::XmlRpc ? xml_call(method) : json_call(method);
  d.handle(protocol, body, ctx, out);
  Answered a;
  a.answer = std::string(out.view());
  a.holding = keeper && keeper->holding();
  a.live_after_handle = g_live.load();
  return a;
}

class AfterSend : public ::testing::TestWithParam<Protocol> {};

TEST_P(AfterSend, TypedResultWrittenIsKeptUntilDropped) {
  Fixture f;
  Dispatcher d(f.registry, {});
  for (const char* method : {"ledger", "ledger.result"}) {
    DropAfterSend keeper;
    Answered a = dispatch(d, GetParam(), method, &keeper);
    EXPECT_NE(a.answer.find(method == std::string("ledger") ? "6" : "7"), std::string::npos)
        << a.answer;
    EXPECT_TRUE(a.holding) << method;
    EXPECT_EQ(a.live_after_handle, 1) << method << ": destroyed before the answer was sent";
    keeper.drop();
    EXPECT_EQ(g_live.load(), 0) << method;
  }
  EXPECT_EQ(g_live.load(), 0);
}

TEST_P(AfterSend, ResultsReturnedConstAreKeptToo) {
  Fixture f;
  Dispatcher d(f.registry, {});
  {
    DropAfterSend keeper;
    Answered a = dispatch(d, GetParam(), "const.ledger", &keeper);
    EXPECT_NE(a.answer.find("9"), std::string::npos) << a.answer;
    EXPECT_TRUE(a.holding);
    EXPECT_EQ(a.live_after_handle, 1);
  }
  DropAfterSend keeper;
  Answered s = dispatch(d, GetParam(), "const.string", &keeper);
  EXPECT_NE(s.answer.find(std::string(40, 'c')), std::string::npos) << s.answer;
  // A const Result<T> cannot be moved from: answered, and destroyed when handle returns.
  Answered r = dispatch(d, GetParam(), "const.result", &keeper);
  EXPECT_NE(r.answer.find("10"), std::string::npos) << r.answer;
  EXPECT_EQ(r.live_after_handle, 0);
  EXPECT_EQ(g_live.load(), 0);
}

TEST_P(AfterSend, WithoutAKeeperTheResultIsGoneWhenHandleReturns) {
  Fixture f;
  Dispatcher d(f.registry, {});
  Answered a = dispatch(d, GetParam(), "ledger", nullptr);
  EXPECT_NE(a.answer.find("6"), std::string::npos) << a.answer;
  EXPECT_EQ(a.live_after_handle, 0);
}

TEST_P(AfterSend, ValueResultIsKept) {
  Fixture f;
  Dispatcher d(f.registry, {});
  DropAfterSend keeper;
  Answered a = dispatch(d, GetParam(), "value", &keeper);
  EXPECT_NE(a.answer.find(std::string(100, 'v')), std::string::npos) << a.answer;
  EXPECT_TRUE(a.holding);
}

TEST_P(AfterSend, NothingKeptForReferencesFaultsAndUnknownMethods) {
  Fixture f;
  Dispatcher d(f.registry, {});
  for (const char* method : {"kept", "ledger.refused", "no.such.method"}) {
    DropAfterSend keeper;
    Answered a = dispatch(d, GetParam(), method, &keeper);
    EXPECT_FALSE(a.holding) << method << ": " << a.answer;
    EXPECT_EQ(a.live_after_handle, 0) << method;
  }
  EXPECT_EQ(f.kept, (std::vector<int>{1, 2, 3}));  // a reference is never moved from
}

TEST_P(AfterSend, ANewResultDropsTheOneBefore) {
  Fixture f;
  Dispatcher d(f.registry, {});
  DropAfterSend keeper;
  dispatch(d, GetParam(), "ledger", &keeper);
  Answered second = dispatch(d, GetParam(), "ledger.result", &keeper);
  EXPECT_TRUE(second.holding);
  EXPECT_EQ(second.live_after_handle, 1);  // the first one went when the second came
  keeper.drop();
  EXPECT_EQ(g_live.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Protocols, AfterSend,
                         ::testing::Values(Protocol::XmlRpc, Protocol::JsonRpc),
                         [](const auto& info) {
                           return info.param == Protocol::XmlRpc ? "XmlRpc" : "JsonRpc";
                         });

}  // namespace
}  // namespace callwire::detail
