// Numeric layouts of the plan's buffers at one assignment (plan_values.cpp): the offsets the plan
// gives, the live-bytes floor no layout can beat, and a best-fit layout made for that assignment
// alone.
#pragma once

#include <cstdint>
#include <vector>

#include "cctx/memory_plan.hpp"

namespace cctx::plan_detail {

/// Per buffer, the buffers alive at some node with it. Linear in the pairs.
using Conflicts = std::vector<std::vector<std::uint32_t>>;
Conflicts conflict_lists(const std::vector<PlannedBuffer>& buffers);

/// Whether two buffers are alive at some node together.
inline bool meet(const PlannedBuffer& a, const PlannedBuffer& b) {
  return a.first <= b.last && b.first <= a.last;
}

/// The largest sum of `sizes` (per buffer) of the buffers alive at one node.
std::int64_t live_floor(const MemoryPlan& plan, const std::vector<std::int64_t>& sizes);

/// Offsets of a greedy-by-size best-fit layout: the largest buffer first, each at the lowest gap
/// between the buffers already placed that are alive with it that holds it best (the classic
/// offline planner for one set of sizes).
std::vector<std::int64_t> best_fit_offsets(const std::vector<std::int64_t>& sizes,
                                           const Conflicts& conflicts);
/// The arena of that layout.
std::int64_t best_fit_arena(const std::vector<std::int64_t>& sizes, const Conflicts& conflicts);

/// The plan's offsets at `sizes`: each buffer's offset the largest end of those below it, in
/// plan.order; and the arena, the largest end of plan.tops.
std::vector<std::int64_t> plan_offsets(const MemoryPlan& plan,
                                       const std::vector<std::int64_t>& sizes, std::int64_t& arena);

}  // namespace cctx::plan_detail
