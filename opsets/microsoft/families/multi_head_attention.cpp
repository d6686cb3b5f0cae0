// MultiHeadAttention (ContribOperators.md): attention after the projections, in four layouts:
//   query [B, S, D] with key [B, L, D] and value [B, L, Dv] (BSH),
//   query [B, S, N, 3, H] (packed QKV, no key or value),
//   query [B, S, D] with key [B, L, N, 2, H] (packed KV, no value),
//   query [B, S, D] with key [B, N, L, H] and value [B, N, L, Hv] (cross attention on cached BNSH
//   keys and values, which are not concatenated with a past).
// output [B, S, N * Hv]; present_key/value [B, N, P + L, H/Hv] from past_key/value [B, N, P, .],
// or the past's shape when `past_sequence_length` is given (buffer sharing, the in-place case);
// qk [B, N, S, total]. Scratch: the scores B * N * S * Skv * e (semantics.md "Peak scratch
// memory").
#include <iterator>
#include <string>

#include "attention_kit.hpp"
#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

constexpr std::uint32_t kQuery = 0, kKey = 1, kValue = 2, kPastKey = 6, kPastValue = 7,
                        kPastSequenceLength = 8;

/// Every dim the outputs are built from; invalid = unknown.
struct MhaDims {
  Dim batch, q_seq, kv_seq, head, v_head, v_hidden;
  bool bnsh_kv = false;  ///< key/value already [B, N, L, H]: no past concatenation
};

bool read_query(const INodeView& node, IShapeSink& out, std::int64_t heads, MhaDims* d,
                std::string* error) {
  const Shape q = input_shape(node, kQuery);
  if (!q.known) return true;
  d->batch = q.dims[0];
  if (q.rank() == 3) {
    d->q_seq = q.dims[1];
    return split_heads(out, q.dims[2], heads, "query hidden size", &d->head, error);
  }
  if (q.rank() != 5) {
    *error = "query has rank " + std::to_string(q.rank()) + ", expected 3 or 5 (packed QKV)";
    return false;
  }
  if (has_input(node, kKey) || has_input(node, kValue)) {
    *error = "packed QKV query takes no key or value";
    return false;
  }
  Dim n = q.dims[2], three = q.dims[3];
  if (!unify_into(out, &n, node.constant(heads), "packed QKV heads and num_heads", error) ||
      !unify_into(out, &three, node.constant(3), "packed QKV dim 3 and 3", error)) {
    return false;
  }
  d->q_seq = d->kv_seq = q.dims[1];
  d->head = d->v_head = q.dims[4];
  return true;
}

bool read_key(const INodeView& node, IShapeSink& out, std::int64_t heads, MhaDims* d,
              std::string* error) {
  const Shape k = input_shape(node, kKey);
  if (!k.known) return true;
  if (!unify_into(out, &d->batch, k.dims[0], "query and key batch sizes", error)) return false;
  Dim head;
  if (k.rank() == 3) {
    d->kv_seq = k.dims[1];
    if (!split_heads(out, k.dims[2], heads, "key hidden size", &head, error)) return false;
  } else if (k.rank() == 5) {  // packed KV [B, L, N, 2, H]
    if (has_input(node, kValue)) {
      *error = "packed KV key takes no value";
      return false;
    }
    Dim n = k.dims[2], two = k.dims[3];
    if (!unify_into(out, &n, node.constant(heads), "packed KV heads and num_heads", error) ||
        !unify_into(out, &two, node.constant(2), "packed KV dim 3 and 2", error)) {
      return false;
    }
    d->kv_seq = k.dims[1];
    head = d->v_head = k.dims[4];
  } else if (k.rank() == 4) {  // BNSH [B, N, L, H]
    Dim n = k.dims[1];
    if (!unify_into(out, &n, node.constant(heads), "key heads and num_heads", error)) return false;
    d->kv_seq = k.dims[2];
    head = k.dims[3];
    d->bnsh_kv = true;
  } else {
    *error = "key has rank " + std::to_string(k.rank()) + ", expected 3, 4 or 5";
    return false;
  }
  return unify_into(out, &d->head, head, "query and key head sizes", error);
}

bool read_value(const INodeView& node, IShapeSink& out, std::int64_t heads, MhaDims* d,
                std::string* error) {
  const Shape v = input_shape(node, kValue);
  if (!v.known) return true;
  if (!unify_into(out, &d->batch, v.dims[0], "query and value batch sizes", error)) return false;
  if (v.rank() == 3) {
    d->v_hidden = v.dims[2];
    return unify_into(out, &d->kv_seq, v.dims[1], "key and value sequence lengths", error) &&
           split_heads(out, v.dims[2], heads, "value hidden size", &d->v_head, error);
  }
  if (v.rank() != 4 || !d->bnsh_kv) {
    *error = "value has rank " + std::to_string(v.rank()) + ", expected key's layout";
    return false;
  }
  Dim n = v.dims[1];
  d->v_head = v.dims[3];
  return unify_into(out, &n, node.constant(heads), "value heads and num_heads", error) &&
         unify_into(out, &d->kv_seq, v.dims[2], "key and value sequence lengths", error);
}

Status multi_head_attention(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  std::int64_t heads;
  std::string error;
  if (!positive_attr(node, "num_heads", &heads, &error)) return fail(error);
  const Shape q = input_shape(node, kQuery);
  if (q.known && q.rank() == 3 && !has_input(node, kKey)) {
    return fail("a 3-D query needs a key (or pack Q, K and V into a 5-D query)");
  }
  if (has_input(node, kKey) && input_shape(node, kKey).rank() == 3 && !has_input(node, kValue)) {
    return fail("a 3-D key needs a value");
  }
  MhaDims d;
  if (!read_query(node, out, heads, &d, &error) || !read_key(node, out, heads, &d, &error) ||
      !read_value(node, out, heads, &d, &error)) {
    return fail(error);
  }
  if (has_input(node, kPastKey) != has_input(node, kPastValue)) {
    return fail("past_key and past_value must be given together");
  }
  Dim total = d.kv_seq;
  const std::int32_t type = node.input_dtype(kQuery);
  std::int32_t key_type = type, value_type = type;
  if (has_input(node, kPastKey)) {
    if (d.bnsh_kv) return fail("BNSH key and value cannot extend a past");
    Shape pk = input_shape(node, kPastKey), pv = input_shape(node, kPastValue);
    Dim past = Dim();
    for (const Shape* p : {&pk, &pv}) {
      if (!p->known) continue;
      if (p->rank() != 4) return fail("past_key and past_value must be 4-D [B, N, P, H]");
      Dim n = p->dims[1];
      if (!unify_into(out, &d.batch, p->dims[0], "query and past batch sizes", &error) ||
          !unify_into(out, &n, node.constant(heads), "past heads and num_heads", &error) ||
          !unify_into(out, &past, p->dims[2], "past key and value lengths", &error) ||
          !unify_into(out, p == &pk ? &d.head : &d.v_head, p->dims[3], "past head sizes", &error)) {
        return fail(error);
      }
    }
    const bool shared = has_input(node, kPastSequenceLength);
    total = !past.valid() ? Dim() : shared ? past : d.kv_seq.valid() ? past + d.kv_seq : Dim();
    key_type = dtype_or(node, kPastKey, type);
    value_type = dtype_or(node, kPastValue, type);
  }
  const Dim n = node.constant(heads);
  const Dim v_hidden = d.v_hidden.valid() ? d.v_hidden : d.v_head.valid() ? n * d.v_head : Dim();
  if (!q.known) {
    check(set_shape(out, 0, type, Shape::unknown()));
  } else {
    check(set_shape(out, 0, type, fill_unknown(node, out, 0, {d.batch, d.q_seq, v_hidden})));
  }
  if (has_output(node, 1)) {
    Shape s = fill_unknown(node, out, 1, {d.batch, n, total, d.head});
    check(set_shape(out, 1, key_type, s));
  }
  if (has_output(node, 2)) {
    Shape s = fill_unknown(node, out, 2, {d.batch, n, total, d.v_head});
    check(set_shape(out, 2, value_type, s));
  }
  if (!has_output(node, 3)) return Status::kOk;
  return set_shape(out, 3, type, fill_unknown(node, out, 3, {d.batch, n, d.q_seq, total}));
}

/// B * N * S * Skv * e: Skv = the keys attended, past + new (see attended_length()).
Status multi_head_attention_scratch(const INodeView& node, IScratchSink& out) {
  Shape q;
  if (!known_shape(node, kQuery, &q) || (q.rank() != 3 && q.rank() != 5)) {
    return unsupported("query shape unknown");
  }
  std::int64_t heads;
  if (!node.attr_int("num_heads", &heads)) return unsupported("num_heads missing");
  Dim kv = q.dims[1];  // packed QKV: self attention
  bool bnsh = false;
  if (has_input(node, kKey)) {
    Shape k;
    if (!known_shape(node, kKey, &k)) return unsupported("key shape unknown");
    bnsh = k.rank() == 4;
    kv = k.dims[bnsh ? 2 : 1];
  }
  if (!bnsh && has_input(node, kPastKey)) {
    Shape past;
    if (!known_shape(node, kPastKey, &past, 4)) return unsupported("past_key shape unknown");
    kv = attended_length(node, past.dims[2], kv, has_input(node, kPastSequenceLength),
                         kPastSequenceLength);
  }
  return scores_scratch(node, out, q.dims[0], node.constant(heads), q.dims[1], kv, kQuery);
}

/// With buffer sharing (`past_sequence_length` given) the kernel appends to the past buffers in
/// place; the size check of semantics.md "In-place reuse: may_reuse(o, k) at node i" still refuses
/// a present that grew.
Status multi_head_attention_inplace(const INodeView& node, IInplaceSink& out) {
  if (!has_input(node, kPastSequenceLength) || !has_input(node, kPastKey) ||
      !has_input(node, kPastValue)) {
    return Status::kOk;
  }
  check(out.may_reuse(1, kPastKey));
  return out.may_reuse(2, kPastValue);
}

/// past_sequence_length holds a dimension (the filled part of a shared cache).
constexpr PositionalTag kPastLengthIsShape[] = {{kPastSequenceLength, Tag::kShape}};

constinit const FnShapeRule kMultiHeadAttention{&multi_head_attention};
constinit const FnScratchEstimator kMultiHeadAttentionScratch{&multi_head_attention_scratch};
constinit const FnInplacePolicy kMultiHeadAttentionInplace{&multi_head_attention_inplace};

}  // namespace

void register_multi_head_attention(Registration& reg) {
  reg.shape("MultiHeadAttention", 1, kMultiHeadAttention);
  reg.scratch("MultiHeadAttention", 1, kMultiHeadAttentionScratch);
  reg.inplace("MultiHeadAttention", 1, kMultiHeadAttentionInplace);
  TagTraits traits;
  traits.positional = Span<PositionalTag>{kPastLengthIsShape, std::size(kPastLengthIsShape)};
  reg.tags("MultiHeadAttention", traits);
}

}  // namespace cctx::opsets::microsoft
