// Completing an assignment with the worst case of its data-dependent sizes (semantics.md,
// "Data-dependent sizes and their worst case").
#include "cctx/upper_bounds.hpp"

#include <map>
#include <optional>
#include <unordered_map>

namespace cctx {

namespace {

/// The symbols `roots` need to be evaluated: a size cap's or a floating-point size's definition
/// expanded (eval expands a symbol with a definition and no value), each sub-expression visited
/// once.
std::set<std::string> leaf_symbols(ExprPool& pool, std::vector<Expr> roots) {
  std::set<std::uint32_t> seen;
  std::set<std::string> leaves;
  while (!roots.empty()) {
    const Expr e = roots.back();
    roots.pop_back();
    if (!seen.insert(e.id).second) continue;
    for (std::string& name : pool.symbols_of(e)) {
      std::vector<Expr> operands = pool.definition_operands(name);
      if (operands.empty()) {
        leaves.insert(std::move(name));
      } else {
        roots.insert(roots.end(), operands.begin(), operands.end());
      }
    }
  }
  return leaves;
}

class BoundEvaluator {
 public:
  BoundEvaluator(const ComputeContext& ctx, Assignment& assignment)
      : pool_(ctx.pool()), assignment_(assignment) {
    for (std::size_t k = 0; k < ctx.dim_bounds().size(); ++k) {
      const DimBound& b = ctx.dim_bounds()[k];
      by_symbol_.emplace(pool_.print(b.symbol), k);
    }
    bounds_ = &ctx.dim_bounds();
  }

  /// Gives `symbol` its bound's value unless it has a value; false when it cannot.
  bool assign(const std::string& symbol) {
    if (assignment_.count(symbol) != 0) return true;
    const auto it = by_symbol_.find(symbol);
    if (it == by_symbol_.end()) return false;
    // A bound that mentions its own symbol (or a cycle of them) is no bound.
    if (!visiting_.insert(symbol).second) return false;
    const DimBound& b = (*bounds_)[it->second];
    bool ready = true;
    for (const std::string& name : leaf_symbols(pool_, {b.upper})) ready = assign(name) && ready;
    visiting_.erase(symbol);
    if (!ready) return false;
    const std::int64_t value = pool_.eval(b.upper, assignment_);
    assignment_[symbol] = value < 0 ? 0 : value;
    added_.emplace(it->second, BoundedSymbol{symbol, b.upper, assignment_[symbol]});
    return true;
  }

  std::vector<BoundedSymbol> added() const {
    std::vector<BoundedSymbol> out;
    out.reserve(added_.size());
    for (const auto& [order, bounded] : added_) out.push_back(bounded);
    return out;
  }

 private:
  ExprPool& pool_;
  Assignment& assignment_;
  const std::vector<DimBound>* bounds_ = nullptr;
  std::unordered_map<std::string, std::size_t> by_symbol_;
  std::set<std::string> visiting_;
  std::map<std::size_t, BoundedSymbol> added_;  ///< by position in dim_bounds()
};

}  // namespace

std::set<std::string> symbols_to_evaluate(const ComputeContext& ctx) {
  // The scratch too: an evaluation's run figures add it to the totals.
  std::vector<Expr> roots;
  roots.reserve(2 * ctx.node_count() + 1);
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    roots.push_back(ctx.memory(n).total);
    roots.push_back(ctx.node_peak_memory(n));
  }
  roots.push_back(ctx.peak_total_bytes());
  return leaf_symbols(ctx.pool(), std::move(roots));
}

std::vector<BoundedSymbol> assign_upper_bounds(const ComputeContext& ctx,
                                               const std::set<std::string>& needed,
                                               Assignment& assignment) {
  if (ctx.dim_bounds().empty()) return {};
  BoundEvaluator evaluator(ctx, assignment);
  for (const std::string& symbol : needed) evaluator.assign(symbol);
  return evaluator.added();
}

std::string upper_bounds_text(ExprPool& pool, const std::vector<BoundedSymbol>& bounded) {
  std::string out;
  for (const BoundedSymbol& b : bounded) {
    if (!out.empty()) out += ", ";
    out += b.symbol + " <= " + pool.print(b.upper);
    if (!pool.as_int(b.upper)) out += " = " + std::to_string(b.value);
  }
  return out;
}

}  // namespace cctx
