#include "plan/sample_box.hpp"

#include <set>

namespace cctx::plan_detail {

std::vector<std::string> plan_symbols(ExprPool& pool, std::span<const Expr> exprs) {
  std::set<std::string> out;
  std::set<std::string> seen;
  std::set<Expr> exprs_seen;
  std::vector<std::string> pending;
  for (const Expr e : exprs) {
    if (!exprs_seen.insert(e).second) continue;
    for (std::string& s : pool.symbols_of(e)) pending.push_back(std::move(s));
  }
  while (!pending.empty()) {
    const std::string s = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(s).second) continue;
    if (!pool.definition_text(s)) {
      out.insert(s);
      continue;
    }
    // eval() computes a defined symbol from its operands' symbols: those are the assignment's.
    for (const Expr operand : pool.definition_operands(s)) {
      for (std::string& t : pool.symbols_of(operand)) pending.push_back(std::move(t));
    }
  }
  return {out.begin(), out.end()};
}

std::vector<std::pair<std::string, Interval>> sample_box(ExprPool& pool,
                                                         const std::vector<std::string>& symbols,
                                                         std::int64_t unbounded_span) {
  std::vector<std::pair<std::string, Interval>> box;
  for (const std::string& s : symbols) {
    const SymbolInfo* info = pool.find_symbol(s);
    Interval b = info != nullptr ? info->bounds : kDimBounds;
    if (b.lo == kNegInf || b.lo < 0) b.lo = 0;
    if (b.hi == kPosInf) b.hi = b.lo + unbounded_span;
    if (b.hi < b.lo) b.hi = b.lo;
    box.emplace_back(s, b);
  }
  return box;
}

Assignment assignment_of(const std::vector<std::pair<std::string, Interval>>& box,
                         const std::vector<std::int64_t>& values) {
  Assignment a;
  for (std::size_t k = 0; k < box.size(); ++k) a.emplace(box[k].first, values[k]);
  return a;
}

}  // namespace cctx::plan_detail
