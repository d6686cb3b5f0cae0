// refuted_at_corner: a point built for one goal d where d < 0, found without a proof.
//
// Why: the fixed points of refuted_by_points are the same for every goal, and a false goal that
// is positive at all of them costs a whole proof budget before it fails. Memory totals compare
// so: on a detection graph, "a later node's total >= an earlier one's" is
// 28*min(300,K_c) - 28*K_c + (sums of other counts) >= 0, true wherever K_c <= 300 (at every
// fixed point) and false at K_c = 3234 with the other counts 0. The prover, being sound, can
// only fail on such a goal; each one spent ~4M instructions before (issue 19 item 7).
//
// How: d's terms that depend on one symbol only are grouped by that symbol; each symbol takes
// the candidate value (its bounds' ends, and the literal arguments of a min/max over it) where
// its group is smallest, and symbols without a group take their lower end. This is only a
// search for a counterexample: any in-bounds point where d evaluates below 0 refutes d, so the
// outcome of prove_nonneg never changes, only the cost of a failure.
#include <algorithm>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

/// A finite value inside `b` near its lower end (the upper end when only that is finite).
std::int64_t low_end(Interval b) {
  if (b.lo != kNegInf) return b.lo;
  return b.hi != kPosInf ? b.hi : 0;
}

}  // namespace

bool detail::PoolImpl::refuted_at_corner(Expr d) {
  PolyLoan p(*this);
  append_terms(d, 1, *p);
  // (symbol index, term index) for the terms whose monomial depends on that symbol alone.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> single;
  std::vector<std::uint32_t> syms;
  for (std::uint32_t i = 0; i < p->terms.size(); ++i) {
    syms.clear();
    collect_symbols(Expr{p->terms[i].mono}, syms);
    if (syms.size() == 1) single.emplace_back(syms[0], i);
  }
  std::sort(single.begin(), single.end());
  std::vector<std::uint32_t> all;
  collect_symbols(d, all);
  Assignment point;
  for (const std::uint32_t s : all) point.emplace(symbols[s].name, low_end(symbols[s].bounds));

  std::vector<std::int64_t> candidates;
  Assignment one;
  for (std::size_t g = 0; g < single.size();) {
    const std::uint32_t s = single[g].first;
    std::size_t end = g;
    while (end < single.size() && single[end].first == s) ++end;
    const Interval b = symbols[s].bounds;
    candidates.assign({low_end(b)});
    if (b.hi != kPosInf && b.lo != kNegInf) candidates.push_back(b.hi);
    for (std::size_t t = g; t < end; ++t) {
      const Node& m = nodes[p->terms[single[t].second].mono];
      if (!is_minmax(m.kind)) continue;
      for (std::uint32_t a = 0; a < m.len; ++a) {
        const Node& arg = nodes[payload[m.off + a]];
        if (arg.kind == Kind::kInt && arg.aux >= b.lo && arg.aux <= b.hi) {
          candidates.push_back(arg.aux);
        }
      }
    }
    std::int64_t best_value = candidates.front();
    Int128 best = 0;
    bool have = false;
    for (const std::int64_t v : candidates) {
      one.clear();
      one.emplace(symbols[s].name, v);
      Int128 sum = 0;
      try {
        for (std::size_t t = g; t < end; ++t) {
          const Term& term = p->terms[single[t].second];
          sum += static_cast<Int128>(term.coef) * eval(Expr{term.mono}, one);
        }
      } catch (const ExprError&) {
        continue;  // undefined there (a division by zero): not a candidate
      }
      if (!have || sum < best) {
        best = sum;
        best_value = v;
        have = true;
      }
    }
    point[symbols[s].name] = best_value;
    g = end;
  }
  try {
    return eval(d, point) < 0;
  } catch (const ExprError&) {
    return false;
  }
}

}  // namespace cctx
