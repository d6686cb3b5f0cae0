#include "plan/plan_buffers.hpp"

#include <algorithm>

namespace cctx::plan_detail {

std::uint32_t group_of(ValueLives& lives, std::uint32_t v) {
  while (lives.group[v] != v) {
    lives.group[v] = lives.group[lives.group[v]];
    v = lives.group[v];
  }
  return v;
}

ValueLives value_lives(const ComputeContext& ctx) {
  const GraphView& g = ctx.graph();
  const std::size_t values = g.values().size();
  const std::size_t nodes = ctx.node_count();
  ValueLives lives;
  lives.first.assign(values, kNone);
  lives.last.assign(values, kNone);
  lives.group.resize(values);
  for (std::uint32_t v = 0; v < values; ++v) lives.group[v] = v;
  lives.external.assign(values, false);

  auto read_at = [&](ValueId v, NodeId n) {
    if (v == kNoValue || v >= values) return;
    if (lives.last[v] == kNone || lives.last[v] < n) lives.last[v] = static_cast<std::uint32_t>(n);
  };
  for (NodeId n = 0; n < nodes; ++n) {
    // The lifetimes stage's lists also cover what a node's bodies read from the main graph.
    for (ValueId v : ctx.release_after(n)) read_at(v, n);
    for (ValueId v : ctx.not_used_after(n)) read_at(v, n);
    for (ValueId v : g.node(n).inputs) read_at(v, n);
  }
  for (NodeId n = 0; n < nodes; ++n) {
    for (ValueId v : g.node(n).outputs) {
      if (v == kNoValue || lives.first[v] != kNone) continue;
      lives.first[v] = static_cast<std::uint32_t>(n);
    }
  }
  const auto end = static_cast<std::uint32_t>(nodes == 0 ? 0 : nodes - 1);
  for (std::uint32_t v = 0; v < values; ++v) {
    if (lives.first[v] == kNone) continue;
    if (g.value(v).is_output()) lives.last[v] = end;
    if (lives.last[v] == kNone || lives.last[v] < lives.first[v]) lives.last[v] = lives.first[v];
  }
  for (NodeId n = 0; n < nodes; ++n) {
    const NodeEntry& node = g.node(n);
    for (const InplaceDecision& d : ctx.inplace(n)) {
      if (d.kind == ReuseKind::kIfFits) continue;
      const ValueId in = node.inputs[d.input];
      const ValueId out = node.outputs[d.output];
      if (in == kNoValue || out == kNoValue) continue;
      const std::uint32_t a = group_of(lives, in), b = group_of(lives, out);
      if (a != b) lives.group[b] = a;
    }
  }
  for (const ValueId v : g.main().inputs) lives.external[group_of(lives, v)] = true;
  for (const ValueId v : g.main().initializers) lives.external[group_of(lives, v)] = true;
  return lives;
}

}  // namespace cctx::plan_detail
