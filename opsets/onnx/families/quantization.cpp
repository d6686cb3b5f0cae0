// Linear quantization: QuantizeLinear, DequantizeLinear (per-tensor, per-axis and, from opset 21,
// blocked scales; output_dtype from 21 / 23), DynamicQuantizeLinear and QLinearMatMul.
// MatMulInteger lives with MatMul.
#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// Checks the scale's shape against the quantized tensor's (QuantizeLinear's granularities): a
/// scalar (per tensor), 1-D of the axis' length (per axis), or the input's shape with
/// ceil(d/block_size) at the axis (blocked, opset >= 21). Unknown ranks are not checked.
Status check_scale_shape(const INodeView& node, IShapeSink& out, const Shape& x,
                         std::uint32_t scale) {
  const Shape s = input_shape(node, scale);
  // Opset 10 has per-tensor scales only; a one-element 1-D scale is per tensor too.
  if (node.opset_version() < 13 || !x.known || !s.known || s.rank() == 0 || x.rank() <= 1 ||
      (s.rank() == 1 && s.dims[0].is(1))) {
    return Status::kOk;
  }
  std::int64_t axis;
  const std::int64_t a = node.attr_int_or("axis", 1);
  if (!normalize_axis(a, static_cast<std::int64_t>(x.rank()), &axis)) {
    return fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(x.rank()));
  }
  const auto at = static_cast<std::size_t>(axis);
  const std::int64_t block = node.opset_version() >= 21 ? node.attr_int_or("block_size", 0) : 0;
  if (block <= 0) {
    if (s.rank() != 1)
      return fail("per-axis scale must be 1-D (set block_size for blocked scales)");
    unify(out, s.dims[0], x.dims[at], "scale length differs from the axis");
    return Status::kOk;
  }
  if (s.rank() != x.rank()) return fail("blocked scale must have the input's rank");
  for (std::size_t k = 0; k < x.rank(); ++k) {
    const Dim expected = k == at ? ceil_div(x.dims[k], block) : x.dims[k];
    unify(out, s.dims[k], expected, "blocked scale dim " + std::to_string(k) + " does not match");
  }
  return Status::kOk;
}

/// QuantizeLinear's output type: the zero point's, else `output_dtype` (>= 21), else uint8.
std::int32_t quantized_dtype(const INodeView& node) {
  const auto requested = static_cast<std::int32_t>(node.attr_int_or("output_dtype", 0));
  if (node.has_input(2) && node.input_dtype(2) != dtype::kUndefined) {
    const std::int32_t zero_point = node.input_dtype(2);
    if (requested != 0 && requested != zero_point) {
      fail("output_dtype " + std::to_string(requested) + " differs from the zero point's type " +
           std::to_string(zero_point));
    }
    return zero_point;
  }
  return requested != 0 ? requested : dtype::kUint8;
}

Status quantize_linear(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape x = input_shape(node, 0);
  check(check_scale_shape(node, out, x, 1));
  return set_shape(out, 0, quantized_dtype(node), x);
}

/// DequantizeLinear's output type: `output_dtype` (>= 23), else the scale's.
Status dequantize_linear(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape x = input_shape(node, 0);
  check(check_scale_shape(node, out, x, 1));
  const auto requested = static_cast<std::int32_t>(node.attr_int_or("output_dtype", 0));
  return set_shape(out, 0, requested != 0 ? requested : node.input_dtype(1), x);
}

Status dynamic_quantize_linear(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  check(set_shape(out, 0, dtype::kUint8, input_shape(node, 0)));
  check(set_shape(out, 1, dtype::kFloat, Shape::of({})));
  return set_shape(out, 2, dtype::kUint8, Shape::of({}));
}

/// MatMul's shape rule (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"): 1-D
/// operands promoted and their axis dropped, inner dims unified, batch dims broadcast.
Status matmul_shape(IShapeSink& out, Shape a, Shape b, Shape* result) {
  if (!a.known || !b.known) {
    *result = Shape::unknown();
    return Status::kOk;
  }
  if (a.rank() == 0 || b.rank() == 0) return fail("matrix operands must have rank >= 1");
  const bool a_vector = a.rank() == 1, b_vector = b.rank() == 1;
  if (a_vector) a.dims.insert(a.dims.begin(), a.dims[0].lift(1));
  if (b_vector) b.dims.push_back(b.dims[0].lift(1));
  unify(out, a.dims[a.rank() - 1], b.dims[b.rank() - 2], "inner dimensions differ");
  Shape batch;
  check(broadcast_shapes(out,
                         {Shape::of({a.dims.begin(), a.dims.end() - 2}),
                          Shape::of({b.dims.begin(), b.dims.end() - 2})},
                         &batch));
  if (!a_vector) batch.dims.push_back(a.dims[a.rank() - 2]);
  if (!b_vector) batch.dims.push_back(b.dims[b.rank() - 1]);
  *result = std::move(batch);
  return Status::kOk;
}

/// Inputs a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point; the result
/// has y_zero_point's type.
Status qlinear_matmul(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 8);
  Shape result;
  check(matmul_shape(out, input_shape(node, 0), input_shape(node, 3), &result));
  return set_shape(out, 0, node.input_dtype(7), result);
}

constinit const FnShapeRule kQuantizeLinear{&quantize_linear};
constinit const FnShapeRule kDequantizeLinear{&dequantize_linear};
constinit const FnShapeRule kDynamicQuantizeLinear{&dynamic_quantize_linear};
constinit const FnShapeRule kQLinearMatMul{&qlinear_matmul};

}  // namespace

void register_quantization(Registration& reg) {
  // 24 (float8e8m0) and 25 (int2, uint2) only widen the element types.
  reg.shape("QuantizeLinear", {10, 13, 19, 21, 23, 24, 25}, kQuantizeLinear);
  reg.shape("DequantizeLinear", {10, 13, 19, 21, 23, 24, 25}, kDequantizeLinear);
  reg.shape("DynamicQuantizeLinear", 11, kDynamicQuantizeLinear);
  reg.shape("QLinearMatMul", {10, 21}, kQLinearMatMul);
}

}  // namespace cctx::opsets::onnx
