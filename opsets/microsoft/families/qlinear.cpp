// The quantized operators of com.microsoft (ContribOperators.md) that ONNX Runtime's quantizer
// writes in its QOperator format, and that its optimiser writes when it rewrites QDQ pairs at
// level `all`: every one computes in 8-bit integers between a scale and a zero point per tensor.
//  - QLinearAdd, QLinearMul: A and B broadcast (inputs 0 and 3), of A's type;
//  - QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax: X's shape and type;
//  - QLinearGlobalAveragePool: [N, C, 1...] ([N, 1..., C] with channels_last);
//  - QLinearAveragePool, NhwcMaxPool: the pool window over the spatial dims (channels last for
//    NhwcMaxPool and with channels_last);
//  - QLinearConv: Conv's shapes (channels_last: NHWC), of X's type;
//  - QGemm: Gemm's [M, N] of A (input 0) by B (input 3); of y_zero_point's type when y_scale is
//    given, else float (the scales' type);
//  - QLinearConcat: Y_scale, Y_zero_point, then (X, scale, zero point) per input, along `axis`.
#include <string>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"
#include "window.hpp"

namespace cctx::opsets::microsoft {

namespace {

bool channels_last(const INodeView& node) { return node.attr_int_or("channels_last", 0) != 0; }

Status binary(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 7);
  const std::int32_t type = node.input_dtype(0);
  const Shape a = input_shape(node, 0), b = input_shape(node, 3);
  if (!a.known || !b.known) return set_shape(out, 0, type, Shape::unknown());
  Shape c;
  check(broadcast_shapes(out, {a, b}, &c));
  return set_shape(out, 0, type, c);
}

Status unary(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 4);
  return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
}

Status global_average_pool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 5);
  Shape x = input_shape(node, 0);
  if (x.known) {
    if (x.rank() < 3)
      return fail("input X has rank " + std::to_string(x.rank()) + ", expected >= 3");
    const bool last = channels_last(node);
    for (std::size_t a = last ? 1 : 2; a < x.rank() - (last ? 1 : 0); ++a) {
      x.dims[a] = node.constant(1);
    }
  }
  return set_shape(out, 0, node.input_dtype(0), x);
}

/// QLinearAveragePool and NhwcMaxPool: [N, C, O...] or, channels last, [N, O..., C].
Status pool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t type = node.input_dtype(0);
  const Shape x = input_shape(node, 0);
  if (!x.known) return set_shape(out, 0, type, x);
  if (x.rank() < 3) {
    return fail("input X has rank " + std::to_string(x.rank()) +
                ", expected a batch, channels and spatial dims");
  }
  if (node.attribute_type(StringRef("kernel_shape")) == AttrType::kNone) {
    return fail("missing required attribute 'kernel_shape'");
  }
  const bool last = node.is_op("NhwcMaxPool") || channels_last(node);
  Window win;
  std::string error;
  if (!read_window(node, x.rank() - 2, Shape::unknown(), &win, &error)) return fail(error);
  win.ceil_mode = node.attr_int_or("ceil_mode", 0) != 0;
  win.truncating = true;
  std::vector<Dim> dims{x.dims[0]};
  if (!last) dims.push_back(x.dims[1]);
  if (!window_outputs(win, x, last ? 1 : 2, &dims, &error)) return fail(error);
  if (last) dims.push_back(x.dims.back());
  return set_shape(out, 0, type, Shape::of(std::move(dims)));
}

Status conv(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 8);
  const bool last = channels_last(node);
  const std::int32_t type = node.input_dtype(0);
  const Shape x = input_shape(node, 0), w = input_shape(node, 3);
  if (!x.known) return set_shape(out, 0, type, Shape::unknown());
  std::vector<Dim> sizes;
  if (const Status s = conv_spatial_outputs(node, out, x, w, last, &sizes); s != Status::kOk) {
    return s;
  }
  const Dim maps = w.known ? w.dims[0] : Dim();
  std::vector<Dim> dims{x.dims[0]};
  if (!last) dims.push_back(maps);
  dims.insert(dims.end(), sizes.begin(), sizes.end());
  if (last) dims.push_back(maps);
  return set_shape(out, 0, type, fill_unknown(node, out, 0, std::move(dims)));
}

Status gemm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 6);
  const bool quantized_out = has_input(node, 7);
  const std::int32_t type =
      quantized_out ? dtype_or(node, 8, node.input_dtype(0)) : dtype_or(node, 1, dtype::kFloat);
  const Shape a = input_shape(node, 0), b = input_shape(node, 3);
  if (!a.known || !b.known) return set_shape(out, 0, type, Shape::unknown());
  if (a.rank() != 2 || b.rank() != 2) return fail("A and B must have rank 2");
  const bool ta = node.attr_int_or("transA", 0) != 0, tb = node.attr_int_or("transB", 0) != 0;
  std::string error;
  Dim inner;
  if (!unify(out, a.dims[ta ? 0 : 1], b.dims[tb ? 1 : 0], &inner, &error)) {
    return fail("inner dimensions differ: " + error);
  }
  return set_shape(out, 0, type, Shape::of({a.dims[ta ? 1 : 0], b.dims[tb ? 0 : 1]}));
}

Status concat(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 5);
  if ((node.input_count() - 2) % 3 != 0) {
    return fail("inputs after Y_scale and Y_zero_point come in threes (X, scale, zero point)");
  }
  const std::int32_t type = node.input_dtype(2);
  std::vector<Shape> parts;
  for (std::uint32_t i = 2; i < node.input_count(); i += 3) {
    Shape s = input_shape(node, i);
    if (!s.known) return set_shape(out, 0, type, Shape::unknown());
    parts.push_back(std::move(s));
  }
  const auto rank = static_cast<std::int64_t>(parts[0].rank());
  std::int64_t axis;
  if (!normalize_axis(node.attr_int_or("axis", 0), rank, &axis)) {
    return fail("axis out of range for rank " + std::to_string(rank));
  }
  std::vector<Dim> dims = parts[0].dims;
  std::string error;
  for (std::size_t p = 1; p < parts.size(); ++p) {
    if (parts[p].rank() != parts[0].rank()) return fail("inputs differ in rank");
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (static_cast<std::int64_t>(d) == axis) {
        dims[d] = dims[d] + parts[p].dims[d];
      } else if (!unify(out, dims[d], parts[p].dims[d], &dims[d], &error)) {
        return fail("inputs differ off the axis: " + error);
      }
    }
  }
  return set_shape(out, 0, type, Shape::of(std::move(dims)));
}

constinit const FnShapeRule kBinary{&binary};
constinit const FnShapeRule kUnary{&unary};
constinit const FnShapeRule kGlobalAveragePool{&global_average_pool};
constinit const FnShapeRule kPool{&pool};
constinit const FnShapeRule kConv{&conv};
constinit const FnShapeRule kGemm{&gemm};
constinit const FnShapeRule kConcat{&concat};

}  // namespace

void register_qlinear(Registration& reg) {
  reg.shape("QLinearAdd", 1, kBinary);
  reg.shape("QLinearMul", 1, kBinary);
  reg.shape("QLinearSigmoid", 1, kUnary);
  reg.shape("QLinearLeakyRelu", 1, kUnary);
  reg.shape("QLinearSoftmax", 1, kUnary);
  reg.shape("QLinearGlobalAveragePool", 1, kGlobalAveragePool);
  reg.shape("QLinearAveragePool", 1, kPool);
  reg.shape("NhwcMaxPool", 1, kPool);
  reg.shape("QLinearConv", 1, kConv);
  reg.shape("QGemm", 1, kGemm);
  reg.shape("QLinearConcat", 1, kConcat);
}

}  // namespace cctx::opsets::microsoft
