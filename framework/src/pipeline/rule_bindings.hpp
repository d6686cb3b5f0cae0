// The binding step between the graph view and the stages: the rules of every operator kind of
// the graph, resolved once (docs/design/architecture.md, "Registry and resolution").
#pragma once

#include <vector>

#include "cctx/graph.hpp"
#include "cctx/registry.hpp"

namespace cctx {

/// Per NodeEntry::kind (nodes of one domain, op type and opset share their rules), the rules of
/// each kind, resolved right after the graph view is built. Every stage and report reads them
/// here; none resolves rules itself, for itself or for another.
class RuleBindings {
 public:
  /// Resolves the rules of every kind of `graph`, bodies included.
  void bind(const GraphView& graph, const RuleRegistry& registry);
  const ResolvedRules& of(const NodeEntry& node) const { return kinds_[node.kind]; }

 private:
  std::vector<ResolvedRules> kinds_;
};

}  // namespace cctx
