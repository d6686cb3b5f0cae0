// Attention (opsets 23 and 24) in its 3-D and 4-D forms with past/present key and value and the qk
// output (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"), its score-buffer
// scratch estimate (semantics.md "Peak scratch memory"), and RotaryEmbedding (23). Vendor variants
// reuse the same reading of Q/K/V.
#include <string>
#include <vector>

#include "families.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

using nn::has_input;
using nn::has_output;

/// One of Q, K, V read as [batch, heads, seq, head_size]; invalid Dims are unknown.
struct Heads {
  Dim batch, heads, seq, head_size;
  bool three_d = false;
};

/// Reads input i as 4-D [B, H, S, D] or 3-D [B, S, H*D] with H from attribute `heads_attr`.
bool read_heads(const INodeView& node, IShapeSink& out, std::uint32_t i, const char* heads_attr,
                Heads* h, std::string* error) {
  static const char* const kNames[] = {"Q", "K", "V", "attn_mask", "past_key", "past_value"};
  const std::string name = i < 6 ? kNames[i] : "input " + std::to_string(i);
  if (!has_input(node, i)) return true;
  Shape s = input_shape(node, i);
  if (!s.known) return true;
  std::int64_t attr_heads = 0;
  const bool has_heads = node.attr_int(StringRef::from_c_str(heads_attr), &attr_heads);
  if (s.rank() == 4) {
    *h = Heads{s.dims[0], s.dims[1], s.dims[2], s.dims[3], false};
    if (has_heads && !nn::unify(out, h->heads, node.constant(attr_heads), &h->heads, error)) {
      *error = name + " heads differ from " + heads_attr + ": " + *error;
      return false;
    }
    return true;
  }
  if (s.rank() != 3) {
    *error = name + " has rank " + std::to_string(s.rank()) + ", expected 3 or 4";
    return false;
  }
  if (!has_heads) {
    *error = "3-D " + name + " needs the '" + heads_attr + "' attribute";
    return false;
  }
  h->batch = s.dims[0];
  h->seq = s.dims[1];
  h->heads = node.constant(attr_heads);
  h->three_d = true;
  if (!nn::split_evenly(out, s.dims[2], attr_heads, &h->head_size, error)) {
    *error = name + " hidden size does not split into " + heads_attr + ": " + *error;
    return false;
  }
  return true;
}

/// The dims every output is built from; invalid = unknown.
struct AttentionDims {
  Heads q, k, v, past_key, past_value;
  Dim batch, kv_heads, kv_seq, past_seq, total_seq, head_size, v_head_size;
};

bool attention_dims(const INodeView& node, IShapeSink& out, AttentionDims* d, std::string* error) {
  if (!read_heads(node, out, 0, "q_num_heads", &d->q, error) ||
      !read_heads(node, out, 1, "kv_num_heads", &d->k, error) ||
      !read_heads(node, out, 2, "kv_num_heads", &d->v, error) ||
      !read_heads(node, out, 4, "kv_num_heads", &d->past_key, error) ||
      !read_heads(node, out, 5, "kv_num_heads", &d->past_value, error)) {
    return false;
  }
  if (d->past_key.three_d || d->past_value.three_d) {
    *error = "past_key and past_value must be 4-D";
    return false;
  }
  d->batch = d->q.batch;
  for (const Heads* h : {&d->k, &d->v, &d->past_key, &d->past_value}) {
    if (!unify_into(out, &d->batch, h->batch, "batch sizes", error)) return false;
  }
  for (const Heads* h : {&d->k, &d->v, &d->past_key, &d->past_value}) {
    if (!unify_into(out, &d->kv_heads, h->heads, "key/value head counts", error)) return false;
  }
  d->kv_seq = d->k.seq;
  if (!unify_into(out, &d->kv_seq, d->v.seq, "key and value sequence lengths", error)) return false;
  d->past_seq = d->past_key.seq;
  if (!unify_into(out, &d->past_seq, d->past_value.seq, "past sequence lengths", error))
    return false;
  d->head_size = d->q.head_size;
  for (const Heads* h : {&d->k, &d->past_key}) {
    if (!unify_into(out, &d->head_size, h->head_size, "query/key head sizes", error)) return false;
  }
  d->v_head_size = d->v.head_size;
  if (!unify_into(out, &d->v_head_size, d->past_value.head_size, "value head sizes", error)) {
    return false;
  }
  const bool past = has_input(node, 4);
  if (d->kv_seq.valid() && (!past || d->past_seq.valid())) {
    d->total_seq = past ? d->past_seq + d->kv_seq : d->kv_seq;
  }
  return true;
}

Status attention(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  if (has_input(node, 4) != has_input(node, 5)) {
    return fail("past_key and past_value must be given together");
  }
  AttentionDims d;
  std::string error;
  if (!attention_dims(node, out, &d, &error)) return fail(error);
  // Attention 24's nonpad_kv_seqlen (input 6): one count of valid key/value positions a batch
  // entry, so a vector of the batch size; it changes no output shape.
  if (has_input(node, 6)) {
    const Shape lens = input_shape(node, 6);
    if (lens.known && lens.rank() != 1) {
      return fail("nonpad_kv_seqlen has rank " + std::to_string(lens.rank()) + ", expected 1");
    }
    if (lens.known &&
        !unify_into(out, &d.batch, lens.dims[0], "nonpad_kv_seqlen and batch", &error)) {
      return fail(error);
    }
  }
  const std::int32_t dtype = node.input_dtype(0);
  const Shape q = input_shape(node, 0);
  if (!q.known) {
    check(set_shape(out, 0, dtype, Shape::unknown()));
  } else if (d.q.three_d) {
    Dim hidden = d.v_head_size.valid() ? d.q.heads * d.v_head_size : Dim();
    check(set_shape(out, 0, dtype, nn::fill_unknown(node, out, 0, {d.batch, d.q.seq, hidden})));
  } else {
    check(set_shape(out, 0, dtype,
                    nn::fill_unknown(node, out, 0, {d.batch, d.q.heads, d.q.seq, d.v_head_size})));
  }
  // Present key/value keep the past's type (the query's without a past).
  const bool past = has_input(node, 4);
  const std::int32_t key_type = past ? node.input_dtype(4) : node.input_dtype(1);
  const std::int32_t value_type = past ? node.input_dtype(5) : node.input_dtype(2);
  if (has_output(node, 1)) {
    Shape s = nn::fill_unknown(node, out, 1, {d.batch, d.kv_heads, d.total_seq, d.head_size});
    check(set_shape(out, 1, key_type, s));
  }
  if (has_output(node, 2)) {
    Shape s = nn::fill_unknown(node, out, 2, {d.batch, d.kv_heads, d.total_seq, d.v_head_size});
    check(set_shape(out, 2, value_type, s));
  }
  if (has_output(node, 3)) {
    Shape s = nn::fill_unknown(node, out, 3, {d.batch, d.q.heads, d.q.seq, d.total_seq});
    check(set_shape(out, 3, dtype, s));
  }
  return Status::kOk;
}

/// The attention scores, B * H * Sq * Skv * e: H query heads (dim 1 of a 4-D Q, else
/// q_num_heads), Skv = past + new key length, e of `softmax_precision` when set, else Q's.
Status attention_scratch(const INodeView& node, IScratchSink& out) {
  AttentionScores scores;
  std::string why;
  if (!attention_scores(node, &scores, &why)) return unsupported(why);
  std::int64_t e;
  std::int64_t precision;
  if (node.attr_int("softmax_precision", &precision)) {
    if (!nn::element_bytes(static_cast<std::int32_t>(precision), &e)) {
      return unsupported("softmax_precision " + std::to_string(precision) + " has no size");
    }
  } else if (!nn::input_element_bytes(node, 0, &e, &why)) {
    return unsupported(why);
  }
  return out.set_bytes(scores.batch * scores.heads * scores.q_seq * scores.total_seq * e);
}

/// RotaryEmbedding: Y = X ([B, S, hidden] or [B, H, S, D]).
Status rotary_embedding(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const Shape x = input_shape(node, 0);
  if (x.known && x.rank() != 3 && x.rank() != 4) {
    return fail("X has rank " + std::to_string(x.rank()) + ", expected 3 or 4");
  }
  if (x.known && x.rank() == 3 && node.attribute_type("num_heads") == AttrType::kNone &&
      node.attr_int_or("rotary_embedding_dim", 0) != 0) {
    return fail("3-D X with rotary_embedding_dim needs the 'num_heads' attribute");
  }
  return set_shape(out, 0, node.input_dtype(0), x);
}

constinit const FnShapeRule kAttention{&attention};
constinit const FnShapeRule kRotaryEmbedding{&rotary_embedding};
constinit const FnScratchEstimator kAttentionScratch{&attention_scratch};

}  // namespace

void register_attention(Registration& reg) {
  // 24 adds the optional input nonpad_kv_seqlen and nothing that changes a shape or the score
  // buffer (the KV cache update moved to TensorScatter, a separate node).
  reg.shape("Attention", {23, 24}, kAttention);
  for (std::int32_t since : {23, 24}) reg.scratch("Attention", since, kAttentionScratch);
  reg.shape("RotaryEmbedding", 23, kRotaryEmbedding);
}

}  // namespace cctx::opsets::onnx
