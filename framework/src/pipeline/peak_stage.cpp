// Stage 7: whole-graph peak (semantics.md "Whole-graph peak").
#include <algorithm>

#include "expr/running_sum.hpp"
#include "expr/termwise_frontier.hpp"
#include "pipeline/analysis_state.hpp"

namespace cctx {

namespace {

// Below this many distinct node terms the engine's n-ary max is used directly.
constexpr std::size_t kDirectMax = 64;
// Past this many survivors the engine's own cap decides anyway; stop spending proofs.
constexpr std::size_t kFullProofFrontier = 32;

/// A point inside every symbol's bounds, away from the edges, to order terms by size.
Assignment probe_point(const ExprPool& pool) {
  Assignment probe;
  for (const SymbolInfo& s : pool.symbols()) {
    const std::int64_t lo = s.bounds.lo == kNegInf ? 0 : s.bounds.lo;
    std::int64_t v = lo <= kPosInf - 1009 ? lo + 1009 : lo;
    if (v > s.bounds.hi) v = s.bounds.hi;
    probe[s.name] = v;
  }
  return probe;
}

/// The symbolic maximum of many node terms. If a >= b everywhere then a(p) >= b(p) at any point
/// p, so, visiting terms by decreasing value at a probe point, a term can only be dominated by
/// one already kept: each is tested against the kept frontier (a cheap termwise test first, of
/// the kept terms that can dominate it, a full proof while the frontier is small), and the
/// engine's max canonicalises the survivors.
Expr max_of_terms(ExprPool& pool, const std::vector<Expr>& terms) {
  if (terms.size() <= kDirectMax) return pool.max(terms);
  const Assignment probe = probe_point(pool);
  std::vector<std::pair<std::int64_t, Expr>> scored;
  scored.reserve(terms.size());
  try {
    const std::vector<std::int64_t> values = pool.eval_all(terms, probe);
    for (std::size_t k = 0; k < terms.size(); ++k) scored.emplace_back(values[k], terms[k]);
  } catch (const ExprError&) {
    return pool.max(terms);  // a term undefined at the probe: let the engine decide
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  TermwiseFrontier frontier(pool);
  // Terms are visited by value, not by handle: each one's node and term list would be a cache
  // miss in the comparison. They are prefetched ahead, the node first, its term list after.
  constexpr std::size_t kNodeAhead = 16, kTermsAhead = 8;
  for (std::size_t k = 0; k < scored.size(); ++k) {
    if (k + kNodeAhead < scored.size()) prefetch_node(pool, scored[k + kNodeAhead].second);
    if (k + kTermsAhead < scored.size()) prefetch_terms(pool, scored[k + kTermsAhead].second);
    const Expr term = scored[k].second;
    bool dominated = frontier.dominated(term);
    if (!dominated && frontier.kept().size() <= kFullProofFrontier) {
      for (Expr kept : frontier.kept()) {
        if (pool.prove_ge(kept, term)) {
          dominated = true;
          break;
        }
      }
    }
    if (!dominated) frontier.keep(term);
  }
  return pool.max(frontier.kept());
}

}  // namespace

PeakResult run_peak_stage(Analysis& s, const MemoryResult& memory, const ScratchResult& scratch) {
  const std::size_t count = s.graph->main_node_count();
  ExprPool& pool = *s.pool;
  PeakResult result;
  result.node_terms.assign(count, pool.integer(0));
  std::vector<Expr> distinct;
  // Expression handles are dense: a bit per handle finds the distinct terms without hashing.
  std::vector<bool> seen;
  for (NodeId n = 0; n < count; ++n) {
    Expr term;
    try {
      term = pool.add(memory.nodes[n].total, scratch.nodes[n]);
    } catch (const ExprError& e) {
      rethrow_at_node(s, n, e,
                      "the bytes live at this node and its scratch add up to more than 2^63 - 1");
    }
    result.node_terms[n] = term;
    if (term.id >= seen.size()) seen.resize(std::max<std::size_t>(2 * term.id, 1024), false);
    if (!seen[term.id]) {
      seen[term.id] = true;
      distinct.push_back(term);
    }
  }
  if (distinct.empty()) {
    result.total = pool.integer(0);
    return result;
  }
  result.total = max_of_terms(pool, distinct);
  for (NodeId n = 0; n < count; ++n) {
    if (result.node_terms[n] == result.total) {
      result.node = n;  // lowest index among identical terms
      break;
    }
  }
  return result;
}

}  // namespace cctx
