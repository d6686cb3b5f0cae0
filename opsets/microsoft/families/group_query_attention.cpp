// GroupQueryAttention (ContribOperators.md): N query heads share Nkv key/value heads. query
// [B, S, N * H] with key/value [B, L, Nkv * H], or packed QKV [B, S, (N + 2 * Nkv) * H]; output
// [B, S, N * H]. present_key/value [B, Nkv, T', H] extend past_key/value [B, Nkv, P, H]:
//   T' = max(P, T) when T = the value of `total_sequence_length` is known (a shared max-length
//        buffer keeps P rows, a growing cache reaches T = P + L),
//   T' = P + L otherwise (an upper bound when the buffer is shared),
//   T' = P with `sliding_window_cache` (a fixed-capacity window).
// output_qk [B, N, S, T or P + L]. Scratch: the scores B * N * S * Skv * e with Skv = T when known,
// else P + L (semantics.md "Peak scratch memory"). present_key/value may take over past_key/value's
// buffers, as onnxruntime's kernels allow (MayInplace 3 -> 1, 4 -> 2) when the cache does not grow.
// A 4-bit cache (`kv_cache_bit_width` 4) stores H / 2 bytes per row; total_sequence_length is
// tagged shape.
#include <iterator>
#include <string>

#include "attention_kit.hpp"
#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

constexpr std::uint32_t kQuery = 0, kKey = 1, kValue = 2, kPastKey = 3, kPastValue = 4,
                        kSeqlensK = 5, kTotalSequenceLength = 6;

struct GqaHeads {
  std::int64_t q = 0, kv = 0;
};

bool read_heads(const INodeView& node, GqaHeads* h, std::string* error) {
  if (!positive_attr(node, "num_heads", &h->q, error) ||
      !positive_attr(node, "kv_num_heads", &h->kv, error)) {
    return false;
  }
  if (h->q % h->kv == 0) return true;
  *error = "num_heads " + std::to_string(h->q) + " is not a multiple of kv_num_heads " +
           std::to_string(h->kv);
  return false;
}

/// The new keys' length L: the key's dim 1, or the query's for packed QKV.
Dim new_key_length(const INodeView& node, const Shape& q) {
  Shape k;
  if (has_input(node, kKey)) return known_shape(node, kKey, &k, 3) ? k.dims[1] : Dim();
  return q.known && q.rank() == 3 ? q.dims[1] : Dim();
}

/// T' of the present cache, or invalid when unknown (see the file comment).
Dim present_length(const INodeView& node, Dim past, Dim new_len, Dim total) {
  if (!has_input(node, kPastKey)) return total.valid() ? total : new_len;
  if (!past.valid()) return Dim();
  if (node.attr_int_or("sliding_window_cache", 0) != 0) return past;
  if (total.valid()) return max(past, total);
  return new_len.valid() ? past + new_len : Dim();
}

/// Keys attended per query: T when known, else P + L (L without a past).
Dim attended(const INodeView& node, Dim past, Dim new_len, Dim total) {
  if (total.valid()) return total;
  if (!has_input(node, kPastKey)) return new_len;
  return past.valid() && new_len.valid() ? past + new_len : Dim();
}

Status group_query_attention(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  GqaHeads heads;
  std::string error;
  if (!read_heads(node, &heads, &error)) return fail(error);
  if (has_input(node, kKey) != has_input(node, kValue)) {
    return fail("key and value must be given together (or neither, for packed QKV)");
  }
  if (has_input(node, kPastKey) != has_input(node, kPastValue)) {
    return fail("past_key and past_value must be given together");
  }
  const Shape q = input_shape(node, kQuery);
  if (q.known && q.rank() != 3) {
    return fail("query has rank " + std::to_string(q.rank()) + ", expected 3");
  }
  Dim batch = q.known ? q.dims[0] : Dim(), head;
  const bool packed = !has_input(node, kKey);
  const std::int64_t q_parts = packed ? heads.q + 2 * heads.kv : heads.q;
  if (q.known && !split_heads(out, q.dims[2], q_parts, "query hidden size", &head, &error)) {
    return fail(error);
  }
  for (std::uint32_t i : {kKey, kValue}) {
    Shape kv;
    if (!known_shape(node, i, &kv)) continue;
    if (kv.rank() != 3) return fail("key and value must be 3-D [B, L, kv_num_heads * H]");
    Dim kv_head;
    if (!unify_into(out, &batch, kv.dims[0], "query and key/value batch sizes", &error) ||
        !split_heads(out, kv.dims[2], heads.kv, "key/value hidden size", &kv_head, &error) ||
        !unify_into(out, &head, kv_head, "query and key/value head sizes", &error)) {
      return fail(error);
    }
  }
  // A 4-bit quantized cache packs two values per uint8 byte along the head dim.
  const std::int64_t pack = node.attr_int_or("kv_cache_bit_width", 0) == 4 ? 2 : 1;
  Dim past;
  for (std::uint32_t i : {kPastKey, kPastValue}) {
    Shape p;
    if (!known_shape(node, i, &p)) continue;
    if (p.rank() != 4) return fail("past_key and past_value must be 4-D [B, Nkv, P, H]");
    Dim n = p.dims[1];
    if (!unify_into(out, &batch, p.dims[0], "query and past batch sizes", &error) ||
        !unify_into(out, &n, node.constant(heads.kv), "past heads and kv_num_heads", &error) ||
        !unify_into(out, &past, p.dims[2], "past key and value lengths", &error) ||
        !unify_into(out, &head, p.dims[3] * pack, "query and past head sizes", &error)) {
      return fail(error);
    }
  }
  Shape seqlens;
  if (known_shape(node, kSeqlensK, &seqlens, 1) &&
      !unify_into(out, &batch, seqlens.dims[0], "query batch and seqlens_k length", &error)) {
    return fail(error);
  }
  const Dim new_len = new_key_length(node, q);
  const Dim total = scalar_value(node, kTotalSequenceLength);
  const Dim present = present_length(node, past, new_len, total);
  const std::int32_t type = node.input_dtype(kQuery);
  const Dim seq = q.known ? q.dims[1] : Dim();
  const Dim hidden = head.valid() ? node.constant(heads.q) * head : Dim();
  if (!q.known) {
    check(set_shape(out, 0, type, Shape::unknown()));
  } else {
    check(set_shape(out, 0, type, fill_unknown(node, out, 0, {batch, seq, hidden})));
  }
  for (std::uint32_t o = 1; o <= 2; ++o) {
    if (!has_output(node, o)) continue;
    const std::int32_t cache_type = dtype_or(node, o == 1 ? kPastKey : kPastValue, type);
    Dim cache_head;
    if (head.valid() && !split_evenly(out, head, pack, &cache_head, &error)) {
      return fail("head size does not pack into 4-bit pairs: " + error);
    }
    Shape s = fill_unknown(node, out, o, {batch, node.constant(heads.kv), present, cache_head});
    check(set_shape(out, o, cache_type, s));
  }
  if (!has_output(node, 3)) return Status::kOk;
  const Dim keys = attended(node, past, new_len, total);
  return set_shape(out, 3, type,
                   fill_unknown(node, out, 3, {batch, node.constant(heads.q), seq, keys}));
}

Status group_query_attention_scratch(const INodeView& node, IScratchSink& out) {
  Shape q;
  if (!known_shape(node, kQuery, &q, 3)) return unsupported("query shape unknown");
  std::int64_t heads;
  if (!node.attr_int("num_heads", &heads)) return unsupported("num_heads missing");
  Shape p;
  const Dim past = known_shape(node, kPastKey, &p, 4) ? p.dims[2] : Dim();
  const Dim keys =
      attended(node, past, new_key_length(node, q), scalar_value(node, kTotalSequenceLength));
  return scores_scratch(node, out, q.dims[0], node.constant(heads), q.dims[1], keys, kQuery);
}

Status group_query_attention_inplace(const INodeView& node, IInplaceSink& out) {
  if (!has_input(node, kPastKey) || !has_input(node, kPastValue)) return Status::kOk;
  check(out.may_reuse(1, kPastKey));
  return out.may_reuse(2, kPastValue);
}

/// total_sequence_length holds a dimension (the attended length), as Reshape's shape input does.
constexpr PositionalTag kTotalLengthIsShape[] = {{kTotalSequenceLength, Tag::kShape}};

constinit const FnShapeRule kGroupQueryAttention{&group_query_attention};
constinit const FnScratchEstimator kGroupQueryAttentionScratch{&group_query_attention_scratch};
constinit const FnInplacePolicy kGroupQueryAttentionInplace{&group_query_attention_inplace};

}  // namespace

void register_group_query_attention(Registration& reg) {
  reg.shape("GroupQueryAttention", 1, kGroupQueryAttention);
  reg.scratch("GroupQueryAttention", 1, kGroupQueryAttentionScratch);
  reg.inplace("GroupQueryAttention", 1, kGroupQueryAttentionInplace);
  TagTraits traits;
  traits.positional = Span<PositionalTag>{kTotalLengthIsShape, std::size(kTotalLengthIsShape)};
  reg.tags("GroupQueryAttention", traits);
}

}  // namespace cctx::opsets::microsoft
