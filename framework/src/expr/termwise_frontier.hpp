// TermwiseFrontier: the kept terms of a large maximum, indexed by monomial, so that "does a kept
// term dominate t termwise" (ExprPool::dominates_termwise) tests only the kept terms that can.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "cctx/expr.hpp"

namespace cctx {

/// a dominates b termwise only if every monomial with a positive coefficient in b has at least
/// that coefficient in a, so only the kept terms holding b's rarest such monomial can dominate
/// b. The whole-graph peak of a detection graph keeps a few terms per class, each over its own
/// data-dependent count: testing every kept term was quadratic in the number of classes (issue
/// 19 item 7). The answer is the scan's (any dominating term is among the candidates); only the
/// number of tests changes. Small frontiers are scanned directly, which costs less than the index.
class TermwiseFrontier {
 public:
  explicit TermwiseFrontier(ExprPool& pool) : pool_(pool) {}

  /// True when some kept term dominates `t` termwise. Inline: the peak calls it once per term
  /// (55k on the 100k-node decoder), nearly always with a small frontier.
  bool dominated(Expr t) {
    if (kept_.size() >= kIndexFrom) return dominated_indexed(t);
    for (const Expr k : kept_) {
      if (pool_.dominates_termwise(k, t)) return true;
    }
    return false;
  }
  /// Adds `t` to the kept terms.
  void keep(Expr t);
  const std::vector<Expr>& kept() const { return kept_; }

 private:
  // Below this many kept terms a plain scan is cheaper than the monomial lookups (the 100k-node
  // decoder's peak keeps 7 terms of 55k).
  static constexpr std::size_t kIndexFrom = 16;
  bool dominated_indexed(Expr t);

  ExprPool& pool_;
  std::vector<Expr> kept_;
  /// Monomial handle -> the positions in kept_ of the terms where its coefficient is > 0.
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> holders_;
};

}  // namespace cctx
