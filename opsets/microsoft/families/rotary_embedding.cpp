// RotaryEmbedding (ContribOperators.md): rotates pairs of the query's or key's values by
// position; output = input, [B, S, hidden] or [B, N, S, H]. position_ids is [1] or [B, S], the
// caches [max_sequence_length, rotary_dim / 2]. No in-place policy: nothing documents that the
// kernel may write over its input, and a reuse it does not make would under-report memory.
#include <string>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

Status rotary_embedding(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 4);
  const Shape x = input_shape(node, 0);
  if (x.known && x.rank() != 3 && x.rank() != 4) {
    return fail("input has rank " + std::to_string(x.rank()) + ", expected 3 or 4");
  }
  if (x.known && x.rank() == 3 && node.attr_int_or("rotary_embedding_dim", 0) != 0 &&
      node.attr_int_or("num_heads", 0) <= 0) {
    return fail("3-D input with rotary_embedding_dim needs the 'num_heads' attribute");
  }
  const Shape positions = input_shape(node, 1);
  if (positions.known && positions.rank() != 1 && positions.rank() != 2) {
    return fail("position_ids has rank " + std::to_string(positions.rank()) + ", expected 1 or 2");
  }
  for (std::uint32_t i : {2u, 3u}) {
    const Shape cache = input_shape(node, i);
    if (cache.known && cache.rank() != 2) {
      return fail(std::string(i == 2 ? "cos_cache" : "sin_cache") + " must be 2-D");
    }
  }
  return set_shape(out, 0, node.input_dtype(0), x);
}

constinit const FnShapeRule kRotaryEmbedding{&rotary_embedding};

}  // namespace

void register_rotary_embedding(Registration& reg) {
  reg.shape("RotaryEmbedding", 1, kRotaryEmbedding);
}

}  // namespace cctx::opsets::microsoft
