// Worst-case evaluation of data-dependent sizes: a symbol such as NonZero_3_o0_d1 that no
// assignment gives is evaluated at the upper bound its producer's rule stated (DimBound).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cctx/compute_context.hpp"

namespace cctx {

/// A data-dependent symbol an assignment was completed with: the value of its bound there.
struct BoundedSymbol {
  std::string symbol;
  Expr upper;  ///< the producer's bound (ComputeContext::dim_bounds)
  std::int64_t value = 0;
};

/// The symbols the nodes' totals and scratch and the peak depend on, a size cap's definition
/// expanded (a cap needs no value: evaluation expands it).
std::set<std::string> symbols_to_evaluate(const ComputeContext& ctx);

/// Adds to `assignment` every symbol of `needed` it lacks that has an upper bound, at the bound's
/// value (a bound in terms of another data-dependent symbol takes that one's bound first, so a
/// NonZero of a NonZero's output is bounded too). Returns what it added, in dim_bounds() order.
/// A symbol without a bound, or whose bound needs a symbol nobody gave, stays missing. Throws
/// ExprError when a bound's evaluation overflows.
std::vector<BoundedSymbol> assign_upper_bounds(const ComputeContext& ctx,
                                               const std::set<std::string>& needed,
                                               Assignment& assignment);

/// "NonZero_3_o0_d1 <= 3*N = 12, TopK_5_o0_d1 <= ... = 4" (empty when none).
std::string upper_bounds_text(ExprPool& pool, const std::vector<BoundedSymbol>& bounded);

}  // namespace cctx
