// How ONNX Runtime reads a graph, where cctx's rewrites and its free-list planner both model it:
// which dims its per-node inference names, and which nodes its ConstantFolding may fold as it
// loads the graph (onnxruntime/core/optimizer/constant_folding.cc).
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <string_view>

namespace cctx::detail {

/// A dim ONNX Runtime's inference names: a non-empty dim_param (RuntimeTypes leaves the
/// `unk__N` ONNX's inference invents unnamed, as ONNX Runtime's does; unnamed dims never match).
inline bool runtime_named_dim(const onnx::TensorShapeProto::Dimension& d) {
  return d.has_dim_param() && !d.dim_param().empty();
}

/// Two dims the same as the runtime's fusions test them: the same positive integer or the same
/// name.
inline bool runtime_same_dim(const onnx::TensorShapeProto::Dimension& p,
                             const onnx::TensorShapeProto::Dimension& q) {
  if (p.has_dim_value() && q.has_dim_value()) {
    return p.dim_value() > 0 && p.dim_value() == q.dim_value();
  }
  return runtime_named_dim(p) && runtime_named_dim(q) && p.dim_param() == q.dim_param();
}

/// Every dim an integer: a Shape of such a value folds.
inline bool runtime_static_dims(const onnx::TensorShapeProto& s) {
  return std::all_of(s.dim().begin(), s.dim().end(),
                     [](const onnx::TensorShapeProto::Dimension& d) { return d.has_dim_value(); });
}

/// An ai.onnx operator whose every run may give another result: never folded, never merged.
inline bool random_operator(std::string_view op) {
  return op == "RandomNormal" || op == "RandomNormalLike" || op == "RandomUniform" ||
         op == "RandomUniformLike" || op == "Multinomial" || op == "Bernoulli";
}

/// An operator ConstantFolding leaves even when its inputs are constants: a Constant (already an
/// initializer), a random one, a DequantizeLinear (kept for the QDQ fusions).
inline bool never_folded(std::string_view op) {
  return op == "Constant" || op == "DequantizeLinear" || random_operator(op);
}

}  // namespace cctx::detail
