// ONNX Runtime's CPU kernels of com.microsoft operators that cctx's own graph rewrites make, and
// that ONNX Runtime's saved optimised graphs hold: their working buffers and in-place outputs,
// measured one operator at a time (ONNX Runtime 1.30, no arena; docs/design/rewrites.md):
//   BiasGelu, FastGelu  a buffer of the input's size (contrib_ops/cpu/bert/bias_gelu*.cc:
//                       x + bias kept for the erf or tanh pass), exactly numel(X) * 4 bytes
//   Gelu, QuickGelu, LayerNormalization, FusedMatMul: nothing measured
//   FusedConv           Conv's im2col buffer (it is ConvFloat with an activation)
//   GroupQueryAttention the attention probabilities over the whole present cache:
//                       B x num_heads x S x max(past rows, total_sequence_length) elements of
//                       the query's type (contrib_ops/cpu/bert/gqa_attention_base.h: the
//                       present buffer's length, not the attended one). With a shared buffer
//                       (onnxruntime-genai: past 1024 rows) a decode step holds B x N x 1024
//                       of them: measured on the genai decoders at 1 x 4 x 1 x 1024 x 4 =
//                       16,384 bytes (tests/decoders, ONNX Runtime 1.23)
// FusedConv and the NCHWc Conv may write their output into the Sum input (MayInplace(3, 0)).
#include <string>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

constexpr sdk::kit::FnInplacePolicy kSumInPlace{
    [](const INodeView&, sdk::IInplaceSink& out) { return out.may_reuse(0, 3); }};

constexpr std::uint32_t kGqaQuery = 0, kGqaPastKey = 3, kGqaTotalLength = 6;

Status group_query_attention_scratch(const INodeView& node, sdk::IScratchSink& out) {
  Shape q;
  if (!known_shape(node, kGqaQuery, &q, 3)) return unsupported("query shape unknown");
  std::int64_t heads = 0;
  if (!node.attr_int("num_heads", &heads)) return unsupported("num_heads missing");
  const Dim total = scalar_value(node, kGqaTotalLength);
  if (!total.valid()) return unsupported("total_sequence_length unknown");
  Shape past;
  const Dim rows = known_shape(node, kGqaPastKey, &past, 4) ? max(past.dims[2], total) : total;
  std::int64_t element = 0;
  std::string why;
  if (!input_element_bytes(node, kGqaQuery, &element, &why)) return unsupported(why);
  return out.set_bytes(q.dims[0] * node.constant(heads) * q.dims[1] * rows * element);
}

constexpr sdk::kit::FnScratchEstimator kGroupQueryAttentionScratch{&group_query_attention_scratch};

}  // namespace

Status register_contrib(sdk::IRegistrar& r) {
  Registration ms = sdk::kit::register_domain(r, "com.microsoft", 1, 1);
  ms.scratch("BiasGelu", 1, input_sized_scratch_estimator());
  ms.scratch("FastGelu", 1, input_sized_scratch_estimator());
  ms.scratch("FusedConv", 1, conv_scratch_estimator());
  ms.inplace("FusedConv", 1, kSumInPlace);
  ms.scratch("GroupQueryAttention", 1, kGroupQueryAttentionScratch);
  if (!ms.ok()) return ms.status();
  Registration nchwc = sdk::kit::register_domain(r, "com.microsoft.nchwc", 1, 1);
  nchwc.inplace("Conv", 1, kSumInPlace);
  return nchwc.status();
}

}  // namespace cctx::opsets::onnxruntime
