// The page-block cache behind large Buffers and large Value texts (src/base/page_blocks.hpp):
// a freed block comes back warm for the next large block of the thread, kept whole; what it
// holds stays within its bounds; contents survive growing, and growing holds no copy; every
// thread lets go at its end.
#include "base/page_blocks.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "callwire/buffer.hpp"
#include "proc_status.hpp"

namespace callwire::pages {
namespace {

constexpr size_t MiB = size_t{1} << 20;

// Empties this thread's cache (takes everything out and unmaps it).
void drain() {
  while (cached_bytes() > 0) {
    size_t capacity = 1;
    void* p = take(capacity);
    unmap(p, capacity);
  }
}

TEST(PageBlocks, AFreedBlockComesBackWholeForASmallerRequest) {
  drain();
  size_t capacity = round_up(3 * MiB);
  auto* block = static_cast<unsigned char*>(take(capacity));
  std::memset(block, 0xAB, capacity);
  give_back(block, capacity);
  EXPECT_EQ(cached_bytes(), capacity);
  size_t smaller = round_up(MiB);
  void* again = take(smaller);
  EXPECT_EQ(again, block);
  EXPECT_EQ(smaller, capacity);  // kept whole: its pages stay warm
  EXPECT_EQ(cached_bytes(), 0u);
  give_back(again, smaller);
  drain();
}

TEST(PageBlocks, GrowingKeepsTheContents) {
  size_t capacity = round_up(MiB);
  auto* block = static_cast<unsigned char*>(take(capacity));
  for (size_t i = 0; i < capacity; ++i) block[i] = static_cast<unsigned char>(i * 7);
  size_t grown = round_up(9 * MiB);
  block = static_cast<unsigned char*>(resize(block, capacity, grown));
  for (size_t i = 0; i < capacity; ++i) ASSERT_EQ(block[i], static_cast<unsigned char>(i * 7));
  block[grown - 1] = 1;
  give_back(block, grown);
  drain();
}

using test::proc_status;
using test::reset_peak;

// With mremap the pages move; without it (CALLWIRE_PORTABLE) the block grows within its
// reservation: either way the old block and a copy never take memory at once.
TEST(PageBlocks, GrowingHoldsNoSecondCopy) {
  if (proc_status("VmHWM:") == 0) GTEST_SKIP() << "Linux only: reads /proc/self/status";
  drain();
  size_t capacity = round_up(16 * MiB);
  auto* block = static_cast<unsigned char*>(take(capacity));
  std::memset(block, 0x5A, capacity);
  const size_t before = proc_status("VmRSS:");
  reset_peak();
  size_t grown = round_up(24 * MiB);
  block = static_cast<unsigned char*>(resize(block, capacity, grown));
  const size_t peak = proc_status("VmHWM:");
  EXPECT_EQ(block[capacity - 1], 0x5A);
  // A copy would add 16 MiB; allow for the test's own pages (and ASan's shadow of a memcpy).
  EXPECT_LT(peak - std::min(peak, before), 6 * MiB)
      << "peak RSS " << (peak >> 20) << " MiB, " << (before >> 20) << " MiB before growing";
  unmap(block, grown);
}

TEST(PageBlocks, ABlockPastTheBoundIsKeptTrimmedWhenLittleWasUsed) {
  // Storage reserved for the largest answer allowed (a chunked answer's), of which 8 MiB were
  // used last: kept, its pages past those given back, and counted as those.
  drain();
  size_t large = round_up(max_cached_block() + 16 * MiB);
  auto* block = static_cast<unsigned char*>(take(large));
  std::memset(block, 0x5A, large);
  [[maybe_unused]] const size_t touched = proc_status("VmRSS:");
  give_back(block, large, 8 * MiB);
  EXPECT_EQ(cached_bytes(), 8 * MiB);
  // Linux's count of the pages (under Wine, /proc shows Wine's process, whose decommitted
  // pages are not seen to go: the pages read back as fresh below all the same).
#if !defined(_WIN32)
  if (touched != 0) {
    EXPECT_GT(touched - std::min(touched, proc_status("VmRSS:")), 24 * MiB)
        << "the pages past what was used were not given back";
  }
#endif
  size_t again = large;
  EXPECT_EQ(take(again), block);  // the same block, warm where it was used
  EXPECT_EQ(again, large);
  EXPECT_EQ(block[0], 0x5A);
  EXPECT_EQ(block[8 * MiB - 1], 0x5A);
  EXPECT_EQ(block[8 * MiB], 0);  // given back: a fresh page
  // Used past the bound (a refused gzip bomb's body): not kept.
  give_back(block, large, max_cached_block() + MiB);
  EXPECT_EQ(cached_bytes(), 0u);
  // Past the largest kept that way (256 MiB of address space), never kept.
  size_t huge = round_up(size_t{257} * MiB);
  give_back(take(huge), huge, MiB);
  EXPECT_EQ(cached_bytes(), 0u);
}

TEST(PageBlocks, WhatAThreadKeepsIsBounded) {
  drain();
  // Many blocks: a few are kept, never more than the total bound.
  std::vector<std::pair<void*, size_t>> blocks;
  for (int i = 0; i < 8; ++i) {
    size_t capacity = round_up(size_t(8 + i) * MiB);
    blocks.emplace_back(take(capacity), capacity);
  }
  for (auto [p, capacity] : blocks) {
    give_back(p, capacity);
    EXPECT_LE(cached_bytes(), max_cached_bytes());
  }
  EXPECT_GT(cached_bytes(), 0u);
  drain();
}

// A server reading a 16 MiB upload: its receive buffer grows from 128 KiB to the 22 MB body,
// then the decoded blob takes 16 MiB. Were the growing buffer given the best fit for its first
// step (the 16 MiB block, grown with fresh pages), the blob would take the 22 MB block cold.
TEST(PageBlocks, AGrowingBufferTakesTheLargestBlockAndAKnownSizeTheBestFit) {
  drain();
  size_t text_capacity = round_up(16 * MiB), body_capacity = round_up(22 * MiB);
  void* text = take(text_capacity);
  void* body = take(body_capacity);
  give_back(text, text_capacity);
  give_back(body, body_capacity);
  {
    Buffer in;
    in.append(std::string(200 * 1024, 'x'));  // the first step past malloc's range
    EXPECT_EQ(in.capacity(), body_capacity);
    EXPECT_EQ(static_cast<const void*>(in.data()), body);
    size_t wanted = 16 * MiB;
    void* again = take(wanted, Fit::smallest);
    EXPECT_EQ(again, text);
    EXPECT_EQ(wanted, text_capacity);
    give_back(again, wanted);
  }
  drain();
}

TEST(PageBlocks, LargeBuffersReuseTheThreadsBlocksAndThreadsLetGo) {
  std::thread([] {
    for (int round = 0; round < 3; ++round) {
      Buffer b;
      std::string chunk(64 * 1024, char('a' + round));
      for (int i = 0; i < 64; ++i) b.append(chunk);  // 4 MiB, past the malloc range
      ASSERT_EQ(b.size(), 4 * MiB);
      EXPECT_EQ(b.view()[4 * MiB - 1], char('a' + round));
    }
    EXPECT_GT(cached_bytes(), 0u);  // the last Buffer's block, kept for the next
  }).join();
}

}  // namespace
}  // namespace callwire::pages
