// Values on floating tensors (expressions.md "Shape-value propagation"): a floating tensor carries
// a value only when every element is an integer its type holds exactly, so the value stays a list
// of integer expressions (Cast of a shape to float, then Range or Div). The rules producing one
// check that here.
#pragma once

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

}  // namespace cctx::opsets::onnx
