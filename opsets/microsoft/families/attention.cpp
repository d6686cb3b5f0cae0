// Attention and PackedAttention (ContribOperators.md): self-attention with the Q/K/V projection
// fused in. Weights [Din, h + h + vh] (hidden sizes from `qkv_hidden_sizes`, else three equal
// thirds of the bias or the weights' width) give the output [B, S, vh] ([T, vh] packed). Attention
// keeps K and V in one cache: past [2, B, N, P, h/N] -> present [2, B, N, P + S, h/N], or the
// past's own shape when `past_present_share_buffer` is set (a max-length buffer updated in place,
// which is also the one in-place policy). Scratch: the scores B * N * S * Skv * e (semantics.md
// "Peak scratch memory"), taking B and S from token_offset [B, S] for the packed form.
#include <iterator>
#include <string>
#include <vector>

#include "attention_kit.hpp"
#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

constexpr std::uint32_t kWeights = 1, kBias = 2, kPast = 4, kPastSequenceLength = 6;

/// Hidden sizes of Q/K (h) and V (vh); invalid when unknown.
struct QkvSizes {
  Dim hidden, v_hidden;
};

/// The projection's width: the bias length, else the weights' dim 1 (invalid when unknown).
Dim projection_width(const INodeView& node) {
  Shape s;
  if (known_shape(node, kBias, &s, 1)) return s.dims[0];
  if (known_shape(node, kWeights, &s, 2)) return s.dims[1];
  return Dim();
}

bool qkv_sizes(const INodeView& node, IShapeSink& out, QkvSizes* q, std::string* error) {
  const Dim width = projection_width(node);
  std::vector<std::int64_t> sizes;
  if (attr_ints_vec(node, "qkv_hidden_sizes", &sizes)) {
    if (sizes.size() != 3 || sizes[0] <= 0 || sizes[1] != sizes[0] || sizes[2] <= 0) {
      *error = "qkv_hidden_sizes must be 3 positive values with equal Q and K sizes";
      return false;
    }
    q->hidden = node.constant(sizes[0]);
    q->v_hidden = node.constant(sizes[2]);
    Dim total = node.constant(sizes[0] + sizes[1] + sizes[2]);
    return unify_into(out, &total, width, "qkv_hidden_sizes sum and projection width", error);
  }
  if (!width.valid()) return true;
  Dim third;
  if (!split_evenly(out, width, 3, &third, error)) {
    *error = "projection width does not split into Q, K and V: " + *error;
    return false;
  }
  q->hidden = q->v_hidden = third;
  return true;
}

/// The input's hidden size must be the weights' dim 0.
bool check_weights(const INodeView& node, IShapeSink& out, Dim input_hidden, std::string* error) {
  Shape w;
  if (!known_shape(node, kWeights, &w)) return true;
  if (w.rank() != 2) {
    *error = "weights have rank " + std::to_string(w.rank()) + ", expected 2";
    return false;
  }
  Dim unified = input_hidden;
  return unify_into(out, &unified, w.dims[0], "input hidden size and weights rows", error);
}

Status attention(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  std::int64_t heads;
  std::string error;
  if (!positive_attr(node, "num_heads", &heads, &error)) return fail(error);
  const Shape x = input_shape(node, 0);
  const std::int32_t type = node.input_dtype(0);
  if (x.known && x.rank() != 3) {
    return fail("input has rank " + std::to_string(x.rank()) + ", expected 3");
  }
  QkvSizes q;
  Dim head;
  if (!check_weights(node, out, x.known ? x.dims[2] : Dim(), &error) ||
      !qkv_sizes(node, out, &q, &error) ||
      !split_heads(out, q.hidden, heads, "Q hidden size", &head, &error)) {
    return fail(error);
  }
  Dim batch = x.known ? x.dims[0] : Dim(), seq = x.known ? x.dims[1] : Dim();
  // Present: [2, B, N, total, h/N], K and V stacked; the past fixes the cache's layout.
  Dim total = seq;
  std::int32_t present_type = type;
  if (has_input(node, kPast)) {
    Shape past;
    if (known_shape(node, kPast, &past)) {
      if (past.rank() != 5) {
        return fail("past has rank " + std::to_string(past.rank()) + ", expected 5");
      }
      Dim n = node.constant(heads);
      if (!unify_into(out, &batch, past.dims[1], "input and past batch sizes", &error) ||
          !unify_into(out, &n, past.dims[2], "num_heads and past heads", &error) ||
          !unify_into(out, &head, past.dims[4], "head size and past head size", &error)) {
        return fail(error);
      }
      const bool shared = node.attr_int_or("past_present_share_buffer", 0) != 0;
      total = shared ? past.dims[3] : (seq.valid() ? past.dims[3] + seq : Dim());
    } else {
      total = Dim();
    }
    present_type = dtype_or(node, kPast, type);
  }
  if (x.known) {
    Shape y = fill_unknown(node, out, 0, {batch, seq, q.v_hidden});
    check(set_shape(out, 0, type, y));
  } else {
    check(set_shape(out, 0, type, Shape::unknown()));
  }
  if (!has_output(node, 1)) return Status::kOk;
  return set_shape(
      out, 1, present_type,
      fill_unknown(node, out, 1, {node.constant(2), batch, node.constant(heads), total, head}));
}

/// B * N * S * (P + S) * e with P the past length (or the attended part of a shared buffer).
Status attention_scratch(const INodeView& node, IScratchSink& out) {
  Shape x;
  if (!known_shape(node, 0, &x, 3)) return unsupported("input shape unknown");
  std::int64_t heads;
  if (!node.attr_int("num_heads", &heads)) return unsupported("num_heads missing");
  Dim kv = x.dims[1];
  if (has_input(node, kPast)) {
    Shape past;
    if (!known_shape(node, kPast, &past, 5)) return unsupported("past shape unknown");
    const bool shared = node.attr_int_or("past_present_share_buffer", 0) != 0;
    kv = attended_length(node, past.dims[3], x.dims[1], shared, kPastSequenceLength);
  }
  return scores_scratch(node, out, x.dims[0], node.constant(heads), x.dims[1], kv, 0);
}

/// With `past_present_share_buffer`, past and present are one max-length cache that the kernel
/// updates in place; the size check of semantics.md "In-place reuse: may_reuse(o, k) at node i"
/// still refuses a present that grew.
Status attention_inplace(const INodeView& node, IInplaceSink& out) {
  if (node.attr_int_or("past_present_share_buffer", 0) == 0 || !has_input(node, kPast)) {
    return Status::kOk;
  }
  return out.may_reuse(1, kPast);
}

// ---- PackedAttention ----------------------------------------------------------------------------

constexpr std::uint32_t kTokenOffset = 3;

/// input [T, Din] -> output [T, vh]; token_offset is [B, S].
Status packed_attention(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 5);
  std::int64_t heads;
  std::string error;
  if (!positive_attr(node, "num_heads", &heads, &error)) return fail(error);
  const Shape x = input_shape(node, 0);
  const std::int32_t type = node.input_dtype(0);
  if (!x.known) return set_shape(out, 0, type, Shape::unknown());
  if (x.rank() != 2) {
    return fail("input has rank " + std::to_string(x.rank()) + ", expected 2 (tokens, hidden)");
  }
  QkvSizes q;
  Dim head;
  if (!check_weights(node, out, x.dims[1], &error) || !qkv_sizes(node, out, &q, &error) ||
      !split_heads(out, q.hidden, heads, "Q hidden size", &head, &error)) {
    return fail(error);
  }
  return set_shape(out, 0, type, fill_unknown(node, out, 0, {x.dims[0], q.v_hidden}));
}

/// The kernel unpacks to [B, N, S, S] scores: B and S from token_offset.
Status packed_attention_scratch(const INodeView& node, IScratchSink& out) {
  Shape offsets;
  if (!known_shape(node, kTokenOffset, &offsets, 2)) {
    return unsupported("token_offset shape unknown");
  }
  std::int64_t heads;
  if (!node.attr_int("num_heads", &heads)) return unsupported("num_heads missing");
  const Dim s = offsets.dims[1];
  return scores_scratch(node, out, offsets.dims[0], node.constant(heads), s, s, 0);
}

/// past_sequence_length holds a dimension (the filled part of a shared cache).
constexpr PositionalTag kPastLengthIsShape[] = {{kPastSequenceLength, Tag::kShape}};

constinit const FnShapeRule kAttention{&attention};
constinit const FnShapeRule kPackedAttention{&packed_attention};
constinit const FnScratchEstimator kAttentionScratch{&attention_scratch};
constinit const FnScratchEstimator kPackedAttentionScratch{&packed_attention_scratch};
constinit const FnInplacePolicy kAttentionInplace{&attention_inplace};

}  // namespace

void register_attention(Registration& reg) {
  reg.shape("Attention", 1, kAttention);
  reg.scratch("Attention", 1, kAttentionScratch);
  reg.inplace("Attention", 1, kAttentionInplace);
  TagTraits traits;
  traits.positional = Span<PositionalTag>{kPastLengthIsShape, std::size(kPastLengthIsShape)};
  reg.tags("Attention", traits);
  reg.shape("PackedAttention", 1, kPackedAttention);
  reg.scratch("PackedAttention", 1, kPackedAttentionScratch);
}

}  // namespace cctx::opsets::microsoft
