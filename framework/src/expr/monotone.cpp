// ExprPool::direction_in: how an expression moves as one symbol grows (cctx fit's proof that a
// memory figure only grows with the varied symbol, so the largest value within a budget is found by
// bisection without missing a smaller value over it). The structural rules are PoolImpl::direction
// (prove.cpp); this adds the symbols defined in terms of the varied one (a size cap stands for an
// expression of other symbols), through the chain rule on their definitions.
#include <unordered_map>

#include "cctx/expr.hpp"
#include "expr/pool_impl.hpp"

namespace cctx {

namespace {

// Directions as PoolImpl::direction codes them: 0 constant, 1 non-decreasing, -1
// non-increasing, 2 not shown either way. The direction of f(g(s)) from f's in g and g's in s.
int chain(int outer, int inner) {
  if (outer == 0 || inner == 0) return 0;
  if (outer == 2 || inner == 2) return 2;
  return outer * inner;
}

/// Definitions nest (a cap of a cap); deeper than this is "not shown".
constexpr int kMaxDefinitionDepth = 32;

}  // namespace

int ExprPool::direction_code(Expr e, std::string_view symbol, int depth) {
  const SymbolInfo* info = find_symbol(symbol);
  if (info == nullptr) return 0;  // a name the pool never made: nothing mentions it
  if (depth > kMaxDefinitionDepth) return 2;
  const auto index = static_cast<std::uint32_t>(info - impl_->symbols.data());
  // The sign of a product's factors proved, not only bounded: a KV cache's
  // `min(min(4096, past+seq) - min(4096, past), 1)` is never negative, though its interval says
  // it may be.
  std::unordered_map<std::uint64_t, int> memo;
  int r = impl_->direction(e, impl_->symbol_node(index).id, memo, /*prove_signs=*/true);
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
    r = detail::combine_directions(
        r, chain(impl_->direction(e, impl_->symbol_node(o_index).id, memo, true), inner));
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
