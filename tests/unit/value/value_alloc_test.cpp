// The value block allocator (src/value/value_alloc.cpp): its per-thread cache of freed small
// blocks must only ever hand out a block at least as large as asked, never one still in use,
// stay within its bound, and cope with threads that end (and free Values late).
#include <gtest/gtest.h>

#if defined(__GLIBC__)
#include <malloc.h>  // malloc_usable_size
#endif

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "callwire/value.hpp"
#include "callwire/xml.hpp"
#include "value/value_build.hpp"

namespace callwire {
namespace {

struct Block {
  unsigned char* p;
  size_t size;
  unsigned char fill;
};

bool intact(const Block& b) {
  for (size_t i = 0; i < b.size; ++i)
    if (b.p[i] != b.fill) return false;
  return true;
}

TEST(ValueAlloc, ReusedBlocksAreLargeEnoughAndNeverShared) {
  std::mt19937 random(7);
  std::vector<Block> live;
  for (int round = 0; round < 20000; ++round) {
    if (!live.empty() && random() % 2 == 0) {
      size_t i = random() % live.size();
      ASSERT_TRUE(intact(live[i])) << "a live block of " << live[i].size << " bytes was reused";
      detail::value_free(live[i].p);
      live[i] = live.back();
      live.pop_back();
      continue;
    }
    // Sizes across the cached range and a little past it, with the small ones most common.
    size_t size = random() % 4 == 0 ? random() % 1200 : random() % 80;
    auto* p = static_cast<unsigned char*>(detail::value_alloc(size));
#if defined(__GLIBC__)
    ASSERT_GE(malloc_usable_size(p), size);
#endif
    auto fill = static_cast<unsigned char>(round);
    std::memset(p, fill, size);
    live.push_back({p, size, fill});
  }
  for (const Block& b : live) {
    EXPECT_TRUE(intact(b));
    detail::value_free(b.p);
  }
}

TEST(ValueAlloc, TheCacheStaysWithinItsBound) {
  std::vector<void*> blocks;
  for (int i = 0; i < 200000; ++i) blocks.push_back(detail::value_alloc(64));  // 16 MB
  for (void* p : blocks) detail::value_free(p);
  EXPECT_LE(detail::value_cache_bytes(), detail::value_cache_limit());
  if (detail::value_cache_limit() > 0) {
    EXPECT_GT(detail::value_cache_bytes(), 0u);
  }
}

// A struct Value with some heap strings and containers.
Value tree() {
  Value v = Value::structure({{"a long member name", "a string longer than fourteen bytes"}});
  Value list = Value::array();
  for (int i = 0; i < 100; ++i) list.push_back("element number " + std::to_string(i));
  v.set("list", std::move(list));
  return v;
}

struct LateHolder {
  Value value = tree();
};

TEST(ValueAlloc, ThreadsEndWithValuesMadeHereFreedThereAndFreedLate) {
  Value made_here = tree();
  std::thread([&] {
    // Constructed before this thread frees anything, so destroyed after the cache's own
    // thread-exit cleanup: its Value is freed when the cache is closed.
    thread_local LateHolder late;
    EXPECT_EQ(late.value, tree());
    Value moved = std::move(made_here);  // freed on this thread, into this thread's cache
    for (int i = 0; i < 100; ++i) Value churn = tree();
  }).join();
  EXPECT_TRUE(made_here.is_nil());
  EXPECT_EQ(tree(), tree());  // this thread's cache still works
}

}  // namespace
}  // namespace callwire

namespace callwire {
namespace {

// Texts of a MiB and more are page mappings of their own (not under the sanitizers), reused
// warm: they must behave as any other text through copies, moves, equality and decoding.
TEST(ValueAlloc, LargeTextsBehaveAsAnyOther) {
  std::vector<uint8_t> bytes(3 << 20);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131);
  Value big = Value::bytes(bytes);
  EXPECT_EQ(ValueAccess::raw(big)[2] != 0, detail::value_text_mapped(bytes.size() + 8));
  Value copy = big;
  ASSERT_EQ(copy, big);
  EXPECT_NE(copy.as_bytes().data(), big.as_bytes().data());
  Value moved = std::move(big);
  EXPECT_EQ(moved, copy);
  EXPECT_TRUE(big.is_nil());
  moved = Value();                    // released into the thread's cache
  Value again = Value::bytes(bytes);  // and likely served from it
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), again.as_bytes().begin()));
  // Decoded from base64 into a block made for the encoded length, then shortened.
  Value text = Value(std::string(2 << 20, 'x'));
  Value round = xml::Reader()
                    .read_call([&] {
                      Buffer b;
                      EXPECT_TRUE(xml::write_call(b, "m", std::vector<Value>{again, text}));
                      return std::string(b.view());
                    }())
                    .value()
                    .params;
  ASSERT_EQ(round.size(), 2u);
  EXPECT_EQ(round[0], again);
  EXPECT_EQ(round[1], text);
}

}  // namespace
}  // namespace callwire
