// Stage 4: in-place buffer reuse (semantics.md "In-place reuse") and the buffer assignment the
// memory stage accounts with.
#include <onnx/onnx_pb.h>

#include <boost/container/small_vector.hpp>
#include <unordered_map>

#include "cctx/crash_report.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/buffer_ledger.hpp"
#include "pipeline/expr_bridge.hpp"
#include "pipeline/inplace_declarations.hpp"
#include "pipeline/node_flags.hpp"

namespace cctx {

namespace {

class InplaceStage {
 public:
  InplaceStage(Analysis& a, const ShapeResult& shapes, BufferPlan& plan)
      : s_(a),
        shapes_(shapes),
        plan_(plan),
        bridge_(*a.pool),
        buffers_(*a.graph, plan, !a.options.inplace.allow_input_overwrite) {}

  void run() {
    const GraphView& g = *s_.graph;
    const std::size_t count = g.main_node_count();
    plan_.inplace.reset(count);
    plan_.bytes.assign(g.values().size(), std::nullopt);
    plan_.buffer_of.assign(g.values().size(), kInvalidId);
    plan_.buffers.clear();
    ByteSizes byte_size(s_, shapes_);
    for (ValueId v = 0; v < g.values().size(); ++v) {
      if (g.value(v).graph != 0) continue;
      plan_.bytes[v] = byte_size(v);
      if (!plan_.bytes[v]) plan_.unsized_values.push_back(v);
    }
    seed_buffers();
    for (NodeId n = 0; n < count; ++n) plan(n);
    plan_.inplace.finish(count);
  }

 private:
  std::uint32_t new_buffer(ValueId v, BufferSource source, NodeId at) {
    return buffers_.make(v, source, at);
  }
  void join(std::uint32_t b, ValueId v, NodeId at) { buffers_.join(b, v, at); }

  void seed_buffers() {
    const GraphEntry& main = s_.graph->main();
    for (ValueId v : main.initializers) {
      if (plan_.bytes[v]) new_buffer(v, BufferSource::kInitializer, 0);
    }
    for (ValueId v : main.inputs) {
      if (plan_.bytes[v] && plan_.buffer_of[v] == kInvalidId)
        new_buffer(v, BufferSource::kInput, 0);
    }
  }

  /// Fills `d` (cleared first; a member reused from node to node, so that neither its lists nor
  /// a returned copy cost anything per node).
  void declarations(NodeId n, InplaceDeclarations& d) {
    collect_inplace_declarations(s_, shapes_, bridge_, n, d);
  }

  // semantics.md "In-place reuse: may_reuse(o, k) at node i" except the size class.
  bool eligible(NodeId n, std::uint32_t o, std::uint32_t k) const {
    const NodeEntry& node = s_.graph->node(n);
    if (o >= node.outputs.size() || k >= node.inputs.size()) return false;
    const ValueId out = node.outputs[o], in = node.inputs[k];
    if (out == kNoValue || in == kNoValue || out == in) return false;
    if (!plan_.bytes[out] || !plan_.bytes[in]) return false;
    const std::uint32_t b = plan_.buffer_of[in];
    if (b == kInvalidId) return false;
    if (reads_of_buffer(n, b) != 1) return false;
    for (ValueId v : node.captures) {
      if (plan_.buffer_of[v] == b) return false;
    }
    return !buffers_.is_protected(b) && buffers_.last(b) <= n;
  }

  /// How many inputs of node n read buffer b. A node with few inputs is scanned; a wide one (a
  /// Sum of 100k inputs, each a candidate) counts its inputs' buffers once, or each candidate
  /// would rescan every input. The inputs' buffers do not change while their node is planned.
  int reads_of_buffer(NodeId n, std::uint32_t b) const {
    const NodeEntry& node = s_.graph->node(n);
    constexpr std::size_t kScanned = 16;
    if (node.inputs.size() <= kScanned) {
      int reads = 0;
      for (ValueId v : node.inputs) {
        if (v != kNoValue && plan_.buffer_of[v] == b) ++reads;
      }
      return reads;
    }
    if (reads_node_ != n) {
      reads_.clear();
      for (ValueId v : node.inputs) {
        if (v != kNoValue && plan_.buffer_of[v] != kInvalidId) ++reads_[plan_.buffer_of[v]];
      }
      reads_node_ = n;
    }
    const auto it = reads_.find(b);
    return it == reads_.end() ? 0 : it->second;
  }

  std::optional<ReuseKind> size_class(NodeId n, std::uint32_t o, std::uint32_t k,
                                      bool structural_squeeze) {
    const NodeEntry& node = s_.graph->node(n);
    const ValueId out = node.outputs[o], in = node.inputs[k];
    if (structural_squeeze && k == 0 && shapes_.values[out].dtype == shapes_.values[in].dtype &&
        shapes_.values[in].dtype != 0) {
      return ReuseKind::kEqual;
    }
    const Expr in_bytes = *plan_.bytes[in], out_bytes = *plan_.bytes[out];
    if (in_bytes == out_bytes) return ReuseKind::kEqual;
    if (s_.pool->prove_ge(in_bytes, out_bytes)) return ReuseKind::kGreater;
    return std::nullopt;
  }

  /// semantics.md 7.4, last step: on a node that reused nothing, the one output whose eligible
  /// inputs all have a size class the symbols decide (neither `equal`, `greater`, nor provably
  /// smaller than the output). A fixed-size analysis reuses one of them exactly where it is at
  /// least the output's size, so each is an `if_fits` decision: the memory stage counts the
  /// output's allocation only where none fits. With several candidates each must be provably no
  /// larger than the output (an element-wise broadcast), so that whichever the fixed analysis
  /// takes, the buffer then holds the output's size; otherwise none is taken.
  void plan_if_fits(NodeId n, const InplaceDeclarations& d, const NodeFlags& served,
                    const NodeFlags& claimed, std::vector<InplaceDecision>& decisions) {
    const NodeEntry& node = s_.graph->node(n);
    std::optional<std::uint32_t> output;
    boost::container::small_vector<std::uint32_t, 4> inputs;
    NodeFlags picked(node.inputs.size());  // a set of inputs: a Sum may offer 100k of them
    for (auto [o, k] : d.may_reuse) {
      // An overwritten graph input changes what later nodes hold (7.6): not a local difference.
      if (o >= node.outputs.size() || k >= node.inputs.size() || served[o] || claimed[k] ||
          !eligible(n, o, k) || s_.graph->value(node.inputs[k]).is_input()) {
        continue;
      }
      if (output && *output != o) return;  // candidates for two outputs
      const Expr in_bytes = *plan_.bytes[node.inputs[k]], out_bytes = *plan_.bytes[node.outputs[o]];
      if (s_.pool->prove_gt(out_bytes, in_bytes)) continue;  // never fits
      output = o;
      if (!picked[k]) {
        picked.set(k);
        inputs.push_back(k);
      }
    }
    if (!output) return;
    if (inputs.size() > 1) {
      const Expr out_bytes = *plan_.bytes[node.outputs[*output]];
      for (std::uint32_t k : inputs) {
        if (!s_.pool->prove_ge(out_bytes, *plan_.bytes[node.inputs[k]])) return;
      }
    }
    for (std::uint32_t k : inputs) {
      decisions.push_back(InplaceDecision{*output, k, ReuseKind::kIfFits, ReuseMode::kMayReuse});
    }
  }

  void plan(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    InplaceDeclarations& d = declarations_;
    declarations(n, d);
    const bool structural = s_.rules_of(n).inplace == nullptr;
    const bool squeeze_shortcut = structural && node.domain.empty() &&
                                  (node.op_type == "Squeeze" || node.op_type == "Unsqueeze");
    NodeFlags served(node.outputs.size()), claimed(node.inputs.size()),
        untracked(node.outputs.size());
    std::vector<InplaceDecision>& decisions = decisions_;  // copied to plan_.inplace once sorted
    decisions.clear();

    // An output that shares an input's buffer whatever happens to it later (a buffer with room,
    // a view) takes output o and input k: true when both are tracked. A view of something not
    // tracked is not tracked either.
    auto share = [&](std::uint32_t o, std::uint32_t k) {
      if (o >= node.outputs.size() || k >= node.inputs.size() || served[o] || claimed[k])
        return false;
      const ValueId out = node.outputs[o], in = node.inputs[k];
      if (out == kNoValue || in == kNoValue || out == in) return false;
      served.set(o);
      claimed.set(k);
      if (!plan_.bytes[in] || plan_.buffer_of[in] == kInvalidId || !plan_.bytes[out]) {
        untracked.set(o);
        return false;
      }
      return true;
    };
    for (const CapacityWrite& w : d.writes_into) {
      if (!share(w.output, w.input)) continue;
      plan_.write_into(*s_.pool, n, node.outputs[w.output], node.inputs[w.input], w.capacity);
      decisions.push_back(
          InplaceDecision{w.output, w.input, ReuseKind::kEqual, ReuseMode::kWriteInto});
    }
    for (auto [o, k] : d.aliases) {
      if (share(o, k)) {
        decisions.push_back(InplaceDecision{o, k, ReuseKind::kEqual, ReuseMode::kAlias});
      }
    }
    for (ReuseKind pass : {ReuseKind::kEqual, ReuseKind::kGreater}) {
      for (std::uint32_t o = 0; o < node.outputs.size(); ++o) {
        if (served[o]) continue;
        for (auto [oo, k] : d.may_reuse) {
          if (oo != o || k >= node.inputs.size() || claimed[k] || !eligible(n, o, k)) continue;
          std::optional<ReuseKind> kind = size_class(n, o, k, squeeze_shortcut);
          if (kind != pass) continue;
          decisions.push_back(InplaceDecision{o, k, pass, ReuseMode::kMayReuse});
          served.set(o);
          claimed.set(k);
          break;
        }
      }
    }
    if (decisions.empty()) plan_if_fits(n, d, served, claimed, decisions);
    // Buffer transitions: decided outputs join their input's buffer; other sized outputs that
    // live past this node get a new buffer (one that takes an input's buffer where it fits, a
    // buffer of the larger of the two sizes: what it holds in either case).
    for (const InplaceDecision& dec : decisions) {
      if (dec.kind == ReuseKind::kIfFits) continue;
      join(plan_.buffer_of[node.inputs[dec.input]], node.outputs[dec.output], n);
    }
    for (std::uint32_t o = 0; o < node.outputs.size(); ++o) {
      const ValueId out = node.outputs[o];
      if (out == kNoValue || served[o] || untracked[o] || !plan_.bytes[out]) continue;
      if (plan_.buffer_of[out] != kInvalidId)
        continue;  // produced twice: the first definition counts
      const bool lives_on = s_.graph->value(out).is_output() ||
                            (plan_.last_use[out] != kInvalidId && plan_.last_use[out] > n);
      if (lives_on) new_buffer(out, BufferSource::kIntermediate, n);
    }
    if (!decisions.empty() && decisions.front().kind == ReuseKind::kIfFits) {
      // What the output's buffer holds whether it took an input's or not: the larger of the two
      // sizes (with several candidates every one is no larger than the output).
      const InplaceDecision& dec = decisions.front();
      const ValueId out = node.outputs[dec.output], in = node.inputs[dec.input];
      const bool lives_on = s_.graph->value(out).is_output() ||
                            (plan_.last_use[out] != kInvalidId && plan_.last_use[out] > n);
      if (lives_on && plan_.buffer_of[out] == kInvalidId) {
        const Expr size = decisions.size() == 1 ? s_.pool->max(*plan_.bytes[in], *plan_.bytes[out])
                                                : *plan_.bytes[out];
        buffers_.make_sized(out, size, BufferSource::kIntermediate, n);
      }
    }
    std::sort(
        decisions.begin(), decisions.end(),
        [](const InplaceDecision& a, const InplaceDecision& b) { return a.output < b.output; });
    for (const InplaceDecision& dec : decisions) plan_.inplace.push(n, dec);
    if (s_.options.decision_log) {
      for (const InplaceDecision& dec : decisions) {
        pending_.push_back(DecisionEvent{"inplace", static_cast<std::int64_t>(n),
                                         node.proto->name(), dec.output, dec.input,
                                         reuse_kind_name(dec.kind), reuse_mode_name(dec.mode)});
      }
    }
  }

 public:
  std::vector<DecisionEvent> take_events() { return std::move(pending_); }

 private:
  Analysis& s_;
  const ShapeResult& shapes_;
  BufferPlan& plan_;
  ExprBridge bridge_;
  BufferLedger buffers_;
  std::vector<InplaceDecision> decisions_;  // plan()'s, sorted then stored
  InplaceDeclarations declarations_;        // plan()'s, of the current node
  std::vector<DecisionEvent> pending_;
  mutable NodeId reads_node_ = kInvalidId;  // reads_of_buffer's node, whose counts reads_ holds
  mutable std::unordered_map<std::uint32_t, int> reads_;
};

}  // namespace

void run_inplace_stage(Analysis& s, const ShapeResult& shapes, BufferPlan& plan) {
  InplaceStage stage(s, shapes, plan);
  stage.run();
  // Decision log order (semantics.md "Writing back, decision log, report: Decision log"): releases,
  // then in-place, then shape-tag releases.
  if (s.options.decision_log) {
    for (NodeId n = 0; n < plan.release_after.size(); ++n) {
      for (ValueId v : plan.release_after[n]) {
        s.events.push_back(DecisionEvent{"release", static_cast<std::int64_t>(n),
                                         std::string(s.graph->value(v).name), -1, -1, "", ""});
      }
    }
    for (DecisionEvent& e : stage.take_events()) s.events.push_back(std::move(e));
    for (NodeId n = 0; n < plan.release_after_shape_tag.size(); ++n) {
      for (ValueId v : plan.release_after_shape_tag[n]) {
        s.events.push_back(DecisionEvent{"release_shape_tag", static_cast<std::int64_t>(n),
                                         std::string(s.graph->value(v).name), -1, -1, "", ""});
      }
    }
  }
}

}  // namespace cctx
