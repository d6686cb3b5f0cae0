// Matrix products of com.microsoft (ContribOperators.md); FusedGemm has Gemm's shapes, the others
// numpy MatMul's:
// FusedMatMul (alpha * op(A) @ op(B): transA/transB swap the last two dims, transBatchA/B move dim
// 0 behind the batch dims first), DynamicQuantizeMatMul (float out), MatMulIntegerToFloat (the
// scales' type out), QOrderedMatMul (A [.., M, K] @ B [K, N], int8 out) and MatMulNBits
// (A [..., K] against an N x K block-quantized weight: [..., N]).
#include <string>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

/// numpy matmul of two known shapes: 1-D operands promoted and their axis dropped afterwards,
/// inner dims unified, batch dims broadcast (expressions.md "Symbolic shape inference rules
/// (ai.onnx plugin)", MatMul).
Status matmul_shape(IShapeSink& out, const INodeView& node, Shape a, Shape b, Shape* result) {
  if (a.rank() == 0 || b.rank() == 0) return fail("operands must have rank >= 1");
  const bool a_vector = a.rank() == 1, b_vector = b.rank() == 1;
  if (a_vector) a.dims.insert(a.dims.begin(), node.constant(1));
  if (b_vector) b.dims.push_back(node.constant(1));
  std::string error;
  Dim inner;
  if (!unify(out, a.dims[a.rank() - 1], b.dims[b.rank() - 2], &inner, &error)) {
    return fail("inner dimensions differ: " + error);
  }
  Shape batch;
  check(broadcast_shapes(out,
                         {Shape::of({a.dims.begin(), a.dims.end() - 2}),
                          Shape::of({b.dims.begin(), b.dims.end() - 2})},
                         &batch));
  std::vector<Dim> dims = batch.dims;
  if (!a_vector) dims.push_back(a.dims[a.rank() - 2]);
  if (!b_vector) dims.push_back(b.dims[b.rank() - 1]);
  *result = Shape::of(std::move(dims));
  return Status::kOk;
}

/// Output `type` = matmul(input a, input b); unknown rank when either rank is.
Status matmul_of(const INodeView& node, IShapeSink& out, std::uint32_t a, std::uint32_t b,
                 std::int32_t type) {
  const Shape sa = input_shape(node, a), sb = input_shape(node, b);
  if (!sa.known || !sb.known) return set_shape(out, 0, type, Shape::unknown());
  Shape y;
  check(matmul_shape(out, node, sa, sb, &y));
  return set_shape(out, 0, type, y);
}

/// FusedMatMul's view of an operand of rank >= 2: transBatch makes dim 0 the matrix rows and keeps
/// dims 1..r-2 as the batch ([d0, d1, .., dk, n] -> [d1, .., dk, d0, n]); trans then swaps the two
/// matrix dims.
Shape fused_operand(const Shape& s, bool trans, bool trans_batch) {
  if (s.rank() < 2) return s;  // numpy ignores transposing a vector
  const std::size_t r = s.rank();
  std::vector<Dim> dims;
  const std::size_t begin = trans_batch ? 1 : 0, end = trans_batch ? r - 1 : r - 2;
  for (std::size_t k = begin; k < end; ++k) dims.push_back(s.dims[k]);
  const Dim rows = trans_batch ? s.dims[0] : s.dims[r - 2], cols = s.dims[r - 1];
  dims.push_back(trans ? cols : rows);
  dims.push_back(trans ? rows : cols);
  return Shape::of(std::move(dims));
}

Status fused_matmul(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t type = node.input_dtype(0);
  const Shape a = input_shape(node, 0), b = input_shape(node, 1);
  if (!a.known || !b.known) return set_shape(out, 0, type, Shape::unknown());
  const Shape va =
      fused_operand(a, node.attr_int_or("transA", 0) != 0, node.attr_int_or("transBatchA", 0) != 0);
  const Shape vb =
      fused_operand(b, node.attr_int_or("transB", 0) != 0, node.attr_int_or("transBatchB", 0) != 0);
  Shape y;
  check(matmul_shape(out, node, va, vb, &y));
  return set_shape(out, 0, type, y);
}

Status dynamic_quantize_matmul(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  return matmul_of(node, out, 0, 1, node.input_dtype(0));
}

/// Y takes the scales' type (T3: float or float16).
Status matmul_integer_to_float(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 4);
  return matmul_of(node, out, 0, 1, dtype_or(node, 2, dtype::kFloat));
}

/// Inputs A, scale_A, B, scale_B, scale_Y, ...: B is the logical [K, N] matrix whatever its
/// cuBLASLt order.
Status qordered_matmul(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 5);
  return matmul_of(node, out, 0, 2, node.input_dtype(0));
}

/// A [..., K] -> [..., N]; K and N are attributes, B [N, ceil(K / block_size), blob] packs the
/// weight.
Status matmul_nbits(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  std::int64_t k, n, block;
  std::string error;
  if (!positive_attr(node, "K", &k, &error) || !positive_attr(node, "N", &n, &error) ||
      !positive_attr(node, "block_size", &block, &error)) {
    return fail(error);
  }
  const std::int32_t type = node.input_dtype(0);
  Shape a = known_input(node, out, 0, type);
  if (a.rank() == 0) return fail("A must have rank >= 1");
  Dim inner;
  if (!unify(out, a.dims.back(), node.constant(k), &inner, &error)) {
    return fail("A's last dim differs from K: " + error);
  }
  Shape b;
  Dim rows;
  if (known_shape(node, 1, &b) && b.rank() >= 1 &&
      !unify(out, b.dims[0], node.constant(n), &rows, &error)) {
    return fail("B's dim 0 differs from N: " + error);
  }
  a.dims.back() = node.constant(n);
  return set_shape(out, 0, type, a);
}

/// FusedGemm (ONNX Runtime's Gemm + activation): Gemm's shapes, A [M, K] (transA: [K, M]) by B
/// [K, N] (transB: [N, K]) gives [M, N]; C only broadcasts into it.
Status fused_gemm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  return gemm_output(node, out, input_shape(node, 0), input_shape(node, 1), node.input_dtype(0));
}

constinit const FnShapeRule kFusedMatMul{&fused_matmul};
constinit const FnShapeRule kFusedGemm{&fused_gemm};
constinit const FnShapeRule kDynamicQuantizeMatMul{&dynamic_quantize_matmul};
constinit const FnShapeRule kMatMulIntegerToFloat{&matmul_integer_to_float};
constinit const FnShapeRule kQOrderedMatMul{&qordered_matmul};
constinit const FnShapeRule kMatMulNBits{&matmul_nbits};

}  // namespace

void register_matmul(Registration& reg) {
  reg.shape("FusedMatMul", 1, kFusedMatMul);
  reg.shape("FusedGemm", 1, kFusedGemm);
  reg.shape("DynamicQuantizeMatMul", 1, kDynamicQuantizeMatMul);
  reg.shape("MatMulIntegerToFloat", 1, kMatMulIntegerToFloat);
  reg.shape("QOrderedMatMul", 1, kQOrderedMatMul);
  reg.shape("MatMulNBits", 1, kMatMulNBits);
}

}  // namespace cctx::opsets::microsoft
