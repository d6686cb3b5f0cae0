// The box of assignments the plan is made and checked over: each symbol the plan reads, from its
// lower bound to its upper bound (lower + a span when it has none).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cctx/expr.hpp"

namespace cctx::plan_detail {

/// The symbols `exprs` read, a symbol with a definition (a size cap, a floating-point size)
/// replaced by the symbols its definition reads, sorted.
std::vector<std::string> plan_symbols(ExprPool& pool, std::span<const Expr> exprs);

/// Each symbol's range: its bounds, the upper one at lower + span when infinite (a user who
/// serves larger sizes says so with --bounds), the lower one at 0 when negative (sizes).
std::vector<std::pair<std::string, Interval>> sample_box(ExprPool& pool,
                                                         const std::vector<std::string>& symbols,
                                                         std::int64_t unbounded_span);

/// An assignment of the box's symbols from one value per symbol.
Assignment assignment_of(const std::vector<std::pair<std::string, Interval>>& box,
                         const std::vector<std::int64_t>& values);

}  // namespace cctx::plan_detail
