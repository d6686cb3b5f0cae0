// The shapes ONNX Runtime gives the values of the graph it really runs, after its optimiser: what
// its planner compares when it reuses a freed buffer (same element size, every dim the same
// integer or the same name). The values the model had keep the shape the runtime inferred for
// them (RuntimeTypes, by name). The values its optimiser adds get the shape their new node's
// schema infers from its inputs' shapes: carried through the operators that keep or permute
// their input's dims; for any other operator only the integer dims and a named batch dim (the
// convolution and pooling schemas leave a dim computed from a named one unknown). The NCHWc
// transformer writes its blocked values under new names and gives the original value to the
// ReorderOutput that restores the layout; cctx's rules keep the original name on the blocked
// value, so the two are swapped here. docs/design/onnxruntime-memory.md, "Buffer reuse after the
// optimiser".
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/graph.hpp"
#include "pipeline/runtime_types.hpp"
#include "pipeline/stage_results.hpp"

namespace cctx {

class RewrittenRuntimeShapes {
 public:
  /// `made[n]`: node n of the main graph was made by a rewrite. `named`: the handles of the
  /// model's own symbols (names the runtime sees). `gaps`: by value, the values the linked onnx
  /// library could not infer for want of a schema, which ONNX Runtime's newer schemas do (the
  /// planner keys them by cctx's own dims); a made node whose operator keeps or permutes the
  /// dims of such an input makes such a value too, and is marked here.
  RewrittenRuntimeShapes(const GraphView& g, const RuntimeTypes& types, const ShapeResult& shapes,
                         ExprPool& pool, const std::vector<bool>& made,
                         const std::unordered_set<std::uint32_t>& named, std::vector<bool>& gaps);

  /// The value's shape as the runtime sees it, or nullptr when it has none; for a value of a
  /// node the rewrites did not make, RuntimeTypes' answer.
  const onnx::TensorShapeProto* shape(ValueId v) const;

 private:
  void derive(NodeId n, bool made);
  /// Output 0 of a node whose operator keeps or permutes its input's dims: from the input's
  /// shape. Nullptr when the operator is not one of those, or the input has no shape.
  std::unique_ptr<onnx::TensorShapeProto> carried(const NodeEntry& node) const;
  /// The node's operator keeps or permutes the dims of its input 0, and that input is a gap.
  bool carries_a_gap(const NodeEntry& node) const;

  const GraphView& g_;
  const RuntimeTypes& types_;
  const ShapeResult& shapes_;
  ExprPool& pool_;
  const std::unordered_set<std::uint32_t>& named_;
  std::vector<bool>& gaps_;
  std::vector<std::unique_ptr<onnx::TensorShapeProto>> derived_;
};

}  // namespace cctx
