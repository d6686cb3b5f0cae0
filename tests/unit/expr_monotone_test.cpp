// ExprPool::direction_in: the structural proof `cctx fit` relies on to bisect (fit.hpp). Each
// verdict is checked against exhaustive evaluation on a grid, so a proof that claims too much
// fails.
#include <gtest/gtest.h>

#include <string>

#include "cctx/expr.hpp"

namespace cctx {
namespace {

/// The verdict must hold on N, M in [1, 12] (M fixed while N grows).
void expect_consistent(ExprPool& pool, Expr e, Direction d) {
  if (d == Direction::kUnknown) return;
  for (std::int64_t m = 1; m <= 12; ++m) {
    for (std::int64_t n = 1; n < 12; ++n) {
      const std::int64_t a = pool.eval(e, {{"N", n}, {"M", m}});
      const std::int64_t b = pool.eval(e, {{"N", n + 1}, {"M", m}});
      if (d == Direction::kConstant) {
        EXPECT_EQ(a, b) << pool.print(e);
      } else if (d == Direction::kNondecreasing) {
        EXPECT_LE(a, b) << pool.print(e);
      } else {
        EXPECT_GE(a, b) << pool.print(e);
      }
    }
  }
}

Direction direction(ExprPool& pool, const std::string& text) {
  const Expr e = pool.parse(text);
  const Direction d = pool.direction_in(e, "N");
  expect_consistent(pool, e, d);
  return d;
}

TEST(ExprMonotone, SizesGrowWithTheirSymbols) {
  ExprPool pool;
  pool.declare_symbol("N", kDimBounds);
  pool.declare_symbol("M", kDimBounds);
  EXPECT_EQ(direction(pool, "4*N*M + 16"), Direction::kNondecreasing);
  EXPECT_EQ(direction(pool, "max(16*N*M, 3*M + 100)"), Direction::kNondecreasing);
  EXPECT_EQ(direction(pool, "(N + 7) // 8 * 32"), Direction::kNondecreasing);
  EXPECT_EQ(direction(pool, "N*N*M - M"), Direction::kNondecreasing);
  EXPECT_EQ(direction(pool, "min(N, 4) * M"), Direction::kNondecreasing);
}

TEST(ExprMonotone, ConstantsAndShrinkingTerms) {
  ExprPool pool;
  pool.declare_symbol("N", kDimBounds);
  pool.declare_symbol("M", kDimBounds);
  EXPECT_EQ(direction(pool, "3*M + 7"), Direction::kConstant);
  EXPECT_EQ(direction(pool, "100 - N"), Direction::kNonincreasing);
  EXPECT_EQ(direction(pool, "M - 2*N"), Direction::kNonincreasing);
}

TEST(ExprMonotone, AFactorProvedNonNegativeKeepsTheProduct) {
  // A KV cache's step: min(min(16, P+S) - min(16, P), 1) is never negative, though its
  // interval alone may say so; the product with N still grows with N.
  ExprPool pool;
  pool.declare_symbol("N", kDimBounds);
  pool.declare_symbol("P", kDimBounds);
  pool.declare_symbol("S", kDimBounds);
  const Expr e = pool.parse("64*N*S*min(min(16, P+S) - min(16, P), 1) + 8*N*P");
  EXPECT_EQ(pool.direction_in(e, "N"), Direction::kNondecreasing) << pool.print(e);
}

TEST(ExprMonotone, WhatIsNotShownIsUnknown) {
  ExprPool pool;
  pool.declare_symbol("N", kDimBounds);
  pool.declare_symbol("M", kDimBounds);
  // Not monotone at all: a remainder, a difference of growing terms.
  EXPECT_EQ(direction(pool, "N % 4"), Direction::kUnknown);
  EXPECT_EQ(direction(pool, "N*N - 10*N"), Direction::kUnknown);
  // A factor that may be negative: the product's direction is not shown.
  EXPECT_EQ(direction(pool, "N * (M - 5)"), Direction::kUnknown);
  // A symbol the pool never made: nothing mentions it.
  EXPECT_EQ(pool.direction_in(pool.parse("N"), "Q"), Direction::kConstant);
}

}  // namespace
}  // namespace cctx
