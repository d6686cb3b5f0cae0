// ONNX Runtime's CPU kernels of com.microsoft operators that cctx's own graph rewrites make, and
// that ONNX Runtime's saved optimised graphs hold: their working buffers and in-place outputs,
// measured one operator at a time (ONNX Runtime 1.30, no arena; docs/design/rewrites.md):
//   BiasGelu, FastGelu  a buffer of the input's size (contrib_ops/cpu/bert/bias_gelu*.cc:
//                       x + bias kept for the erf or tanh pass), exactly numel(X) * 4 bytes
//   Gelu, QuickGelu, LayerNormalization, FusedMatMul: nothing measured
//   FusedConv           Conv's im2col buffer (it is ConvFloat with an activation)
//   QLinearConv         conv.cpp's (channels last: no transposes)
//   QGemm               (contrib_ops/cpu/quantization/quant_gemm.cc) A transposed, K * M
//                       bytes, with transA; B transposed, N * K bytes, with transB where B is not
//                       packed at load (packed: constant, and uint8 A: MLAS packs no int8 x int8
//                       B on this machine class, measured); the int32 product, 4 * M * N, when
//                       the output is requantized (y_scale given)
//   DynamicQuantizeMatMul A quantized to 8 bits, numel(A) bytes
//   DynamicQuantizeLSTM LSTM's workspaces and the 8-bit input and int32 step buffers (rnn.cpp)
//   GroupQueryAttention in group_query_attention.cpp
// FusedConv and the NCHWc Conv may write their output into the Sum input (MayInplace(3, 0)).

#include <vector>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

/// DynamicQuantizeMatMul (contrib_ops/cpu/quantization/dynamic_quantize_matmul.cc): A quantized
/// to 8 bits in a buffer of its own, numel(A) bytes (x86: MLAS's dynamic-quantization kernels
/// are ARM's).
Status dynamic_quantize_matmul_scratch(const INodeView& node, IScratchSink& out) {
  Shape a;
  if (!known_shape(node, 0, &a)) return unsupported("A's shape unknown");
  return out.set_bytes(numel(node, a));
}
constinit const FnScratchEstimator kDynamicQuantizeMatMulScratch{&dynamic_quantize_matmul_scratch};

constexpr sdk::kit::FnInplacePolicy kSumInPlace{
    [](const INodeView&, sdk::IInplaceSink& out) { return out.may_reuse(0, 3); }};

Status qgemm_scratch(const INodeView& node, IScratchSink& out) {
  if (node.input_rank(0) != 2 || node.input_rank(3) != 2) {
    return unsupported("QGemm's A and B must be 2-D");
  }
  const bool trans_a = node.attr_int_or("transA", 0) != 0;
  const bool trans_b = node.attr_int_or("transB", 0) != 0;
  const Dim m = node.input_dim(0, trans_a ? 1 : 0);
  const Dim k = node.input_dim(0, trans_a ? 0 : 1);
  const Dim n = node.input_dim(3, trans_b ? 0 : 1);
  const bool packed = node.input_is_constant(3) && node.input_dtype(0) == dtype::kUint8;
  std::vector<Dim> blocks;
  if (trans_a) blocks.push_back(m * k);
  if (trans_b && !packed) blocks.push_back(n * k);
  if (node.has_input(7)) blocks.push_back(m * n * 4);
  if (blocks.empty()) return out.set_constant_bytes(0);
  return add_blocks(out, blocks);
}

constinit const FnScratchEstimator kQGemmScratch{&qgemm_scratch};

}  // namespace

Status register_contrib(sdk::IRegistrar& r) {
  Registration ms = sdk::kit::register_domain(r, "com.microsoft", 1, 1);
  ms.scratch("BiasGelu", 1, input_sized_scratch_estimator());
  ms.scratch("FastGelu", 1, input_sized_scratch_estimator());
  ms.scratch("FusedConv", 1, conv_scratch_estimator());
  ms.scratch("QLinearConv", 1, qlinear_conv_scratch_estimator());
  ms.scratch("QGemm", 1, kQGemmScratch);
  ms.scratch("DynamicQuantizeMatMul", 1, kDynamicQuantizeMatMulScratch);
  ms.scratch("DynamicQuantizeLSTM", 1, lstm_scratch_estimator());
  ms.inplace("FusedConv", 1, kSumInPlace);
  if (!ms.ok()) return ms.status();
  Registration nchwc = sdk::kit::register_domain(r, "com.microsoft.nchwc", 1, 1);
  nchwc.inplace("Conv", 1, kSumInPlace);
  return nchwc.status();
}

}  // namespace cctx::opsets::onnxruntime
