// CallCore driven with Values only: no document is read or written, which is the point. The
// rules each protocol shares (lookup, signatures, faults, deadlines, multicall, counters) are
// checked here once; tests/unit/protocol/ checks how the XML-RPC adapter writes them.
#include "dispatch/call_core.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "callwire/value_writer.hpp"

namespace callwire::detail {
namespace {

struct Fixture {
  Registry registry;
  Fixture() {
    EXPECT_TRUE(registry.add(
        "sample.add", [](Params p, CallContext&) { return Value(p[0].as_int() + p[1].as_int()); },
        MethodInfo{{{"int", "int", "int"}}, "Adds two integers."}));
    EXPECT_TRUE(registry.bind("typed.pair", [](int a) { return std::vector<int>{a, a + 1}; }));
    EXPECT_TRUE(
        registry.add("fault", [](Params, CallContext&) -> Value { throw FaultError(42, "no"); }));
    EXPECT_TRUE(registry.add(
        "method", [](Params, CallContext& ctx) { return Value(std::string(ctx.method())); }));
    EXPECT_TRUE(registry.bind("named", {"minuend", "subtrahend", "note"},
                              [](int a, int b, std::optional<std::string> note) {
                                return std::to_string(a - b) + (note ? " " + *note : "");
                              }));
    EXPECT_TRUE(registry.bind("blob.size", [](std::vector<uint8_t> b) { return int(b.size()); }));
    EXPECT_TRUE(registry.bind("year", [](DateTime t) { return t.year; }));
    registry.freeze();
  }
};

// Records what a typed handler writes, as text: the core hands the writer through untouched.
struct RecordingWriter final : ValueWriter {
  std::string log;
  void nil() override { log += "nil "; }
  void boolean(bool b) override { log += b ? "true " : "false "; }
  void int32(int32_t n) override { log += std::to_string(n) + " "; }
  void int64(int64_t n) override { log += std::to_string(n) + "L "; }
  void real(double d) override { log += std::to_string(d) + " "; }
  void string(std::string_view s) override { log += "'" + std::string(s) + "' "; }
  void datetime(const DateTime&) override { log += "datetime "; }
  void bytes(std::span<const uint8_t>) override { log += "bytes "; }
  void value(const Value&) override { log += "value "; }
  void begin_array() override { log += "[ "; }
  void end_array() override { log += "] "; }
  void begin_struct() override { log += "{ "; }
  void member(std::string_view name) override { log += std::string(name) + ": "; }
  void end_struct() override { log += "} "; }
};

struct Call {
  CallOutcome outcome;
  Value result;
  Fault fault;
};

Call run(CallCore& core, std::string_view name, std::vector<Value> params,
         ValueWriter* direct = nullptr, CallContext* context = nullptr) {
  CallContext local;
  Call c;
  c.outcome = core.call(name, params, context ? *context : local, direct, c.result, c.fault);
  return c;
}

uint64_t calls_of(const CallCore& core, std::string_view name) {
  std::vector<MethodStats> stats;
  core.add_stats_to(stats);
  for (const auto& s : stats)
    if (s.name == name) return s.calls;
  return 0;
}

TEST(CallCore, RunsAMethodOnValues) {
  Fixture f;
  CallCore core(f.registry, {});
  Call c = run(core, "sample.add", {2, 3});
  ASSERT_TRUE(c.outcome.ok);
  EXPECT_FALSE(c.outcome.written);
  EXPECT_EQ(c.result.as_int(), 5);
  EXPECT_EQ(calls_of(core, "sample.add"), 1u);
}

// The lookup table grows as methods are added (16 slots, then twice as many, at most half
// full): every method is found as itself across the growths, and near misses are not found.
TEST(CallCore, EveryMethodOfALargeRegistryIsFoundAsItself) {
  Registry registry;
  constexpr int kMethods = 300;
  auto name_of = [](int i) { return "m." + std::to_string(i * 7919 % 1000) + ".call"; };
  for (int i = 0; i < kMethods; ++i) {
    ASSERT_TRUE(registry.add(name_of(i), [i](Params, CallContext&) { return Value(i); }));
    // Every method added so far still answers as itself after this add (and its growth).
    for (int j = 0; j <= i; j += (i < 40 ? 1 : 37)) ASSERT_TRUE(registry.contains(name_of(j)));
  }
  EXPECT_FALSE(registry.add(name_of(123), [](Params, CallContext&) { return Value(); }));
  registry.freeze();
  CallCore core(registry, {});
  for (int i = 0; i < kMethods; ++i) {
    Call c = run(core, name_of(i), {});
    ASSERT_TRUE(c.outcome.ok) << name_of(i);
    EXPECT_EQ(c.result.as_int(), i) << name_of(i);
  }
  for (std::string miss :
       {std::string("m.0.cal"), std::string("m.0.calls"), std::string("M.0.call"),
        std::string("m.1.call"), std::string(""), std::string("m.")}) {
    Call c = run(core, miss, {});
    EXPECT_EQ(c.fault.code, fault_code::kMethodNotFound) << miss;
  }
}

TEST(CallCore, FaultsAreValuesNotDocuments) {
  Fixture f;
  CallCore core(f.registry, {});
  Call unknown = run(core, "no.such", {});
  EXPECT_FALSE(unknown.outcome.ok);
  EXPECT_EQ(unknown.fault.code, fault_code::kMethodNotFound);
  EXPECT_EQ(unknown.outcome.counter, CallOutcome::kNoCounter);

  Call wrong = run(core, "sample.add", {"2", 3});
  EXPECT_EQ(wrong.fault.code, fault_code::kInvalidParams);

  Call own = run(core, "fault", {});
  EXPECT_EQ(own.fault.code, 42);
  EXPECT_EQ(own.fault.string, "no");
}

TEST(CallCore, TypedResultsGoThroughTheOfferedWriter) {
  Fixture f;
  CallCore core(f.registry, {});
  RecordingWriter writer;
  Call c = run(core, "typed.pair", {7}, &writer);
  ASSERT_TRUE(c.outcome.ok);
  EXPECT_TRUE(c.outcome.written);
  EXPECT_EQ(writer.log, "[ 7 8 ] ");
  EXPECT_TRUE(c.result.is_nil());

  // No writer offered: the same handler returns a Value.
  Call v = run(core, "typed.pair", {7});
  ASSERT_TRUE(v.outcome.ok);
  EXPECT_FALSE(v.outcome.written);
  ASSERT_TRUE(v.result.is_array());
  EXPECT_EQ(v.result[1].as_int(), 8);
}

TEST(CallCore, MulticallEntriesAreValuesWithTheirOwnCounters) {
  Fixture f;
  CallCore core(f.registry, {});
  Value calls = Value::array(
      {Value::structure({{"methodName", "sample.add"}, {"params", Value::array({1, 2})}}),
       Value::structure({{"methodName", "no.such"}, {"params", Value::array()}}),
       Value::structure({{"methodName", "method"}, {"params", Value::array()}})});
  RecordingWriter writer;  // entries never write directly
  Call c = run(core, "system.multicall", {calls}, &writer);
  ASSERT_TRUE(c.outcome.ok);
  EXPECT_TRUE(c.outcome.multicall);
  EXPECT_FALSE(c.outcome.written);
  EXPECT_EQ(writer.log, "");
  ASSERT_EQ(c.result.size(), 3u);
  EXPECT_EQ(c.result[0][0].as_int(), 3);
  EXPECT_EQ(c.result[1]["faultCode"].as_int(), fault_code::kMethodNotFound);
  EXPECT_EQ(c.result[2][0].as_string(), "method");
  EXPECT_NE(core.multicall_entry_counter(0), CallOutcome::kNoCounter);
  EXPECT_EQ(core.multicall_entry_counter(1), CallOutcome::kNoCounter);
  EXPECT_EQ(core.multicall_entry_counter(9), CallOutcome::kNoCounter);

  // The next call starts afresh.
  Call next = run(core, "sample.add", {1, 1});
  EXPECT_FALSE(next.outcome.multicall);
  EXPECT_EQ(core.multicall_entry_counter(0), CallOutcome::kNoCounter);
}

TEST(CallCore, APassedDeadlineIsAFaultBeforeTheHandlerRuns) {
  Fixture f;
  CallCore core(f.registry, {});
  CallContext ctx;
  CallContextAccess::set_deadline(ctx, std::chrono::steady_clock::now());
  Call c = run(core, "sample.add", {1, 2}, nullptr, &ctx);
  EXPECT_FALSE(c.outcome.ok);
  EXPECT_EQ(c.fault.code, fault_code::kTransportError);
}

TEST(CallCore, UnsentResultsCountAsFaults) {
  Fixture f;
  CallCore core(f.registry, {});
  Call c = run(core, "sample.add", {1, 2});
  core.count_unsent(c.outcome.counter);
  core.count_unsent(CallOutcome::kNoCounter);  // ignored
  std::vector<MethodStats> stats;
  core.add_stats_to(stats);
  EXPECT_EQ(stats[0].name, "sample.add");
  EXPECT_EQ(stats[0].calls, 1u);
  EXPECT_EQ(stats[0].faults, 1u);
}

Call run_named(CallCore& core, std::string_view name, Value named, bool text = false) {
  CallContext ctx;
  Call c;
  CallForm form;
  form.named = &named;
  form.text_for_bytes_and_times = text;
  c.outcome = core.call(name, {}, ctx, nullptr, c.result, c.fault, form);
  return c;
}

TEST(CallCore, NamedParametersTakeTheirPlaces) {
  Fixture f;
  CallCore core(f.registry, {});
  EXPECT_EQ(run_named(core, "named", Value::structure({{"subtrahend", 23}, {"minuend", 42}}))
                .result.as_string(),
            "19");
  EXPECT_EQ(run_named(core, "named",
                      Value::structure({{"note", "left"}, {"subtrahend", 2}, {"minuend", 5}}))
                .result.as_string(),
            "3 left");
  Call missing = run_named(core, "named", Value::structure({{"minuend", 5}}));
  EXPECT_EQ(missing.fault.code, fault_code::kInvalidParams);  // too few
  Call unknown = run_named(core, "named", Value::structure({{"minuend", 5}, {"x", 1}}));
  EXPECT_EQ(unknown.fault.code, fault_code::kInvalidParams);
  EXPECT_EQ(unknown.fault.string, "named has no parameter 'x'");
  EXPECT_EQ(calls_of(core, "named"), 4u);

  // A method without names takes the struct as its one parameter.
  Call whole = run_named(core, "method", Value::structure({{"a", 1}}));
  EXPECT_EQ(whole.result.as_string(), "method");
}

TEST(CallCore, TextStandsForBytesAndTimesWhenTheProtocolHasNoSuchTypes) {
  Fixture f;
  CallCore core(f.registry, {});
  CallContext ctx;
  CallForm text;
  text.text_for_bytes_and_times = true;
  std::vector<Value> b64{Value("aGVsbG8=")};
  Value result;
  Fault fault;
  ASSERT_TRUE(core.call("blob.size", b64, ctx, nullptr, result, fault, text).ok) << fault.string;
  EXPECT_EQ(result.as_int(), 5);
  std::vector<Value> when{Value("1998-07-17T14:08:55Z")};
  ASSERT_TRUE(core.call("year", when, ctx, nullptr, result, fault, text).ok) << fault.string;
  EXPECT_EQ(result.as_int(), 1998);
  std::vector<Value> bad{Value("not base64!")};
  EXPECT_FALSE(core.call("blob.size", bad, ctx, nullptr, result, fault, text).ok);
  EXPECT_EQ(fault.code, fault_code::kInvalidParams);
  // Without the form (XML-RPC), a string is no base64.
  std::vector<Value> plain{Value("aGVsbG8=")};
  EXPECT_FALSE(core.call("blob.size", plain, ctx, nullptr, result, fault).ok);
}

TEST(CallCore, MethodHelpListsParameterNames) {
  Fixture f;
  CallCore core(f.registry, {});
  Call help = run(core, "system.methodHelp", {"named"});
  EXPECT_EQ(help.result.as_string(), "Parameters: minuend, subtrahend, note.");
}

TEST(CallCore, ShownMethodNamesAreCutOnACharacterBoundary) {
  EXPECT_EQ(shown_method_name("short"), "short");
  std::string long_name(199, 'a');
  long_name += "\xC3\xA9tail";  // é straddles byte 200
  EXPECT_EQ(shown_method_name(long_name), std::string(199, 'a') + "...");
}

}  // namespace
}  // namespace callwire::detail
