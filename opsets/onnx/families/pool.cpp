// Pooling (the conv/pool family): AveragePool, MaxPool and LpPool through the sliding window
// (sliding_window.hpp), the Global pools, the region pools MaxRoiPool and RoiAlign, and
// MaxUnpool, the inverse of a pool window.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "conv_pool_rules.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"
#include "sliding_window.hpp"

namespace cctx::opsets::onnx {

namespace {

using nn::fresh;
using nn::has_input;
using nn::has_output;

// ---- pooling ------------------------------------------------------------------------------------

/// Attributes each pooling version defines: ceil_mode from MaxPool/AveragePool 10 and LpPool 18,
/// dilations from MaxPool 10, AveragePool 19 and LpPool 18.
WindowTraits pool_traits(const INodeView& node) {
  const std::int64_t v = node.opset_version();
  WindowTraits t;
  t.truncating = true;
  if (node.is_op("MaxPool")) {
    t.ceil_mode = v >= 10;
    t.dilations = v >= 10;
  } else if (node.is_op("AveragePool")) {
    t.ceil_mode = v >= 10;
    t.dilations = v >= 19;
  } else {  // LpPool
    t.ceil_mode = v >= 18;
    t.dilations = v >= 18;
  }
  return t;
}

Status pool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  // MaxPool's Indices (since 8) have Y's shape.
  const bool indices = node.is_op("MaxPool") && node.opset_version() >= 8 && has_output(node, 1);
  Shape x = input_shape(node, 0);
  Shape y = Shape::unknown();
  if (x.known) {
    std::string error;
    if (!require_spatial_input(x, &error)) return fail(error);
    if (node.attribute_type("kernel_shape") == AttrType::kNone) {
      return fail("missing 'kernel_shape' attribute");
    }
    Window win;
    if (!read_window(node, x.rank() - 2, Shape::unknown(), pool_traits(node), &win, &error)) {
      return fail(error);
    }
    std::vector<Dim> dims{x.dims[0], x.dims[1]};
    if (!spatial_outputs(node, &out, 0, win, x, &dims, &error)) return fail(error);
    y = Shape::of(std::move(dims));
  }
  check(set_shape(out, 0, dtype, y));
  return indices ? set_shape(out, 1, dtype::kInt64, y) : Status::kOk;
}

Status global_pool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape x = input_shape(node, 0);
  if (x.known) {
    if (x.rank() < 2)
      return fail("input X has rank " + std::to_string(x.rank()) + ", expected >= 2");
    for (std::size_t a = 2; a < x.rank(); ++a) x.dims[a] = node.constant(1);
  }
  return set_shape(out, 0, node.input_dtype(0), x);
}

Status max_roi_pool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  std::vector<std::int64_t> pooled;
  if (!attr_ints_vec(node, "pooled_shape", &pooled))
    return fail("missing 'pooled_shape' attribute");
  if (pooled.size() != 2)
    return fail("pooled_shape has " + std::to_string(pooled.size()) + " values, expected 2");
  Shape x = input_shape(node, 0), rois = input_shape(node, 1);
  if (rois.known && rois.rank() != 2)
    return fail("rois has rank " + std::to_string(rois.rank()) + ", expected 2");
  if (x.known && x.rank() != 4)
    return fail("input X has rank " + std::to_string(x.rank()) + ", expected 4");
  Dim num_rois = rois.known ? rois.dims[0] : fresh(node, out, 0, 0);
  Dim channels = x.known ? x.dims[1] : fresh(node, out, 0, 1);
  return set_shape(
      out, 0, node.input_dtype(0),
      Shape::of({num_rois, channels, node.constant(pooled[0]), node.constant(pooled[1])}));
}

Status roi_align(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  Shape x = input_shape(node, 0), rois = input_shape(node, 1), batch = input_shape(node, 2);
  if (x.known && x.rank() != 4)
    return fail("input X has rank " + std::to_string(x.rank()) + ", expected 4");
  if (rois.known && rois.rank() != 2)
    return fail("rois has rank " + std::to_string(rois.rank()) + ", expected 2");
  if (batch.known && batch.rank() != 1) {
    return fail("batch_indices has rank " + std::to_string(batch.rank()) + ", expected 1");
  }
  Dim num_rois;
  std::string error;
  if (!nn::unify(out, rois.known ? rois.dims[0] : Dim(), batch.known ? batch.dims[0] : Dim(),
                 &num_rois, &error)) {
    return fail("rois and batch_indices disagree on the number of rois: " + error);
  }
  if (!num_rois.valid()) num_rois = fresh(node, out, 0, 0);
  Dim channels = x.known ? x.dims[1] : fresh(node, out, 0, 1);
  const std::int64_t h = node.attr_int_or("output_height", 1),
                     w = node.attr_int_or("output_width", 1);
  return set_shape(out, 0, node.input_dtype(0),
                   Shape::of({num_rois, channels, node.constant(h), node.constant(w)}));
}

/// MaxUnpool: the `output_shape` input (since 11) when given, else the inverse of the pool
/// window: s*(x-1) + k - pb - pe.
Status max_unpool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape x = input_shape(node, 0);
  if (node.opset_version() >= 11 && has_input(node, 2)) {
    std::vector<Dim> values;
    if (input_values(node, 2, &values)) {
      if (x.known && values.size() != x.rank()) {
        return fail("output_shape has " + std::to_string(values.size()) +
                    " values but X has rank " + std::to_string(x.rank()));
      }
      return set_shape(out, 0, dtype, Shape::of(std::move(values)));
    }
    if (!x.known) return set_shape(out, 0, dtype, Shape::unknown());
    std::vector<Dim> dims{x.dims[0], x.dims[1]};
    for (std::size_t a = 2; a < x.rank(); ++a) dims.push_back(fresh(node, out, 0, a));
    return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
  }
  if (!x.known) return set_shape(out, 0, dtype, Shape::unknown());
  std::string error;
  if (!require_spatial_input(x, &error)) return fail(error);
  if (node.attribute_type("kernel_shape") == AttrType::kNone) {
    return fail("missing 'kernel_shape' attribute");
  }
  WindowTraits traits;
  traits.dilations = false;
  traits.auto_pad = false;
  Window win;
  if (!read_window(node, x.rank() - 2, Shape::unknown(), traits, &win, &error)) return fail(error);
  std::vector<Dim> dims{x.dims[0], x.dims[1]};
  for (std::size_t i = 0; i < win.spatial(); ++i) {
    dims.push_back((x.dims[i + 2] - 1) * win.strides[i] + win.kernel[i] - win.pad_begin(i) -
                   win.pad_end(i));
  }
  return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
}

}  // namespace

constinit const FnShapeRule kPool{&pool};
constinit const FnShapeRule kGlobalPool{&global_pool};
constinit const FnShapeRule kMaxRoiPool{&max_roi_pool};
constinit const FnShapeRule kRoiAlign{&roi_align};
constinit const FnShapeRule kMaxUnpool{&max_unpool};

}  // namespace cctx::opsets::onnx
