// ExprPool::direction_in: how an expression moves as one symbol grows (cctx fit's proof that a
// memory figure only grows with the varied symbol, so the largest value within a budget is found by
// bisection without missing a smaller value over it). The structural rules are PoolImpl::direction
// (prove.cpp); this adds the symbols defined in terms of the varied one (a size cap stands for an
// expression of other symbols), through the chain rule on their definitions.
#include <unordered_map>
#include <vector>

#include "cctx/expr.hpp"
#include "expr/pool_impl.hpp"

namespace cctx {

namespace {

// 0 constant, 1 non-decreasing, -1 non-increasing, 2 not shown either way (PoolImpl::direction).
int combine(int a, int b) {
  if (a == 0) return b;
  if (b == 0 || a == b) return a;
  return 2;
}
int flip(int a) { return (a == 1 || a == -1) ? -a : a; }
int chain(int outer, int inner) {
  if (outer == 0 || inner == 0) return 0;
  if (outer == 2 || inner == 2) return 2;
  return outer * inner;
}

/// Definitions nest (a cap of a cap); deeper than this is "not shown".
constexpr int kMaxDefinitionDepth = 32;

/// PoolImpl::direction's rules, with the sign of a product's factors shown by prove_nonneg when
/// their interval alone does not (a KV cache's `min(min(4096, past+seq) - min(4096, past), 1)`
/// is never negative, though its interval says it may be). Kept apart from the simplifier's
/// version, whose cost and results the rewrites depend on.
class Directions {
 public:
  Directions(detail::PoolImpl& pool, std::uint32_t symbol) : pool_(pool), symbol_(symbol) {}

  int of(Expr e) {
    using Kind = detail::Kind;
    const detail::Node& n = pool_.nodes[e.id];
    if ((n.sig & pool_.nodes[symbol_].sig) == 0) return 0;
    if (e.id == symbol_) return 1;
    if (const auto it = memo_.find(e.id); it != memo_.end()) return it->second;
    // Copied: the proofs below may intern expressions and move the pool's storage.
    const std::vector<std::uint32_t> w(pool_.payload.begin() + n.off,
                                       pool_.payload.begin() + n.off + n.len);
    const Kind kind = n.kind;
    int r = 0;
    switch (kind) {
      case Kind::kInt:
      case Kind::kSym:
        break;
      case Kind::kSum:
        for (std::size_t i = 0; i < w.size() && r != 2; i += 3) {
          const int t = of(Expr{w[i]});
          r = combine(r, detail::get_i64(w.data() + i + 1) < 0 ? flip(t) : t);
        }
        break;
      case Kind::kMono:
        // A product of non-negative factors moves with its dependent factors when they agree.
        for (std::size_t i = 0; i < w.size() && r != 2; i += 2) {
          if (!nonneg(Expr{w[i]})) {
            r = 2;
            break;
          }
          r = combine(r, of(Expr{w[i]}));
        }
        break;
      case Kind::kFloorDiv:
        // floor(n/d) moves with n for a fixed d >= 1.
        r = (of(Expr{w[1]}) == 0 && pool_.interval(Expr{w[1]}).lo >= 1) ? of(Expr{w[0]}) : 2;
        break;
      case Kind::kExactDiv:
      case Kind::kMod:
        r = 2;
        break;
      case Kind::kMax:
      case Kind::kMin:
        for (std::size_t i = 0; i < w.size() && r != 2; ++i) r = combine(r, of(Expr{w[i]}));
        break;
    }
    memo_.emplace(e.id, r);
    return r;
  }

 private:
  bool nonneg(Expr e) {
    if (pool_.interval(e).lo >= 0) return true;
    try {
      return pool_.prove_nonneg(e);
    } catch (const ExprError&) {
      return false;  // a proof that would overflow shows nothing
    }
  }

  detail::PoolImpl& pool_;
  std::uint32_t symbol_;
  std::unordered_map<std::uint32_t, int> memo_;
};

}  // namespace

int ExprPool::direction_code(Expr e, std::string_view symbol, int depth) {
  const SymbolInfo* info = find_symbol(symbol);
  if (info == nullptr) return 0;  // a name the pool never made: nothing mentions it
  if (depth > kMaxDefinitionDepth) return 2;
  const auto index = static_cast<std::uint32_t>(info - impl_->symbols.data());
  int r = Directions(*impl_, impl_->symbol_node(index).id).of(e);
  for (const std::string& other : symbols_of(e)) {
    if (r == 2) break;
    if (other == symbol) continue;
    int inner = 0;
    if (const std::optional<Expr> cap = definition(other)) {
      inner = direction_code(*cap, symbol, depth + 1);
    } else {
      // A floating-point size: its rounding of a float computation is not analysed.
      for (const Expr operand : definition_operands(other)) {
        if (direction_code(operand, symbol, depth + 1) != 0) inner = 2;
      }
    }
    if (inner == 0) continue;
    const SymbolInfo* o = find_symbol(other);
    const auto o_index = static_cast<std::uint32_t>(o - impl_->symbols.data());
    r = combine(r, chain(Directions(*impl_, impl_->symbol_node(o_index).id).of(e), inner));
  }
  return r;
}

Direction ExprPool::direction_in(Expr e, std::string_view symbol) {
  switch (direction_code(e, symbol, 0)) {
    case 0:
      return Direction::kConstant;
    case 1:
      return Direction::kNondecreasing;
    case -1:
      return Direction::kNonincreasing;
    default:
      return Direction::kUnknown;
  }
}

}  // namespace cctx
