// ai.onnx Attention (23, 24) as ONNX Runtime's CPU kernel runs it (cpu/llm/attention.cc): the
// attention probabilities of every query head, then, inside the probabilities' computation, a
// mask of query x total-sequence elements of T when the node is causal without a mask, or a copy
// of the mask when it is boolean or the node is causal. Checked against onnxruntime-node 1.30 (no
// arena, one thread) on one Attention node at 64 and 256 tokens: exact without is_causal, and
// is_causal adds 16,384 and 262,144 bytes, the S x T float mask.
#include <cstdint>
#include <string>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

/// Blocks in the kernel's order: B*Hq*S*T*e (attention_probs), then the mask. The causal mask
/// is counted at a decode step too, where the kernel skips it (one query after a past): T*e
/// bytes over, the safe side, for a formula without indicator terms.
Status attention_scratch(const INodeView& node, IScratchSink& out) {
  Shape q, k;
  if (!known_shape(node, 0, &q) || !known_shape(node, 1, &k)) {
    return unsupported("rank of Q or K unknown");
  }
  if ((q.rank() != 3 && q.rank() != 4) || (k.rank() != 3 && k.rank() != 4)) {
    return unsupported("Q and K must be 3-D or 4-D");
  }
  Dim heads;
  if (q.rank() == 4) {
    heads = q.dims[1];
  } else {
    std::int64_t h;
    if (!node.attr_int("q_num_heads", &h)) return unsupported("3-D Q without q_num_heads");
    heads = node.constant(h);
  }
  const Dim q_seq = q.dims[q.rank() == 4 ? 2 : 1];
  Dim total = k.dims[k.rank() == 4 ? 2 : 1];
  if (has_input(node, 4)) {
    Shape past;
    if (!known_shape(node, 4, &past, 4)) return unsupported("past_key shape unknown");
    total = past.dims[2] + total;
  }
  std::int64_t e;
  std::string why;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  if (const Status s = out.add_block(q.dims[0] * heads * q_seq * total * e); s != Status::kOk) {
    return s;
  }
  const bool causal = node.attr_int_or("is_causal", 0) != 0;
  if (has_input(node, 3)) {
    if (!causal && node.input_dtype(3) != cctx::sdk::dtype::kBool) return Status::kOk;
    Shape mask;
    if (!known_shape(node, 3, &mask)) return unsupported("attn_mask shape unknown");
    return out.add_block(numel(node, mask) * e);
  }
  return causal ? out.add_block(q_seq * total * e) : Status::kOk;
}

constinit const FnScratchEstimator kAttentionScratch{&attention_scratch};

}  // namespace

void register_attention(Registration& reg) {
  register_every_version(reg, "Attention", 23, kAttentionScratch);
}

}  // namespace cctx::opsets::onnxruntime
