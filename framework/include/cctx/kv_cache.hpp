// A decoder's KV cache, found in the analysed graph: the past key/value tensors the caller feeds
// in, each paired with the present tensor the run writes. The reports split it out of the
// reserve ("inputs ... (KV cache ...)") and give its size per token (docs/deployers.md, "KV
// cache").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cctx/compute_context.hpp"

namespace cctx {

struct KvCachePair {
  ValueId past = kInvalidId;     ///< a main-graph input (not an initializer)
  ValueId present = kInvalidId;  ///< what the run writes for it
  /// "GroupQueryAttention node 12 (past slot 3)", or "names: past_key_values.0.key ->
  /// present.0.key" for exports that spell attention out.
  std::string found_by;
};

struct KvCache {
  std::vector<KvCachePair> pairs;
  std::optional<Expr> past_bytes;     ///< the past inputs' bytes (the caller holds them)
  std::optional<Expr> present_bytes;  ///< the presents' bytes (the run writes them)
  /// The presents' bytes per position of their sequence axis (the axis where a present is longer
  /// than its past): what one more token of context costs; nullopt when no axis tells.
  std::optional<Expr> bytes_per_token;
  /// Every present is written into its past's buffer, which has room for it
  /// (IInplaceSink::write_into): the run allocates none of them.
  bool presents_in_past = false;
  bool empty() const { return pairs.empty(); }
};

/// The pairs come from the past/present slots of the attention operators (com.microsoft
/// GroupQueryAttention, MultiHeadAttention, Attention; ai.onnx Attention-23), then from the
/// exporters' naming (an input `past...` with an output of the same name with `present`).
/// The formulas are left empty when building them fails (an expression limit): the pairs stay.
KvCache find_kv_cache(const ComputeContext& ctx);

/// The past and present bytes at an assignment; nullopt when the cache has no formulas or they
/// cannot be evaluated there (a symbol the assignment lacks, an overflow).
struct KvFigures {
  std::int64_t past = 0;
  std::int64_t present = 0;
};
std::optional<KvFigures> evaluate_kv_cache(ExprPool& pool, const KvCache& cache,
                                           const Assignment& assignment);

}  // namespace cctx
