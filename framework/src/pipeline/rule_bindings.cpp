// The binding step (see rule_bindings.hpp).
#include "pipeline/rule_bindings.hpp"

namespace cctx {

void RuleBindings::bind(const GraphView& graph, const RuleRegistry& registry) {
  kinds_.assign(graph.op_kind_count(), ResolvedRules{});
  // Every node of a kind has the kind's domain, op type and opset: its first node resolves it.
  std::vector<bool> bound(graph.op_kind_count(), false);
  for (const NodeEntry& node : graph.nodes()) {
    if (bound[node.kind]) continue;
    bound[node.kind] = true;
    kinds_[node.kind] = registry.resolve(node.domain, node.op_type, node.opset);
  }
}

}  // namespace cctx
