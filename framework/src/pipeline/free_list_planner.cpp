// The "free_list" buffer planner: ONNX Runtime's sequential allocation plan (architecture.md,
// "The buffer plan"), as read from its planner's public source and measured with the
// validation suite (tests/validate):
// - a graph output always gets a buffer of its own;
// - an output that its node's policy declares an alias of an input shares that input's buffer,
//   unconditionally (Reshape, Squeeze, Identity, ... view their input);
// - a may_reuse output takes over its input's buffer only when the node is the last reader of
//   everything in that buffer and the two values have the same size as the runtime sees it;
// - otherwise the output takes the most recently freed buffer of the same size, or a new one.
// "The same size" is the runtime's test, not cctx's proof: the same element size and rank, and
// each dim the same integer or the same name. ONNX Runtime's shapes come from ONNX's shape
// inference, which does no arithmetic on names and computes no shape tensors: a dim cctx knows as
// `(H-1)//2+1` or `seq` (the length of a Range) is unknown there, and unknown dims never match.
// The planner runs ONNX's inference (the linked onnx library) to see the shapes as it does.
// A buffer is freed after the last node reading any value it holds; a buffer taken from the
// free list was never given back to the allocator, so it stays allocated between its values.
// Which ops alias or may run in place is the in-place policies' say (the onnxruntime plugin
// declares ONNX Runtime's kernels).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "cctx/dtypes.hpp"
#include "model/onnx_runtime_view.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/buffer_ledger.hpp"
#include "pipeline/buffer_plan.hpp"
#include "pipeline/inplace_declarations.hpp"
#include "pipeline/node_flags.hpp"
#include "pipeline/onnx_library.hpp"
#include "pipeline/rewritten_runtime_shapes.hpp"
#include "util/hash_mix.hpp"

namespace cctx {

namespace {

/// A value's size as the runtime sees it: element bits, rank, then per dim (0, value) for an
/// integer or (1, symbol handle) for a named dim. Empty when the runtime cannot know it.
using SizeKey = std::vector<std::int64_t>;

struct SizeKeyHash {
  std::size_t operator()(const SizeKey& k) const {
    std::uint64_t h = k.size() * kGoldenMul;
    for (const std::int64_t w : k) h = (h ^ static_cast<std::uint64_t>(w)) * kGoldenMul;
    return mix64(h);
  }
};

class FreeListPlan {
 public:
  FreeListPlan(Analysis& a, const ShapeResult& shapes, const TagResult& tags, BufferPlan& plan)
      : s_(a),
        shapes_(shapes),
        tags_(tags),
        plan_(plan),
        bridge_(*a.pool),
        buffers_(*a.graph, plan, /*inputs_protected=*/true) {
    for (const SymbolInfo& sym : a.pool->symbols()) {
      if (sym.kind != SymbolKind::kFresh) named_.insert(a.pool->symbol(sym.name).id);
    }
  }

  void run() {
    const GraphView& g = *s_.graph;
    const std::size_t count = g.main_node_count();
    const std::size_t values = g.values().size();
    plan_.inplace.reset(count);
    plan_.takes_buffer.reset(count);
    plan_.bytes.assign(values, std::nullopt);
    plan_.buffer_of.assign(values, kInvalidId);
    plan_.buffers.clear();
    key_.assign(values, SizeKey{});
    // The shapes as the runtime sees them (runtime_types.hpp): ONNX's own inference over the
    // model as it was before the rewrites (ONNX knows none of the fused operators; ONNX
    // Runtime's own inference gives a fused node's output the shape the value had, under the
    // same name). Null when the inference fails as a whole.
    runtime_types_ = s_.runtime_types();
    if (runtime_types_ != nullptr) {
      mark_schema_gaps();
      if (s_.rewritten) {
        // The values the runtime's optimiser made: the shapes its schemas give them.
        std::vector<bool> made(g.main_node_count(), false);
        for (NodeId n = 0; n < made.size(); ++n) {
          made[n] = s_.rewritten->origin(g.node(n).proto) != nullptr;
        }
        runtime_shapes_.emplace(g, *runtime_types_, shapes_, *s_.pool, made, named_, schema_gap_);
      }
    }
    ByteSizes byte_size(s_, shapes_);
    for (ValueId v = 0; v < values; ++v) {
      if (g.value(v).graph != 0) continue;
      plan_.bytes[v] = byte_size(v);
      if (!plan_.bytes[v]) plan_.unsized_values.push_back(v);
      key_[v] = size_key(v);
    }
    seed_buffers();
    for (NodeId n = 0; n < count; ++n) {
      plan_node(n);
      free_after(n);
    }
    plan_.inplace.finish(count);
    plan_.takes_buffer.finish(count);
    releases(count);
  }

 private:
  /// The values the linked onnx library cannot see because it has no schema for their
  /// producer, or for a producer upstream of them (ai.onnx operators newer than its opsets,
  /// com.microsoft's): ONNX Runtime's own schemas infer those, so its planner matches their
  /// sizes where the linked library's inference left them without a shape.
  void mark_schema_gaps() {
    // Over the model the library's inference ran on (the one before the runtime's rewrites),
    // in file order, by value name.
    const Model& inferred_model = s_.before_rewrites ? *s_.before_rewrites : *s_.model;
    const detail::OnnxLibrary& onnx_library = detail::onnx_library();
    std::unordered_set<std::string_view> gaps;
    for (const onnx::NodeProto& np : inferred_model.proto().graph().node()) {
      bool gap = false;
      for (const std::string& in : np.input()) gap = gap || gaps.count(in) != 0;
      if (!gap) {
        const std::string domain = np.domain() == "ai.onnx" ? std::string() : np.domain();
        const std::int64_t opset = inferred_model.opset(domain);
        gap = opset < 0 || !onnx_library.has_schema(domain, np.op_type(), static_cast<int>(opset));
      }
      if (!gap) continue;
      for (const std::string& out : np.output()) {
        if (!out.empty()) gaps.insert(out);
      }
    }
    const GraphView& g = *s_.graph;
    schema_gap_.assign(g.values().size(), false);
    for (ValueId v = 0; v < g.values().size(); ++v) {
      schema_gap_[v] = gaps.count(g.value(v).name) != 0;
    }
  }

  /// A dim as the runtime sees it: an integer, a name, or unknown (false). From ONNX's
  /// inference when it ran and gave the value a shape of its rank; else (inference did not run,
  /// or a schema gap left the value without one, mark_schema_gaps) an integer, or a declared
  /// symbol of cctx's, kept as its name.
  bool key_dim(ValueId v, std::size_t axis, Expr d, SizeKey& key) {
    const onnx::TensorShapeProto* shape = nullptr;
    if (runtime_types_ != nullptr) {
      shape = runtime_shape(v);
      if (shape != nullptr) {
        if (static_cast<std::size_t>(shape->dim_size()) != shapes_.values[v].dims.size()) {
          return false;
        }
      } else if (!schema_gap_[v]) {
        return false;  // the runtime's inference, like the library's, gives it no shape
      }
    }
    if (shape != nullptr) {
      const onnx::TensorShapeProto::Dimension& dim = shape->dim(static_cast<int>(axis));
      if (dim.has_dim_value()) {
        key.push_back(0);
        key.push_back(dim.dim_value());
        return true;
      }
      if (detail::runtime_named_dim(dim)) {
        key.push_back(1);
        key.push_back(name_id(dim.dim_param()));
        return true;
      }
      return false;
    }
    if (const std::optional<std::int64_t> value = s_.pool->as_int(d)) {
      key.push_back(0);
      key.push_back(*value);
      return true;
    }
    if (named_.count(d.id) != 0) {
      key.push_back(1);
      key.push_back(name_id(s_.pool->print(d)));
      return true;
    }
    return false;
  }

  std::int64_t name_id(const std::string& name) {
    return names_.try_emplace(name, static_cast<std::int64_t>(names_.size())).first->second;
  }

  SizeKey size_key(ValueId v) {
    const ValueShape& shape = shapes_.values[v];
    if (shape.kind != ValueKind::kTensor || !shape.known_rank || shape.dims.empty()) return {};
    const std::uint32_t bits = dtype_bits(shape.dtype, s_.registry.get());
    if (bits == 0) return {};
    SizeKey key{bits, static_cast<std::int64_t>(shape.dims.size())};
    for (std::size_t axis = 0; axis < shape.dims.size(); ++axis) {
      if (!key_dim(v, axis, shape.dims[axis], key)) return {};
    }
    return key;
  }

  std::uint32_t new_buffer(ValueId v, BufferSource source, NodeId at) {
    freed_.push_back(false);
    origin_.push_back(v);
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
    // The Constant nodes first, then the nodes the shapes decide: the session's regions are
    // loaded in this order.
    const Profile::Memory& m = s_.options.memory;
    plan_.folded.assign(s_.graph->main_node_count(), false);
    folded_value_.assign(s_.graph->values().size(), false);
    for (NodeId n = 0; m.constants_as_initializers && n < s_.graph->main_node_count(); ++n) {
      const NodeEntry& node = s_.graph->node(n);
      if (!node.domain.empty() || node.op_type != "Constant" || node.outputs.empty()) continue;
      const ValueId v = node.outputs[0];
      if (v == kNoValue) continue;
      folded_value_[v] = true;  // an initializer to the runtime, whatever cctx knows of its size
      if (!plan_.bytes[v] || plan_.buffer_of[v] != kInvalidId) continue;
      preload(v);
      plan_.folded[n] = true;
    }
    for (NodeId n = 0; m.fold_shape_constants && n < s_.graph->main_node_count(); ++n) {
      if (!folds_to_constants(n)) continue;
      for (ValueId v : s_.graph->node(n).outputs) {
        if (v == kNoValue) continue;
        if (plan_.bytes[v]) preload(v);
        folded_value_[v] = true;
      }
      plan_.folded[n] = true;
    }
  }

  /// A buffer held for the whole session, like an initializer, from before the first node.
  void preload(ValueId v) {
    const std::uint32_t b = new_buffer(v, BufferSource::kInitializer, 0);
    buffers_.protect(b);
    plan_.preloaded.push_back(v);
  }

  /// Profile::Memory::fold_shape_constants: ONNX Runtime's ConstantFolding (level basic on), as
  /// it decides: a Shape whose input's dims are all integers as the runtime's inference sees
  /// them, or a node whose every input is held constant (an initializer no graph input
  /// overrides, a Constant node's output, a folded node's), deterministic, without a body, and
  /// not a DequantizeLinear (kept for the QDQ fusions). It is computed once at load and its
  /// outputs are held like initializers. A node with an output the graph returns, or of unknown
  /// size, stays. (A value the shapes decide but the runtime cannot fold, a Gather of one
  /// static dim out of a Shape with symbolic ones, is computed at every run.)
  bool folds_to_constants(NodeId n) {
    const GraphView& g = *s_.graph;
    const NodeEntry& node = g.node(n);
    if (node.outputs.empty() || !node.bodies.empty() || detail::never_folded(node.op_type)) {
      return false;
    }
    for (ValueId v : node.outputs) {
      if (v == kNoValue) continue;
      if (g.value(v).is_output() || !plan_.bytes[v] || plan_.buffer_of[v] != kInvalidId) {
        return false;
      }
    }
    if (node.domain.empty() && node.op_type == "Shape") {
      return node.inputs.size() == 1 && node.inputs[0] != kNoValue &&
             concrete_for_runtime(node.inputs[0]);
    }
    for (ValueId v : node.inputs) {
      if (v != kNoValue && !held_constant(v)) return false;
    }
    return !node.inputs.empty();
  }

  /// Held constant for the session: an initializer no graph input overrides, or the output of a
  /// node folded at load (a Constant node's included).
  bool held_constant(ValueId v) const {
    const auto& info = s_.graph->value(v);
    if (info.is_initializer()) return !info.is_input();
    return v < folded_value_.size() && folded_value_[v];
  }

  /// v's shape as the runtime sees it (nullptr: none, or its inference did not run).
  const onnx::TensorShapeProto* runtime_shape(ValueId v) const {
    if (runtime_shapes_) return runtime_shapes_->shape(v);
    return runtime_types_ != nullptr ? runtime_types_->shape(s_.graph->value(v).name) : nullptr;
  }

  /// Every dim of v an integer as the runtime sees it: its inference's shape, or cctx's where
  /// the inference gave none.
  bool concrete_for_runtime(ValueId v) const {
    if (const onnx::TensorShapeProto* runtime = runtime_shape(v)) {
      return detail::runtime_static_dims(*runtime);
    }
    const ValueShape& shape = shapes_.values[v];
    if (!shape.known_rank) return false;
    for (Expr e : shape.dims) {
      if (!s_.pool->as_int(e)) return false;
    }
    return true;
  }

  bool same_size(ValueId a, ValueId b) const { return !key_[a].empty() && key_[a] == key_[b]; }

  /// The node is the last reader of everything in input k's buffer, and reads it once.
  bool may_take_over(NodeId n, const NodeEntry& node, std::uint32_t k) const {
    const ValueId in = node.inputs[k];
    const std::uint32_t b = plan_.buffer_of[in];
    if (b == kInvalidId || buffers_.is_protected(b) || buffers_.last(b) > n) return false;
    int reads = 0;
    for (ValueId v : node.inputs) reads += v != kNoValue && plan_.buffer_of[v] == b;
    for (ValueId v : node.captures) reads += plan_.buffer_of[v] == b;
    return reads == 1;
  }

  void plan_node(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    collect_inplace_declarations(s_, shapes_, bridge_, n, declarations_);
    NodeFlags served(node.outputs.size()), claimed(node.inputs.size());
    decisions_.clear();
    const bool constant = plan_.folded[n];
    for (std::uint32_t o = 0; o < node.outputs.size(); ++o) {
      const ValueId out = node.outputs[o];
      if (out == kNoValue || !plan_.bytes[out]) continue;
      if (plan_.buffer_of[out] != kInvalidId) {
        // A folded node's preloaded buffer (or a value produced twice: the first counts).
        if (constant) {
          plan_.takes_buffer.push(n, o);
          served.set(o);
        }
        continue;
      }
      // An output written into an input's buffer with room is there whoever reads it, a graph
      // output included (the caller bound it to that buffer: a shared KV cache).
      if (take_written_into(n, node, o, served, claimed)) continue;
      if (s_.graph->value(out).is_output()) {
        new_buffer(out, BufferSource::kIntermediate, n);
        served.set(o);
        continue;
      }
      if (take_declared(n, node, o, served, claimed)) continue;
      if (take_freed(n, o, out)) {
        served.set(o);
        continue;
      }
      new_buffer(out, BufferSource::kIntermediate, n);
      served.set(o);
    }
    std::sort(
        decisions_.begin(), decisions_.end(),
        [](const InplaceDecision& a, const InplaceDecision& b) { return a.output < b.output; });
    for (const InplaceDecision& d : decisions_) plan_.inplace.push(n, d);
  }

  bool take_written_into(NodeId n, const NodeEntry& node, std::uint32_t o, NodeFlags& served,
                         NodeFlags& claimed) {
    const ValueId out = node.outputs[o];
    for (const CapacityWrite& w : declarations_.writes_into) {
      const std::uint32_t k = w.input;
      if (w.output != o || k >= node.inputs.size() || claimed[k]) continue;
      const ValueId in = node.inputs[k];
      if (in == kNoValue || in == out || plan_.buffer_of[in] == kInvalidId || !plan_.bytes[out])
        continue;
      plan_.write_into(*s_.pool, n, out, in, w.capacity);
      join(plan_.buffer_of[in], out, n);
      decisions_.push_back(InplaceDecision{o, k, ReuseKind::kEqual, ReuseMode::kWriteInto});
      served.set(o);
      claimed.set(k);
      return true;
    }
    return false;
  }

  bool take_declared(NodeId n, const NodeEntry& node, std::uint32_t o, NodeFlags& served,
                     NodeFlags& claimed) {
    const ValueId out = node.outputs[o];
    for (auto [oo, k] : declarations_.aliases) {
      if (oo != o || k >= node.inputs.size() || claimed[k]) continue;
      const ValueId in = node.inputs[k];
      if (in == kNoValue || in == out || plan_.buffer_of[in] == kInvalidId) continue;
      join(plan_.buffer_of[in], out, n);
      decisions_.push_back(InplaceDecision{o, k, ReuseKind::kEqual, ReuseMode::kAlias});
      served.set(o);
      claimed.set(k);
      return true;
    }
    for (auto [oo, k] : declarations_.may_reuse) {
      if (oo != o || k >= node.inputs.size() || claimed[k]) continue;
      const ValueId in = node.inputs[k];
      if (in == kNoValue || in == out || !may_take_over(n, node, k) || !same_size(in, out))
        continue;
      join(plan_.buffer_of[in], out, n);
      decisions_.push_back(InplaceDecision{o, k, ReuseKind::kEqual, ReuseMode::kMayReuse});
      served.set(o);
      claimed.set(k);
      return true;
    }
    return false;
  }

  bool take_freed(NodeId n, std::uint32_t o, ValueId out) {
    if (key_[out].empty()) return false;
    auto it = free_.find(key_[out]);
    if (it == free_.end() || it->second.empty()) return false;
    const std::uint32_t b = it->second.back();  // the most recently freed of this size
    it->second.pop_back();
    freed_[b] = false;
    join(b, out, n);
    plan_.takes_buffer.push(n, o);
    return true;
  }

  /// Buffers whose last reader is node n go to the free list (after n's outputs are planned, so
  /// that no output of n takes a buffer n still reads).
  void free_after(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    auto consider = [&](ValueId v) {
      if (v == kNoValue || plan_.buffer_of[v] == kInvalidId) return;
      const std::uint32_t b = plan_.buffer_of[v];
      if (buffers_.is_protected(b) || freed_[b] || buffers_.last(b) != n) return;
      const SizeKey& key = key_[origin_[b]];
      if (key.empty()) return;
      freed_[b] = true;
      free_[key].push_back(b);
    };
    for (ValueId v : node.inputs) consider(v);
    for (ValueId v : node.captures) consider(v);
    for (ValueId v : node.outputs) consider(v);
  }

  /// Every value leaves its buffer after the buffer's last reader: the memory stage frees a
  /// buffer when its last value leaves. Values nobody reads that took over a buffer leave it at
  /// once (the memory stage's rule); a buffer nobody reads stays until the run ends.
  void releases(std::size_t count) {
    const GraphView& g = *s_.graph;
    std::vector<bool> read(plan_.buffers.size(), false);
    for (ValueId v = 0; v < g.values().size(); ++v) {
      const std::uint32_t b = plan_.buffer_of[v];
      if (b != kInvalidId && plan_.last_use[v] != kInvalidId) read[b] = true;
    }
    std::vector<std::pair<NodeId, ValueId>> order;
    for (ValueId v = 0; v < g.values().size(); ++v) {
      const std::uint32_t b = plan_.buffer_of[v];
      if (b == kInvalidId || buffers_.is_protected(b) || !read[b]) continue;
      if (plan_.last_use[v] == kInvalidId && origin_[b] != v) continue;  // left at once
      order.emplace_back(buffers_.last(b), v);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    plan_.release_after.reset(count);
    plan_.release_after_shape_tag.reset(count);
    for (const auto& [n, v] : order) {
      plan_.release_after.push(n, v);
      if (tags_.values[v] == Tag::kShape) plan_.release_after_shape_tag.push(n, v);
    }
    plan_.release_after.finish(count);
    plan_.release_after_shape_tag.finish(count);
  }

  Analysis& s_;
  const ShapeResult& shapes_;
  const TagResult& tags_;
  BufferPlan& plan_;
  ExprBridge bridge_;
  std::unordered_set<std::uint32_t> named_;  ///< handles of the graph's named (declared) dims
  std::unordered_map<std::string, std::int64_t> names_;  ///< dim names met, numbered
  const RuntimeTypes* runtime_types_ = nullptr;          ///< when ONNX's inference ran
  /// With it, after the runtime's rewrites: the shapes of the values they made.
  std::optional<RewrittenRuntimeShapes> runtime_shapes_;
  std::vector<bool> schema_gap_;    ///< by value: mark_schema_gaps
  std::vector<bool> folded_value_;  ///< by value: made by a node folded at load
  std::vector<SizeKey> key_;        ///< per value
  BufferLedger buffers_;
  std::vector<bool> freed_;      ///< per buffer: on the free list now
  std::vector<ValueId> origin_;  ///< per buffer: the value it was made for
  std::unordered_map<SizeKey, std::vector<std::uint32_t>, SizeKeyHash> free_;
  InplaceDeclarations declarations_;
  std::vector<InplaceDecision> decisions_;
};

/// ONNX Runtime's sequential plan: lifetimes as the seed's (who reads what last), then the
/// runtime's buffer choices and releases.
class FreeListPlanner final : public BufferPlanner {
 public:
  std::string_view name() const override { return "free_list"; }
  BufferPlan plan(Analysis& a, const ShapeResult& shapes, const TagResult& tags,
                  const StepTimer& timed) const override {
    BufferPlan plan;
    timed("lifetimes", [&] { run_lifetime_stage(a, tags, plan); });
    timed("inplace", [&] { FreeListPlan(a, shapes, tags, plan).run(); });
    return plan;
  }
};

}  // namespace

std::unique_ptr<BufferPlanner> make_free_list_planner() {
  return std::make_unique<FreeListPlanner>();
}

}  // namespace cctx
