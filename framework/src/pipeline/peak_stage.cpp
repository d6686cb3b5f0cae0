// Stage 7: whole-graph peak (semantics.md 10).
#include <unordered_set>

#include "pipeline/analysis_state.hpp"

namespace cctx {

void run_peak_stage(ComputeContext::State& s) {
  const std::size_t count = s.graph->main_node_count();
  ExprPool& pool = *s.pool;
  s.node_terms.assign(count, pool.integer(0));
  s.peak_node.reset();
  std::vector<Expr> distinct;
  std::unordered_set<std::uint32_t> seen;
  for (NodeId n = 0; n < count; ++n) {
    s.node_terms[n] = pool.add(s.memory[n].total, s.scratch[n]);
    if (seen.insert(s.node_terms[n].id).second) distinct.push_back(s.node_terms[n]);
  }
  if (distinct.empty()) {
    s.peak = pool.integer(0);
    return;
  }
  s.peak = pool.max(distinct);
  for (NodeId n = 0; n < count; ++n) {
    if (s.node_terms[n] == s.peak) {
      s.peak_node = n;  // lowest index among identical terms
      break;
    }
  }
}

}  // namespace cctx
