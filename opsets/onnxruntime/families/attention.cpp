// ai.onnx Attention (23, 24) as ONNX Runtime's CPU kernel runs it (cpu/llm/attention.cc): the
// attention probabilities of every query head, then, inside the probabilities' computation, a
// mask of query x total-sequence elements of T when the node is causal without a mask, or a copy
// of the mask when it is boolean or the node is causal. Checked against onnxruntime-node 1.30 (no
// arena, one thread) on one Attention node at 64 and 256 tokens: exact without is_causal, and
// is_causal adds 16,384 and 262,144 bytes, the S x T float mask.
#include <cstdint>
#include <string>
#include <vector>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

/// Blocks in the kernel's order: B*Hq*S*T*e (attention_probs), then the mask. The causal mask
/// is counted at a decode step too, where the kernel skips it (one query after a past): T*e
/// bytes over, the safe side, for a formula without indicator terms.
Status attention_scratch(const INodeView& node, IScratchSink& out) {
  AttentionScores s;
  std::string why;
  if (!attention_scores(node, &s, &why)) return unsupported(why);
  std::int64_t e;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  std::vector<Dim> blocks = {s.batch * s.heads * s.q_seq * s.total_seq * e};
  const bool causal = node.attr_int_or("is_causal", 0) != 0;
  if (has_input(node, 3)) {
    if (causal || node.input_dtype(3) == cctx::sdk::dtype::kBool) {
      Shape mask;
      if (!known_shape(node, 3, &mask)) return unsupported("attn_mask shape unknown");
      blocks.push_back(numel(node, mask) * e);
    }
  } else if (causal) {
    blocks.push_back(s.q_seq * s.total_seq * e);
  }
  return add_blocks(out, blocks);
}

constinit const FnScratchEstimator kAttentionScratch{&attention_scratch};

}  // namespace

void register_attention(Registration& reg) {
  register_every_version(reg, "Attention", 23, kAttentionScratch);
}

}  // namespace cctx::opsets::onnxruntime
