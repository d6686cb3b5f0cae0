// BeamSearch (ContribOperators.md): text generation that runs its decoder subgraph in a loop. The
// output shapes come from input_ids [B, S] and the values of the scalar inputs max_length (L),
// num_beams (K) and num_return_sequences (R): sequences [B, R, L] (int32), sequences_scores
// [B, R] and scores [L - S, B, K, vocab_size] (the penalties' float type). An unknown value becomes
// a fresh symbol shared by every output; vocab_size is the attribute, else a fresh symbol. The
// subgraphs are not inferred: their shapes do not reach the outputs.
#include <iterator>
#include <string>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

constexpr std::uint32_t kInputIds = 0, kMaxLength = 1, kNumBeams = 3, kNumReturnSequences = 4,
                        kLengthPenalty = 5, kRepetitionPenalty = 6;

/// The value of scalar input i, else a fresh symbol of output `o`, axis `axis` (>= 1).
Dim value_or_fresh(const INodeView& node, IShapeSink& out, std::uint32_t i, std::uint32_t o,
                   std::size_t axis) {
  const Dim v = scalar_value(node, i);
  return v.valid() ? v : fresh(node, out, o, axis);
}

Status beam_search(const INodeView& node, IShapeSink& out) {
  // min_length (input 2) is optional; max_length, num_beams and num_return_sequences are not.
  require_inputs(node, 2);
  for (std::uint32_t i : {kNumBeams, kNumReturnSequences}) {
    if (!has_input(node, i)) return fail("missing required input " + std::to_string(i));
  }
  const Shape ids = input_shape(node, kInputIds);
  if (ids.known && ids.rank() != 2 && ids.rank() != 3) {
    return fail("input_ids has rank " + std::to_string(ids.rank()) +
                ", expected 2 (or 3 for Whisper features)");
  }
  // Whisper feeds audio features [B, F, frames]: the prompt length is then not a dim of input 0.
  const Dim batch = ids.known ? ids.dims[0] : fresh(node, out, 0, 0);
  const Dim prompt = ids.known && ids.rank() == 2 ? ids.dims[1] : Dim();
  const Dim returned = value_or_fresh(node, out, kNumReturnSequences, 0, 1);
  const Dim max_length = value_or_fresh(node, out, kMaxLength, 0, 2);
  check(set_shape(out, 0, dtype::kInt32, Shape::of({batch, returned, max_length})));
  const std::int32_t score_type =
      dtype_or(node, kLengthPenalty, dtype_or(node, kRepetitionPenalty, dtype::kFloat));
  check(set_if_present(node, out, 1, score_type, Shape::of({batch, returned})));
  if (!has_output(node, 2)) return Status::kOk;
  std::int64_t vocab;
  const Dim steps = prompt.valid() ? max_length - prompt : fresh(node, out, 2, 0, 0);
  const Dim beams = value_or_fresh(node, out, kNumBeams, 2, 2);
  const Dim vocab_dim = node.attr_int("vocab_size", &vocab) && vocab > 0 ? node.constant(vocab)
                                                                         : fresh(node, out, 2, 3);
  return set_shape(out, 2, score_type, Shape::of({steps, batch, beams, vocab_dim}));
}

/// max_length, num_beams and num_return_sequences become dims of the outputs, so they hold
/// dimensions (min_length only bounds the generation and stays as inherited).
constexpr PositionalTag kDimInputsAreShape[] = {
    {kMaxLength, Tag::kShape}, {kNumBeams, Tag::kShape}, {kNumReturnSequences, Tag::kShape}};

constinit const FnShapeRule kBeamSearch{&beam_search};

}  // namespace

void register_beam_search(Registration& reg) {
  reg.shape("BeamSearch", 1, kBeamSearch);
  TagTraits traits;
  traits.positional = Span<PositionalTag>{kDimInputsAreShape, std::size(kDimInputsAreShape)};
  reg.tags("BeamSearch", traits);
}

}  // namespace cctx::opsets::microsoft
