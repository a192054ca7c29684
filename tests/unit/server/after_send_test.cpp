// A handler's result is destroyed after its answer is sent, not before: the client has the
// answer while the server still frees what the handler returned (a large vector's unmapping,
// the strings of a copied list), on the loop and on a worker alike, over XML-RPC and JSON-RPC.
//
// The result's destructor waits (up to kPatience) for the client to report the answer. Freed
// before the send, it waits in vain, and the test sees the answer come only after it gave up.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"

namespace aftersendtest {

constexpr auto kPatience = std::chrono::seconds(10);

// What the destructor of the one armed result saw; reset by each test.
struct Witness {
  std::promise<void> answered;       // set by the client once it has the answer
  std::shared_future<void> arrived;  // answered's future
  std::atomic<int> saw{0};           // 1: the answer had arrived, -1: it had not
  std::promise<void> destroyed;      // set by the destructor once it has looked
  void reset() {
    answered = std::promise<void>();
    arrived = answered.get_future().share();
    destroyed = std::promise<void>();
    saw = 0;
  }
};
Witness g_witness;

// A vector whose destruction waits for the client's word, when armed (moved-from copies are
// not).
struct Slow {
  std::vector<int> items;
  bool armed = false;
  explicit Slow(std::vector<int> i) : items(std::move(i)), armed(true) {}
  Slow(Slow&& o) noexcept : items(std::move(o.items)), armed(std::exchange(o.armed, false)) {}
  Slow& operator=(Slow&&) = delete;
  ~Slow() {
    if (!armed) return;
    bool in_time = g_witness.arrived.wait_for(kPatience) == std::future_status::ready;
    g_witness.saw = in_time ? 1 : -1;
    g_witness.destroyed.set_value();
  }
};

}  // namespace aftersendtest

template <>
struct callwire::Convert<aftersendtest::Slow> {
  static constexpr std::string_view type_name = "array";
  static Value to_value(const aftersendtest::Slow& s) {
    return Convert<std::vector<int>>::to_value(s.items);
  }
  static void write(ValueWriter& w, const aftersendtest::Slow& s) { write_value(w, s.items); }
};

namespace callwire {
namespace {

using aftersendtest::g_witness;
using aftersendtest::Slow;

struct Case {
  const char* name;
  unsigned handler_threads;  // 0: on the loop
  bool json;
};

class AfterSend : public ::testing::TestWithParam<Case> {};

TEST_P(AfterSend, TheResultIsDestroyedAfterTheClientHasTheAnswer) {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  o.handler_threads = GetParam().handler_threads;
  Server server(o);
  ASSERT_TRUE(server.bind("slow", [](int n) { return Slow(std::vector<int>(size_t(n), 7)); }));
  ASSERT_TRUE(server.bind(
      "slow.result", [](int n) -> Result<Slow> { return Slow(std::vector<int>(size_t(n), 8)); }));
  ASSERT_TRUE(server.start());
  std::string url = server.url();
  if (GetParam().json) url = "jsonrpc+" + url;
  Client client(url);
  for (const char* method : {"slow", "slow.result"}) {
    g_witness.reset();
    std::future<void> destroyed = g_witness.destroyed.get_future();
    auto started = std::chrono::steady_clock::now();
    Result<std::vector<int>> got = client.call<std::vector<int>>(method, 1000);
    g_witness.answered.set_value();
    ASSERT_TRUE(got) << method << ": " << got.error().message;
    EXPECT_EQ(got->size(), 1000u) << method;
    EXPECT_LT(std::chrono::steady_clock::now() - started, aftersendtest::kPatience)
        << method << ": the answer waited for the result's destruction";
    ASSERT_EQ(destroyed.wait_for(2 * aftersendtest::kPatience), std::future_status::ready)
        << method << ": the result was never destroyed";
    EXPECT_EQ(g_witness.saw.load(), 1) << method;
  }
  server.stop();
  server.wait();
}

INSTANTIATE_TEST_SUITE_P(Transports, AfterSend,
                         ::testing::Values(Case{"Loop", 0, false}, Case{"Workers", 2, false},
                                           Case{"LoopJson", 0, true}, Case{"WorkersJson", 2, true}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace callwire
