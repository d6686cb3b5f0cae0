/// @file kit/attention.hpp
/// The score matrix of an ONNX Attention node (opset 23 on): what scratch estimators of the
/// operator size their working memory by, read once for every plugin that estimates it.
#pragma once

#include <cstdint>
#include <string>

#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/kit/inputs.hpp"
#include "cctx/sdk/node_view.hpp"

namespace cctx::sdk::kit {

/// The dims of the attention scores [batch, heads, q_seq, total_seq].
struct AttentionScores {
  Dim batch;
  Dim heads;      ///< query heads: dim 1 of a 4-D Q, else the q_num_heads attribute
  Dim q_seq;      ///< query length
  Dim total_seq;  ///< key length: K's, plus past_key's (input 4) when present
};

/// Reads them from Q (input 0, 3-D or 4-D), K (input 1) and past_key; false with `why` set when
/// a rank or q_num_heads is missing.
inline bool attention_scores(const INodeView& node, AttentionScores* s, std::string* why) {
  Shape q, k;
  if (!known_shape(node, 0, &q) || !known_shape(node, 1, &k)) {
    *why = "rank of Q or K unknown";
    return false;
  }
  if ((q.rank() != 3 && q.rank() != 4) || (k.rank() != 3 && k.rank() != 4)) {
    *why = "Q and K must be 3-D or 4-D";
    return false;
  }
  if (q.rank() == 4) {
    s->heads = q.dims[1];
  } else {
    std::int64_t h = 0;
    if (!node.attr_int(StringRef::from_c_str("q_num_heads"), &h)) {
      *why = "3-D Q without q_num_heads";
      return false;
    }
    s->heads = node.constant(h);
  }
  s->batch = q.dims[0];
  s->q_seq = q.dims[q.rank() == 4 ? 2 : 1];
  s->total_seq = k.dims[k.rank() == 4 ? 2 : 1];
  if (has_input(node, 4)) {
    Shape past;
    if (!known_shape(node, 4, &past, 4)) {
      *why = "past_key shape unknown";
      return false;
    }
    s->total_seq = past.dims[2] + s->total_seq;
  }
  return true;
}

}  // namespace cctx::sdk::kit
