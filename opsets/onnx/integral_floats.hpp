// Values on floating tensors (expressions.md "Shape-value propagation"): a floating tensor carries
// a value only when every element is an integer its type holds exactly, so the value stays a list
// of integer expressions (Cast of a shape to float, then Range or Div). The rules producing one
// check that here, and read small floating constants whose elements are exact integers (the
// 32.0 of `ceil(h / 32.0) * 32`) as such values.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

/// 2^p for a floating type with a p-bit significand: every integer of magnitude at most this is
/// exact in the type. 0 for the other types (integers, 8-bit and 4-bit floats, unknown codes).
inline std::int64_t exact_integer_limit(std::int32_t dtype) {
  switch (dtype) {
    case dtype::kFloat:
      return std::int64_t{1} << 24;
    case dtype::kDouble:
      return std::int64_t{1} << 53;
    case dtype::kFloat16:
      return std::int64_t{1} << 11;
    case dtype::kBfloat16:
      return std::int64_t{1} << 8;
    default:
      return 0;
  }
}

/// True when floating type `dtype` holds every element of `values` exactly. A concrete element
/// is checked; a symbolic one (a dim) is assumed within the exact range, recorded as `le`
/// constraints, unless its bounds prove it within, or prove it outside (then false).
inline bool exact_in_float(IShapeSink& out, std::int32_t dtype, const std::vector<Dim>& values) {
  const std::int64_t limit = exact_integer_limit(dtype);
  if (limit == 0) return false;
  for (Dim v : values) {
    std::int64_t lo, hi;
    v.bounds(&lo, &hi);
    if (hi < -limit || lo > limit) return false;
  }
  for (Dim v : values) {
    std::int64_t lo, hi;
    v.bounds(&lo, &hi);
    if (hi > limit) out.constraint(ConstraintKind::kLe, v.handle(), v.lift(limit).handle(), 0);
    if (lo < -limit) out.constraint(ConstraintKind::kLe, v.lift(-limit).handle(), v.handle(), 0);
  }
  return true;
}

/// Input i's value as integers: its known value, or, for a small floating constant (initializer
/// or Constant) whose every element is an integer its type holds exactly, those integers. A
/// constant with any other element (0.5, NaN, 4096.0 in float16) gives false.
inline bool exact_input_values(const INodeView& node, std::uint32_t i, std::vector<Dim>* values) {
  if (input_values(node, i, values)) return true;
  Span<double> floats;
  if (!has_input(node, i) || !node.input_float_values(i, &floats)) return false;
  const auto limit = static_cast<double>(exact_integer_limit(node.input_dtype(i)));
  values->clear();
  for (double f : floats) {
    if (!(std::fabs(f) <= limit) || f != std::floor(f)) return false;  // NaN fails the first
    values->push_back(node.constant(static_cast<std::int64_t>(f)));
  }
  return true;
}

/// The integer square root of `v` when `v` is a concrete perfect square; false otherwise (a
/// symbolic `v` included: its square root is not an integer expression here).
inline bool exact_sqrt(Dim v, Dim* out) {
  std::int64_t x;
  if (!v.get_int(&x) || x < 0) return false;
  auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(x)));
  while (r > 0 && r * r > x) --r;
  while ((r + 1) * (r + 1) <= x) ++r;
  if (r * r != x) return false;
  *out = v.lift(r);
  return true;
}

}  // namespace cctx::opsets::onnx
