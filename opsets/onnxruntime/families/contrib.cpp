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
// With the option kv_share_buffer: on, the caller binds each GroupQueryAttention's present
// key/value output to its past input's buffer (I/O binding), as onnxruntime-genai does with
// past_present_share_buffer: the kernel appends in place (it sees past and present at one
// address) and ONNX Runtime allocates no present. Stated as write_into(present, past, the past
// buffer's bytes): the present allocates nothing, and an evaluation whose present would outgrow
// the buffer is refused. Off (the default), ONNX Runtime allocates every present: its planner
// never writes into a graph input on its own.
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

constexpr std::uint32_t kGqaPastValue = 4, kGqaPresentKey = 1, kGqaPresentValue = 2;

/// Present k written into past k's buffer, whose bytes are its capacity.
Status shared_kv_buffers(const INodeView& node, sdk::IInplaceSink& out) {
  for (const auto& [present, past] :
       {std::pair{kGqaPresentKey, kGqaPastKey}, std::pair{kGqaPresentValue, kGqaPastValue}}) {
    Shape p;
    if (!known_shape(node, past, &p) || !has_output(node, present)) continue;
    const Dim bytes = product(node, p.dims, 0, p.rank()) * input_element_bytes(node, past);
    check(out.write_into(present, past, bytes));
  }
  return Status::kOk;
}

constexpr sdk::kit::FnInplacePolicy kSharedKvBuffers{&shared_kv_buffers};

}  // namespace

Status register_contrib(sdk::IRegistrar& r) {
  sdk::StringRef share("off");
  r.accept_option("kv_share_buffer",
                  "off (default) or on: on, the caller binds each GroupQueryAttention's present "
                  "key/value to its past input's buffer, as onnxruntime-genai does with "
                  "past_present_share_buffer (set by its genai_config.json)");
  r.option("kv_share_buffer", &share);
  if (!share.equals("on") && !share.equals("off")) {
    return r.fail(Status::kInvalidArgument, "option 'kv_share_buffer' must be 'on' or 'off'");
  }
  Registration ms = sdk::kit::register_domain(r, "com.microsoft", 1, 1);
  if (share.equals("on")) ms.inplace("GroupQueryAttention", 1, kSharedKvBuffers);
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
