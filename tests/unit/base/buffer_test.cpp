// Buffer: room_after (the readable bytes after a view that lies in the buffer's storage, which
// lets the JSON reader read a body in place, json::kPadding of them), drop_front, and
// next_capacity (what growing would give: a reader that knows its end stops there instead).
#include "callwire/buffer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace callwire {
namespace {

TEST(Buffer, RoomAfterAViewInsideCountsTheStorageLeft) {
  Buffer b;
  b.append("hello, world");
  const size_t cap = b.capacity();
  ASSERT_GT(cap, b.size());
  std::string_view all = b.view();
  EXPECT_EQ(b.room_after(all), cap - all.size());
  EXPECT_EQ(b.room_after(all.substr(0, 5)), cap - 5);   // "hello": the rest of the contents too
  EXPECT_EQ(b.room_after(all.substr(7, 5)), cap - 12);  // "world"
  EXPECT_EQ(b.room_after(all.substr(12)), cap - 12);    // empty, at the end of the contents
}

TEST(Buffer, RoomAfterAViewAtTheEdgeOfTheStorageIsNone) {
  Buffer b;
  b.append("x");
  const size_t cap = b.capacity();
  std::string_view storage(b.data(), cap);  // up to the last byte of the storage
  EXPECT_EQ(b.room_after(storage), 0u);
  EXPECT_EQ(b.room_after(storage.substr(cap - 1)), 0u);
  EXPECT_EQ(b.room_after(storage.substr(cap)), 0u);  // empty, just past the storage
  EXPECT_EQ(b.room_after(storage.substr(cap - 65, 1)), 64u);
}

TEST(Buffer, RoomAfterAViewOutsideIsNone) {
  Buffer b;
  b.append("some bytes");
  std::string elsewhere = "some bytes";
  EXPECT_EQ(b.room_after(elsewhere), 0u);
  EXPECT_EQ(b.room_after({}), 0u);
  // Starting inside but running past the storage's end: not inside.
  EXPECT_EQ(b.room_after({b.data() + 1, b.capacity()}), 0u);
  Buffer other;
  other.append("some bytes");
  EXPECT_EQ(b.room_after(other.view()), 0u);

  Buffer empty;
  EXPECT_EQ(empty.room_after(elsewhere), 0u);
  EXPECT_EQ(empty.room_after({}), 0u);
}

TEST(Buffer, RoomAfterFollowsTheStorageAsItGrows) {
  Buffer b;
  b.append("{}");
  b.prepare(1 << 20);  // spare capacity after the contents: what a reader may load past them
  std::string_view body = b.view();
  EXPECT_GE(b.room_after(body), size_t{1} << 20);
}

TEST(Buffer, DropFrontKeepsTheRestAtTheFront) {
  Buffer b;
  b.append("header|body");
  b.drop_front(0);
  EXPECT_EQ(b.view(), "header|body");
  b.drop_front(7);
  EXPECT_EQ(b.view(), "body");
  b.drop_front(10);  // more than there is: all of it
  EXPECT_TRUE(b.empty());
  b.append("again");
  EXPECT_EQ(b.view(), "again");
}

// next_capacity is what prepare grows to: the larger of what is asked and half again what is
// there, small blocks at least 256 bytes, large ones whole pages.
TEST(Buffer, NextCapacityIsWhatGrowingGives) {
  Buffer b;
  EXPECT_EQ(b.next_capacity(10), 256u);
  b.prepare(10);
  EXPECT_EQ(b.capacity(), 256u);
  EXPECT_EQ(b.next_capacity(300), 384u);    // half again
  EXPECT_EQ(b.next_capacity(1000), 1000u);  // more than that: what is asked
  for (size_t ask : {size_t{300}, size_t{5000}, size_t{9000}, size_t{100000}}) {
    const size_t expected = b.next_capacity(ask);
    b.prepare(ask);
    EXPECT_EQ(b.capacity(), expected) << ask;
  }
  // A large block: whole pages, and perhaps more (a cached block is taken whole).
  const size_t expected = b.next_capacity(size_t{1} << 22);
  EXPECT_EQ(expected % 4096, 0u);
  b.prepare(size_t{1} << 22);
  EXPECT_GE(b.capacity(), expected);
}

}  // namespace
}  // namespace callwire
