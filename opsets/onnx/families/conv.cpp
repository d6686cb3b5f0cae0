// Convolutions (the conv/pool family): Conv, ConvInteger, QLinearConv, DeformConv and
// ConvTranspose, their output dims through the sliding window (sliding_window.hpp), and the
// im2col / col2im column buffers their kernels fill (semantics.md, Peak scratch memory).
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
  require_inputs(node, ops.weight + 1);
  Shape x = input_shape(node, 0), w = input_shape(node, ops.weight);
  if (!x.known) return set_shape(out, 0, ops.dtype, Shape::unknown());
  std::string error;
  if (!require_spatial_input(x, &error)) return fail(error);
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return fail("group " + std::to_string(group) + " is not positive");
  if (!check_group(out, x, w, group, &error)) return fail(error);
  Window win;
  WindowTraits traits;
  traits.auto_pad = ops.auto_pad;
  if (!read_window(node, x.rank() - 2, w, traits, &win, &error)) return fail(error);
  std::vector<Dim> dims{x.dims[0], w.known && w.rank() >= 1 ? w.dims[0] : fresh(node, out, 0, 1)};
  if (!spatial_outputs(node, &out, 0, win, x, &dims, &error)) return fail(error);
  return set_shape(out, 0, ops.dtype, Shape::of(std::move(dims)));
}

// ---- ConvTranspose ------------------------------------------------------------------------------

/// Spatial output dims of ConvTranspose (expressions.md, Symbolic shape inference rules).
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
    if (w.same_padding()) {
      dims->push_back(xi * s);
      continue;
    }
    if (!w.kernel_known()) {
      dims->push_back(fresh(node, out, 0, i + 2));
      continue;
    }
    const Dim eff = w.effective_kernel(i);
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
  require_inputs(node, 2);
  Shape x = input_shape(node, 0), w = input_shape(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  if (!x.known) return set_shape(out, 0, dtype, Shape::unknown());
  std::string error;
  if (!require_spatial_input(x, &error)) return fail(error);
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return fail("group " + std::to_string(group) + " is not positive");
  Window win;
  if (!read_window(node, x.rank() - 2, w, WindowTraits{}, &win, &error)) return fail(error);
  Dim channels;
  if (w.known && w.rank() >= 2) {
    Dim unified;
    if (!nn::unify(out, x.dims[1], w.dims[0], &unified, &error)) {
      return fail("input channels differ from weight dim 0: " + error);
    }
    channels = w.dims[1] * group;
  } else {
    channels = fresh(node, out, 0, 1);
  }
  std::vector<Dim> dims{x.dims[0], channels};
  if (!transpose_outputs(node, out, win, x, &dims, &error)) return fail(error);
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
    return unsupported(why);
  }
  if (pointwise(win)) return out.set_bytes(node.constant(0));
  std::int64_t e;
  if (!nn::input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return unsupported("group is not positive");
  // W[1] is C/group by definition; without W's shape divide the input channels.
  Dim channels_per_group = w.known && w.rank() >= 2 ? w.dims[1] : exact_div(x.dims[1], group);
  std::vector<Dim> spatial;
  if (!spatial_outputs(node, nullptr, 0, win, x, &spatial, &why)) return unsupported(why);
  Dim bytes = channels_per_group * e;
  for (std::size_t i = 0; i < win.spatial(); ++i) bytes = bytes * win.kernel[i] * spatial[i];
  return out.set_bytes(bytes);
}

/// ConvTranspose: columns before col2im, (M/group) * prod(k) * prod(I) * e; W[1] is M/group.
Status conv_transpose_scratch(const INodeView& node, IScratchSink& out) {
  Shape x, w;
  Window win;
  std::string why;
  if (!estimator_window(node, 1, true, &x, &w, &win, &why)) return unsupported(why);
  if (pointwise(win)) return out.set_bytes(node.constant(0));
  if (!w.known || w.rank() < 2) return unsupported("weight shape unknown");
  std::int64_t e;
  if (!nn::input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  Dim bytes = w.dims[1] * e;
  for (std::size_t i = 0; i < win.spatial(); ++i) bytes = bytes * win.kernel[i] * x.dims[i + 2];
  return out.set_bytes(bytes);
}

}  // namespace

constinit const FnShapeRule kConv{&conv};
constinit const FnShapeRule kConvTranspose{&conv_transpose};
constinit const FnScratchEstimator kConvScratch{&conv_scratch};
constinit const FnScratchEstimator kConvTransposeScratch{&conv_transpose_scratch};

}  // namespace cctx::opsets::onnx
