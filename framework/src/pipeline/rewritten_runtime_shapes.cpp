#include "pipeline/rewritten_runtime_shapes.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "model/onnx_runtime_view.hpp"
#include "rewrite/node_attributes.hpp"

namespace cctx {

namespace {

/// Operators whose output 0 has their input 0's dims, as their schemas infer it.
bool keeps_dims(std::string_view domain, std::string_view op) {
  static constexpr std::string_view kOnnx[] = {"QuantizeLinear", "DequantizeLinear",
                                               "Relu",           "LeakyRelu",
                                               "Sigmoid",        "HardSigmoid",
                                               "Tanh",           "Erf",
                                               "Clip",           "Cast",
                                               "Identity",       "Softmax"};
  static constexpr std::string_view kMicrosoft[] = {"QLinearLeakyRelu", "QLinearSigmoid",
                                                    "QLinearSoftmax", "Gelu", "QuickGelu"};
  if (domain.empty()) return std::find(std::begin(kOnnx), std::end(kOnnx), op) != std::end(kOnnx);
  if (domain == "com.microsoft") {
    return std::find(std::begin(kMicrosoft), std::end(kMicrosoft), op) != std::end(kMicrosoft);
  }
  return false;
}

/// Elementwise operators of two same-shaped operands: the indices of the operands, whose dims
/// the output has.
std::optional<std::pair<std::size_t, std::size_t>> same_shaped_operands(std::string_view domain,
                                                                        std::string_view op) {
  if (domain.empty() && (op == "Add" || op == "Sub" || op == "Mul" || op == "Div"))
    return std::pair<std::size_t, std::size_t>{0, 1};
  if (domain == "com.microsoft" && (op == "QLinearAdd" || op == "QLinearMul"))
    return std::pair<std::size_t, std::size_t>{0, 3};
  return std::nullopt;
}

bool is_transpose(const NodeEntry& node) {
  return node.domain.empty() && node.op_type == "Transpose";
}

/// The node's output 0 has the dims of its input 0, kept or permuted.
bool carries_dims(const NodeEntry& node) {
  return keeps_dims(node.domain, node.op_type) || is_transpose(node) ||
         same_shaped_operands(node.domain, node.op_type).has_value();
}

bool same_dims(const onnx::TensorShapeProto& p, const onnx::TensorShapeProto& q) {
  if (p.dim_size() != q.dim_size()) return false;
  for (int i = 0; i < p.dim_size(); ++i) {
    if (!detail::runtime_same_dim(p.dim(i), q.dim(i))) return false;
  }
  return true;
}

}  // namespace

RewrittenRuntimeShapes::RewrittenRuntimeShapes(const GraphView& g, const RuntimeTypes& types,
                                               const ShapeResult& shapes, ExprPool& pool,
                                               const std::vector<bool>& made,
                                               const std::unordered_set<std::uint32_t>& named,
                                               std::vector<bool>& gaps)
    : g_(g), types_(types), shapes_(shapes), pool_(pool), named_(named), gaps_(gaps) {
  derived_.resize(g.values().size());
  for (NodeId n : g.main().nodes) derive(n, n < made.size() && made[n]);
}

const onnx::TensorShapeProto* RewrittenRuntimeShapes::shape(ValueId v) const {
  if (v < derived_.size() && derived_[v]) return derived_[v].get();
  return types_.shape(g_.value(v).name);
}

void RewrittenRuntimeShapes::derive(NodeId n, bool made) {
  const NodeEntry& node = g_.node(n);
  const bool blocked = node.domain == "com.microsoft.nchwc" && node.op_type != "ReorderOutput";
  if (!made && !blocked) return;
  for (std::size_t k = 0; k < node.outputs.size(); ++k) {
    const ValueId v = node.outputs[k];
    if (v == kNoValue || v >= shapes_.values.size()) continue;
    // A value the model had keeps the shape the runtime inferred for it (a fused node writes
    // the value of the node it replaces), but for the blocked ones: new values to the runtime.
    if (!blocked && (types_.find(g_.value(v).name) != nullptr || (v < gaps_.size() && gaps_[v])))
      continue;
    const ValueShape& own = shapes_.values[v];
    if (own.kind != ValueKind::kTensor || !own.known_rank) continue;
    if (!blocked && k == 0) {
      if (std::unique_ptr<onnx::TensorShapeProto> from_input = carried(node)) {
        if (static_cast<std::size_t>(from_input->dim_size()) == own.dims.size()) {
          derived_[v] = std::move(from_input);
          continue;
        }
      }
      if (v < gaps_.size() && carries_a_gap(node)) {
        gaps_[v] = true;  // inferred by ONNX Runtime's newer schemas through its input
        continue;
      }
    }
    auto out = std::make_unique<onnx::TensorShapeProto>();
    for (std::size_t axis = 0; axis < own.dims.size(); ++axis) {
      onnx::TensorShapeProto::Dimension* d = out->add_dim();
      if (const std::optional<std::int64_t> value = pool_.as_int(own.dims[axis])) {
        d->set_dim_value(*value);
      } else if (axis == 0 && named_.count(own.dims[axis].id) != 0) {
        d->set_dim_param(pool_.print(own.dims[axis]));
      }
    }
    derived_[v] = std::move(out);
  }
}

bool RewrittenRuntimeShapes::carries_a_gap(const NodeEntry& node) const {
  if (node.inputs.empty() || node.inputs[0] == kNoValue) return false;
  const ValueId x = node.inputs[0];
  return x < gaps_.size() && gaps_[x] && carries_dims(node);
}

std::unique_ptr<onnx::TensorShapeProto> RewrittenRuntimeShapes::carried(
    const NodeEntry& node) const {
  auto input = [&](std::size_t k) -> const onnx::TensorShapeProto* {
    return k < node.inputs.size() && node.inputs[k] != kNoValue ? shape(node.inputs[k]) : nullptr;
  };
  const onnx::TensorShapeProto* x = input(0);
  if (x == nullptr) return nullptr;
  // ReorderOutput writes the value the blocked node stands for: under cctx's rules its input
  // kept that value's name, and with it the shape the runtime inferred.
  if (node.domain == "com.microsoft.nchwc" && node.op_type == "ReorderOutput") {
    const onnx::TensorShapeProto* original = types_.shape(g_.value(node.inputs[0]).name);
    return original != nullptr ? std::make_unique<onnx::TensorShapeProto>(*original) : nullptr;
  }
  if (keeps_dims(node.domain, node.op_type)) return std::make_unique<onnx::TensorShapeProto>(*x);
  if (is_transpose(node)) {
    std::vector<std::int64_t> perm = detail::ints_attribute(*node.proto, "perm");
    const int rank = x->dim_size();
    if (perm.empty()) {
      for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
    }
    if (static_cast<int>(perm.size()) != rank) return nullptr;
    auto out = std::make_unique<onnx::TensorShapeProto>();
    for (std::int64_t p : perm) {
      if (p < 0 || p >= rank) return nullptr;
      *out->add_dim() = x->dim(static_cast<int>(p));
    }
    return out;
  }
  if (const auto operands = same_shaped_operands(node.domain, node.op_type)) {
    const onnx::TensorShapeProto* p = input(operands->first);
    const onnx::TensorShapeProto* q = input(operands->second);
    if (p != nullptr && q != nullptr && same_dims(*p, *q)) {
      return std::make_unique<onnx::TensorShapeProto>(*p);
    }
  }
  return nullptr;
}

}  // namespace cctx
