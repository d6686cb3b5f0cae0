// Working memory of control-flow bodies (semantics.md "Peak scratch memory"): what a node's If
// branch, Loop or Scan iteration allocates for its own intermediate values while it runs. One body
// runs at a time, so a node needs the largest of its bodies' peaks: the max over an If's branches,
// one iteration of a Loop, leaving out a branch that does not run (decided against, or refusing
// its inputs). Body outputs are not counted here: they become the node's outputs (If)
// or the next iteration's carried values, which the node's own outputs account for.
#include <unordered_map>
#include <unordered_set>

#include "pipeline/analysis_state.hpp"

namespace cctx {

namespace {

class BodyMemory {
 public:
  BodyMemory(Analysis& a, const ShapeResult& shapes) : s_(a), shapes_(shapes), pool_(*a.pool) {}

  Expr bodies_of(NodeId n) {
    Expr largest = pool_.integer(0);
    for (const BodyRef& b : s_.graph->node(n).bodies) {
      // An If branch that does not run with these inputs (IShapeSink::skip_body) holds nothing.
      if (shapes_.skipped_bodies.count(b.graph) != 0) continue;
      largest = pool_.max(largest, peak_of(b.graph));
    }
    return largest;
  }

 private:
  /// A value produced by a node of graph g.
  bool local(ValueId v, GraphId g) const {
    return v != kNoValue && s_.graph->value(v).graph == g &&
           s_.graph->value(v).producer != kInvalidId;
  }

  /// Computed once per value: an unknown rank makes a fresh `bytes_<value>` symbol each time.
  Expr bytes(ValueId v) {
    auto it = bytes_.find(v);
    if (it != bytes_.end()) return it->second;
    std::optional<Expr> b = compute_value_bytes(s_, shapes_, v);
    return bytes_.emplace(v, b ? *b : pool_.integer(0)).first->second;
  }

  /// Peak of the live local values of g over one run of its nodes, nested bodies included.
  Expr peak_of(GraphId g) {
    const GraphEntry& ge = s_.graph->graphs()[g];
    std::unordered_map<ValueId, std::size_t> last_read;
    for (std::size_t i = 0; i < ge.nodes.size(); ++i) {
      const NodeEntry& node = s_.graph->node(ge.nodes[i]);
      for (ValueId v : node.inputs) {
        if (local(v, g)) last_read[v] = i;
      }
      for (ValueId v : node.captures) {
        if (local(v, g)) last_read[v] = i;
      }
    }
    const std::unordered_set<ValueId> outputs(ge.outputs.begin(), ge.outputs.end());
    Expr live = pool_.integer(0), peak = pool_.integer(0);
    for (std::size_t i = 0; i < ge.nodes.size(); ++i) {
      const NodeEntry& node = s_.graph->node(ge.nodes[i]);
      Expr produced = pool_.integer(0);
      for (ValueId v : node.outputs) {
        if (local(v, g) && outputs.count(v) == 0) produced = pool_.add(produced, bytes(v));
      }
      peak = pool_.max(peak, pool_.add(pool_.add(live, produced), bodies_of(ge.nodes[i])));
      live = pool_.add(live, produced);
      std::unordered_set<ValueId> released;
      auto release = [&](ValueId v, bool unread) {
        if (!local(v, g) || outputs.count(v) != 0 || !released.insert(v).second) return;
        auto it = last_read.find(v);
        if ((unread && it == last_read.end()) ||
            (!unread && it != last_read.end() && it->second == i)) {
          live = pool_.sub(live, bytes(v));
        }
      };
      for (ValueId v : node.outputs) release(v, true);
      for (ValueId v : node.inputs) release(v, false);
      for (ValueId v : node.captures) release(v, false);
    }
    return peak;
  }

  Analysis& s_;
  const ShapeResult& shapes_;
  ExprPool& pool_;
  std::unordered_map<ValueId, Expr> bytes_;
};

}  // namespace

Expr body_working_bytes(Analysis& a, const ShapeResult& shapes, NodeId n) {
  return BodyMemory(a, shapes).bodies_of(n);
}

}  // namespace cctx
