// `cctx plan --check N` (docs/design/memory-plan.md, "The checker"): the plan's own expressions
// evaluated at N distinct assignments, and at each, from the analysis's lifetimes and in-place
// decisions rather than from the plan's buffers, every pair of tensors alive at one node verified
// to lie at disjoint addresses unless they share memory in place, and every buffer to lie in
// [0, arena). The assignments: the whole box when it has at most N points; otherwise its corners,
// points where two buffers' sizes change order, and random points (half uniform, half spread
// evenly over the logarithm, where small sizes cross).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "cctx/memory_plan.hpp"
#include "plan/plan_buffers.hpp"
#include "plan/plan_values.hpp"
#include "plan/sample_box.hpp"

namespace cctx {

namespace {

using Box = std::vector<std::pair<std::string, Interval>>;
using Point = std::vector<std::int64_t>;

std::string point_text(const Box& box, const Point& p) {
  std::string out;
  for (std::size_t k = 0; k < box.size(); ++k) {
    if (!out.empty()) out += ",";
    out += fmt::format("{}={}", box[k].first, p[k]);
  }
  return out.empty() ? "(no symbols)" : out;
}

/// The points to check, in order: corners (or the whole box), crossings, random points.
class PointSource {
 public:
  PointSource(const Box& box, std::uint64_t seed) : box_(box), rng_(seed) {}

  bool add(const Point& p) {
    if (!seen_.insert(p).second) return false;
    points_.push_back(p);
    return true;
  }
  std::vector<Point>& points() { return points_; }

  /// Every point of the box when there are at most `limit`; true when so.
  bool whole_box(std::size_t limit) {
    double count = 1;
    for (const auto& [name, r] : box_) count *= static_cast<double>(r.hi - r.lo + 1);
    if (count > static_cast<double>(limit)) return false;
    Point p;
    for (const auto& [name, r] : box_) p.push_back(r.lo);
    while (true) {
      add(p);
      std::size_t k = 0;
      for (; k < box_.size(); ++k) {
        if (p[k] < box_[k].second.hi) {
          ++p[k];
          break;
        }
        p[k] = box_[k].second.lo;
      }
      if (k == box_.size()) return true;
    }
  }

  void corners(std::size_t limit) {
    const std::size_t n = box_.size();
    if (n < 20 && (std::size_t{1} << n) <= limit) {
      for (std::size_t mask = 0; mask < (std::size_t{1} << n); ++mask) add(corner(mask));
      return;
    }
    for (std::size_t k = 0; k < limit; ++k) add(random_corner());
  }

  Point random_corner() {
    Point p;
    for (const auto& [name, r] : box_) p.push_back((rng_() & 1) != 0 ? r.hi : r.lo);
    return p;
  }

  Point random_point(bool logarithmic) {
    Point p;
    for (const auto& [name, r] : box_) {
      if (r.hi == r.lo) {
        p.push_back(r.lo);
      } else if (logarithmic) {
        const double span = std::log1p(static_cast<double>(r.hi - r.lo));
        const double x = std::uniform_real_distribution<double>(0, span)(rng_);
        p.push_back(std::min(r.hi, r.lo + static_cast<std::int64_t>(std::expm1(x))));
      } else {
        p.push_back(std::uniform_int_distribution<std::int64_t>(r.lo, r.hi)(rng_));
      }
    }
    return p;
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  Point corner(std::size_t mask) const {
    Point p;
    for (std::size_t k = 0; k < box_.size(); ++k) {
      p.push_back((mask >> k & 1) != 0 ? box_[k].second.hi : box_[k].second.lo);
    }
    return p;
  }

  const Box& box_;
  std::mt19937_64 rng_;
  std::set<Point> seen_;
  std::vector<Point> points_;
};

/// On the segment from a to b (each step moves each symbol by at most one), the last point where
/// size i - size j has a's sign and the next one, when the sign differs at b.
void add_crossing(ExprPool& pool, const Box& box, PointSource& source, const Point& a,
                  const Point& b, Expr x, Expr y) {
  std::int64_t steps = 0;
  for (std::size_t k = 0; k < a.size(); ++k) steps = std::max(steps, std::abs(b[k] - a[k]));
  if (steps == 0) return;
  auto at = [&](std::int64_t t) {
    Point p;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const double v = static_cast<double>(a[k]) + static_cast<double>(b[k] - a[k]) *
                                                       static_cast<double>(t) /
                                                       static_cast<double>(steps);
      p.push_back(static_cast<std::int64_t>(std::llround(v)));
    }
    return p;
  };
  auto sign = [&](std::int64_t t) -> int {
    const Assignment as = plan_detail::assignment_of(box, at(t));
    const std::int64_t d = pool.eval(x, as) - pool.eval(y, as);
    return d > 0 ? 1 : d < 0 ? -1 : 0;
  };
  try {
    const int s0 = sign(0);
    if (s0 == sign(steps) || s0 == 0) return;
    std::int64_t lo = 0, hi = steps;  // sign(lo) == s0 != sign(hi)
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (sign(mid) == s0 ? lo : hi) = mid;
    }
    source.add(at(lo));
    source.add(at(hi));
  } catch (const ExprError&) {
    // Outside where the sizes evaluate: no crossing to look for.
  }
}

/// A tensor or a scratch buffer as the checker sees it: alive at nodes first..last, sharing
/// memory only with its own in-place group.
struct Item {
  NodeId first = 0;
  NodeId last = 0;
  std::uint32_t group = 0;
  std::uint32_t buffer = 0;
  std::size_t bytes_index = 0;  ///< in the evaluated expressions
  ValueId value = kNoValue;     ///< kNoValue for scratch
};

}  // namespace

PlanCheck check_memory_plan(const ComputeContext& ctx, const MemoryPlan& plan,
                            const PlanCheckOptions& options) {
  ExprPool& pool = ctx.pool();
  const GraphView& g = ctx.graph();
  PlanCheck check;
  auto fail = [&](std::string line) {
    if (check.failures.size() < 20) check.failures.push_back(std::move(line));
  };

  // What the analysis says must be placed, independently of the plan's buffers.
  plan_detail::ValueLives lives = plan_detail::value_lives(ctx);
  std::vector<std::uint32_t> planned_in(g.values().size(), plan_detail::kNone);
  std::vector<Expr> exprs;  // member bytes, buffer sizes, closed forms of offsets and arena
  std::vector<Item> items;
  for (std::uint32_t b = 0; b < plan.buffers.size(); ++b) {
    const PlannedBuffer& buffer = plan.buffers[b];
    if (buffer.kind == PlannedBuffer::Kind::kScratch) {
      items.push_back({buffer.first, buffer.first, 0xFFFFFFFFu - b, b, exprs.size(), kNoValue});
      exprs.push_back(ctx.node_peak_memory(buffer.first));
      continue;
    }
    for (const ValueId v : buffer.values) {
      planned_in[v] = b;
      const std::optional<Expr> bytes = ctx.value_bytes(v);
      if (!bytes || lives.first[v] == plan_detail::kNone) {
        fail(fmt::format("buffer {} holds '{}', which no main-graph node writes with a size", b,
                         g.value(v).name));
        continue;
      }
      items.push_back(
          {lives.first[v], lives.last[v], plan_detail::group_of(lives, v), b, exprs.size(), v});
      exprs.push_back(*bytes);
    }
  }
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    for (const ValueId v : g.node(n).outputs) {
      if (v == kNoValue || lives.first[v] != n || !ctx.value_bytes(v)) continue;
      if (lives.external[plan_detail::group_of(lives, v)]) continue;
      if (planned_in[v] == plan_detail::kNone) {
        fail(fmt::format("'{}' (node {}) has no buffer in the plan", g.value(v).name, n));
      }
    }
  }
  // The sizes, then the closed forms of the offsets and the arena where the plan has them (they
  // must agree with the offsets computed from `below`).
  const std::size_t sizes_at = exprs.size();
  for (const PlannedBuffer& b : plan.buffers) exprs.push_back(b.size);
  std::vector<std::pair<std::uint32_t, std::size_t>> closed;  // (buffer, index in exprs)
  for (std::uint32_t b = 0; b < plan.buffers.size(); ++b) {
    if (plan.buffers[b].offset) {
      closed.emplace_back(b, exprs.size());
      exprs.push_back(*plan.buffers[b].offset);
    }
  }
  const std::size_t arena_at = exprs.size();
  if (plan.arena) exprs.push_back(*plan.arena);
  const std::optional<plan_detail::Conflicts> conflicts =
      plan_detail::conflicts_for_best_fit(plan.buffers);
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.first < b.first; });

  const std::vector<std::string> symbols = plan_detail::plan_symbols(pool, exprs);
  const Box box = plan_detail::sample_box(pool, symbols, options.unbounded_span);
  check.sampled = box;
  PointSource source(box, options.seed);
  const auto limit = static_cast<std::size_t>(std::max(options.assignments, 1));
  if (!source.whole_box(limit)) {
    source.corners(std::min<std::size_t>(limit / 4, 1024));
    check.corners = static_cast<int>(source.points().size());
    // Crossings of the sizes of buffers alive together, where a plan tuned for one order of
    // sizes would break first.
    const std::size_t crossings_wanted = limit / 10;
    for (std::size_t tries = 0;
         tries < crossings_wanted * 4 && source.points().size() < check.corners + crossings_wanted;
         ++tries) {
      if (items.size() < 2) break;
      const Item& x = items[source.rng()() % items.size()];
      const Item& y = items[source.rng()() % items.size()];
      if (exprs[x.bytes_index] == exprs[y.bytes_index]) continue;
      const Point a = source.random_corner(), b = source.random_corner();
      add_crossing(pool, box, source, a, b, exprs[x.bytes_index], exprs[y.bytes_index]);
    }
    check.crossings = static_cast<int>(source.points().size()) - check.corners;
    for (std::size_t tries = 0; source.points().size() < limit && tries < limit * 4; ++tries) {
      source.add(source.random_point(tries % 2 == 1));
    }
  } else {
    check.corners = static_cast<int>(source.points().size());
  }

  double worst_ratio = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> address(items.size());
  std::vector<std::size_t> active;
  for (const Point& p : source.points()) {
    const Assignment a = plan_detail::assignment_of(box, p);
    std::vector<std::int64_t> at;
    try {
      if (ctx.failed_requirement(a)) {
        ++check.skipped;
        continue;
      }
      at = pool.eval_all(exprs, a);
    } catch (const ExprError&) {
      ++check.skipped;  // an overflow or a size the model cannot have there
      continue;
    }
    if (std::any_of(at.begin(), at.end(), [](std::int64_t v) { return v < 0; })) {
      ++check.skipped;  // a negative size: the model cannot run there
      continue;
    }
    ++check.checked;
    const std::size_t buffers = plan.buffers.size();
    const bool best_fit = conflicts && check.checked <= options.best_fit_assignments;
    PlanValues v = plan_detail::values_at(
        plan, a,
        std::vector<std::int64_t>(at.begin() + static_cast<std::ptrdiff_t>(sizes_at),
                                  at.begin() + static_cast<std::ptrdiff_t>(sizes_at + buffers)),
        best_fit ? &*conflicts : nullptr);
    const std::vector<std::int64_t>& offsets = v.offsets;
    const std::int64_t arena = v.arena;
    for (const auto& [b, k] : closed) {
      if (at[k] != offsets[b]) {
        ++check.outside;
        fail(fmt::format("at {}: buffer {}'s offset is {} by its formula, {} by those below it",
                         point_text(box, p), b, at[k], offsets[b]));
      }
    }
    if (plan.arena && at[arena_at] != arena) {
      ++check.outside;
      fail(fmt::format("at {}: the arena is {} by its formula, {} by the buffers' ends",
                       point_text(box, p), at[arena_at], arena));
    }
    for (std::size_t b = 0; b < buffers; ++b) {
      const std::int64_t size = v.sizes[b], offset = offsets[b];
      if (offset < 0 || offset + size > arena) {
        ++check.outside;
        fail(fmt::format("at {}: buffer {} [{}, {}) is outside the arena of {} bytes",
                         point_text(box, p), b, offset, offset + size, arena));
      }
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::int64_t offset = offsets[items[i].buffer];
      const std::int64_t bytes = at[items[i].bytes_index];
      if (bytes > v.sizes[items[i].buffer]) {
        ++check.outside;
        fail(fmt::format("at {}: '{}' ({} bytes) is larger than its buffer {}", point_text(box, p),
                         g.value(items[i].value).name, bytes, items[i].buffer));
      }
      address[i] = {offset, offset + bytes};
    }
    // A sweep over the items by first node: each is compared with the items still alive then.
    active.clear();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Item& me = items[i];
      std::erase_if(active, [&](std::size_t k) { return items[k].last < me.first; });
      if (address[i].first < address[i].second) {
        for (const std::size_t k : active) {
          if (items[k].group == me.group || address[k].first >= address[k].second) continue;
          if (address[k].first < address[i].second && address[i].first < address[k].second) {
            ++check.overlaps;
            auto name = [&](const Item& it) {
              return it.value == kNoValue ? fmt::format("scratch of node {}", it.first)
                                          : fmt::format("'{}'", g.value(it.value).name);
            };
            fail(fmt::format("at {}: {} [{}, {}) and {} [{}, {}) are both alive at node {}",
                             point_text(box, p), name(me), address[i].first, address[i].second,
                             name(items[k]), address[k].first, address[k].second, me.first));
          }
        }
      }
      active.push_back(i);
    }

    if (v.arena > v.no_reuse) ++check.over_no_reuse;
    auto over_floor = [&](std::int64_t bytes) {
      return v.floor > 0 ? static_cast<double>(bytes) / static_cast<double>(v.floor) : 1.0;
    };
    const double ratio = over_floor(v.arena);
    check.arena_ratio.push_back(ratio);
    if (v.best_fit) check.best_fit_ratio.push_back(over_floor(*v.best_fit));
    if (!check.worst || ratio > worst_ratio) {
      worst_ratio = ratio;
      if (!v.best_fit && conflicts) v.best_fit = plan_detail::best_fit_arena(v.sizes, *conflicts);
      check.worst = std::move(v);
    }
  }
  return check;
}

}  // namespace cctx
