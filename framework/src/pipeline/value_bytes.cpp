// Byte sizes of values (semantics.md "Element sizes").
#include "cctx/dtypes.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/shape_types.hpp"
#include "util/hash_mix.hpp"

namespace cctx {

namespace {
/// Bytes of a tensor of `bits`-bit elements (bits > 0) and dims `dims`. A concrete size is
/// computed as bytes, never as bits or as count + k first: anything up to 2^63 - 1 bytes fits.
Expr tensor_bytes(ExprPool& pool, std::uint32_t bits, std::span<const Expr> dims) {
  Expr count = pool.product(dims);
  const ElementPacking packing = element_packing(bits);
  if (packing.kind == ElementPacking::Kind::kWholeBytes) {
    return pool.mul(count, pool.integer(packing.factor));
  }
  if (packing.kind == ElementPacking::Kind::kPerByte) {
    // (count + per_byte - 1) // per_byte, which CeilToInt builds for a symbolic count and folds
    // without the sum for a concrete one.
    return pool.ceil_div(count, pool.integer(packing.factor));
  }
  if (const std::optional<std::int64_t> n = pool.as_int(count)) {
    __extension__ typedef unsigned __int128 Wide;
    const Wide bytes = (static_cast<Wide>(*n) * bits + 7) / 8;
    if (bytes > static_cast<Wide>(kPosInf)) {
      throw ExprError(ExprError::Kind::kOverflow, "integer overflow in " + std::to_string(*n) +
                                                      " elements of " + std::to_string(bits) +
                                                      " bits");
    }
    return pool.integer(static_cast<std::int64_t>(bytes));
  }
  return pool.floor_div(pool.add(pool.mul(count, pool.integer(bits)), pool.integer(7)),
                        pool.integer(8));
}

/// tensor_bytes of value v, whose overflow names the node that makes v (or v itself, a graph
/// input), v, its type and its dims: a bare "integer overflow" would name none of them.
Expr value_tensor_bytes(const Analysis& s, const ShapeResult& shapes, ValueId v,
                        std::uint32_t bits) {
  const ValueShape& shape = shapes.values[v];
  try {
    return tensor_bytes(*s.pool, bits, shape.dims);
  } catch (const ExprError& e) {
    if (e.kind() != ExprError::Kind::kOverflow) throw;
    const ValueEntry& entry = s.graph->value(v);
    const std::string name(entry.name);
    std::string dims;
    for (const Expr d : shape.dims) {
      if (dims.size() > 200) {
        dims += ", ...";
        break;
      }
      dims += (dims.empty() ? "" : ", ") + s.pool->print(d);
    }
    const std::string what = dtype_name(shape.dtype, s.registry.get()) + ", dims [" + dims + "]";
    throw ExprError(
        ExprError::Kind::kOverflow,
        entry.producer != kInvalidId
            ? describe_node(*s.graph, entry.producer) +
                  ": integer overflow computing the byte size of '" + name + "' (" + what + ")"
            : "value '" + name + "': integer overflow computing its byte size (" + what + ")");
  }
}
}  // namespace

std::optional<Expr> compute_value_bytes(const Analysis& s, const ShapeResult& shapes, ValueId v) {
  const ValueShape& shape = shapes.values[v];
  if (shape.kind != ValueKind::kTensor) return std::nullopt;
  const std::uint32_t bits = dtype_bits(shape.dtype, s.registry.get());
  ExprPool& pool = *s.pool;
  // A tensor of unknown rank (an op nothing knows) is counted as an unknown number of bytes,
  // even when its element type is unknown too: a silent 0 would hide it from the totals.
  // An unknown rank with a known element count (an If whose branches differ in rank only).
  if (!shape.known_rank && shape.element_count && bits != 0) {
    return tensor_bytes(pool, bits, std::span<const Expr>(&*shape.element_count, 1));
  }
  if (!shape.known_rank && (bits != 0 || shape.dtype == 0)) {
    const ValueEntry& entry = s.graph->value(v);
    std::string why = "unknown rank";
    if (const RuleFailure* f =
            entry.producer == kInvalidId ? nullptr : s.shape_failure(entry.producer)) {
      why += ": the shape rule of " + f->rule + " failed at " +
             describe_node(*s.graph, entry.producer) + ": " + f->message;
    }
    return pool.fresh_symbol("bytes_" + sanitize_symbol(entry.name), Interval{0, kPosInf},
                             "byte size of '" + std::string(entry.name) + "' (" + why + ")");
  }
  if (bits == 0) return std::nullopt;
  return value_tensor_bytes(s, shapes, v, bits);
}

void rethrow_at_node(const Analysis& s, NodeId n, const ExprError& e, const std::string& what) {
  const std::string message = e.what();
  if (e.kind() != ExprError::Kind::kOverflow || message.starts_with("node ") ||
      message.starts_with("value '")) {
    throw e;
  }
  throw ExprError(ExprError::Kind::kOverflow,
                  describe_node(*s.graph, n) + ": integer overflow: " + what);
}

bool ByteSizes::same_key(std::uint32_t at, std::uint32_t bits,
                         const std::vector<Expr>& dims) const {
  if (keys_[at] != dims.size() || keys_[at + 1] != bits) return false;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (keys_[at + 2 + k] != dims[k].id) return false;
  }
  return true;
}

std::optional<Expr> ByteSizes::operator()(ValueId v) {
  const ValueShape& shape = shapes_.values[v];
  if (shape.kind != ValueKind::kTensor || !shape.known_rank) {
    return compute_value_bytes(a_, shapes_, v);
  }
  const std::uint32_t bits = dtype_bits(shape.dtype, a_.registry.get());
  if (bits == 0) return std::nullopt;
  std::uint64_t h = (shape.dims.size() ^ (std::uint64_t{bits} << 32)) * kGoldenMul;
  for (const Expr d : shape.dims) h = (h ^ d.id) * kGoldenMul;
  const auto hash = static_cast<std::uint32_t>(mix64(h) >> 32);
  const HashIndex::Probe probe = index_.probe(
      hash, [&](std::uint32_t k) { return same_key(entries_[k].key_at, bits, shape.dims); });
  if (probe.index != HashIndex::kAbsent) return entries_[probe.index].bytes;
  // A new (bits, dims): its product once, then found by its handles.
  const Expr bytes = value_tensor_bytes(a_, shapes_, v, bits);
  index_.insert(probe, hash, static_cast<std::uint32_t>(entries_.size()));
  entries_.push_back(Entry{static_cast<std::uint32_t>(keys_.size()), bytes});
  keys_.push_back(static_cast<std::uint32_t>(shape.dims.size()));
  keys_.push_back(bits);
  for (const Expr d : shape.dims) keys_.push_back(d.id);
  return bytes;
}

}  // namespace cctx
