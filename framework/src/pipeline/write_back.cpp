// ComputeContext::write_to_model (semantics.md "Writing back, decision log, report"): inferred
// shapes into value_info and graph outputs, annotations into node/value/initializer metadata_props.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cctx/errors.hpp"
#include "model/metadata.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/shape_types.hpp"

namespace cctx {

namespace {

std::string join_names(const GraphView& g, ValueIds values) {
  std::string out;
  for (ValueId v : values) {
    if (!out.empty()) out += ';';
    out += g.value(v).name;
  }
  return out;
}

bool has_inferred_type(const ValueShape& shape) {
  return shape.dtype != 0 || shape.known_rank || shape.kind != ValueKind::kUnknown;
}

/// to_type_proto (shape_types.hpp) written in place, each symbolic dim printed once: a model has
/// few distinct dims, and printing them was most of the cost of writing 10k values.
class TypeWriter {
 public:
  explicit TypeWriter(ExprPool& pool) : pool_(pool) {}

  void write(onnx::TypeProto& type, const ValueShape& shape) {
    type.Clear();
    onnx::TypeProto::Tensor* tensor = tensor_part(type, shape.kind);
    tensor->set_elem_type(shape.dtype);
    if (!shape.known_rank) return;
    onnx::TensorShapeProto* dims = tensor->mutable_shape();
    dims->mutable_dim()->Reserve(static_cast<int>(shape.dims.size()));
    for (Expr d : shape.dims) {
      auto* dim = dims->add_dim();
      if (auto k = pool_.as_int(d)) {
        dim->set_dim_value(*k);
      } else {
        auto [it, added] = printed_.try_emplace(d.id);
        if (added) {
          it->second = pool_.print(d);
          for (std::string& name : pool_.symbols_of(d)) {
            if (pool_.definition_text(name)) defined_.insert(std::move(name));
          }
        }
        dim->set_dim_param(it->second);
      }
    }
  }

  /// The symbols with a definition (a size cap, a floating-point size) that written dims name.
  const std::set<std::string>& defined() const { return defined_; }

 private:
  ExprPool& pool_;
  std::unordered_map<std::uint32_t, std::string> printed_;
  std::set<std::string> defined_;
};

/// Finds the GraphProto of `target` that corresponds to graph `gid` of the analysed model.
onnx::GraphProto* locate_graph(const GraphView& g, onnx::ModelProto& target, GraphId gid) {
  if (gid == 0) return target.mutable_graph();
  const GraphEntry& ge = g.graphs()[gid];
  onnx::GraphProto* parent = locate_graph(g, target, ge.parent);
  if (parent == nullptr) return nullptr;
  const NodeEntry& owner = g.node(ge.owner);
  if (static_cast<int>(owner.proto_index) >= parent->node_size()) return nullptr;
  onnx::NodeProto* node = parent->mutable_node(static_cast<int>(owner.proto_index));
  for (onnx::AttributeProto& a : *node->mutable_attribute()) {
    if (a.has_g()) {
      for (const BodyRef& b : owner.bodies) {
        if (b.graph == gid && b.attribute == a.name()) return a.mutable_g();
      }
    }
  }
  return nullptr;
}

}  // namespace

void ComputeContext::write_to_model(Model& model) const {
  write_shapes_to_model(model);
  write_annotations(model);
}

void ComputeContext::write_shapes_to_model(Model& model) const {
  const State& s = *state_;
  if (!s.graph) throw Error("write_to_model: compute() has not run", ExitCode::kUsage);
  const GraphView& g = *s.graph;
  ExprPool& pool = *s.pool;
  onnx::ModelProto& target = model.proto();
  if (s.rewritten) {
    // The analysed graph is the runtime's, not the file's: its nodes and values are not the
    // model's to annotate.
    throw Error(model.source() +
                    ": cannot write annotations: the profile's runtime rewrote the graph before "
                    "the analysis (graph_optimization); use a profile without rewrites for that",
                ExitCode::kUsage);
  }
  if (s.inlined) {
    // The analysis ran on the model with its local functions inlined: that form is written.
    if (target.functions_size() == 0) {
      throw Error(model.source() + ": write_to_model: the model is not the one that was analysed");
    }
    s.inlined->write_into(target);
  }
  if (target.graph().node_size() != static_cast<int>(g.main().nodes.size()) ||
      target.graph().output_size() != static_cast<int>(g.main().outputs.size())) {
    throw Error(model.source() + ": write_to_model: the model is not the one that was analysed");
  }

  // ---- shapes, per graph -----------------------------------------------------------------------
  // Each graph's values sorted by name (the order new value_info entries get), found in one pass
  // over the values; the first of two same-named values wins, as it always has.
  std::vector<std::vector<ValueId>> by_graph(g.graphs().size());
  for (ValueId v = 0; v < g.values().size(); ++v) by_graph[g.value(v).graph].push_back(v);
  auto name_of = [&g](ValueId v) -> std::string_view { return g.value(v).name; };
  TypeWriter types(pool);
  for (GraphId gid = 0; gid < g.graphs().size(); ++gid) {
    onnx::GraphProto* graph = locate_graph(g, target, gid);
    if (graph == nullptr) continue;
    const GraphEntry& ge = g.graphs()[gid];
    std::vector<ValueId>& values = by_graph[gid];
    std::stable_sort(values.begin(), values.end(),
                     [&](ValueId a, ValueId b) { return name_of(a) < name_of(b); });
    values.erase(std::unique(values.begin(), values.end(),
                             [&](ValueId a, ValueId b) { return name_of(a) == name_of(b); }),
                 values.end());
    auto find = [&](std::string_view name) -> ValueId {
      auto it = std::lower_bound(values.begin(), values.end(), name,
                                 [&](ValueId v, std::string_view n) { return name_of(v) < n; });
      return it != values.end() && name_of(*it) == name ? *it : kNoValue;
    };
    // Views of the proto's own names: its elements stay where they are while value_info grows.
    std::unordered_set<std::string_view> declared;
    declared.reserve(static_cast<std::size_t>(graph->input_size() + graph->initializer_size() +
                                              graph->output_size() + graph->value_info_size()));
    for (const onnx::ValueInfoProto& vi : graph->input()) declared.insert(vi.name());
    for (const onnx::TensorProto& t : graph->initializer()) declared.insert(t.name());
    for (int k = 0; k < graph->output_size() && k < static_cast<int>(ge.outputs.size()); ++k) {
      onnx::ValueInfoProto* vi = graph->mutable_output(k);
      declared.insert(vi->name());
      const ValueShape& shape = s.shapes.values[ge.outputs[static_cast<std::size_t>(k)]];
      if (has_inferred_type(shape) && shape.dtype != 0) types.write(*vi->mutable_type(), shape);
    }
    for (onnx::ValueInfoProto& vi : *graph->mutable_value_info()) {
      declared.insert(vi.name());
      const ValueId v = find(vi.name());
      if (v == kNoValue) continue;
      const ValueShape& shape = s.shapes.values[v];
      if (shape.dtype != 0) types.write(*vi.mutable_type(), shape);
    }
    const std::size_t fresh = std::count_if(values.begin(), values.end(), [&](ValueId v) {
      return s.shapes.values[v].dtype != 0 && declared.count(name_of(v)) == 0;
    });
    graph->mutable_value_info()->Reserve(graph->value_info_size() + static_cast<int>(fresh));
    for (ValueId v : values) {  // sorted by name
      const ValueShape& shape = s.shapes.values[v];
      if (shape.dtype == 0 || declared.count(name_of(v)) != 0) continue;
      onnx::ValueInfoProto* vi = graph->add_value_info();
      vi->set_name(std::string(name_of(v)));
      types.write(*vi->mutable_type(), shape);
    }
  }
  // A dim_param naming `Floor_88_o0_v0` or `cap_3` is evaluable only with its definition
  // (expressions.md 4.4, 4.5): the model carries it, `cctx.definition.<symbol>` in its
  // metadata_props, in the text evaluate_expression reads.
  for (const std::string& name : types.defined()) {
    set_metadata(target, kModelMetadataField, "cctx.definition." + name,
                 *pool.definition_text(name));
  }
}

void ComputeContext::write_annotations(Model& model) const {
  const State& s = *state_;
  const GraphView& g = *s.graph;
  ExprPool& pool = *s.pool;
  // ---- node annotations (main graph) -----------------------------------------------------------
  onnx::GraphProto* main = model.proto().mutable_graph();
  for (NodeId n = 0; n < g.main_node_count(); ++n) {
    onnx::NodeProto* node = main->mutable_node(static_cast<int>(g.node(n).proto_index));
    std::string reuse;
    for (const InplaceDecision& d : s.plan.inplace[n]) {
      if (!reuse.empty()) reuse += ';';
      reuse += std::to_string(d.output) + ":" + std::to_string(d.input) + ":" +
               (reuse_kind_name(d.kind));
    }
    if (!reuse.empty()) set_metadata(*node, kNodeMetadataField, "cctx.inplace_reuse", reuse);
    if (!s.plan.release_after[n].empty()) {
      set_metadata(*node, kNodeMetadataField, "cctx.release_after",
                   join_names(g, s.plan.release_after[n]));
    }
    if (!s.plan.not_used_after[n].empty()) {
      set_metadata(*node, kNodeMetadataField, "cctx.not_used_after",
                   join_names(g, s.plan.not_used_after[n]));
    }
    if (!s.plan.release_after_shape_tag[n].empty()) {
      set_metadata(*node, kNodeMetadataField, "cctx.release_after_shape_tag",
                   join_names(g, s.plan.release_after_shape_tag[n]));
    }
    auto scratch = pool.as_int(s.scratch.nodes[n]);
    if (!scratch || *scratch != 0) {
      set_metadata(*node, kNodeMetadataField, "cctx.peak_scratch_bytes",
                   pool.print(s.scratch.nodes[n]));
    }
    if (s.tags.nodes[n] != Tag::kNone) {
      set_metadata(*node, kNodeMetadataField, "cctx.node_tag", tag_name(s.tags.nodes[n]));
      set_metadata(*node, kNodeMetadataField, "cctx.value_tag", tag_name(s.tags.nodes[n]));
    }
  }

  // ---- value tags ------------------------------------------------------------------------------
  auto tag_of = [&](const std::string& name) -> Tag {
    ValueId v = g.find(name);
    return v == kNoValue ? Tag::kNone : s.tags.values[v];
  };
  auto tag_value_info = [&](onnx::ValueInfoProto& vi) {
    Tag t = tag_of(vi.name());
    if (t != Tag::kNone) set_metadata(vi, kValueInfoMetadataField, "cctx.value_tag", tag_name(t));
  };
  for (onnx::ValueInfoProto& vi : *main->mutable_input()) tag_value_info(vi);
  for (onnx::ValueInfoProto& vi : *main->mutable_output()) tag_value_info(vi);
  for (onnx::ValueInfoProto& vi : *main->mutable_value_info()) tag_value_info(vi);
  for (onnx::TensorProto& t : *main->mutable_initializer()) {
    Tag tag = tag_of(t.name());
    if (tag != Tag::kNone) set_metadata(t, kTensorMetadataField, "cctx.value_tag", tag_name(tag));
  }
}

}  // namespace cctx
