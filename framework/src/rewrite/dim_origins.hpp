// Where each dim of an NCHW value comes from, as ONNX Runtime's NCHWc transformer derives it
// (nchwc_transformer.cc, NchwcArgument::Shape): the rewrite test `same=v` (docs/design/rewrites.md)
// compares two values' origins, and falls back to the runtime's inference where they differ.
#pragma once

#include <onnx/onnx_pb.h>

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace cctx::detail {

/// Where one dim of a value comes from: the value whose dim it is unchanged, halved `shifts`
/// times by stride-2 windows on the way.
struct DimOrigin {
  std::string value;
  std::size_t shifts = 0;
  bool operator==(const DimOrigin&) const = default;
};
using DimOrigins = std::array<DimOrigin, 4>;  // N, C, H, W

/// A node of the graph being rewritten as the derivation reads it: its operator and attributes,
/// and its inputs and outputs as they are now (a rewrite may have renamed them).
struct DerivationNode {
  const onnx::NodeProto* proto = nullptr;
  const std::vector<std::string>* inputs = nullptr;
  const std::vector<std::string>* outputs = nullptr;
};

/// What the derivation asks of the graph being rewritten.
struct DerivationGraph {
  /// The live node that makes `value` when the layout accepts it (a null proto otherwise).
  std::function<DerivationNode(const std::string& value)> layout_producer;
  /// A constant's tensor (an initializer's or a Constant node's), or null.
  std::function<const onnx::TensorProto*(const std::string& name)> constant;
  /// The graph's node count: a longer walk went round a cycle (a model refused later).
  std::size_t node_count = 0;
};

/// The origins of an NCHW value's dims, back through the nodes the layout accepts, each the
/// nearest value whose dim it is unchanged:
///  - an activation (Relu, Sigmoid, Tanh, QuickGelu), a BatchNormalization (or the Conv of 1-D
///    weights it becomes), an Add, Sum or Mul: every dim of its first input;
///  - a Conv, MaxPool or AveragePool reading a value the layout makes (not a Conv of fewer input
///    channels than its `nchwc_block`, which reads it reordered): the batch of its input; each
///    spatial dim of its input when its window keeps the size before striding (pads + 1 =
///    kernel, or SAME auto-padding; dilation 1; stride 1, or 2 counted as a shift); any other
///    dim its own;
///  - a global pool: the batch of its input; a Concat: its first input's but the channels;
///  - any other node, a node the layout does not accept, or a window reading a value made
///    outside the layout (reordered into it): its own.
/// Walks one chain of first inputs: linear in its length.
DimOrigins dim_origins(const DerivationGraph& g, const std::string& value);

}  // namespace cctx::detail
