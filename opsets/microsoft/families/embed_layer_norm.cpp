// EmbedLayerNormalization (ContribOperators.md): BERT's embedding lookups (word, position,
// segment) summed and layer-normalized. input_ids [B, S] -> output [B, S, H] of the embeddings'
// type, with H from word_embedding [V, H]; mask_index [B] (int32, input_ids' type); embedding_sum
// [B, S, H] (the pre-normalization sum, of the embeddings' type).
#include <string>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

/// A 2-D table [rows, H] (embeddings) or 1-D [H] (gamma, beta) must have the hidden size H.
bool check_hidden(const INodeView& node, IShapeSink& out, std::uint32_t i, std::size_t rank,
                  const char* name, Dim* hidden, std::string* error) {
  if (!has_input(node, i)) return true;
  const Shape s = input_shape(node, i);
  if (!s.known) return true;
  if (s.rank() != rank) {
    *error = std::string(name) + " has rank " + std::to_string(s.rank()) + ", expected " +
             std::to_string(rank);
    return false;
  }
  return unify_into(out, hidden, s.dims.back(), std::string(name) + " hidden sizes", error);
}

Status embed_layer_norm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  for (std::uint32_t i : {2u, 3u, 5u, 6u}) {
    if (!has_input(node, i)) return fail("missing required input " + std::to_string(i));
  }
  Shape ids = input_shape(node, 0);
  std::string error;
  if (ids.known && ids.rank() != 2) {
    return fail("input_ids has rank " + std::to_string(ids.rank()) + ", expected 2");
  }
  if (ids.known && has_input(node, 1)) {
    const Shape segments = input_shape(node, 1);
    if (segments.known) {
      if (segments.rank() != 2) return fail("segment_ids must have input_ids' shape");
      for (std::size_t a = 0; a < 2; ++a) {
        if (!unify_into(out, &ids.dims[a], segments.dims[a], "input_ids and segment_ids dims",
                        &error)) {
          return fail(error);
        }
      }
    }
  }
  Dim hidden;
  if (!check_hidden(node, out, 2, 2, "word_embedding", &hidden, &error) ||
      !check_hidden(node, out, 3, 2, "position_embedding", &hidden, &error) ||
      !check_hidden(node, out, 4, 2, "segment_embedding", &hidden, &error) ||
      !check_hidden(node, out, 5, 1, "gamma", &hidden, &error) ||
      !check_hidden(node, out, 6, 1, "beta", &hidden, &error)) {
    return fail(error);
  }
  const std::int32_t type = node.input_dtype(2);
  const std::int32_t ids_type = dtype_or(node, 0, dtype::kInt32);
  const Dim batch = ids.known ? ids.dims[0] : fresh(node, out, 0, 0);
  const Dim seq = ids.known ? ids.dims[1] : fresh(node, out, 0, 1);
  if (!hidden.valid()) hidden = fresh(node, out, 0, 2);
  const Shape embedded = Shape::of({batch, seq, hidden});
  check(set_shape(out, 0, type, embedded));
  check(set_if_present(node, out, 1, ids_type, Shape::of({batch})));
  return set_if_present(node, out, 2, type, embedded);
}

constinit const FnShapeRule kEmbedLayerNorm{&embed_layer_norm};

}  // namespace

void register_embed_layer_norm(Registration& reg) {
  reg.shape("EmbedLayerNormalization", 1, kEmbedLayerNorm);
}

}  // namespace cctx::opsets::microsoft
