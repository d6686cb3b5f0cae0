// Building blocks of the com.microsoft attention family (Attention, PackedAttention,
// MultiHeadAttention, GroupQueryAttention): splitting a hidden size into heads, the past length a
// present key/value extends, and the attention-scores scratch estimate of semantics.md "Peak
// scratch memory".
#pragma once

#include <cstdint>
#include <string>

#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

/// head = hidden /: heads, naming `what` in the message when the split is provably uneven.
inline bool split_heads(IShapeSink& out, Dim hidden, std::int64_t heads, const char* what,
                        Dim* head, std::string* error) {
  if (!hidden.valid()) return true;  // unknown stays unknown
  if (split_evenly(out, hidden, heads, head, error)) return true;
  *error =
      std::string(what) + " does not split into " + std::to_string(heads) + " heads: " + *error;
  return false;
}

/// The scores buffer B * H * Sq * Skv * e (semantics.md "Peak scratch memory") with e the element
/// size of input `elem_input`; any unknown factor makes the estimate fail (reported as a symbol,
/// never 0).
inline Status scores_scratch(const INodeView& node, IScratchSink& out, Dim batch, Dim heads,
                             Dim q_seq, Dim kv_seq, std::uint32_t elem_input) {
  if (!batch.valid() || !heads.valid() || !q_seq.valid() || !kv_seq.valid()) {
    return unsupported("batch, heads or sequence lengths unknown");
  }
  std::int64_t e;
  std::string why;
  if (!input_element_bytes(node, elem_input, &e, &why)) return unsupported(why);
  return out.set_bytes(batch * heads * q_seq * kv_seq * e);
}

/// Keys attended per query when a past cache of `capacity` rows meets `new_len` new keys. Without
/// buffer sharing the present cache is past + new. With sharing the cache is a fixed buffer of
/// max_sequence_length rows: the attended length is `past_sequence_length` (value of input
/// `past_len_input`, when known) + new, else the whole buffer (an upper bound).
inline Dim attended_length(const INodeView& node, Dim capacity, Dim new_len, bool shared,
                           std::uint32_t past_len_input) {
  if (!capacity.valid() || !new_len.valid()) return Dim();
  if (!shared) return capacity + new_len;
  const Dim past_len = has_input(node, past_len_input) ? scalar_value(node, past_len_input) : Dim();
  return past_len.valid() ? past_len + new_len : capacity;
}

}  // namespace cctx::opsets::microsoft
