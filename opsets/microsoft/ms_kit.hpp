// Helpers of the com.microsoft rules beyond the SDK's kit (cctx/sdk/kit/, which gives fail(),
// require_inputs(), unify() and the rest to every plugin): the domain and a few attribute and
// input readers only this operator set needs.
#pragma once

#include <cctx/sdk/kit.hpp>
#include <cstdint>
#include <string>

namespace cctx::opsets::microsoft {

using namespace cctx::sdk;
using namespace cctx::sdk::kit;  // has_input, fresh, unify, split_evenly, element_bytes, ...

inline constexpr StringRef kDomain("com.microsoft");
/// Unbounded upper end of a fresh symbol's range.
inline constexpr std::int64_t kPosInf = INT64_MAX;

// ---- inputs, outputs, attributes ----------------------------------------------------------------

/// Input i's element type, or `fallback` when the input is absent or its type unknown.
inline std::int32_t dtype_or(const INodeView& node, std::uint32_t i, std::int32_t fallback) {
  if (!has_input(node, i)) return fallback;
  const std::int32_t t = node.input_dtype(i);
  return t == dtype::kUndefined ? fallback : t;
}

/// A required positive integer attribute; false with a message when absent or not positive.
inline bool positive_attr(const INodeView& node, const char* name, std::int64_t* value,
                          std::string* error) {
  if (!node.attr_int(StringRef::from_c_str(name), value)) {
    *error = "missing required attribute '" + std::string(name) + "'";
    return false;
  }
  if (*value > 0) return true;
  *error = "attribute '" + std::string(name) + "' is " + std::to_string(*value) +
           ", expected a positive value";
  return false;
}

// ---- shapes ------------------------------------------------------------------------------------

/// Gemm's output [M, N] of A [M, K] (transA: [K, M]) by B [K, N] (transB: [N, K]), both of rank
/// 2 (FusedGemm, QGemm): sets output 0 of `type`; an unknown operand gives an unknown rank.
inline Status gemm_output(const INodeView& node, IShapeSink& out, const Shape& a, const Shape& b,
                          std::int32_t type) {
  if (!a.known || !b.known) return set_shape(out, 0, type, Shape::unknown());
  if (a.rank() != 2 || b.rank() != 2) return fail("A and B must have rank 2");
  const bool ta = node.attr_int_or("transA", 0) != 0, tb = node.attr_int_or("transB", 0) != 0;
  std::string error;
  Dim inner;
  if (!unify(out, a.dims[ta ? 0 : 1], b.dims[tb ? 1 : 0], &inner, &error)) {
    return fail("inner dimensions differ: " + error);
  }
  return set_shape(out, 0, type, Shape::of({a.dims[ta ? 1 : 0], b.dims[tb ? 0 : 1]}));
}

}  // namespace cctx::opsets::microsoft
