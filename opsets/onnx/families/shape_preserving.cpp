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
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  return same_as_input(node, out, 0, node.input_dtype(0));
}

/// Det: `[*, M, M]` -> `[*]`.
Status det(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  if (!in.known) return set_shape(out, 0, dtype, Shape::unknown());
  if (in.rank() < 2) return fail(out, "input must have rank >= 2");
  std::string error;
  if (!unify(out, in.dims[in.rank() - 2], in.dims[in.rank() - 1], "matrices are not square",
             &error)) {
    return fail(out, error);
  }
  return set_shape(out, 0, dtype, Shape::of({in.dims.begin(), in.dims.end() - 2}));
}

}  // namespace

constinit const FnShapeRule kSameAsData{&same_as_data};
constinit const FnShapeRule kDet{&det};

}  // namespace cctx::opsets::onnx
