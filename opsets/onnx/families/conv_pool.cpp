// Convolutions and pooling (expressions.md 7): Conv, ConvInteger, QLinearConv, ConvTranspose,
// DeformConv, AveragePool, MaxPool, LpPool, the Global pools, MaxRoiPool, MaxUnpool, RoiAlign,
// and the sampling ops GridSample and AffineGrid. The window formula is shared by the shape rules
// and the im2col / col2im scratch estimators (semantics.md 9), which recompute output dims from
// the inputs.
#include <string>
#include <vector>

#include "families.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

using nn::fresh;
using nn::has_input;
using nn::has_output;

// ---- window attributes -------------------------------------------------------------------------

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

/// Which optional window attributes an operator version defines (older versions ignore them).
struct WindowTraits {
  bool dilations = true;
  bool ceil_mode = false;
  bool auto_pad = true;
};

/// The sliding-window attributes of one node, per spatial axis.
struct Window {
  std::vector<Dim> kernel;  ///< empty when unknown (no kernel_shape, weight shape unknown)
  std::vector<std::int64_t> strides, dilations;
  std::vector<std::int64_t> pads;  ///< begin values, then end values
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;

  std::size_t spatial() const { return strides.size(); }
  std::int64_t pad_begin(std::size_t i) const { return pads[i]; }
  std::int64_t pad_end(std::size_t i) const { return pads[i + spatial()]; }
  bool kernel_known() const { return !kernel.empty(); }
};

/// Reads an INTS attribute of `n` values (absent: `n` copies of `fill`).
bool ints_attr(const INodeView& node, const char* name, std::size_t n, std::int64_t fill,
               std::vector<std::int64_t>* values, std::string* error) {
  if (!attr_ints_vec(node, name, values)) {
    values->assign(n, fill);
    return true;
  }
  if (values->size() == n) return true;
  *error = "attribute '" + std::string(name) + "' has " + std::to_string(values->size()) +
           " values, expected " + std::to_string(n);
  return false;
}

bool parse_auto_pad(const INodeView& node, AutoPad* mode, std::string* error) {
  const std::string text = attr_string_or(node, "auto_pad", "NOTSET");
  if (text == "NOTSET") {
    *mode = AutoPad::kNotSet;
  } else if (text == "SAME_UPPER") {
    *mode = AutoPad::kSameUpper;
  } else if (text == "SAME_LOWER") {
    *mode = AutoPad::kSameLower;
  } else if (text == "VALID") {
    *mode = AutoPad::kValid;
  } else {
    *error = "unknown auto_pad '" + text + "'";
    return false;
  }
  return true;
}

/// Kernel dims from `kernel_shape`, else from the weight's dims [2:] (`weight` may be unknown).
bool read_kernel(const INodeView& node, std::size_t spatial, const Shape& weight,
                 std::vector<Dim>* kernel, std::string* error) {
  std::vector<std::int64_t> attr;
  if (attr_ints_vec(node, "kernel_shape", &attr)) {
    if (attr.size() != spatial) {
      *error = "attribute 'kernel_shape' has " + std::to_string(attr.size()) +
               " values, expected " + std::to_string(spatial);
      return false;
    }
    for (std::int64_t k : attr) {
      if (k < 1) {
        *error = "kernel_shape value " + std::to_string(k) + " is not positive";
        return false;
      }
      kernel->push_back(node.constant(k));
    }
    return true;
  }
  if (!weight.known) return true;  // unknown kernel
  if (weight.rank() != spatial + 2) {
    *error = "weight has rank " + std::to_string(weight.rank()) + ", expected " +
             std::to_string(spatial + 2);
    return false;
  }
  kernel->assign(weight.dims.begin() + 2, weight.dims.end());
  return true;
}

bool read_window(const INodeView& node, std::size_t spatial, const Shape& weight,
                 WindowTraits traits, Window* w, std::string* error) {
  if (!read_kernel(node, spatial, weight, &w->kernel, error)) return false;
  if (!ints_attr(node, "strides", spatial, 1, &w->strides, error)) return false;
  if (traits.dilations) {
    if (!ints_attr(node, "dilations", spatial, 1, &w->dilations, error)) return false;
  } else {
    w->dilations.assign(spatial, 1);
  }
  for (std::size_t i = 0; i < spatial; ++i) {
    if (w->strides[i] < 1 || w->dilations[i] < 1) {
      *error = "strides and dilations must be positive (axis " + std::to_string(i + 2) +
               ": stride " + std::to_string(w->strides[i]) + ", dilation " +
               std::to_string(w->dilations[i]) + ")";
      return false;
    }
  }
  if (traits.auto_pad && !parse_auto_pad(node, &w->auto_pad, error)) return false;
  if (w->auto_pad == AutoPad::kNotSet) {
    if (!ints_attr(node, "pads", 2 * spatial, 0, &w->pads, error)) return false;
  } else {
    w->pads.assign(2 * spatial, 0);  // computed from the mode, never read
  }
  w->ceil_mode = traits.ceil_mode && node.attr_int_or("ceil_mode", 0) != 0;
  return true;
}

/// Spatial output size of a sliding window over input size x (expressions.md 7). For SAME_* the
/// kernel is not needed; otherwise the caller has checked `w.kernel_known()`.
Dim window_output(const Window& w, std::size_t i, Dim x) {
  const std::int64_t s = w.strides[i];
  if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower) {
    return ceil_div(x, s);
  }
  const Dim eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
  if (w.auto_pad == AutoPad::kValid) return floor_div(x - eff, s) + 1;
  const std::int64_t pb = w.pad_begin(i), pe = w.pad_end(i);
  if (!w.ceil_mode) return floor_div(x + pb + pe - eff, s) + 1;
  // ceil_mode: the last window must start inside the input or the left padding.
  return min(ceil_div(x + pb + pe - eff, s) + 1, floor_div(x + pb - 1, s) + 1);
}

/// Output spatial dims of X (rank >= 3) under `w`; fresh dims of output `o` where the kernel is
/// unknown. Fails when a dim is provably not positive.
bool spatial_outputs(const INodeView& node, IShapeSink* out, std::uint32_t o, const Window& w,
                     const Shape& x, std::vector<Dim>* dims, std::string* error) {
  const bool same = w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower;
  for (std::size_t i = 0; i < w.spatial(); ++i) {
    if (!same && !w.kernel_known()) {
      if (out == nullptr) {
        *error = "kernel size unknown";
        return false;
      }
      dims->push_back(fresh(node, *out, o, i + 2));
      continue;
    }
    Dim d = window_output(w, i, x.dims[i + 2]);
    if (d.lift(0).provably_ge(d)) {
      *error = "output size " + to_string(d) + " of spatial axis " + std::to_string(i + 2) +
               " is not positive (input " + to_string(x.dims[i + 2]) + ")";
      return false;
    }
    dims->push_back(d);
  }
  return true;
}

bool require_spatial_input(const Shape& x, std::string* error) {
  if (x.rank() >= 3) return true;
  *error = "input X has rank " + std::to_string(x.rank()) + ", expected N, C and spatial dims";
  return false;
}

// ---- Conv, ConvInteger, QLinearConv, DeformConv -------------------------------------------------

/// Where the operands of a convolution sit and what it produces.
struct ConvOperands {
  std::uint32_t weight = 1;
  std::int32_t dtype = dtype::kUndefined;
  bool auto_pad = true;
};

ConvOperands conv_operands(const INodeView& node) {
  ConvOperands c;
  c.dtype = node.input_dtype(0);
  if (node.is_op("ConvInteger")) {
    c.dtype = dtype::kInt32;
  } else if (node.is_op("QLinearConv")) {
    c.weight = 3;  // x, x_scale, x_zero_point, w, ...; y takes y_zero_point's type
    if (has_input(node, 7) && node.input_dtype(7) != dtype::kUndefined)
      c.dtype = node.input_dtype(7);
  } else if (node.is_op("DeformConv")) {
    c.auto_pad = false;
  }
  return c;
}

/// X channels must equal W[1] * group (a concrete conflict is an error, else an assumption).
bool check_group(IShapeSink& out, const Shape& x, const Shape& w, std::int64_t group,
                 std::string* error) {
  if (!w.known || w.rank() < 2) return true;
  Dim unified;
  std::string detail;
  if (nn::unify(out, x.dims[1], w.dims[1] * group, &unified, &detail)) return true;
  *error =
      "input channels differ from weight channels x group " + std::to_string(group) + ": " + detail;
  return false;
}

Status conv(const INodeView& node, IShapeSink& out) {
  const ConvOperands ops = conv_operands(node);
  Status st;
  if (!require_inputs(node, out, ops.weight + 1, &st)) return st;
  Shape x = input_shape(node, 0), w = input_shape(node, ops.weight);
  if (!x.known) return set_shape(out, 0, ops.dtype, Shape::unknown());
  std::string error;
  if (!require_spatial_input(x, &error)) return fail(out, error);
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return fail(out, "group " + std::to_string(group) + " is not positive");
  if (!check_group(out, x, w, group, &error)) return fail(out, error);
  Window win;
  WindowTraits traits;
  traits.auto_pad = ops.auto_pad;
  if (!read_window(node, x.rank() - 2, w, traits, &win, &error)) return fail(out, error);
  std::vector<Dim> dims{x.dims[0], w.known && w.rank() >= 1 ? w.dims[0] : fresh(node, out, 0, 1)};
  if (!spatial_outputs(node, &out, 0, win, x, &dims, &error)) return fail(out, error);
  return set_shape(out, 0, ops.dtype, Shape::of(std::move(dims)));
}

// ---- ConvTranspose ------------------------------------------------------------------------------

/// Spatial output dims of ConvTranspose (expressions.md 7).
bool transpose_outputs(const INodeView& node, IShapeSink& out, const Window& w, const Shape& x,
                       std::vector<Dim>* dims, std::string* error) {
  const std::size_t spatial = w.spatial();
  std::vector<std::int64_t> explicit_shape;
  if (attr_ints_vec(node, "output_shape", &explicit_shape)) {
    // Either the spatial dims or the whole output shape; pads are then derived by the runtime.
    if (explicit_shape.size() != spatial && explicit_shape.size() != spatial + 2) {
      *error = "attribute 'output_shape' has " + std::to_string(explicit_shape.size()) +
               " values, expected " + std::to_string(spatial);
      return false;
    }
    const std::size_t first = explicit_shape.size() - spatial;
    for (std::size_t i = 0; i < spatial; ++i)
      dims->push_back(node.constant(explicit_shape[first + i]));
    return true;
  }
  std::vector<std::int64_t> output_padding;
  if (!ints_attr(node, "output_padding", spatial, 0, &output_padding, error)) return false;
  for (std::size_t i = 0; i < spatial; ++i) {
    const Dim xi = x.dims[i + 2];
    const std::int64_t s = w.strides[i];
    if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower) {
      dims->push_back(xi * s);
      continue;
    }
    if (!w.kernel_known()) {
      dims->push_back(fresh(node, out, 0, i + 2));
      continue;
    }
    const Dim eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
    Dim d = (xi - 1) * s + output_padding[i] + eff - w.pad_begin(i) - w.pad_end(i);
    if (d.lift(0).provably_ge(d)) {
      *error = "output size " + to_string(d) + " of spatial axis " + std::to_string(i + 2) +
               " is not positive";
      return false;
    }
    dims->push_back(d);
  }
  return true;
}

Status conv_transpose(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  Shape x = input_shape(node, 0), w = input_shape(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  if (!x.known) return set_shape(out, 0, dtype, Shape::unknown());
  std::string error;
  if (!require_spatial_input(x, &error)) return fail(out, error);
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return fail(out, "group " + std::to_string(group) + " is not positive");
  Window win;
  if (!read_window(node, x.rank() - 2, w, WindowTraits{}, &win, &error)) return fail(out, error);
  Dim channels;
  if (w.known && w.rank() >= 2) {
    Dim unified;
    if (!nn::unify(out, x.dims[1], w.dims[0], &unified, &error)) {
      return fail(out, "input channels differ from weight dim 0: " + error);
    }
    channels = w.dims[1] * group;
  } else {
    channels = fresh(node, out, 0, 1);
  }
  std::vector<Dim> dims{x.dims[0], channels};
  if (!transpose_outputs(node, out, win, x, &dims, &error)) return fail(out, error);
  return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
}

// ---- pooling ------------------------------------------------------------------------------------

/// Attributes each pooling version defines: ceil_mode from MaxPool/AveragePool 10 and LpPool 18,
/// dilations from MaxPool 10, AveragePool 19 and LpPool 18.
WindowTraits pool_traits(const INodeView& node) {
  const std::int64_t v = node.opset_version();
  WindowTraits t;
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
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  // MaxPool's Indices (since 8) have Y's shape.
  const bool indices = node.is_op("MaxPool") && node.opset_version() >= 8 && has_output(node, 1);
  Shape x = input_shape(node, 0);
  Shape y = Shape::unknown();
  if (x.known) {
    std::string error;
    if (!require_spatial_input(x, &error)) return fail(out, error);
    if (node.attribute_type("kernel_shape") == AttrType::kNone) {
      return fail(out, "missing 'kernel_shape' attribute");
    }
    Window win;
    if (!read_window(node, x.rank() - 2, Shape::unknown(), pool_traits(node), &win, &error)) {
      return fail(out, error);
    }
    std::vector<Dim> dims{x.dims[0], x.dims[1]};
    if (!spatial_outputs(node, &out, 0, win, x, &dims, &error)) return fail(out, error);
    y = Shape::of(std::move(dims));
  }
  if (Status s = set_shape(out, 0, dtype, y); s != Status::kOk) return s;
  return indices ? set_shape(out, 1, dtype::kInt64, y) : Status::kOk;
}

Status global_pool(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  Shape x = input_shape(node, 0);
  if (x.known) {
    if (x.rank() < 2)
      return fail(out, "input X has rank " + std::to_string(x.rank()) + ", expected >= 2");
    for (std::size_t a = 2; a < x.rank(); ++a) x.dims[a] = node.constant(1);
  }
  return set_shape(out, 0, node.input_dtype(0), x);
}

Status max_roi_pool(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  std::vector<std::int64_t> pooled;
  if (!attr_ints_vec(node, "pooled_shape", &pooled))
    return fail(out, "missing 'pooled_shape' attribute");
  if (pooled.size() != 2)
    return fail(out, "pooled_shape has " + std::to_string(pooled.size()) + " values, expected 2");
  Shape x = input_shape(node, 0), rois = input_shape(node, 1);
  if (rois.known && rois.rank() != 2)
    return fail(out, "rois has rank " + std::to_string(rois.rank()) + ", expected 2");
  if (x.known && x.rank() != 4)
    return fail(out, "input X has rank " + std::to_string(x.rank()) + ", expected 4");
  Dim num_rois = rois.known ? rois.dims[0] : fresh(node, out, 0, 0);
  Dim channels = x.known ? x.dims[1] : fresh(node, out, 0, 1);
  return set_shape(
      out, 0, node.input_dtype(0),
      Shape::of({num_rois, channels, node.constant(pooled[0]), node.constant(pooled[1])}));
}

Status roi_align(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 3, &st)) return st;
  Shape x = input_shape(node, 0), rois = input_shape(node, 1), batch = input_shape(node, 2);
  if (x.known && x.rank() != 4)
    return fail(out, "input X has rank " + std::to_string(x.rank()) + ", expected 4");
  if (rois.known && rois.rank() != 2)
    return fail(out, "rois has rank " + std::to_string(rois.rank()) + ", expected 2");
  if (batch.known && batch.rank() != 1) {
    return fail(out, "batch_indices has rank " + std::to_string(batch.rank()) + ", expected 1");
  }
  Dim num_rois;
  std::string error;
  if (!nn::unify(out, rois.known ? rois.dims[0] : Dim(), batch.known ? batch.dims[0] : Dim(),
                 &num_rois, &error)) {
    return fail(out, "rois and batch_indices disagree on the number of rois: " + error);
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
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape x = input_shape(node, 0);
  if (node.opset_version() >= 11 && has_input(node, 2)) {
    std::vector<Dim> values;
    if (input_values(node, 2, &values)) {
      if (x.known && values.size() != x.rank()) {
        return fail(out, "output_shape has " + std::to_string(values.size()) +
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
  if (!require_spatial_input(x, &error)) return fail(out, error);
  if (node.attribute_type("kernel_shape") == AttrType::kNone) {
    return fail(out, "missing 'kernel_shape' attribute");
  }
  WindowTraits traits;
  traits.dilations = false;
  traits.auto_pad = false;
  Window win;
  if (!read_window(node, x.rank() - 2, Shape::unknown(), traits, &win, &error))
    return fail(out, error);
  std::vector<Dim> dims{x.dims[0], x.dims[1]};
  for (std::size_t i = 0; i < win.spatial(); ++i) {
    dims.push_back((x.dims[i + 2] - 1) * win.strides[i] + win.kernel[i] - win.pad_begin(i) -
                   win.pad_end(i));
  }
  return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
}

// ---- sampling -----------------------------------------------------------------------------------

/// GridSample: X [N, C, D1..Dr], grid [N, O1..Or, r] -> [N, C, O1..Or] (r = 2 before opset 20).
Status grid_sample(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape x = input_shape(node, 0), grid = input_shape(node, 1);
  if (!grid.known) {
    if (!x.known) return set_shape(out, 0, dtype, Shape::unknown());
    std::vector<Dim> dims{x.dims[0], x.dims[1]};
    for (std::size_t a = 2; a < x.rank(); ++a) dims.push_back(fresh(node, out, 0, a));
    return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
  }
  if (grid.rank() < 3)
    return fail(out, "grid has rank " + std::to_string(grid.rank()) + ", expected >= 3");
  if (x.known && x.rank() != grid.rank()) {
    return fail(out, "X has rank " + std::to_string(x.rank()) + " but grid has rank " +
                         std::to_string(grid.rank()));
  }
  std::string error;
  Dim batch;
  if (!nn::unify(out, x.known ? x.dims[0] : Dim(), grid.dims[0], &batch, &error)) {
    return fail(out, "X and grid disagree on the batch: " + error);
  }
  std::vector<Dim> dims{batch, x.known ? x.dims[1] : fresh(node, out, 0, 1)};
  dims.insert(dims.end(), grid.dims.begin() + 1, grid.dims.end() - 1);
  return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
}

/// AffineGrid: theta [N, 2, 3] with size (N, C, H, W) -> [N, H, W, 2]; theta [N, 3, 4] with size
/// (N, C, D, H, W) -> [N, D, H, W, 3].
Status affine_grid(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
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
    return fail(out, "size has " + std::to_string(len) + " values, expected 4 or 5");
  const std::size_t spatial = static_cast<std::size_t>(len - 2);
  std::vector<Dim> dims;
  Dim batch = size_known ? size[0] : Dim();
  std::string error;
  if (theta.known && !nn::unify(out, batch, theta.dims[0], &batch, &error)) {
    return fail(out, "theta and size disagree on the batch: " + error);
  }
  dims.push_back(batch.valid() ? batch : fresh(node, out, 0, 0));
  for (std::size_t i = 0; i < spatial; ++i) {
    dims.push_back(size_known ? size[i + 2] : fresh(node, out, 0, i + 1));
  }
  dims.push_back(node.constant(static_cast<std::int64_t>(spatial)));
  return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
}

// ---- scratch estimators -------------------------------------------------------------------------

/// True for the pointwise case a kernel runs as a plain GEMM, without a column buffer: every
/// kernel dim 1, strides 1, no padding (SAME/VALID pad nothing then).
bool pointwise(const Window& w) {
  for (std::size_t i = 0; i < w.spatial(); ++i) {
    if (!w.kernel[i].is(1) || w.strides[i] != 1 || w.pad_begin(i) != 0 || w.pad_end(i) != 0) {
      return false;
    }
  }
  return true;
}

/// Reads X, W and the window for an estimator; `why` explains a failure.
bool estimator_window(const INodeView& node, std::uint32_t weight_index, bool auto_pad, Shape* x,
                      Shape* w, Window* win, std::string* why) {
  if (!nn::known_shape(node, 0, x) || x->rank() < 3) {
    *why = "rank of X unknown or below 3";
    return false;
  }
  *w = has_input(node, weight_index) ? input_shape(node, weight_index) : Shape::unknown();
  WindowTraits traits;
  traits.auto_pad = auto_pad;
  if (!read_window(node, x->rank() - 2, *w, traits, win, why)) return false;
  if (!win->kernel_known()) {
    *why = "kernel size unknown (no kernel_shape and no weight shape)";
    return false;
  }
  return true;
}

/// Conv: im2col columns (C/group) * prod(k) * prod(O) * e, one image and one group at a time.
Status conv_scratch(const INodeView& node, IScratchSink& out) {
  const ConvOperands ops = conv_operands(node);
  Shape x, w;
  Window win;
  std::string why;
  if (!estimator_window(node, ops.weight, ops.auto_pad, &x, &w, &win, &why)) {
    return nn::cannot_estimate(out, why);
  }
  if (pointwise(win)) return out.set_bytes(node.constant(0));
  std::int64_t e;
  if (!nn::input_element_bytes(node, 0, &e, &why)) return nn::cannot_estimate(out, why);
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return nn::cannot_estimate(out, "group is not positive");
  // W[1] is C/group by definition; without W's shape divide the input channels.
  Dim channels_per_group = w.known && w.rank() >= 2 ? w.dims[1] : exact_div(x.dims[1], group);
  std::vector<Dim> spatial;
  if (!spatial_outputs(node, nullptr, 0, win, x, &spatial, &why))
    return nn::cannot_estimate(out, why);
  Dim bytes = channels_per_group * e;
  for (std::size_t i = 0; i < win.spatial(); ++i) bytes = bytes * win.kernel[i] * spatial[i];
  return out.set_bytes(bytes);
}

/// ConvTranspose: columns before col2im, (M/group) * prod(k) * prod(I) * e; W[1] is M/group.
Status conv_transpose_scratch(const INodeView& node, IScratchSink& out) {
  Shape x, w;
  Window win;
  std::string why;
  if (!estimator_window(node, 1, true, &x, &w, &win, &why)) return nn::cannot_estimate(out, why);
  if (pointwise(win)) return out.set_bytes(node.constant(0));
  if (!w.known || w.rank() < 2) return nn::cannot_estimate(out, "weight shape unknown");
  std::int64_t e;
  if (!nn::input_element_bytes(node, 0, &e, &why)) return nn::cannot_estimate(out, why);
  Dim bytes = w.dims[1] * e;
  for (std::size_t i = 0; i < win.spatial(); ++i) bytes = bytes * win.kernel[i] * x.dims[i + 2];
  return out.set_bytes(bytes);
}

constinit const FnShapeRule kConv{&conv};
constinit const FnShapeRule kConvTranspose{&conv_transpose};
constinit const FnShapeRule kPool{&pool};
constinit const FnShapeRule kGlobalPool{&global_pool};
constinit const FnShapeRule kMaxRoiPool{&max_roi_pool};
constinit const FnShapeRule kRoiAlign{&roi_align};
constinit const FnShapeRule kMaxUnpool{&max_unpool};
constinit const FnShapeRule kGridSample{&grid_sample};
constinit const FnShapeRule kAffineGrid{&affine_grid};
constinit const FnScratchEstimator kConvScratch{&conv_scratch};
constinit const FnScratchEstimator kConvTransposeScratch{&conv_transpose_scratch};

}  // namespace

void register_conv_pool(Registration& reg) {
  reg.shape("Conv", {1, 11, 22}, kConv);
  reg.shape("ConvInteger", 10, kConv);
  reg.shape("QLinearConv", 10, kConv);
  reg.shape("DeformConv", {19, 22}, kConv);
  reg.shape("ConvTranspose", {1, 11, 22}, kConvTranspose);
  reg.shape("AveragePool", {1, 7, 10, 11, 19, 22}, kPool);
  reg.shape("MaxPool", {1, 8, 10, 11, 12, 22}, kPool);
  reg.shape("LpPool", {1, 2, 11, 18, 22}, kPool);
  reg.shape("GlobalAveragePool", {1, 22}, kGlobalPool);
  reg.shape("GlobalMaxPool", {1, 22}, kGlobalPool);
  reg.shape("GlobalLpPool", {1, 2, 22}, kGlobalPool);
  reg.shape("MaxRoiPool", {1, 22}, kMaxRoiPool);
  reg.shape("RoiAlign", {10, 16, 22}, kRoiAlign);
  reg.shape("MaxUnpool", {9, 11, 22}, kMaxUnpool);
  reg.shape("GridSample", {16, 20, 22}, kGridSample);
  reg.shape("AffineGrid", 20, kAffineGrid);
  // The same column buffer serves the integer and deformable variants (one image, one group).
  reg.scratch("Conv", 1, kConvScratch);
  reg.scratch("ConvInteger", 10, kConvScratch);
  reg.scratch("QLinearConv", 10, kConvScratch);
  reg.scratch("DeformConv", 19, kConvScratch);
  reg.scratch("ConvTranspose", 1, kConvTransposeScratch);
}

}  // namespace cctx::opsets::onnx
