// Byte sizes of values (semantics.md 4).
#include "cctx/hash_mix.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/shape_types.hpp"

namespace cctx {

namespace {
/// Bytes of a tensor of `bits`-bit elements (bits > 0) and dims `dims`.
Expr tensor_bytes(ExprPool& pool, std::uint32_t bits, std::span<const Expr> dims) {
  Expr count = pool.product(dims);
  if (bits % 8 == 0) return pool.mul(count, pool.integer(bits / 8));
  if (bits < 8 && 8 % bits == 0) {
    // Sub-byte types pack per tensor, rounded up.
    const std::int64_t per_byte = 8 / bits;
    return pool.floor_div(pool.add(count, pool.integer(per_byte - 1)), pool.integer(per_byte));
  }
  // Other widths (plugin-registered): round the bit count up to bytes.
  return pool.floor_div(pool.add(pool.mul(count, pool.integer(bits)), pool.integer(7)),
                        pool.integer(8));
}
}  // namespace

std::optional<Expr> compute_value_bytes(ComputeContext::State& s, ValueId v) {
  const ValueShape& shape = s.shapes[v];
  if (shape.kind != ValueKind::kTensor) return std::nullopt;
  const std::uint32_t bits = dtype_bits(shape.dtype, s.registry.get());
  ExprPool& pool = *s.pool;
  // A tensor of unknown rank (an op nothing knows) is counted as an unknown number of bytes,
  // even when its element type is unknown too: a silent 0 would hide it from the totals.
  if (!shape.known_rank && (bits != 0 || shape.dtype == 0)) {
    return pool.fresh_symbol(
        "bytes_" + sanitize_symbol(s.graph->value(v).name), Interval{0, kPosInf},
        "byte size of '" + std::string(s.graph->value(v).name) + "' (unknown rank)");
  }
  if (bits == 0) return std::nullopt;
  return tensor_bytes(pool, bits, shape.dims);
}

std::size_t ByteSizes::KeyHash::operator()(const std::vector<std::uint32_t>& key) const noexcept {
  std::uint64_t h = key.size();
  for (const std::uint32_t word : key) h = mix64(h ^ word);
  return static_cast<std::size_t>(h);
}

std::optional<Expr> ByteSizes::operator()(ValueId v) {
  const ValueShape& shape = s_.shapes[v];
  if (shape.kind != ValueKind::kTensor || !shape.known_rank) return compute_value_bytes(s_, v);
  key_.assign(1, dtype_bits(shape.dtype, s_.registry.get()));
  if (key_[0] == 0) return std::nullopt;
  for (const Expr d : shape.dims) key_.push_back(d.id);
  if (const auto it = known_.find(key_); it != known_.end()) return it->second;
  return known_.emplace(key_, tensor_bytes(*s_.pool, key_[0], shape.dims)).first->second;
}

}  // namespace cctx
