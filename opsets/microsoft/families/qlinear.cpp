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
  const Shape x = input_shape(node, 0);
  if (x.known && x.rank() < 3) {
    return fail("input X has rank " + std::to_string(x.rank()) + ", expected >= 3");
  }
  return set_shape(out, 0, node.input_dtype(0), global_pool_output(node, x, channels_last(node)));
}

/// QLinearAveragePool and NhwcMaxPool: [N, C, O...] or, channels last, [N, O..., C].
Status pool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  return pool_output(node, out, input_shape(node, 0),
                     node.is_op("NhwcMaxPool") || channels_last(node), node.input_dtype(0));
}

Status conv(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 8);
  return conv_output(node, out, input_shape(node, 0), input_shape(node, 3), channels_last(node),
                     node.input_dtype(0));
}

Status gemm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 6);
  const std::int32_t type = has_input(node, 7) ? dtype_or(node, 8, node.input_dtype(0))
                                               : dtype_or(node, 1, dtype::kFloat);
  return gemm_output(node, out, input_shape(node, 0), input_shape(node, 3), type);
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
