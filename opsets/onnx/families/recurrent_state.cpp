// The recurrent-state operators of opset 27 (docs/opsets-24-27.md): LinearAttention
// and CausalConvWithState. Both carry a fixed-size state from one decoding step to the next
// instead of a growing cache, so their state outputs have the state inputs' shapes.
#include <string>

#include "families.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

using nn::has_input;
using nn::has_output;

/// Input i as a rank-`rank` shape, or an unknown one (absent input or unknown rank).
Shape ranked_input(const INodeView& node, std::uint32_t i, std::size_t rank, const char* name) {
  if (!has_input(node, i)) return Shape::unknown();
  Shape s = input_shape(node, i);
  if (s.known && s.rank() != rank) {
    fail(std::string(name) + " has rank " + std::to_string(s.rank()) + ", expected " +
         std::to_string(rank));
  }
  return s;
}

/// A dim of a shape that may be unknown (an invalid Dim then).
Dim dim_of(const Shape& s, std::size_t axis) { return s.known ? s.dims[axis] : Dim(); }

/// The required positive integer attribute `name`.
std::int64_t positive_attr(const INodeView& node, const char* name) {
  std::int64_t v = 0;
  if (!node.attr_int(StringRef::from_c_str(name), &v)) {
    fail(std::string("attribute '") + name + "' is required");
  }
  if (v <= 0) fail(std::string("attribute '") + name + "' must be positive");
  return v;
}

/// LinearAttention (27): query [B, T, Hq*dk], key [B, T, H*dk], value [B, T, Hkv*dv] (heads
/// packed into the last axis, q_num_heads and kv_num_heads required, Hq a multiple of Hkv),
/// optional past_state [B, Hkv, dk, dv], decay and beta. output [B, T, Hq*dv] (each query head
/// reads the dv columns of its KV head's state); present_state [B, Hkv, dk, dv].
Status linear_attention(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const std::int64_t q_heads = positive_attr(node, "q_num_heads");
  const std::int64_t kv_heads = positive_attr(node, "kv_num_heads");
  if (q_heads % kv_heads != 0) {
    return fail("q_num_heads " + std::to_string(q_heads) + " is not a multiple of kv_num_heads " +
                std::to_string(kv_heads));
  }
  const Shape q = ranked_input(node, 0, 3, "query");
  const Shape k = ranked_input(node, 1, 3, "key");
  const Shape v = ranked_input(node, 2, 3, "value");
  const Shape past = ranked_input(node, 3, 4, "past_state");
  Dim batch = dim_of(q, 0), seq = dim_of(q, 1), dk, dv;
  std::string error;
  for (const Shape* s : {&k, &v}) {
    if (!unify_into(out, &batch, dim_of(*s, 0), "batch sizes", &error) ||
        !unify_into(out, &seq, dim_of(*s, 1), "sequence lengths", &error)) {
      return fail(error);
    }
  }
  if (q.known && !split_evenly(out, q.dims[2], q_heads, &dk, &error)) {
    return fail("query hidden size does not split into q_num_heads: " + error);
  }
  // The key's packed width is not checked: the spec text found gives it only as [B, T, H*D]
  // (ONNX Runtime's contrib form lets fewer key heads than KV heads share one).
  if (v.known && !split_evenly(out, v.dims[2], kv_heads, &dv, &error)) {
    return fail("value hidden size does not split into kv_num_heads: " + error);
  }
  if (past.known) {
    if (!unify_into(out, &batch, past.dims[0], "past_state and query batch sizes", &error) ||
        !unify_into(out, &dk, past.dims[2], "past_state and query head sizes", &error) ||
        !unify_into(out, &dv, past.dims[3], "past_state and value head sizes", &error)) {
      return fail(error);
    }
    unify(out, past.dims[1], node.constant(kv_heads), "past_state heads and kv_num_heads");
  }
  const std::int32_t dtype = node.input_dtype(0);
  Dim hidden = dv.valid() ? node.constant(q_heads) * dv : Dim();
  check(set_shape(out, 0, dtype, fill_unknown(node, out, 0, {batch, seq, hidden})));
  if (has_output(node, 1)) {
    // The state keeps past_state's type (it may be kept in a wider type than the activations).
    const std::int32_t state_type = has_input(node, 3) ? node.input_dtype(3) : dtype;
    Shape s = fill_unknown(node, out, 1, {batch, node.constant(kv_heads), dk, dv});
    check(set_shape(out, 1, state_type, s));
  }
  return Status::kOk;
}

/// CausalConvWithState (27): input [B, C, L], weight [C, 1, k], optional bias [C] and past_state
/// [B, C, k-1]. output [B, C, L] (causal: the past positions pad the left); present_state
/// [B, C, k-1], the last k-1 positions of past_state ++ input.
Status causal_conv_with_state(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape x = ranked_input(node, 0, 3, "input");
  const Shape w = ranked_input(node, 1, 3, "weight");
  const Shape bias = ranked_input(node, 2, 1, "bias");
  const Shape past = ranked_input(node, 3, 3, "past_state");
  Dim batch = dim_of(x, 0), channels = dim_of(x, 1), length = dim_of(x, 2);
  std::string error;
  if (!unify_into(out, &channels, dim_of(w, 0), "input and weight channels", &error) ||
      !unify_into(out, &channels, dim_of(bias, 0), "input and bias channels", &error) ||
      !unify_into(out, &channels, dim_of(past, 1), "input and past_state channels", &error) ||
      !unify_into(out, &batch, dim_of(past, 0), "input and past_state batch sizes", &error)) {
    return fail(error);
  }
  if (w.known) unify(out, w.dims[1], node.constant(1), "weight is not depthwise (dim 1)");
  Dim carry = w.known ? w.dims[2] - node.constant(1) : Dim();
  if (!unify_into(out, &carry, dim_of(past, 2), "past_state length and kernel size - 1", &error)) {
    return fail(error);
  }
  const std::int32_t dtype = node.input_dtype(0);
  check(set_shape(out, 0, dtype, fill_unknown(node, out, 0, {batch, channels, length})));
  if (has_output(node, 1)) {
    check(set_shape(out, 1, dtype, fill_unknown(node, out, 1, {batch, channels, carry})));
  }
  return Status::kOk;
}

constinit const FnShapeRule kLinearAttention{&linear_attention};
constinit const FnShapeRule kCausalConvWithState{&causal_conv_with_state};

}  // namespace

void register_recurrent_state(Registration& reg) {
  reg.shape("LinearAttention", 27, kLinearAttention);
  reg.shape("CausalConvWithState", 27, kCausalConvWithState);
}

}  // namespace cctx::opsets::onnx
