// The indexing family's shape-preserving operators, Trilu, CumSum and ReverseSequence (the
// output has data's shape and dtype), and Det, which drops the two square matrix axes.
#include <cstdint>
#include <string>

#include "indexing_helpers.hpp"
#include "indexing_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

// ---- shape-preserving and others ----------------------------------------------------------------

Status same_as_data(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  return same_as_input(node, out, 0, node.input_dtype(0));
}

/// Det: `[*, M, M]` -> `[*]`.
Status det(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = known_input(node, out, 0, dtype);
  if (in.rank() < 2) return fail("input must have rank >= 2");
  unify(out, in.dims[in.rank() - 2], in.dims[in.rank() - 1], "matrices are not square");
  return set_shape(out, 0, dtype, Shape::of({in.dims.begin(), in.dims.end() - 2}));
}

}  // namespace

constinit const FnShapeRule kSameAsData{&same_as_data};
constinit const FnShapeRule kDet{&det};

}  // namespace cctx::opsets::onnx
