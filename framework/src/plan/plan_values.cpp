// The plan at one assignment, with the two figures it is judged against: the live-bytes floor and
// a best-fit layout made for that assignment alone.
#include "plan/plan_values.hpp"

#include <algorithm>
#include <numeric>

#include "cctx/memory_plan.hpp"

namespace cctx {

namespace plan_detail {

Conflicts conflict_lists(const std::vector<PlannedBuffer>& buffers,
                         const std::vector<bool>* among) {
  // Buffers come by first node: each meets the earlier ones still alive at its first node.
  Conflicts out(buffers.size());
  std::vector<std::uint32_t> alive;
  for (std::uint32_t b = 0; b < buffers.size(); ++b) {
    if (among != nullptr && !(*among)[b]) continue;
    std::erase_if(alive, [&](std::uint32_t a) { return buffers[a].last < buffers[b].first; });
    for (const std::uint32_t a : alive) {
      out[a].push_back(b);
      out[b].push_back(a);
    }
    alive.push_back(b);
  }
  return out;
}

std::vector<std::size_t> conflict_counts(const std::vector<PlannedBuffer>& buffers) {
  // Those alive with b: all but the ones that end before b starts or start after b ends.
  std::vector<NodeId> firsts, lasts;
  for (const PlannedBuffer& b : buffers) {
    firsts.push_back(b.first);
    lasts.push_back(b.last);
  }
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  std::vector<std::size_t> out;
  out.reserve(buffers.size());
  for (const PlannedBuffer& b : buffers) {
    const auto ended = static_cast<std::size_t>(
        std::lower_bound(lasts.begin(), lasts.end(), b.first) - lasts.begin());
    const auto later = static_cast<std::size_t>(
        firsts.end() - std::upper_bound(firsts.begin(), firsts.end(), b.last));
    out.push_back(buffers.size() - ended - later - 1);
  }
  return out;
}

std::optional<Conflicts> conflicts_for_best_fit(const std::vector<PlannedBuffer>& buffers) {
  std::size_t pairs = 0;
  for (const std::size_t c : conflict_counts(buffers)) pairs += c;
  if (pairs / 2 > kBestFitPairs) return std::nullopt;
  return conflict_lists(buffers);
}

std::int64_t live_floor(const MemoryPlan& plan, const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> change(plan.node_count + 1, 0);
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    change[plan.buffers[b].first] += sizes[b];
    change[plan.buffers[b].last + 1] -= sizes[b];
  }
  std::int64_t live = 0, floor = 0;
  for (std::size_t n = 0; n < plan.node_count; ++n) {
    live += change[n];
    floor = std::max(floor, live);
  }
  return floor;
}

std::vector<std::int64_t> best_fit_offsets(const std::vector<std::int64_t>& sizes,
                                           const Conflicts& conflicts) {
  std::vector<std::uint32_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return sizes[a] > sizes[b]; });
  std::vector<std::int64_t> offset(sizes.size(), 0);
  std::vector<bool> placed(sizes.size(), false);
  std::vector<std::pair<std::int64_t, std::int64_t>> taken;  // [begin, end) of placed neighbours
  for (const std::uint32_t b : order) {
    taken.clear();
    for (const std::uint32_t o : conflicts[b]) {
      if (placed[o] && sizes[o] > 0) taken.emplace_back(offset[o], offset[o] + sizes[o]);
    }
    std::sort(taken.begin(), taken.end());
    std::int64_t at = 0, best = -1, best_gap = 0;
    for (const auto& [begin, end] : taken) {
      if (begin > at) {
        const std::int64_t gap = begin - at;
        if (gap >= sizes[b] && (best < 0 || gap < best_gap)) {
          best = at;
          best_gap = gap;
        }
      }
      at = std::max(at, end);
    }
    offset[b] = best >= 0 ? best : at;
    placed[b] = true;
  }
  return offset;
}

std::int64_t best_fit_arena(const std::vector<std::int64_t>& sizes, const Conflicts& conflicts) {
  const std::vector<std::int64_t> offset = best_fit_offsets(sizes, conflicts);
  std::int64_t arena = 0;
  for (std::size_t b = 0; b < sizes.size(); ++b) arena = std::max(arena, offset[b] + sizes[b]);
  return arena;
}

std::vector<std::int64_t> plan_offsets(const MemoryPlan& plan,
                                       const std::vector<std::int64_t>& sizes,
                                       std::int64_t& arena) {
  std::vector<std::int64_t> offset(plan.buffers.size(), 0);
  for (const std::uint32_t b : plan.order) {
    std::int64_t at = 0;
    for (const std::uint32_t j : plan.buffers[b].below) at = std::max(at, offset[j] + sizes[j]);
    offset[b] = at;
  }
  arena = 0;
  for (const std::uint32_t t : plan.tops) arena = std::max(arena, offset[t] + sizes[t]);
  return offset;
}

PlanValues values_at(const MemoryPlan& plan, Assignment assignment, std::vector<std::int64_t> sizes,
                     const Conflicts* best_fit) {
  PlanValues v;
  v.assignment = std::move(assignment);
  v.sizes = std::move(sizes);
  v.offsets = plan_offsets(plan, v.sizes, v.arena);
  v.floor = live_floor(plan, v.sizes);
  v.no_reuse = std::accumulate(v.sizes.begin(), v.sizes.end(), std::int64_t{0});
  if (best_fit != nullptr) v.best_fit = best_fit_arena(v.sizes, *best_fit);
  return v;
}

}  // namespace plan_detail

std::vector<PlanValues> evaluate_plan(const ComputeContext& ctx, const MemoryPlan& plan,
                                      const std::vector<Assignment>& assignments, bool best_fit) {
  std::vector<Expr> sizes;
  sizes.reserve(plan.buffers.size());
  for (const PlannedBuffer& b : plan.buffers) sizes.push_back(b.size);
  std::optional<plan_detail::Conflicts> conflicts;
  if (best_fit && !assignments.empty())
    conflicts = plan_detail::conflicts_for_best_fit(plan.buffers);
  std::vector<PlanValues> out;
  for (const Assignment& assignment : assignments) {
    out.push_back(plan_detail::values_at(plan, assignment, ctx.pool().eval_all(sizes, assignment),
                                         conflicts ? &*conflicts : nullptr));
  }
  return out;
}

}  // namespace cctx
