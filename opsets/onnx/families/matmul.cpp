// MatMul and Gemm (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"), with their
// scratch estimators (0: a blocked kernel writes straight into the output).
#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

Status matmul(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  Shape a = input_shape(node, 0), b = input_shape(node, 1);
  const std::int32_t dtype = node.is_op("MatMulInteger") ? dtype::kInt32 : node.input_dtype(0);
  if (!a.known || !b.known) return set_shape(out, 0, dtype, Shape::unknown());
  if (a.rank() == 0 || b.rank() == 0) return fail("MatMul operands must have rank >= 1");
  // 1-D operands are promoted ([k] -> [1,k] on the left, [k,1] on the right), and the promoted
  // axis is dropped from the result.
  const bool a_vector = a.rank() == 1, b_vector = b.rank() == 1;
  if (a_vector) a.dims.insert(a.dims.begin(), node.constant(1));
  if (b_vector) b.dims.push_back(node.constant(1));
  unify(out, a.dims[a.rank() - 1], b.dims[b.rank() - 2], "inner dimensions differ");
  const Dim rows = a.dims[a.rank() - 2], columns = b.dims[b.rank() - 1];
  // The batch dims broadcast; the matrix dims are then appended to the result in place.
  a.dims.resize(a.rank() - 2);
  b.dims.resize(b.rank() - 2);
  Shape result;
  check(broadcast_shapes(out, a, b, &result));
  result.dims.reserve(result.rank() + 2);
  if (!a_vector) result.dims.push_back(rows);
  if (!b_vector) result.dims.push_back(columns);
  return set_shape(out, 0, dtype, result);
}

Status gemm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  Shape a = input_shape(node, 0), b = input_shape(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  if (!a.known || !b.known) return set_shape(out, 0, dtype, Shape::unknown());
  if (a.rank() != 2 || b.rank() != 2) return fail("Gemm operands must be 2-D");
  const bool ta = node.attr_int_or("transA", 0) != 0, tb = node.attr_int_or("transB", 0) != 0;
  Dim m = ta ? a.dims[1] : a.dims[0], ka = ta ? a.dims[0] : a.dims[1];
  Dim kb = tb ? b.dims[1] : b.dims[0], n = tb ? b.dims[0] : b.dims[1];
  unify(out, ka, kb, "inner dimensions differ");
  return set_shape(out, 0, dtype, Shape::of({m, n}));
}

Status zero_scratch(const INodeView& node, IScratchSink& out) {
  return out.set_bytes(node.constant(0));
}

constinit const FnShapeRule kMatMul{&matmul};
constinit const FnShapeRule kGemm{&gemm};
constinit const FnScratchEstimator kZeroScratch{&zero_scratch};

}  // namespace

void register_matmul(Registration& reg) {
  reg.shape("MatMul", {1, 9, 13}, kMatMul);
  reg.shape("MatMulInteger", 10, kMatMul);
  reg.shape("Gemm", {1, 6, 7, 9, 11, 13}, kGemm);
  reg.scratch("MatMul", 1, kZeroScratch);
  reg.scratch("Gemm", 1, kZeroScratch);
}

}  // namespace cctx::opsets::onnx
