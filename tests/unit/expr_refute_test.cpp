// Failing proofs that cost nothing and true ones found fast (expressions.md section 5), and the
// indexed termwise frontier of the whole-graph peak: the shapes of a detection graph's memory
// totals (issue 19 item 7), sums of min(300, K) over per-class data-dependent counts K.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cctx/expr.hpp"
#include "expr/termwise_frontier.hpp"

namespace {

using cctx::Expr;
using cctx::ExprPool;

/// Declares data-dependent counts K0..K{n-1} in [0, 3234] (NonZero over 3,234 anchors).
void counts(ExprPool& pool, int n) {
  for (int k = 0; k < n; ++k) pool.declare_symbol("K" + std::to_string(k), {0, 3234});
}

std::string mins(int from, int to, int coef) {
  std::string s;
  for (int k = from; k < to; ++k)
    s += "+" + std::to_string(coef) + "*min(300,K" + std::to_string(k) + ")";
  return s;
}

std::uint64_t units(const ExprPool& pool) { return pool.stats().proof_units; }

// A later node's total against an earlier one's: true wherever K0 <= 300, false at K0 = 3234
// with the other counts 0. Its eight min atoms made the case split spend the whole budget (10,000
// units) before it failed; the point built for the goal (K0 at its upper end, where
// 28*min(300,K0) - 28*K0 is smallest) refutes it without a proof.
TEST(ExprRefute, FalseComparisonOfCountsIsRefutedWithoutAProof) {
  ExprPool pool;
  counts(pool, 8);
  const Expr later = pool.parse("28*min(300,K0)" + mins(1, 8, 28));
  const Expr earlier = pool.parse("28*K0");
  const std::uint64_t before = units(pool);
  EXPECT_FALSE(pool.prove_ge(later, earlier));
  EXPECT_EQ(units(pool) - before, 0U);
  // The same goal negated and shifted, small: a goal over max/min atoms is evaluated at points
  // whatever its weight (it was not, below weight 64).
  const Expr small = pool.parse("-16*K1+8*K2" + mins(0, 6, -28) + "+16170");
  EXPECT_FALSE(pool.prove_nonneg(small));
  EXPECT_EQ(units(pool) - before, 0U);
}

// Refutation only ever rejects false goals: true ones over the same atoms are still proven.
TEST(ExprRefute, TrueComparisonsOfCountsAreStillProven) {
  ExprPool pool;
  counts(pool, 8);
  EXPECT_TRUE(pool.prove_ge(pool.parse("K0"), pool.parse("min(300,K0)")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("28*K0" + mins(1, 8, 28)), pool.parse("28*min(300,K0)")));
  EXPECT_TRUE(pool.prove_ge(pool.parse("28*min(300,K0)" + mins(1, 8, 28) + "+8400"),
                            pool.parse("28*min(300,K1)+8400")));
  EXPECT_TRUE(pool.prove_nonneg(pool.parse("300-min(300,K3)" + mins(4, 8, 1))));
}

// S - min(300, S) with S a sum of seven min(300, K): the lossless split on the seven atoms came
// first (2^7 cases, 9,435 units), though the atom min(300, S) has the case S - S = 0.
TEST(ExprRefute, SettledCaseComesBeforeTheLosslessSplit) {
  ExprPool pool;
  counts(pool, 8);
  pool.declare_symbol("c", {0, 100000});
  const Expr s = pool.parse("c" + mins(0, 7, 1));
  const Expr k = pool.min(std::vector<Expr>{pool.integer(300), s});
  const std::uint64_t before = units(pool);
  EXPECT_TRUE(pool.prove_ge(s, k));
  EXPECT_LT(units(pool) - before, 100U);
}

// The index answers as the scan over every kept term does: terms of a detection graph's peak
// (a prefix of per-class outputs, plus the class's own count), visited in a random order.
TEST(ExprRefute, TermwiseFrontierAnswersAsTheScan) {
  ExprPool pool;
  counts(pool, 40);
  std::vector<Expr> terms;
  for (int c = 0; c < 40; ++c) {
    const std::string prefix = mins(0, c, 28);
    for (const char* local : {"", "+8*K", "+28*K", "+12*K", "+20*K"}) {
      std::string t = "375580" + prefix;
      if (*local != '\0') t += local + std::to_string(c);
      terms.push_back(pool.parse(t));
      terms.push_back(pool.parse(t + "+3234"));
    }
  }
  std::mt19937 rng(19);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(terms.begin(), terms.end(), rng);
    cctx::TermwiseFrontier frontier(pool);
    std::vector<Expr> kept;
    int dropped = 0;
    for (const Expr t : terms) {
      bool scan = false;
      for (const Expr k : kept) scan = scan || pool.dominates_termwise(k, t);
      ASSERT_EQ(frontier.dominated(t), scan) << pool.print(t);
      if (scan) {
        ++dropped;
        continue;
      }
      frontier.keep(t);
      kept.push_back(t);
    }
    EXPECT_EQ(frontier.kept(), kept);
    EXPECT_GT(dropped, 0);
    EXPECT_GT(kept.size(), 16U);  // past the size where the index is used
  }
}

}  // namespace
