// The planner of docs/design/memory-plan.md. A plan for every size from a layout for one: the
// buffers are laid out at a few example assignments by a best-fit planner, and the layout that
// generalises best fixes, for every two buffers alive together, which lies below the other. A
// buffer's offset is then the largest end (offset + size) of the buffers below it, so the plan
// holds at every assignment by construction: of two buffers alive together the upper one starts
// at or above the lower one's end, whatever the sizes. At the example assignment the offsets are
// at most the best-fit layout's (each is a max over ends the layout also stacked), and as sizes
// change the buffers settle onto what lies below them.
#include "cctx/memory_plan.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <random>

#include "plan/plan_buffers.hpp"
#include "plan/plan_values.hpp"
#include "plan/sample_box.hpp"

namespace cctx {

using plan_detail::kNone;

namespace {

/// The buffers of the plan before placement: one per in-place group of intermediates written by
/// the main graph, and one per node with scratch.
std::vector<PlannedBuffer> collect_buffers(const ComputeContext& ctx, const PlanOptions& options) {
  ExprPool& pool = ctx.pool();
  const GraphView& g = ctx.graph();
  plan_detail::ValueLives lives = plan_detail::value_lives(ctx);
  std::vector<PlannedBuffer> buffers;
  std::vector<std::uint32_t> buffer_of_group(g.values().size(), kNone);
  std::vector<std::vector<Expr>> member_bytes;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    for (const ValueId v : g.node(n).outputs) {
      if (v == kNoValue || lives.first[v] != n) continue;
      const std::optional<Expr> bytes = ctx.value_bytes(v);
      if (!bytes) continue;  // unsized (a sequence, an optional): no tensor buffer to place
      const std::uint32_t root = plan_detail::group_of(lives, v);
      if (lives.external[root]) continue;  // the memory of a graph input it took over
      std::uint32_t& b = buffer_of_group[root];
      if (b == kNone) {
        b = static_cast<std::uint32_t>(buffers.size());
        PlannedBuffer& p = buffers.emplace_back();
        p.kind = PlannedBuffer::Kind::kTensor;
        p.first = n;
        p.last = lives.last[v];
        member_bytes.emplace_back();
      }
      PlannedBuffer& p = buffers[b];
      p.values.push_back(v);
      p.last = std::max<NodeId>(p.last, lives.last[v]);
      member_bytes[b].push_back(*bytes);
    }
    if (options.scratch) {
      const Expr s = ctx.node_peak_memory(n);
      if (pool.as_int(s) != std::optional<std::int64_t>(0)) {
        PlannedBuffer& p = buffers.emplace_back();
        p.kind = PlannedBuffer::Kind::kScratch;
        p.first = p.last = n;
        member_bytes.push_back({s});
      }
    }
  }
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    std::vector<Expr>& m = member_bytes[b];
    std::sort(m.begin(), m.end());
    m.erase(std::unique(m.begin(), m.end()), m.end());
    // An in-place output is no larger than what it takes over; the max says so for any rule.
    buffers[b].bytes = m.size() == 1 ? m.front() : pool.max(m);
    const std::int64_t a = options.alignment;
    if (a <= 1) {
      buffers[b].size = buffers[b].bytes;
    } else if (const std::optional<std::int64_t> c = pool.as_int(buffers[b].bytes)) {
      buffers[b].size = pool.integer((*c + a - 1) / a * a);
    } else {
      buffers[b].size = pool.mul(pool.ceil_div(buffers[b].bytes, pool.integer(a)), pool.integer(a));
    }
  }
  return buffers;
}

/// The example assignments: each symbol at the top of its range and at 1/2, 1/4, 1/16, 1/64
/// and 1/256 of it, at its lower bound and one above, two corners where the symbols take
/// different ends, and two random points; those where every size evaluates to a non-negative
/// number, with the sizes there. Sizes cross at small values too (alignment, a constant term),
/// so the small end is sampled as densely as the large one.
struct Examples {
  std::vector<Assignment> assignments;
  std::vector<std::vector<std::int64_t>> sizes;  // [example][buffer]
};

Examples examples(ExprPool& pool, const std::vector<PlannedBuffer>& buffers,
                  const std::vector<std::string>& symbols) {
  const auto box = plan_detail::sample_box(pool, symbols, kUnboundedSpan);
  std::vector<Expr> sizes;
  sizes.reserve(buffers.size());
  for (const PlannedBuffer& b : buffers) sizes.push_back(b.size);
  std::mt19937_64 rng(7);
  Examples out;
  constexpr int kPoints = 12;
  for (int point = 0; point < kPoints; ++point) {
    std::vector<std::int64_t> values;
    for (const auto& [name, range] : box) {
      const std::int64_t span = range.hi - range.lo;
      static constexpr std::int64_t kDivisor[] = {1, 2, 4, 16, 64, 256};
      std::int64_t v = range.lo;
      if (point < 6) {
        v = range.lo + span / kDivisor[point];
      } else if (point == 6) {
        v = range.lo;
      } else if (point == 7) {
        v = std::min(range.hi, range.lo + 1);
      } else if (point < 10) {
        v = (rng() & 1) != 0 ? range.hi : range.lo;
      } else {
        v = std::uniform_int_distribution<std::int64_t>(range.lo, range.hi)(rng);
      }
      values.push_back(v);
    }
    const Assignment a = plan_detail::assignment_of(box, values);
    try {
      std::vector<std::int64_t> at = pool.eval_all(sizes, a);
      if (std::any_of(at.begin(), at.end(), [](std::int64_t v) { return v < 0; })) continue;
      if (std::find(out.sizes.begin(), out.sizes.end(), at) != out.sizes.end()) continue;
      out.assignments.push_back(a);
      out.sizes.push_back(std::move(at));
    } catch (const ExprError&) {
      // Where the model cannot run (a negative size, an overflow): no example.
    }
  }
  return out;
}

/// When the buffers alive together make too many pairs (every layer's KV-cache output held to
/// the end, a shape computed once and read by every layer), those alive with the most others are
/// made persistent, until the pairs of the others fit a budget: persistent buffers lie below all
/// the others, stacked in the order they are written, each on the latest-written one still alive
/// when it is written; every other buffer lies on the latest persistent one alive when it is
/// written plus those written during its life. The others then meet few others, and the work
/// stays linear in their pairs. A graph within the budget has none, and its plan follows its
/// layout alone.
struct Persistent {
  std::vector<bool> is;                 ///< per buffer
  std::vector<std::uint32_t> by_first;  ///< the persistent buffers, in the order written
  std::vector<std::uint32_t> top_at;    ///< per node: the latest-written one alive there
  std::vector<std::uint32_t> below;     ///< per buffer: for a persistent one, the one it lies on
};

constexpr std::size_t kReduceUpTo = 64;
/// Pairs of buffers alive together that the planner lists: 200k, or 16 per buffer.
constexpr std::size_t kPairBudget = 200'000;
constexpr std::size_t kPairsPerBuffer = 16;

Persistent persistent_buffers(const MemoryPlan& plan) {
  const std::size_t n = plan.buffers.size();
  Persistent p;
  p.is.assign(n, false);
  p.below.assign(n, kNone);
  p.top_at.assign(plan.node_count, kNone);
  const std::vector<std::size_t> meets = plan_detail::conflict_counts(plan.buffers);
  std::size_t pairs = 0;
  for (const std::size_t m : meets) pairs += m;
  pairs /= 2;
  const std::size_t budget = std::max(kPairBudget, kPairsPerBuffer * n);
  if (pairs > budget) {
    std::vector<std::uint32_t> by_meets(n);
    std::iota(by_meets.begin(), by_meets.end(), 0u);
    std::stable_sort(by_meets.begin(), by_meets.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return meets[a] > meets[b]; });
    // Each one made persistent takes its pairs out (those between two persistent ones twice:
    // the estimate errs towards fewer persistent buffers).
    for (const std::uint32_t b : by_meets) {
      if (pairs <= budget) break;
      p.is[b] = true;
      pairs -= std::min(pairs, meets[b]);
    }
    for (std::uint32_t b = 0; b < n; ++b) {
      if (p.is[b]) p.by_first.push_back(b);  // buffers come by first node
    }
  }
  if (p.by_first.empty()) return p;
  // The latest written first: a max-heap on the position in by_first, the dead ones dropped when
  // they come to the top (a buffer dead at one node is dead at every later one).
  std::priority_queue<std::size_t> alive;
  std::size_t next = 0;
  for (NodeId t = 0; t < plan.node_count; ++t) {
    while (next < p.by_first.size() && plan.buffers[p.by_first[next]].first == t) {
      while (!alive.empty() && plan.buffers[p.by_first[alive.top()]].last < t) alive.pop();
      if (!alive.empty()) p.below[p.by_first[next]] = p.by_first[alive.top()];
      alive.push(next++);
    }
    while (!alive.empty() && plan.buffers[p.by_first[alive.top()]].last < t) alive.pop();
    if (!alive.empty()) p.top_at[t] = p.by_first[alive.top()];
  }
  return p;
}

/// The plan's structure from one layout of the other buffers: a lies below b when a is
/// persistent and b is not, when both are persistent and a was written first, or when a's offset
/// in the layout is lower (the index breaks ties); so every two buffers alive together are ordered
/// and the order has no cycle. Of the buffers below b, one that lies below another of them alive
/// with it is left out: that one's end is already at least its own.
/// `reduce` false (while candidates are scored): every lower buffer kept, unsorted, which gives
/// the same offsets for less work.
void order_from_layout(MemoryPlan& plan, const plan_detail::Conflicts& conflicts,
                       const Persistent& persistent, const std::vector<std::int64_t>& layout,
                       bool reduce) {
  const std::size_t n = plan.buffers.size();
  auto lower = [&](std::uint32_t a, std::uint32_t b) {
    if (persistent.is[a] != persistent.is[b]) return static_cast<bool>(persistent.is[a]);
    if (persistent.is[a] || layout[a] == layout[b]) return a < b;
    return layout[a] < layout[b];
  };
  plan.order.resize(n);
  std::iota(plan.order.begin(), plan.order.end(), 0u);
  std::sort(plan.order.begin(), plan.order.end(), lower);
  std::vector<bool> in_a_list(n, false);
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t b = 0; b < n; ++b) {
    std::vector<std::uint32_t>& below = plan.buffers[b].below;
    below.clear();
    if (persistent.is[b]) {
      if (persistent.below[b] != kNone) below.push_back(persistent.below[b]);
    } else {
      candidates.clear();
      for (const std::uint32_t a : conflicts[b]) {
        if (lower(a, b)) candidates.push_back(a);
      }
      const PlannedBuffer& me = plan.buffers[b];
      if (!persistent.by_first.empty()) {
        if (persistent.top_at[me.first] != kNone) candidates.push_back(persistent.top_at[me.first]);
        // The persistent buffers written during its life.
        auto written_after =
            std::upper_bound(persistent.by_first.begin(), persistent.by_first.end(), me.first,
                             [&](NodeId t, std::uint32_t x) { return t < plan.buffers[x].first; });
        for (; written_after != persistent.by_first.end() &&
               plan.buffers[*written_after].first <= me.last;
             ++written_after) {
          candidates.push_back(*written_after);
        }
      }
      if (!reduce) {
        below = candidates;
        for (const std::uint32_t a : below) in_a_list[a] = true;
        continue;
      }
      // The highest first: a lower one alive with a kept one is below it, so its end is no more.
      // Past kReduceUpTo kept ones the rest are kept without looking (a wide graph): the work
      // stays linear in the pairs.
      std::sort(candidates.begin(), candidates.end(),
                [&](std::uint32_t x, std::uint32_t y) { return lower(y, x); });
      for (const std::uint32_t a : candidates) {
        const bool covered = below.size() <= kReduceUpTo &&
                             std::any_of(below.begin(), below.end(), [&](std::uint32_t k) {
                               return plan_detail::meet(plan.buffers[a], plan.buffers[k]);
                             });
        if (!covered) below.push_back(a);
      }
    }
    std::sort(below.begin(), below.end());
    below.erase(std::unique(below.begin(), below.end()), below.end());
    for (const std::uint32_t a : below) in_a_list[a] = true;
  }
  // The arena is the largest end of the buffers on which none lies: every other one lies below
  // one, whose end is at least its own.
  plan.tops.clear();
  for (std::uint32_t b = 0; b < n; ++b) {
    if (!in_a_list[b]) plan.tops.push_back(b);
  }
}

/// The sum over the examples of arena / floor: how well a structure does at all of them.
double score(const MemoryPlan& plan, const Examples& ex) {
  double total = 0;
  for (const std::vector<std::int64_t>& sizes : ex.sizes) {
    std::int64_t arena = 0;
    plan_detail::plan_offsets(plan, sizes, arena);
    const std::int64_t floor = plan_detail::live_floor(plan, sizes);
    total += floor > 0 ? static_cast<double>(arena) / static_cast<double>(floor) : 1.0;
  }
  return total;
}

/// A local search over the structure: each buffer in turn (the largest first) moved below every
/// buffer alive with it, or above every one, kept when the score over the examples improves.
/// Each trial rebuilds the structure, so the number of trials is bounded by a budget of work
/// (about 3e7 steps): small graphs are searched through twice, large ones partly or not at all.
void improve(MemoryPlan& plan, const plan_detail::Conflicts& conflicts,
             const Persistent& persistent, const Examples& ex, std::vector<std::int64_t>& keys,
             double& best) {
  std::size_t pairs = plan.buffers.size();
  for (const auto& c : conflicts) pairs += c.size();
  const std::size_t trial_cost = pairs * (ex.sizes.size() + 2);
  constexpr std::size_t kWork = 30'000'000;
  std::size_t trials = kWork / std::max<std::size_t>(trial_cost, 1);
  if (trials == 0) return;
  std::vector<std::uint32_t> by_size(plan.buffers.size());
  std::iota(by_size.begin(), by_size.end(), 0u);
  std::vector<double> weight(plan.buffers.size(), 0);
  for (const auto& sizes : ex.sizes) {
    for (std::size_t b = 0; b < sizes.size(); ++b) weight[b] += static_cast<double>(sizes[b]);
  }
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return weight[a] > weight[b]; });
  constexpr std::int64_t kBottom = -1, kTop = std::numeric_limits<std::int64_t>::max();
  for (int pass = 0; pass < 2; ++pass) {
    bool changed = false;
    for (const std::uint32_t b : by_size) {
      if (persistent.is[b]) continue;  // their place is fixed
      for (const std::int64_t move : {kBottom, kTop}) {
        if (trials-- == 0) return;
        const std::int64_t saved = keys[b];
        if (saved == move) continue;
        keys[b] = move;
        order_from_layout(plan, conflicts, persistent, keys, false);
        const double s = score(plan, ex);
        if (s < best - 1e-9) {
          best = s;
          changed = true;
        } else {
          keys[b] = saved;
        }
      }
    }
    if (!changed) return;
  }
}

/// The offsets and the arena as expressions, when they print short enough: the length each would
/// print at is estimated first (a max nests the ends of those below), so that a deep plan never
/// builds an expression it would not print.
void closed_forms(ExprPool& pool, MemoryPlan& plan) {
  const std::size_t limit = plan.options.closed_form_chars;
  std::vector<std::size_t> length(plan.buffers.size(), 0);
  auto end_length = [&](std::uint32_t j) {
    return std::min(limit + 1, length[j] + pool.print(plan.buffers[j].size).size() + 3);
  };
  for (const std::uint32_t b : plan.order) {
    std::size_t sum = 0;
    for (const std::uint32_t j : plan.buffers[b].below)
      sum = std::min(limit + 1, sum + end_length(j));
    length[b] = sum;
  }
  std::size_t arena_length = 0;
  for (const std::uint32_t t : plan.tops)
    arena_length = std::min(limit + 1, arena_length + end_length(t));
  std::vector<Expr> ends(plan.buffers.size());
  for (const std::uint32_t b : plan.order) {
    PlannedBuffer& buffer = plan.buffers[b];
    if (length[b] > limit) continue;
    std::vector<Expr> args{pool.integer(0)};
    for (const std::uint32_t j : buffer.below) args.push_back(ends[j]);
    buffer.offset = args.size() == 1 ? args.front() : pool.max(args);
    ends[b] = pool.add(*buffer.offset, buffer.size);
  }
  if (arena_length <= limit) {
    std::vector<Expr> args{pool.integer(0)};
    for (const std::uint32_t t : plan.tops) args.push_back(ends[t]);
    plan.arena = args.size() == 1 ? args.front() : pool.max(args);
  }
}

}  // namespace

MemoryPlan make_memory_plan(const ComputeContext& ctx, const PlanOptions& options) {
  ExprPool& pool = ctx.pool();
  MemoryPlan plan;
  plan.options = options;
  plan.node_count = ctx.node_count();
  plan.buffers = collect_buffers(ctx, options);
  std::vector<Expr> sizes;
  for (const PlannedBuffer& b : plan.buffers) sizes.push_back(b.size);
  plan.symbols = plan_detail::plan_symbols(pool, sizes);
  const Persistent persistent = persistent_buffers(plan);
  std::vector<bool> others(persistent.is.size());
  for (std::size_t b = 0; b < others.size(); ++b) others[b] = !persistent.is[b];
  const plan_detail::Conflicts conflicts = plan_detail::conflict_lists(plan.buffers, &others);
  const Examples ex = examples(pool, plan.buffers, plan.symbols);
  if (ex.sizes.empty()) {
    // No example evaluates (the model runs nowhere in the sampled box): the buffers in order.
    order_from_layout(plan, conflicts, persistent,
                      std::vector<std::int64_t>(plan.buffers.size(), 0), true);
  } else {
    // The best-fit layout at each example is a candidate; the one whose generalisation does best
    // over all the examples is kept, then improved one buffer at a time.
    double best = 0;
    std::vector<std::int64_t> keys;
    for (std::size_t k = 0; k < ex.sizes.size(); ++k) {
      std::vector<std::int64_t> layout = plan_detail::best_fit_offsets(ex.sizes[k], conflicts);
      order_from_layout(plan, conflicts, persistent, layout, false);
      const double s = score(plan, ex);
      if (k == 0 || s < best) {
        best = s;
        keys = std::move(layout);
        plan.example = ex.assignments[k];
      }
    }
    improve(plan, conflicts, persistent, ex, keys, best);
    order_from_layout(plan, conflicts, persistent, keys, true);
  }
  closed_forms(pool, plan);
  return plan;
}

}  // namespace cctx
