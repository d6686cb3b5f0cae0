// ONNX Runtime's CPU kernels of com.microsoft operators that cctx's own graph rewrites make, and
// that ONNX Runtime's saved optimised graphs hold: their working buffers and in-place outputs,
// measured one operator at a time (ONNX Runtime 1.30, no arena; docs/design/rewrites.md):
//   BiasGelu, FastGelu  a buffer of the input's size (contrib_ops/cpu/bert/bias_gelu*.cc:
//                       x + bias kept for the erf or tanh pass), exactly numel(X) * 4 bytes
//   Gelu, QuickGelu, LayerNormalization, FusedMatMul: nothing measured
//   FusedConv           Conv's im2col buffer (it is ConvFloat with an activation)
//   QLinearConv         conv.cpp's (channels last: no transposes)
//   GroupQueryAttention in group_query_attention.cpp
// FusedConv and the NCHWc Conv may write their output into the Sum input (MayInplace(3, 0)).

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

constexpr sdk::kit::FnInplacePolicy kSumInPlace{
    [](const INodeView&, sdk::IInplaceSink& out) { return out.may_reuse(0, 3); }};

}  // namespace

Status register_contrib(sdk::IRegistrar& r) {
  Registration ms = sdk::kit::register_domain(r, "com.microsoft", 1, 1);
  ms.scratch("BiasGelu", 1, input_sized_scratch_estimator());
  ms.scratch("FastGelu", 1, input_sized_scratch_estimator());
  ms.scratch("FusedConv", 1, conv_scratch_estimator());
  ms.scratch("QLinearConv", 1, qlinear_conv_scratch_estimator());
  ms.inplace("FusedConv", 1, kSumInPlace);
  if (!ms.ok()) return ms.status();
  Registration nchwc = sdk::kit::register_domain(r, "com.microsoft.nchwc", 1, 1);
  nchwc.inplace("Conv", 1, kSumInPlace);
  return nchwc.status();
}

}  // namespace cctx::opsets::onnxruntime
