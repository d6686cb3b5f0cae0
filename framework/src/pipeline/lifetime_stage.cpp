// Stage 3: result lifetimes of the main graph (semantics.md "Lifetimes").
#include "pipeline/analysis_state.hpp"

namespace cctx {

namespace {

/// referenced(n): non-empty inputs de-duplicated in first-seen order, then the captures.
template <class Fn>
void for_each_referenced(const NodeEntry& node, std::vector<std::uint32_t>& seen_at, NodeId n,
                         Fn&& fn) {
  auto visit = [&](ValueId v) {
    if (v == kNoValue || seen_at[v] == n) return;
    seen_at[v] = n;
    fn(v);
  };
  for (ValueId v : node.inputs) visit(v);
  for (ValueId v : node.captures) visit(v);
}

}  // namespace

void run_lifetime_stage(Analysis& a, const TagResult& tags, BufferPlan& plan) {
  const GraphView& g = *a.graph;
  const std::size_t count = g.main_node_count();
  const std::size_t values = g.values().size();
  plan.last_use.assign(values, kInvalidId);
  plan.release_after.reset(count);
  plan.not_used_after.reset(count);
  plan.release_after_shape_tag.reset(count);

  std::vector<std::uint32_t> seen_at(values, kInvalidId);
  for (NodeId n = 0; n < count; ++n) {
    for_each_referenced(g.node(n), seen_at, n, [&](ValueId v) { plan.last_use[v] = n; });
  }
  const bool overwrite_inputs = a.options.inplace.allow_input_overwrite;
  std::fill(seen_at.begin(), seen_at.end(), kInvalidId);
  for (NodeId n = 0; n < count; ++n) {
    for_each_referenced(g.node(n), seen_at, n, [&](ValueId v) {
      if (plan.last_use[v] != n) return;
      const ValueEntry& e = g.value(v);
      if (e.graph == 0 && (e.is_input() || e.is_initializer())) {
        plan.not_used_after.push(n, v);
        return;
      }
      const bool keep = e.is_initializer() || e.is_output() || (e.is_input() && !overwrite_inputs);
      if (keep) return;
      // Main-graph nodes are NodeIds 0..count-1, so a producer before n is a main-graph node.
      if (e.producer != kInvalidId && e.producer < n) {
        plan.release_after.push(n, v);
        if (tags.values[v] == Tag::kShape) plan.release_after_shape_tag.push(n, v);
      }
    });
  }
  plan.release_after.finish(count);
  plan.not_used_after.finish(count);
  plan.release_after_shape_tag.finish(count);
}

}  // namespace cctx
