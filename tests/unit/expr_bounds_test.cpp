// Intervals, proofs and max_of/min_of (expressions.md section 5; checklist items 21-26).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cctx/expr.hpp"

namespace {

using cctx::Expr;
using cctx::ExprPool;
using cctx::Interval;
using cctx::kNegInf;
using cctx::kPosInf;
using cctx::Relation;

// Checklist 21.
TEST(ExprBounds, IntervalUnderProfileBoundsAndFolding) {
  ExprPool pool;
  pool.declare_symbol("N", {1, 4096});
  EXPECT_EQ(pool.interval(pool.parse("N-1")), (Interval{0, 4095}));
  EXPECT_EQ(pool.as_int(pool.parse("(N-1)//4096")), 0);
}

TEST(ExprBounds, IntervalArithmetic) {
  ExprPool pool;
  pool.declare_symbol("a", {-3, 2});
  pool.declare_symbol("b", {2, 5});
  pool.declare_symbol("z", {0, kPosInf});
  pool.declare_symbol("s", {-2, 3});
  EXPECT_EQ(pool.interval(pool.parse("a*b")), (Interval{-15, 10}));
  EXPECT_EQ(pool.interval(pool.parse("a*a")), (Interval{0, 9}));
  EXPECT_EQ(pool.interval(pool.parse("a*a*a")), (Interval{-27, 8}));
  EXPECT_EQ(pool.interval(pool.parse("-2*b+1")), (Interval{-9, -3}));
  EXPECT_EQ(pool.interval(pool.parse("z*a")), (Interval{kNegInf, kPosInf}));
  EXPECT_EQ(pool.interval(pool.parse("a*0+z")), (Interval{0, kPosInf}));
  EXPECT_EQ(pool.interval(pool.parse("b//2")), (Interval{1, 2}));
  EXPECT_EQ(pool.interval(pool.parse("a//b")), (Interval{-2, 1}));
  EXPECT_EQ(pool.interval(pool.parse("z//b")), (Interval{0, kPosInf}));
  // A divisor interval containing 0 is split at 0; the defined parts are joined.
  EXPECT_EQ(pool.interval(pool.parse("b//s")), (Interval{-5, 5}));
  // % by d > 0 lies in [0, hi(d)-1]; a numerator already in [0, lo(d)-1] keeps its interval.
  EXPECT_EQ(pool.interval(pool.parse("z%b")), (Interval{0, 4}));
  EXPECT_EQ(pool.interval(pool.parse("a%(-b)")), (Interval{-4, 0}));
  EXPECT_EQ(pool.interval(pool.parse("max(a,b)")), (Interval{2, 5}));
  EXPECT_EQ(pool.interval(pool.parse("min(a,b)")), (Interval{-3, 2}));
  EXPECT_EQ(pool.interval(pool.parse("z+9223372036854775807")), (Interval{kPosInf, kPosInf}));
  EXPECT_EQ(pool.interval(pool.parse("N")), cctx::kDimBounds);
}

// Checklist 22.
TEST(ExprBounds, ProveGeBasics) {
  ExprPool pool;
  EXPECT_TRUE(pool.prove_ge(pool.parse("32*N"), pool.parse("16*N")));
  EXPECT_FALSE(pool.prove_ge(pool.parse("N"), pool.parse("M")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("N*N+1"), pool.parse("2*N")));
  EXPECT_FALSE(pool.prove_ge(pool.parse("2*N"), pool.parse("N*N+1")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("N*N"), pool.parse("N")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("N*M"), pool.parse("M")));
}

// Checklist 23.
TEST(ExprBounds, ProveGeDependsOnBounds) {
  ExprPool pool;
  EXPECT_TRUE(pool.prove_ge(pool.parse("64*N+64"), pool.parse("48*N+80")));
  ExprPool zero;
  zero.declare_symbol("N", {0, kPosInf});
  EXPECT_FALSE(zero.prove_ge(zero.parse("64*N+64"), zero.parse("48*N+80")));
  EXPECT_FALSE(zero.prove_ge(zero.parse("48*N+80"), zero.parse("64*N+64")));
}

// Checklist 24: the case split and structural equality.
TEST(ExprBounds, CaseSplitAndProveEq) {
  ExprPool pool;
  EXPECT_TRUE(pool.prove_ge(pool.parse("N"), pool.parse("max(0,N-3)")));
  EXPECT_TRUE(pool.prove_eq(pool.parse("N+N"), pool.parse("2*N")));
  // -max needs every case; +max needs one.
  EXPECT_TRUE(pool.prove_ge(pool.parse("N+5"), pool.parse("max(N,3)")));
  EXPECT_FALSE(pool.prove_ge(pool.parse("N+1"), pool.parse("max(N,3)")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("max(N,M)"), pool.parse("N")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("3"), pool.parse("min(N,3)")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("min(N+2,M+2)"), pool.parse("min(N,M)")));
  // The lossless split (here -min) is not always the first atom: min(N+2,M+2) is split first.
  EXPECT_TRUE(pool.prove_ge(pool.parse("max(N,M)+1"), pool.parse("min(N,M)")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("2*min(N,M)"), pool.parse("2")));
}

TEST(ExprBounds, ProveEqNeGtAndCompare) {
  ExprPool pool;
  pool.declare_symbol("K", {3, 3});
  EXPECT_TRUE(pool.prove_eq(pool.parse("K"), pool.parse("3")));
  EXPECT_FALSE(pool.prove_eq(pool.parse("N"), pool.parse("M")));
  EXPECT_TRUE(pool.prove_gt(pool.parse("N+1"), pool.parse("N")));
  EXPECT_FALSE(pool.prove_gt(pool.parse("N"), pool.parse("N")));
  EXPECT_TRUE(pool.prove_ne(pool.parse("N"), pool.parse("0")));
  EXPECT_TRUE(pool.prove_ne(pool.parse("N"), pool.parse("N+2")));
  EXPECT_FALSE(pool.prove_ne(pool.parse("N"), pool.parse("M")));
  EXPECT_TRUE(pool.prove_nonneg(pool.parse("N-1")));
  EXPECT_FALSE(pool.prove_nonneg(pool.parse("N-2")));
  EXPECT_EQ(pool.compare(pool.parse("N"), pool.parse("N")), Relation::kEq);
  EXPECT_EQ(pool.compare(pool.parse("2*N"), pool.parse("N")), Relation::kGt);
  EXPECT_EQ(pool.compare(pool.parse("N"), pool.parse("2*N")), Relation::kLt);
  EXPECT_EQ(pool.compare(pool.parse("N"), pool.parse("M")), Relation::kUnknown);
  EXPECT_EQ(pool.compare(pool.parse("K"), pool.parse("3")), Relation::kEq);
  ExprPool zero;
  zero.declare_symbol("N", {0, kPosInf});
  EXPECT_EQ(zero.compare(zero.parse("2*N"), zero.parse("N")), Relation::kGe);
  EXPECT_EQ(zero.compare(zero.parse("N"), zero.parse("2*N")), Relation::kLe);
}

// Checklist 25: the seed graph's totals.
TEST(ExprBounds, MaxOfSeedTotals) {
  ExprPool pool;
  std::vector<Expr> totals = {pool.parse("32*N+64"), pool.parse("64*N+64"), pool.parse("48*N+80"),
                              pool.parse("48*N+80"), pool.parse("48*N+80")};
  EXPECT_EQ(pool.print(pool.max(totals)), "64*N+64");
  ExprPool zero;
  zero.declare_symbol("N", {0, kPosInf});
  std::vector<Expr> ztotals = {zero.parse("32*N+64"), zero.parse("64*N+64"), zero.parse("48*N+80"),
                               zero.parse("48*N+80"), zero.parse("48*N+80")};
  EXPECT_EQ(zero.print(zero.max(ztotals)), "max(48*N+80,64*N+64)");
}

// Checklist 26.
TEST(ExprBounds, MaxOfSymbolsAndDuplicates) {
  ExprPool pool;
  const Expr n = pool.symbol("N");
  const Expr m = pool.symbol("M");
  EXPECT_EQ(pool.print(pool.max(n, m)), "max(M,N)");
  EXPECT_EQ(pool.max(n, n), n);
  EXPECT_EQ(pool.max(n, m), pool.max(m, n));
  const Expr args[] = {n, m, pool.parse("N+1"), pool.integer(1)};
  EXPECT_EQ(pool.print(pool.max(args)), "max(M,N+1)");
  EXPECT_EQ(pool.print(pool.min(args)), "1");
  const Expr margs[] = {n, pool.parse("2*N"), pool.integer(3)};
  EXPECT_EQ(pool.print(pool.min(margs)), "min(3,N)");
}

TEST(ExprBounds, MaxOfManyKeepsAFrontier) {
  ExprPool pool;
  std::vector<Expr> args;
  for (int k = 0; k < 1000; ++k)
    args.push_back(pool.parse(std::to_string(k % 50) + "*N+" + std::to_string(1000 - k)));
  // N >= 1: 49*N+951 ... the frontier is 49*N + (the largest constant among 49*N+c) plus any
  // term with a larger constant that a smaller slope does not dominate.
  const Expr m = pool.max(args);
  for (const Expr a : args) EXPECT_TRUE(pool.prove_ge(m, a));
  EXPECT_EQ(pool.print(m), "49*N+951");
}

TEST(ExprBounds, MonotonicityProofsUseFiniteCorners) {
  ExprPool pool;
  pool.declare_symbol("u", {kNegInf, 10});
  // Non-increasing in u with a finite upper bound: smallest at u = 10.
  EXPECT_TRUE(pool.prove_ge(pool.parse("20-u*2"), pool.parse("0")));
  EXPECT_FALSE(pool.prove_ge(pool.parse("19-u*2"), pool.parse("0")));
  // Mixed directions: non-decreasing in N (lower corner), non-increasing in u (upper corner).
  EXPECT_TRUE(pool.prove_ge(pool.parse("N*N-u"), pool.parse("-9")));
  EXPECT_FALSE(pool.prove_ge(pool.parse("N*N-u"), pool.parse("-8")));
}

TEST(ExprBounds, ProofsStopAtTheBudget) {
  ExprPool pool;
  // A max of many independent symbols against a sum: case splits multiply; the budget ends it.
  std::string big = "max(a1,a2,a3,a4,a5,a6,a7,a8)";
  std::string rhs = big + "+" + big + "+" + big + "+" + big;
  const Expr lhs = pool.parse("a1+a2+a3+a4+a5+a6+a7+a8");
  EXPECT_FALSE(pool.prove_ge(lhs, pool.parse(rhs)));
}

}  // namespace

namespace {

// A sum whose terms share a factor (expressions.md 5, step 2e): RAFT's broadcast of h//8 with
// (h+7)//8 gives `a*min(1,h//8)` beside `a`; the sum's interval cannot see that it is a*(1-m).
TEST(ExprBounds, ProveGeThroughACommonFactor) {
  ExprPool pool;
  EXPECT_TRUE(pool.prove_ge(pool.parse("(h+7)//8"), pool.parse("((h+7)//8)*min(1,h//8)")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("8*b*((h+7)//8)*((w+7)//8)"),
                            pool.parse("8*b*((h+7)//8)*((w+7)//8)*min(1,h//8)*min(1,w//8)")));
  // A constant >= 0 beside the shared factor: 8*X - 4*X*m + 37 (an if_fits allocation).
  EXPECT_TRUE(
      pool.prove_ge(pool.parse("12*b*n*w+41"), pool.parse("4*b*min(1,4*b*n*w-4)*n*w+4*b*n*w+4")));
  // The shared factor must be >= 0: with x of either sign nothing follows.
  pool.declare_symbol("x", {-5, 5});
  EXPECT_FALSE(pool.prove_ge(pool.parse("x"), pool.parse("x*min(1,h//8)")));
  // And the rest must be: a*(1 - m) with m up to 2 is not.
  EXPECT_FALSE(pool.prove_ge(pool.parse("(h+7)//8"), pool.parse("((h+7)//8)*min(2,h//8)")));
  EXPECT_EQ(pool.print(pool.max(pool.parse("(h+7)//8"), pool.parse("((h+7)//8)*min(1,h//8)"))),
            "(h+7)//8");
}

}  // namespace
