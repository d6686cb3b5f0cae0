// The other CPU kernels whose working memory ONNX Runtime allocates from the temp-space allocator
// (or provably does not): Where, Softmax/LogSoftmax, LayerNormalization, MatMul/Gemm, Resize and
// TopK. Each estimate was checked against onnxruntime-node 1.30 (no arena, one thread), README.md.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

Status zero(const INodeView& node, IScratchSink& out) { return out.set_bytes(node.constant(0)); }

/// Where<T> (cpu/tensor/where_op.cc) first selects X and Y through the condition into two
/// temporaries, X_sel of shape broadcast(cond, X) and Y_sel of shape broadcast(cond, Y), then
/// merges them into the output: broadcast(cond, X) * e + broadcast(cond, Y) * e.
Status where_scratch(const INodeView& node, IScratchSink& out) {
  Shape c, x, y;
  if (!known_shape(node, 0, &c) || !known_shape(node, 1, &x) || !known_shape(node, 2, &y)) {
    return unsupported("rank of an input unknown");
  }
  std::int64_t e;
  std::string why;
  if (!input_element_bytes(node, 1, &e, &why)) return unsupported(why);
  return out.set_bytes((numel(node, broadcast2(c, x)) + numel(node, broadcast2(c, y))) * e);
}

/// Softmax/LogSoftmax (cpu/math/softmax.cc): from opset 13, an axis other than the last is
/// transposed to the end and back: transposed_input and intermediate_output, 2 * numel(X) * e.
/// Before 13 (input flattened to 2-D at the axis) and on the last axis: none.
Status softmax_scratch(const INodeView& node, IScratchSink& out) {
  if (node.opset_version() < 13) return zero(node, out);
  Shape x;
  if (!known_shape(node, 0, &x)) return unsupported("rank of the input unknown");
  const std::int64_t rank = static_cast<std::int64_t>(x.rank());
  const std::int64_t raw = node.attr_int_or("axis", -1);
  std::int64_t axis;
  if (!normalize_axis(raw, rank, &axis)) {
    return unsupported("axis " + std::to_string(raw) + " out of range");
  }
  if (axis == rank - 1) return zero(node, out);
  std::int64_t e;
  std::string why;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  return out.set_bytes(numel(node, x) * (2 * e));
}

/// Output dim k of Resize: from `sizes` when known, else input dim times the scale (an
/// integer scale exactly; a fractional one floor(x * s) for a concrete x, else x * ceil(s), an
/// upper bound). Invalid when neither is known.
Dim resize_output_dim(const INodeView& node, const Shape& x, std::size_t k) {
  const std::uint32_t scales_in = node.opset_version() >= 11 ? 2 : 1;
  if (node.opset_version() >= 11 && has_input(node, 3)) {
    std::vector<Dim> sizes;
    if (input_values(node, 3, &sizes) && sizes.size() == x.rank()) return sizes[k];
  }
  Span<double> scales;
  if (has_input(node, scales_in) && node.input_float_values(scales_in, &scales) &&
      scales.size == x.rank()) {
    const double s = scales.data[k];
    const Dim d = x.dims[k];
    std::int64_t v;
    if (s == std::floor(s)) return d * static_cast<std::int64_t>(s);
    if (d.get_int(&v))
      return d.lift(static_cast<std::int64_t>(std::floor(static_cast<double>(v) * s)));
    return d * static_cast<std::int64_t>(std::ceil(s));
  }
  return Dim();
}

/// Resize (cpu/tensor/upsample.cc), linear mode: the bilinear (rank 2 or 4) or trilinear (rank 3
/// or 5) coordinate tables, two int32 indices and two float weights per output coordinate of the
/// resized axes, in one temp-space block: 16 * (sum of the last 2 or 3 output dims). Nearest and
/// cubic keep theirs in std::vectors of the same order (not ONNX Runtime's allocator): 0.
Status resize_scratch(const INodeView& node, IScratchSink& out) {
  std::string mode = attr_string_or(node, "mode", "nearest");
  if (mode != "linear" && mode != "bilinear" && mode != "trilinear") return zero(node, out);
  Shape x;
  if (!known_shape(node, 0, &x)) return unsupported("rank of X unknown");
  const std::size_t rank = x.rank();
  const std::size_t axes = (rank == 2 || rank == 4) ? 2 : (rank == 3 || rank == 5) ? 3 : 0;
  if (axes == 0) return zero(node, out);
  Dim sum = node.constant(0);
  for (std::size_t k = rank - axes; k < rank; ++k) {
    const Dim d = resize_output_dim(node, x, k);
    if (!d.valid()) return unsupported("output size unknown (no constant scales or sizes)");
    sum = sum + d;
  }
  return out.set_bytes(sum * 16);
}

/// TopK (cpu/math/top_k.cc): one row at a time (one thread), a std::vector of int64 indices of
/// at most the axis length (a heap of k, or every index for a sort): 8 * X.shape[axis], an upper
/// bound. Nothing comes from ONNX Runtime's allocator (measured).
Status topk_scratch(const INodeView& node, IScratchSink& out) {
  Shape x;
  if (!known_shape(node, 0, &x) || x.rank() == 0) return unsupported("rank of X unknown");
  const std::int64_t raw = node.attr_int_or("axis", -1);
  std::int64_t axis;
  if (!normalize_axis(raw, static_cast<std::int64_t>(x.rank()), &axis)) {
    return unsupported("axis " + std::to_string(raw) + " out of range");
  }
  return out.set_bytes(x.dims[static_cast<std::size_t>(axis)] * 8);
}

/// A working buffer the size of input 0. HardSwish has no CPU kernel of its own in ONNX Runtime:
/// it runs as its ONNX function, HardSigmoid(X) into a temporary the size of X, then Mul(X,
/// temporary). Below level all the rewrite FunctionInlining(HardSwish) makes those two nodes,
/// so the temporary is a planned value; this estimate serves the HardSwish nodes left at level
/// all. Measured on MobileNetV3-small (batch 4, 224x224): 3,211,264 bytes more than its
/// output at its peak node, exactly numel(X) * e. (com.microsoft BiasGelu and FastGelu too:
/// contrib.cpp.)
Status input_sized_scratch(const INodeView& node, IScratchSink& out) {
  Shape x;
  if (!known_shape(node, 0, &x)) return unsupported("rank of the input unknown");
  std::int64_t e;
  std::string why;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  return out.set_bytes(numel(node, x) * e);
}

constinit const FnScratchEstimator kZero{&zero};
constinit const FnScratchEstimator kInputSizedScratch{&input_sized_scratch};
constinit const FnScratchEstimator kWhereScratch{&where_scratch};
constinit const FnScratchEstimator kSoftmaxScratch{&softmax_scratch};
constinit const FnScratchEstimator kResizeScratch{&resize_scratch};
constinit const FnScratchEstimator kTopKScratch{&topk_scratch};

}  // namespace

void register_tensor(Registration& reg) {
  register_every_version(reg, "Where", 9, kWhereScratch);
  register_every_version(reg, "Softmax", 1, kSoftmaxScratch);
  register_every_version(reg, "LogSoftmax", 1, kSoftmaxScratch);
  register_every_version(reg, "Resize", 10, kResizeScratch);
  register_every_version(reg, "TopK", 1, kTopKScratch);
  register_every_version(reg, "HardSwish", 14, kInputSizedScratch);
  // Measured 0: the float kernels write the output (and Mean/InvStdDev only when present)
  // without a temporary; MLAS SGEMM packs into stack panels. Pre-packing a constant B happens at
  // session load (session memory, not a run's scratch).
  register_every_version(reg, "LayerNormalization", 17, kZero);
  register_every_version(reg, "MatMul", 1, kZero);
  register_every_version(reg, "Gemm", 1, kZero);
}

const sdk::IScratchEstimator& input_sized_scratch_estimator() { return kInputSizedScratch; }

}  // namespace cctx::opsets::onnxruntime
