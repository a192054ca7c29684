// Buffer: room_after (the readable bytes after a view that lies in the buffer's storage, which
// lets the JSON reader read a body in place, json::kPadding of them), and drop_front.
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

}  // namespace
}  // namespace callwire
