// What more than one room of the indexing family needs (gather_scatter.cpp, slice.cpp,
// expand_tile_pad.cpp, data_dependent.cpp, shape_preserving.cpp): the element cap of propagated
// values, concrete dims and counts, and the dim and axis checks their shape rules share. A helper
// that one room alone uses stays in that room.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

/// Largest element count of a propagated value (expressions.md, Shape-value propagation).
inline constexpr std::int64_t kMaxValueElements = 64;

inline std::int64_t upper_bound(Dim d) {
  std::int64_t lo, hi;
  d.bounds(&lo, &hi);
  return hi < 0 ? 0 : hi;
}

/// The dims as integers when every one is concrete.
inline bool concrete_dims(const std::vector<Dim>& dims, std::vector<std::int64_t>* out) {
  out->clear();
  for (Dim d : dims) {
    std::int64_t v;
    if (!d.get_int(&v)) return false;
    out->push_back(v);
  }
  return true;
}

/// Product of concrete dims, or -1 when it exceeds `cap` (so callers never overflow).
inline std::int64_t capped_count(const std::vector<std::int64_t>& dims, std::int64_t cap) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return -1;
    if (d == 0) return 0;
  }
  for (std::int64_t d : dims) {
    if (n > cap / d) return -1;
    n *= d;
  }
  return n;
}

/// Records `le(a, b)` unless it is proven.
inline void assume_le(IShapeSink& out, Dim a, Dim b) {
  if (!b.provably_ge(a)) out.constraint(ConstraintKind::kLe, a.handle(), b.handle(), 0);
}

/// Reads axis `attr` (default `fallback`) normalised against `rank`; fails on out-of-range.
inline std::int64_t read_axis(const INodeView& node, const char* attr, std::int64_t fallback,
                              std::int64_t rank) {
  const std::int64_t a = node.attr_int_or(StringRef::from_c_str(attr), fallback);
  std::int64_t axis = 0;
  if (!normalize_axis(a, rank, &axis))
    fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
  return axis;
}

/// Normalises a list of axes against `rank`; fails on out-of-range or repeated axes.
inline void normalize_axes(std::vector<std::int64_t>* axes, std::int64_t rank) {
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (std::int64_t& a : *axes) {
    std::int64_t n;
    if (!normalize_axis(a, rank, &n))
      fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    if (seen[static_cast<std::size_t>(n)]) fail("axis " + std::to_string(a) + " is repeated");
    seen[static_cast<std::size_t>(n)] = true;
    a = n;
  }
}

}  // namespace cctx::opsets::onnx
