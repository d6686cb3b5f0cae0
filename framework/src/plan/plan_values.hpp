// Numeric layouts of the plan's buffers at one assignment (plan_values.cpp): the offsets the plan
// gives, the live-bytes floor no layout can beat, and a best-fit layout made for that assignment
// alone.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cctx/memory_plan.hpp"

namespace cctx::plan_detail {

/// Per buffer, the buffers alive at some node with it. Linear in the pairs. With `among`, only
/// pairs of buffers it marks (the others get empty lists).
using Conflicts = std::vector<std::vector<std::uint32_t>>;
Conflicts conflict_lists(const std::vector<PlannedBuffer>& buffers,
                         const std::vector<bool>* among = nullptr);

/// Per buffer, how many others are alive with it at some node (without listing them:
/// O(n log n)).
std::vector<std::size_t> conflict_counts(const std::vector<PlannedBuffer>& buffers);

/// The pairs a best-fit layout may list before it is left out (a graph whose buffers all meet:
/// 20M pairs take 160 MB).
inline constexpr std::size_t kBestFitPairs = 20'000'000;
/// The buffers' conflict lists when they hold at most kBestFitPairs pairs; empty otherwise.
std::optional<Conflicts> conflicts_for_best_fit(const std::vector<PlannedBuffer>& buffers);

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

/// The plan at one assignment from its buffers' sizes there: the offsets, the arena, the floor,
/// the no-reuse sum, and the best-fit arena when `best_fit` lists the pairs.
PlanValues values_at(const MemoryPlan& plan, Assignment assignment, std::vector<std::int64_t> sizes,
                     const Conflicts* best_fit);

/// The plan's offsets at `sizes`: each buffer's offset the largest end of those below it, in
/// plan.order; and the arena, the largest end of plan.tops.
std::vector<std::int64_t> plan_offsets(const MemoryPlan& plan,
                                       const std::vector<std::int64_t>& sizes, std::int64_t& arena);

}  // namespace cctx::plan_detail
