// Result<T>: a T or an Error in one union, so every construction, copy, move and assignment
// must build and destroy exactly the member it holds.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "callwire/error.hpp"

namespace callwire {
namespace {

// Counts the objects alive, so a member built twice or destroyed twice shows.
struct Counted {
  static inline int alive = 0;
  std::string text;
  explicit Counted(std::string t) : text(std::move(t)) { ++alive; }
  Counted(const Counted& o) : text(o.text) { ++alive; }
  Counted(Counted&& o) noexcept : text(std::move(o.text)) { ++alive; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) = default;
  ~Counted() { --alive; }
};

// A T whose move throws while `refuse` is set: what std::variant's valueless state covered.
struct ThrowsOnMove {
  static inline bool refuse = false;
  int n = 0;
  explicit ThrowsOnMove(int v) : n(v) {}
  ThrowsOnMove(const ThrowsOnMove&) = default;
  ThrowsOnMove(ThrowsOnMove&& o) : n(o.n) {  // NOLINT: throws on purpose
    if (refuse) throw std::runtime_error("move refused");
  }
};

Error failure(const char* message) { return Error(Errc::NotFound, message); }

TEST(Result, HoldsTheValue) {
  Result<std::string> r(std::string("answer"));
  ASSERT_TRUE(r);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(*r, "answer");
  EXPECT_EQ(r->size(), 6u);
  EXPECT_EQ(std::move(r).value(), "answer");
}

TEST(Result, HoldsTheErrorAndValueThrowsIt) {
  Result<int> r(failure("no such thing"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::NotFound);
  EXPECT_EQ(r.error().message, "no such thing");
  try {
    (void)r.value();
    FAIL() << "value() of an error must throw";
  } catch (const Exception& e) {
    EXPECT_EQ(e.error().message, "no such thing");
  }
}

TEST(Result, ErrorOfASuccessIsNoError) {
  Result<int> r(7);
  EXPECT_EQ(r.error().code, Errc::Ok);
  EXPECT_TRUE(r.error().message.empty());
  EXPECT_EQ(&r.error(), &no_error());
}

TEST(Result, CopiesAndMovesKeepWhatTheyHold) {
  Counted::alive = 0;
  {
    Result<Counted> value(Counted("v"));
    Result<Counted> error(failure("e"));
    Result<Counted> value_copy(value);
    Result<Counted> error_copy(error);
    EXPECT_EQ(value_copy->text, "v");
    EXPECT_EQ(error_copy.error().message, "e");
    Result<Counted> moved(std::move(value_copy));
    EXPECT_EQ(moved->text, "v");
    EXPECT_EQ(Counted::alive, 3);  // value, value_copy (moved from) and moved
  }
  EXPECT_EQ(Counted::alive, 0);
}

TEST(Result, AssignmentAcrossStatesDestroysWhatWasHeld) {
  Counted::alive = 0;
  {
    Result<Counted> r(Counted("first"));
    r = Result<Counted>(failure("then an error"));
    EXPECT_FALSE(r);
    EXPECT_EQ(r.error().message, "then an error");
    EXPECT_EQ(Counted::alive, 0);
    const Result<Counted> value(Counted("then a value"));
    r = value;  // copy assignment, error to value
    ASSERT_TRUE(r);
    EXPECT_EQ(r->text, "then a value");
    EXPECT_EQ(Counted::alive, 2);
    r = Result<Counted>(Counted("moved in"));  // value to value
    EXPECT_EQ(r->text, "moved in");
    EXPECT_EQ(Counted::alive, 2);
    const Result<Counted>& same = r;
    r = same;  // self-assignment keeps it
    EXPECT_EQ(r->text, "moved in");
    Result<Counted>& alias = r;
    r = std::move(alias);  // self-move too
    EXPECT_EQ(r->text, "moved in");
  }
  EXPECT_EQ(Counted::alive, 0);
}

TEST(Result, AMoveThatThrowsLeavesAnEmptyError) {
  static_assert(std::is_nothrow_move_constructible_v<Result<std::string>>);
  static_assert(!std::is_nothrow_move_constructible_v<Result<ThrowsOnMove>>);
  Result<ThrowsOnMove> target(ThrowsOnMove(1));
  Result<ThrowsOnMove> source(ThrowsOnMove(2));
  ThrowsOnMove::refuse = true;
  EXPECT_THROW(target = std::move(source), std::runtime_error);
  ThrowsOnMove::refuse = false;
  EXPECT_FALSE(target);  // neither the old value nor a half-built one
  EXPECT_EQ(target.error().code, Errc::Ok);
  target = Result<ThrowsOnMove>(ThrowsOnMove(3));  // and usable again
  EXPECT_EQ(target->n, 3);
}

}  // namespace
}  // namespace callwire
