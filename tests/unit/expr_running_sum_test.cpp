// RunningSum (the memory profile's live sums) and ExprPool::eval_all (the peak's batch
// evaluation): both are shortcuts, so each is held to the plain operation it replaces.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cctx/expr.hpp"
#include "expr/running_sum.hpp"

namespace {

using cctx::Assignment;
using cctx::Expr;
using cctx::ExprError;
using cctx::ExprPool;
using cctx::RunningSum;

/// Replays `ops` (operand, +1 / -1) through RunningSum and through a chain of ExprPool::add/sub,
/// reading the running value after every step, and expects the same handle each time.
void expect_same_as_chain(ExprPool& pool, const std::vector<std::pair<Expr, int>>& ops) {
  RunningSum running(pool);
  Expr chain = pool.integer(0);
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const auto [operand, sign] = ops[k];
    if (sign > 0) {
      running.add(operand);
      chain = pool.add(chain, operand);
    } else {
      running.sub(operand);
      chain = pool.sub(chain, operand);
    }
    ASSERT_EQ(running.value(), chain) << "step " << k << ": running " << pool.print(running.value())
                                      << ", chain " << pool.print(chain);
  }
}

TEST(RunningSum, StartsAtZero) {
  ExprPool pool;
  RunningSum sum(pool);
  EXPECT_EQ(sum.value(), pool.integer(0));
}

TEST(RunningSum, AddsAndCancelsPolynomials) {
  ExprPool pool;
  const Expr a = pool.parse("4*batch*seq");
  const Expr b = pool.parse("8*batch*seq+16");
  const Expr c = pool.parse("batch*past_seq");
  RunningSum sum(pool);
  sum.add(a);
  sum.add(b);
  sum.add(c);
  EXPECT_EQ(pool.print(sum.value()), "batch*past_seq+12*batch*seq+16");
  sum.sub(b);
  sum.sub(a);
  EXPECT_EQ(sum.value(), c);
  sum.sub(c);
  EXPECT_EQ(sum.value(), pool.integer(0));
}

TEST(RunningSum, ValueIsCachedUntilTheNextChange) {
  ExprPool pool;
  RunningSum sum(pool);
  sum.add(pool.parse("2*N"));
  const Expr first = sum.value();
  const std::size_t nodes = pool.node_count();
  EXPECT_EQ(sum.value(), first);
  EXPECT_EQ(pool.node_count(), nodes);  // a second read interns nothing
  sum.add(pool.integer(3));
  EXPECT_EQ(pool.print(sum.value()), "2*N+3");
}

TEST(RunningSum, OperandsThePoolRewritesGoThroughThePool) {
  // N//2 and N%2 recombine into N when added (division families), an exact division cancels
  // against its coefficient: the sum must follow the pool, and return to its own path after.
  ExprPool pool;
  const Expr n = pool.parse("N");
  expect_same_as_chain(pool, {{pool.parse("2*(N//2)"), 1},
                              {pool.parse("N%2"), 1},
                              {pool.parse("3*M"), 1},
                              {pool.parse("N%2"), -1},
                              {pool.parse("2*(N//2)"), -1},
                              {pool.parse("4*(N*M/:2)"), 1},
                              {n, 1},
                              {pool.parse("4*(N*M/:2)"), -1}});
}

TEST(RunningSum, MatchesTheChainOnRandomSequences) {
  ExprPool pool;
  const std::vector<Expr> operands = {
      pool.parse("batch*seq*64"),           pool.parse("4*batch*(past_seq+seq)"),
      pool.parse("max(seq,4)*batch"),       pool.parse("16"),
      pool.parse("min(4096,past_seq+seq)"), pool.parse("batch*seq*seq*2+8"),
      pool.parse("(seq+1)//2*batch"),       pool.parse("0"),
  };
  std::mt19937 random(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::pair<Expr, int>> ops;
    std::vector<Expr> live;
    for (int step = 0; step < 40; ++step) {
      if (!live.empty() && random() % 3 == 0) {
        const std::size_t k = random() % live.size();
        ops.emplace_back(live[k], -1);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        const Expr e = operands[random() % operands.size()];
        ops.emplace_back(e, 1);
        live.push_back(e);
      }
    }
    expect_same_as_chain(pool, ops);
  }
}

TEST(RunningSum, OverflowThrowsAsAddDoes) {
  ExprPool pool;
  RunningSum sum(pool);
  sum.add(pool.parse("9223372036854775807*N"));
  EXPECT_THROW(sum.add(pool.parse("N")), ExprError);
}

TEST(EvalAll, EqualsEvalOfEachExpression) {
  ExprPool pool;
  std::vector<Expr> es = {pool.parse("48*N+80"), pool.parse("max(N,M)-min(N,M)"),
                          pool.parse("N*M+N"), pool.parse("48*N+80"), pool.parse("7")};
  const Assignment at{{"N", 8}, {"M", 3}};
  const std::vector<std::int64_t> values = pool.eval_all(es, at);
  ASSERT_EQ(values.size(), es.size());
  for (std::size_t k = 0; k < es.size(); ++k) EXPECT_EQ(values[k], pool.eval(es[k], at)) << k;
  EXPECT_TRUE(pool.eval_all({}, at).empty());
}

TEST(EvalAll, ThrowsForTheFirstExpressionThatFails) {
  ExprPool pool;
  const std::vector<Expr> es = {pool.parse("N+1"), pool.parse("N//(M-3)"), pool.parse("K")};
  try {
    pool.eval_all(es, {{"N", 8}, {"M", 3}});
    FAIL() << "no error";
  } catch (const ExprError& e) {
    EXPECT_EQ(e.kind(), ExprError::Kind::kDivisionByZero) << e.what();
  }
}

}  // namespace
