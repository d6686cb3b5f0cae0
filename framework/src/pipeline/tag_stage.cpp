// Stage 2: value and node tags (semantics.md "Tags"). The per-node steps are generic; the tables
// (explicit tags, positional tags, inheritance, backward propagation) come from the plugins'
// TagTraits, and op-specific logic from their ITagRules.
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "cctx/crash_report.hpp"
#include "model/metadata.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/expr_bridge.hpp"
#include "pipeline/host_node_view.hpp"

namespace cctx {

namespace {

const TagTraitsCopy kDefaultTraits{};  // inherit input 0, no backward propagation

std::string text(sdk::StringRef s) { return s.data ? std::string(s.data, s.size) : std::string(); }

class TagStage;

/// ITagSink over the analysis state for one node.
class HostTagSink final : public sdk::ITagSink {
 public:
  HostTagSink(TagStage& stage, NodeId n);
  sdk::Tag input_tag(std::uint32_t i) const noexcept override;
  sdk::Tag output_tag(std::uint32_t i) const noexcept override;
  void merge_input_tag(std::uint32_t i, sdk::Tag tag) noexcept override;
  void merge_output_tag(std::uint32_t i, sdk::Tag tag) noexcept override;
  void set_node_tag(sdk::Tag tag) noexcept override;
  sdk::Status fail(sdk::Status code, sdk::StringRef message) noexcept override;
  const std::string& error() const { return error_; }

 private:
  TagStage& stage_;
  const NodeEntry& node_;
  NodeId n_;
  std::string error_;
};

class TagStage {
 public:
  TagStage(Analysis& a, const ShapeResult& shapes, TagResult& out)
      : s_(a), shapes_(shapes), out_(out), bridge_(*a.pool) {}

  void run() {
    out_.values.assign(s_.graph->values().size(), Tag::kNone);
    out_.nodes.assign(s_.graph->nodes().size(), Tag::kNone);
    out_.sticky.assign(s_.graph->nodes().size(), false);
    changed_at_.assign(s_.graph->values().size(), 0);
    started_at_.assign(s_.graph->main_node_count(), kNever);
    seed_main();
    fixpoint(0);
  }

  // ---- primitives used by the sink -------------------------------------------------------------
  Tag tag(ValueId v) const { return v == kNoValue ? Tag::kNone : out_.values[v]; }
  void merge(ValueId v, Tag t) {
    if (v == kNoValue) return;
    Tag merged = merge_tag(out_.values[v], t);
    if (merged != out_.values[v]) {
      out_.values[v] = merged;
      changed_at_[v] = ++value_changes_;
    }
  }
  void set_node(NodeId n, Tag t) {
    if (out_.nodes[n] != t) {
      out_.nodes[n] = t;
      ++node_changes_;
    }
  }
  void set_sticky(NodeId n, Tag t) {
    out_.sticky[n] = true;
    set_node(n, t);
  }
  Analysis& analysis() { return s_; }

 private:
  void seed_main() {
    const GraphEntry& main = s_.graph->main();
    auto seed = [&](ValueId v, const google::protobuf::Message* carrier, int field,
                    bool default_weight) {
      bool found = false;
      std::string text_tag =
          carrier ? find_metadata(*carrier, field, "cctx.value_tag", &found) : "";
      if (found) {
        if (auto t = parse_tag(text_tag)) {
          merge(v, *t);
          return;
        }
        s_.warn(kInvalidId, "'" + std::string(s_.graph->value(v).name) +
                                "': ignoring unknown cctx.value_tag '" + text_tag + "'");
      }
      if (default_weight) merge(v, Tag::kWeight);
    };
    for (ValueId v : main.initializers) {
      seed(v, s_.graph->value(v).initializer, kTensorMetadataField, true);
    }
    for (ValueId v : main.inputs) {
      if (s_.graph->value(v).is_initializer()) continue;  // seeded once, as an initializer
      seed(v, s_.graph->value(v).graph_input, kValueInfoMetadataField, true);
    }
    for (ValueId v = 0; v < s_.graph->values().size(); ++v) {
      const ValueEntry& e = s_.graph->value(v);
      if (e.graph != 0) continue;
      if (e.value_info) seed(v, e.value_info, kValueInfoMetadataField, false);
      if (e.graph_output) seed(v, e.graph_output, kValueInfoMetadataField, false);
    }
  }

  // Runs passes over graph g until one changes nothing. Node tags are reset first; a body runs
  // again at every pass of its owner, so the reset must not count as a change for the owner's
  // fixpoint: only node tags that end different from before, and value tags (which only rise).
  //
  // A body's fixpoint depends only on value tags (its node tags are reset here): when no value
  // tag anywhere has changed since the body last settled, running it again would recompute the
  // same tags. Skipping it keeps nested bodies linear per pass of their owner; without the skip
  // every level runs its body at least twice and If-in-If nesting costs 2^depth.
  void fixpoint(GraphId g) {
    if (settled_at_.empty()) settled_at_.assign(s_.graph->graphs().size(), kNever);
    if (settled_at_[g] == value_changes_) return;
    const GraphEntry& ge = s_.graph->graphs()[g];
    const std::uint64_t node_changes_at_entry = node_changes_;
    std::vector<Tag> before(ge.nodes.size());
    for (std::size_t k = 0; k < ge.nodes.size(); ++k) {
      before[k] = out_.nodes[ge.nodes[k]];
      out_.nodes[ge.nodes[k]] = Tag::kNone;
      out_.sticky[ge.nodes[k]] = false;
    }
    for (;;) {
      const std::uint64_t mark = value_changes_ + node_changes_;
      for (NodeId n : ge.nodes) {
        if (g == 0) {
          if (!needs_run(n)) continue;
          started_at_[n] = value_changes_;
          // A node whose run with its own changes in place would change nothing need not run
          // again for them: only later changes by other nodes count.
          if (process(n)) started_at_[n] = value_changes_;
          continue;
        }
        process(n);
      }
      if (value_changes_ + node_changes_ == mark) break;
    }
    std::uint64_t differ = 0;
    for (std::size_t k = 0; k < ge.nodes.size(); ++k)
      differ += before[k] != out_.nodes[ge.nodes[k]];
    node_changes_ = node_changes_at_entry + differ;
    settled_at_[g] = value_changes_;
  }

  /// A node of the main graph without bodies reads only its own inputs' and outputs' tags (the
  /// sink exposes nothing else) and its own node tag. When none of those values changed since
  /// its last run started, running it again would change nothing: the main graph's later passes
  /// visit only the nodes next to a change (it took four full passes on the Llama benchmark).
  /// Its own changes count, so a node that changed something runs again in the next pass.
  bool needs_run(NodeId n) const {
    const NodeEntry& node = s_.graph->node(n);
    if (started_at_[n] == kNever || !node.bodies.empty()) return true;
    auto changed = [&](ValueId v) { return v != kNoValue && changed_at_[v] > started_at_[n]; };
    return std::any_of(node.inputs.begin(), node.inputs.end(), changed) ||
           std::any_of(node.outputs.begin(), node.outputs.end(), changed);
  }

  /// Returns true when running n again right away would change nothing (see settled()).
  bool process(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    const std::uint64_t start = value_changes_;
    const ResolvedRules& rules = s_.rules_of(n);
    const TagTraitsCopy& traits = rules.traits ? *rules.traits : kDefaultTraits;
    const Tag previous = out_.nodes[n];

    // 1. explicit
    Tag explicit_tag = traits.explicit_tag;
    if (traits.constant_like) {
      Tag shared = Tag::kNone;
      bool consistent = outputs_tag(node, &shared);
      explicit_tag = consistent && shared != Tag::kNone ? shared : Tag::kWeight;
    }
    // 2. positional (only with at least two inputs)
    if (node.inputs.size() >= 2) {
      for (const sdk::PositionalTag& p : traits.positional) {
        if (p.input < node.inputs.size()) merge(node.inputs[p.input], p.tag);
      }
    }
    // 3. the plugin's rule
    if (rules.tag != nullptr) {
      HostNodeView view(s_, shapes_, bridge_, n);
      HostTagSink sink(*this, n);
      const std::string_view origin = rules.entry(RuleKind::kTagRule)->origin;
      sdk::Status status;
      {
        RunningRule running(origin, "tag", node.domain, node.op_type);
        status = rules.tag->apply(view, sink);
      }
      // A tag rule hands no handle back through its sink, only to ExprApi.
      if (bridge_.has_invalid()) {
        report_rule_error(
            n, origin,
            invalid_handle_error(bridge_.take_invalid()) + "; tag rule " + std::string(origin));
      } else if (status != sdk::Status::kOk) {
        report_rule_error(n, origin, sink.error());
      }
    }
    // 4. output tag and consistency
    Tag out_tag = Tag::kNone;
    const bool consistent = outputs_tag(node, &out_tag);
    // 5. inherited
    const Tag body_tag = node.bodies.empty()
                             ? Tag::kNone
                             : run_bodies(n, traits.inherit == sdk::TagInherit::kControlFlow);
    Tag inherited = Tag::kNone;
    switch (traits.inherit) {
      case sdk::TagInherit::kInput0:
        if (!node.inputs.empty()) inherited = tag(node.inputs[0]);
        break;
      case sdk::TagInherit::kConcat:
        inherited = concat_tag(node);
        break;
      case sdk::TagInherit::kControlFlow:
        inherited = body_tag;
        break;
      case sdk::TagInherit::kNone:
        break;
    }
    // 6. node tag
    Tag node_tag = out_.sticky[n]               ? out_.nodes[n]
                   : explicit_tag != Tag::kNone ? explicit_tag
                   : inherited != Tag::kNone    ? inherited
                                                : previous;
    set_node(n, node_tag);
    for (ValueId v : node.outputs) merge(v, node_tag);
    // 7. backward
    if (consistent && out_tag != Tag::kNone) backward(node, traits.backward, out_tag);
    return rules.tag == nullptr && !traits.constant_like && node.bodies.empty() &&
           settled(node, traits.backward, start);
  }

  /// For a node without a tag rule, bodies or constant-like outputs, whose run started when
  /// value_changes_ was `start`: a second run sees the same inputs if none changed (so the same
  /// explicit, positional, inherited and node tags, all merged already), and differs only in its
  /// step-4 output tag, which the node may have just set. It changes nothing if the backward step
  /// with that tag would change no input.
  bool settled(const NodeEntry& node, sdk::TagBackward mode, std::uint64_t start) const {
    for (ValueId v : node.inputs) {
      if (v != kNoValue && changed_at_[v] > start) return false;
    }
    Tag out_tag = Tag::kNone;
    if (!outputs_tag(node, &out_tag) || out_tag == Tag::kNone) return true;
    auto raises = [&](ValueId v, Tag t) { return v != kNoValue && merge_tag(tag(v), t) != tag(v); };
    switch (mode) {
      case sdk::TagBackward::kNone:
        return true;
      case sdk::TagBackward::kAllInputs:
        if (out_tag == Tag::kAmbiguous) return true;
        for (ValueId v : node.inputs) {
          if (raises(v, out_tag)) return false;
        }
        return true;
      case sdk::TagBackward::kInput0:
        return node.inputs.empty() || !raises(node.inputs[0], out_tag);
      case sdk::TagBackward::kInputs01WeightOnly:
        if (out_tag != Tag::kWeight) return true;
        for (std::size_t k = 0; k < 2 && k < node.inputs.size(); ++k) {
          if (raises(node.inputs[k], out_tag)) return false;
        }
        return true;
    }
    return false;
  }

  /// First tag among the outputs; false when two output tags differ.
  bool outputs_tag(const NodeEntry& node, Tag* first) const {
    *first = Tag::kNone;
    for (ValueId v : node.outputs) {
      Tag t = tag(v);
      if (t == Tag::kNone) continue;
      if (*first == Tag::kNone) {
        *first = t;
      } else if (*first != t) {
        return false;
      }
    }
    return true;
  }

  Tag concat_tag(const NodeEntry& node) const {
    Tag shared = Tag::kNone;
    bool any = false, agree = true;
    for (ValueId v : node.inputs) {
      Tag t = tag(v);
      if (t == Tag::kNone) continue;
      if (t == Tag::kWeight) return Tag::kWeight;
      if (!any) {
        shared = t;
        any = true;
      } else if (t != shared) {
        agree = false;
      }
    }
    if (!any) return Tag::kNone;
    return agree ? shared : Tag::kAmbiguous;
  }

  void backward(const NodeEntry& node, sdk::TagBackward mode, Tag t) {
    switch (mode) {
      case sdk::TagBackward::kNone:
        return;
      case sdk::TagBackward::kAllInputs:
        if (t == Tag::kAmbiguous) return;
        for (ValueId v : node.inputs) merge(v, t);
        return;
      case sdk::TagBackward::kInput0:
        if (!node.inputs.empty()) merge(node.inputs[0], t);
        return;
      case sdk::TagBackward::kInputs01WeightOnly:
        if (t != Tag::kWeight) return;
        for (std::size_t k = 0; k < 2 && k < node.inputs.size(); ++k) merge(node.inputs[k], t);
        return;
    }
  }

  // semantics.md "Tags: Fixpoint and subgraphs": the fixpoint runs in each body, inputs seeded from
  // the outer values they bind to; the node's outputs merge the matching body outputs. Returns the
  // first output tag.
  Tag run_bodies(NodeId n, bool bind_outputs) {
    const NodeEntry& node = s_.graph->node(n);
    const bool is_loop = node.domain.empty() && node.op_type == "Loop";
    const bool is_if = node.domain.empty() && node.op_type == "If";
    for (const BodyRef& b : node.bodies) {
      const GraphEntry& body = s_.graph->graphs()[b.graph];
      for (ValueId v : body.initializers) merge(v, Tag::kWeight);
      if (!is_if) {
        for (std::size_t k = 0; k < body.inputs.size(); ++k) {
          // Loop: body input 0 is the iteration number (untagged); cond and the carried values
          // bind to node inputs 1, 2, ... at the same positions. Scan and others bind
          // positionally.
          if (is_loop && k == 0) continue;
          if (k < node.inputs.size()) merge(body.inputs[k], tag(node.inputs[k]));
        }
      }
      fixpoint(b.graph);
      if (!bind_outputs) continue;
      for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        // Loop's body output 0 is the condition; node output k matches body output k + 1.
        std::size_t inner = is_loop ? k + 1 : k;
        if (inner < body.outputs.size()) merge(node.outputs[k], tag(body.outputs[inner]));
      }
    }
    Tag first = Tag::kNone;
    outputs_tag(node, &first);
    return first;
  }

  void report_rule_error(NodeId n, std::string_view origin, const std::string& error) {
    const std::string why = error.empty() ? std::string("no reason given") : error;
    s_.rule_failed(RuleFailure::Kind::kTag, n, origin, why);
    s_.warn(n, describe_node(*s_.graph, n) + ": tag rule failed: " + why);
  }

  Analysis& s_;
  const ShapeResult& shapes_;
  TagResult& out_;
  ExprBridge bridge_;
  std::uint64_t value_changes_ = 0;  // tags only rise: these always terminate
  std::uint64_t node_changes_ = 0;
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  std::vector<std::uint64_t> settled_at_;  // per graph: value_changes_ when it last settled
  std::vector<std::uint64_t> changed_at_;  // per value: value_changes_ after its last change
  std::vector<std::uint64_t> started_at_;  // per main-graph node: value_changes_ at its last run
};

HostTagSink::HostTagSink(TagStage& stage, NodeId n)
    : stage_(stage), node_(stage.analysis().graph->node(n)), n_(n) {}

sdk::Tag HostTagSink::input_tag(std::uint32_t i) const noexcept {
  return i < node_.inputs.size() ? stage_.tag(node_.inputs[i]) : Tag::kNone;
}
sdk::Tag HostTagSink::output_tag(std::uint32_t i) const noexcept {
  return i < node_.outputs.size() ? stage_.tag(node_.outputs[i]) : Tag::kNone;
}
void HostTagSink::merge_input_tag(std::uint32_t i, sdk::Tag tag) noexcept {
  if (i < node_.inputs.size()) stage_.merge(node_.inputs[i], tag);
}
void HostTagSink::merge_output_tag(std::uint32_t i, sdk::Tag tag) noexcept {
  if (i < node_.outputs.size()) stage_.merge(node_.outputs[i], tag);
}
void HostTagSink::set_node_tag(sdk::Tag tag) noexcept { stage_.set_sticky(n_, tag); }
sdk::Status HostTagSink::fail(sdk::Status code, sdk::StringRef message) noexcept {
  try {
    error_ = text(message);
  } catch (...) {
  }
  return code == sdk::Status::kOk ? sdk::Status::kInternal : code;
}

}  // namespace

TagResult run_tag_stage(Analysis& s, const ShapeResult& shapes) {
  TagResult result;
  if (!s.options.tags.enabled) {
    result.values.assign(s.graph->values().size(), Tag::kNone);
    result.nodes.assign(s.graph->nodes().size(), Tag::kNone);
    result.sticky.assign(s.graph->nodes().size(), false);
    return result;
  }
  TagStage(s, shapes, result).run();
  return result;
}

}  // namespace cctx
