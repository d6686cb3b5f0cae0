// find_kv_cache (kv_cache.hpp).
#include "cctx/kv_cache.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include "cctx/dtypes.hpp"
#include "cctx/graph.hpp"

namespace cctx {

namespace {

/// An attention operator's past inputs and the outputs that hold their present.
struct CacheSlots {
  std::string_view domain;
  std::string_view op;
  std::int64_t min_opset;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> past_to_present;
};

const std::vector<CacheSlots>& cache_slots() {
  static const std::vector<CacheSlots> kSlots = {
      {"com.microsoft", "GroupQueryAttention", 1, {{3, 1}, {4, 2}}},
      {"com.microsoft", "MultiHeadAttention", 1, {{6, 1}, {7, 2}}},
      {"com.microsoft", "Attention", 1, {{4, 1}}},
      {"", "Attention", 23, {{4, 1}, {5, 2}}},
  };
  return kSlots;
}

/// The output name an exporter gives the present of `past`: past_key_values.0.key ->
/// present.0.key (Hugging Face Optimum, onnxruntime-genai), past_key_0 -> present_key_0.
std::vector<std::string> present_names(std::string_view past) {
  std::vector<std::string> names;
  for (const std::string_view from : {"past_key_values", "past"}) {
    const std::size_t at = past.find(from);
    if (at == std::string_view::npos) continue;
    std::string name(past);
    name.replace(at, from.size(), "present");
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

namespace {
void add_formulas(const ComputeContext& ctx, KvCache& cache);
}  // namespace

KvCache find_kv_cache(const ComputeContext& ctx) {
  KvCache cache;
  const GraphView& g = ctx.graph();
  std::set<ValueId> paired;
  auto add = [&](ValueId past, ValueId present, std::string found_by) {
    if (past == kInvalidId || present == kInvalidId || !paired.insert(past).second) return;
    cache.pairs.push_back({past, present, std::move(found_by)});
  };
  auto caller_input = [&](ValueId v) {
    return v != kInvalidId && g.value(v).graph == 0 && g.value(v).is_input() &&
           !g.value(v).is_initializer();
  };
  for (const NodeId n : g.main().nodes) {
    const NodeEntry& node = g.node(n);
    for (const CacheSlots& s : cache_slots()) {
      if (node.domain != s.domain || node.op_type != s.op || node.opset < s.min_opset) continue;
      for (const auto& [in, out] : s.past_to_present) {
        if (in >= node.inputs.size() || out >= node.outputs.size()) continue;
        const ValueId past = node.inputs[in];
        if (!caller_input(past)) continue;
        add(past, node.outputs[out],
            std::string(node.op_type) + " node " + std::to_string(n) + " (past slot " +
                std::to_string(in) + ")");
      }
    }
  }
  for (const ValueId v : g.main().inputs) {
    if (!caller_input(v) || paired.count(v) != 0) continue;
    for (const std::string& name : present_names(g.value(v).name)) {
      const ValueId present = g.find(name);
      if (present == kInvalidId || !g.value(present).is_output()) continue;
      add(v, present, "names: " + std::string(g.value(v).name) + " -> " + name);
      break;
    }
  }
  if (cache.pairs.empty()) return cache;
  cache.presents_in_past = std::all_of(cache.pairs.begin(), cache.pairs.end(), [&](const auto& p) {
    const NodeId n = g.value(p.present).producer;
    if (n == kInvalidId || n >= ctx.node_count()) return false;
    const NodeEntry& node = g.node(n);
    for (const InplaceDecision& d : ctx.inplace(n)) {
      if (d.mode == ReuseMode::kWriteInto && node.outputs[d.output] == p.present &&
          node.inputs[d.input] == p.past) {
        return true;
      }
    }
    return false;
  });
  try {
    add_formulas(ctx, cache);
  } catch (const ExprError&) {
    // An expression limit reached while summing: the pairs are still worth reporting.
    cache.past_bytes.reset();
    cache.present_bytes.reset();
    cache.bytes_per_token.reset();
  }
  return cache;
}

std::optional<KvFigures> evaluate_kv_cache(ExprPool& pool, const KvCache& cache,
                                           const Assignment& assignment) {
  if (!cache.past_bytes || !cache.present_bytes) return std::nullopt;
  try {
    return KvFigures{pool.eval(*cache.past_bytes, assignment),
                     pool.eval(*cache.present_bytes, assignment)};
  } catch (const ExprError&) {
    return std::nullopt;
  }
}

namespace {

/// The pairs' formulas: past and present bytes, bytes per token of the sequence axis.
void add_formulas(const ComputeContext& ctx, KvCache& cache) {
  ExprPool& pool = ctx.pool();
  std::vector<Expr> past, present, per_token;
  bool sized = true, per_token_known = true;
  for (const KvCachePair& p : cache.pairs) {
    const std::optional<Expr> a = ctx.value_bytes(p.past), b = ctx.value_bytes(p.present);
    if (!a || !b) {
      sized = false;
      break;
    }
    past.push_back(*a);
    present.push_back(*b);
    // The sequence axis: the one where the present is longer than the past (P vs P + S).
    const ValueShape& ps = ctx.shape(p.past);
    const ValueShape& qs = ctx.shape(p.present);
    std::optional<std::size_t> axis;
    if (ps.known_rank && qs.known_rank && ps.dims.size() == qs.dims.size()) {
      for (std::size_t k = 0; k < qs.dims.size(); ++k) {
        if (ps.dims[k] != qs.dims[k]) {
          axis = axis ? std::optional<std::size_t>() : k;  // more than one: not told
          if (!axis) break;
        }
      }
    }
    // Same shapes (a shared past/present buffer of the maximum length): the cache layouts of the
    // attention operators and the exporters are [batch, heads, length, head size].
    if (!axis && ps.known_rank && qs.known_rank && ps.dims == qs.dims && qs.dims.size() == 4) {
      axis = 2;
    }
    if (!axis) {
      per_token_known = false;
      continue;
    }
    std::vector<Expr> others;
    for (std::size_t k = 0; k < qs.dims.size(); ++k) {
      if (k != *axis) others.push_back(qs.dims[k]);
    }
    // Bits per element from the type: a 4-bit cache (two values a byte) counts half a byte.
    const std::uint32_t bits = dtype_bits(qs.dtype, &ctx.registry());
    if (bits == 0) {
      per_token_known = false;
      continue;
    }
    const Expr row = pool.product(others);
    per_token.push_back(bits % 8 == 0
                            ? pool.mul(row, pool.integer(bits / 8))
                            : pool.ceil_div(pool.mul(row, pool.integer(bits)), pool.integer(8)));
  }
  if (sized) {
    cache.past_bytes = pool.sum(past);
    cache.present_bytes = pool.sum(present);
    if (per_token_known && !per_token.empty()) cache.bytes_per_token = pool.sum(per_token);
  }
}

}  // namespace

}  // namespace cctx
