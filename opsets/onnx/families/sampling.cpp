// The sampling operators of the conv/pool family: GridSample, which samples its input at the
// points of a grid, and AffineGrid, which makes such a grid from affine matrices.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "conv_pool_rules.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

using nn::fresh;

// ---- sampling -----------------------------------------------------------------------------------

/// GridSample: X [N, C, D1..Dr], grid [N, O1..Or, r] -> [N, C, O1..Or] (r = 2 before opset 20).
Status grid_sample(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape x = input_shape(node, 0), grid = input_shape(node, 1);
  if (!grid.known) {
    if (!x.known) return set_shape(out, 0, dtype, Shape::unknown());
    std::vector<Dim> dims{x.dims[0], x.dims[1]};
    for (std::size_t a = 2; a < x.rank(); ++a) dims.push_back(fresh(node, out, 0, a));
    return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
  }
  if (grid.rank() < 3)
    return fail("grid has rank " + std::to_string(grid.rank()) + ", expected >= 3");
  if (x.known && x.rank() != grid.rank()) {
    return fail("X has rank " + std::to_string(x.rank()) + " but grid has rank " +
                std::to_string(grid.rank()));
  }
  std::string error;
  Dim batch;
  if (!nn::unify(out, x.known ? x.dims[0] : Dim(), grid.dims[0], &batch, &error)) {
    return fail("X and grid disagree on the batch: " + error);
  }
  std::vector<Dim> dims{batch, x.known ? x.dims[1] : fresh(node, out, 0, 1)};
  dims.insert(dims.end(), grid.dims.begin() + 1, grid.dims.end() - 1);
  return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
}

/// AffineGrid: theta [N, 2, 3] with size (N, C, H, W) -> [N, H, W, 2]; theta [N, 3, 4] with size
/// (N, C, D, H, W) -> [N, D, H, W, 3].
Status affine_grid(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape theta = input_shape(node, 0), size_shape = input_shape(node, 1);
  std::vector<Dim> size;
  const bool size_known = input_values(node, 1, &size);
  std::int64_t len = -1;
  if (size_known) {
    len = static_cast<std::int64_t>(size.size());
  } else if (size_shape.known && size_shape.rank() == 1) {
    size_shape.dims[0].get_int(&len);
  }
  if (len < 0 && theta.known && theta.rank() == 3) {
    std::int64_t rows;
    if (theta.dims[1].get_int(&rows)) len = rows + 2;  // 2 rows: 2-D (size has 4 values)
  }
  if (len < 0) return set_shape(out, 0, dtype, Shape::unknown());
  if (len != 4 && len != 5)
    return fail("size has " + std::to_string(len) + " values, expected 4 or 5");
  const std::size_t spatial = static_cast<std::size_t>(len - 2);
  std::vector<Dim> dims;
  Dim batch = size_known ? size[0] : Dim();
  std::string error;
  if (theta.known && !nn::unify(out, batch, theta.dims[0], &batch, &error)) {
    return fail("theta and size disagree on the batch: " + error);
  }
  dims.push_back(batch.valid() ? batch : fresh(node, out, 0, 0));
  for (std::size_t i = 0; i < spatial; ++i) {
    dims.push_back(size_known ? size[i + 2] : fresh(node, out, 0, i + 1));
  }
  dims.push_back(node.constant(static_cast<std::int64_t>(spatial)));
  return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
}

}  // namespace

constinit const FnShapeRule kGridSample{&grid_sample};
constinit const FnShapeRule kAffineGrid{&affine_grid};

}  // namespace cctx::opsets::onnx
