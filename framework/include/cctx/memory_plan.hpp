// The static memory plan (`cctx plan`, docs/design/memory-plan.md): one arena for every size. Each
// buffer of the profile's buffer plan (the values sharing it through in-place reuse, its lifetime
// as node indices) and each node's scratch gets an offset and a size as expressions in the model's
// symbols, such that at every assignment where the sizes are non-negative no two buffers alive at
// the same node overlap and every buffer ends within the arena. A runtime evaluates the offsets
// once per input shape and allocates once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/expr.hpp"

namespace cctx {

struct PlanOptions {
  /// Every buffer's size is rounded up to a multiple of it (ONNX Runtime aligns to 64 bytes).
  std::int64_t alignment = 64;
  /// Each node's scratch (its estimator's working bytes) as a buffer alive at that node alone.
  bool scratch = true;
  /// Offsets and the arena are also given as one expression when they print this short.
  std::size_t closed_form_chars = 2000;
};

struct PlannedBuffer {
  enum class Kind : std::uint8_t { kTensor, kScratch };
  Kind kind = Kind::kTensor;
  /// The values that share the buffer (in-place reuse), in joining order; empty for scratch.
  std::vector<ValueId> values;
  /// Alive at nodes first..last, both included: from the node that writes it (or whose scratch it
  /// is) to the last node that reads it; graph outputs to the last node.
  NodeId first = 0;
  NodeId last = 0;
  Expr bytes;  ///< the tensor's (or the scratch's) own bytes
  Expr size;   ///< bytes rounded up to the alignment: what the plan reserves
  /// The buffers alive with it that lie below it: its offset is the largest of their ends
  /// (offset + size), 0 when none. Every buffer alive with it is below it or has it below.
  std::vector<std::uint32_t> below;
  /// The offset as one expression in the model's symbols, when it prints in at most
  /// PlanOptions::closed_form_chars characters; otherwise `below` is the formula.
  std::optional<Expr> offset;
};

struct MemoryPlan {
  PlanOptions options;
  std::size_t node_count = 0;
  std::vector<PlannedBuffer> buffers;  ///< in the order of their first node
  /// Every buffer after those below it: the order a runtime computes the offsets in.
  std::vector<std::uint32_t> order;
  /// The buffers below no other: the arena is the largest of their ends.
  std::vector<std::uint32_t> tops;
  std::optional<Expr> arena;  ///< as one expression, when short enough (as PlannedBuffer::offset)
  /// The symbols the plan's expressions read (a size cap's or a floating-point size's own
  /// operands in place of it), sorted: what an assignment gives.
  std::vector<std::string> symbols;
  /// The assignment whose best-fit layout chose which buffer lies below which.
  Assignment example;
};

/// Plans the intermediate buffers and scratch of `ctx`'s main graph (graph inputs and
/// initializers are the caller's and the session's, and so is a buffer an output takes over from
/// a graph input). Linear in the pairs of buffers alive together.
MemoryPlan make_memory_plan(const ComputeContext& ctx, const PlanOptions& options = {});

/// The plan at one assignment.
struct PlanValues {
  Assignment assignment;
  std::vector<std::int64_t> offsets;  ///< per buffer
  std::vector<std::int64_t> sizes;    ///< per buffer
  std::int64_t arena = 0;
  /// The largest sum of the sizes of buffers alive at one node: what no plan can beat.
  std::int64_t floor = 0;
  std::optional<std::int64_t> best_fit;  ///< a best-fit plan made for this assignment alone
  std::int64_t no_reuse = 0;             ///< every buffer's size added up (no reuse at all)
};

/// Evaluates the plan at each assignment: the sizes' expressions, then the offsets in plan.order
/// (throws ExprError as ExprPool::eval does). The best-fit arena is computed when `best_fit` is
/// set (the pairs of buffers alive together are listed once for all the assignments).
std::vector<PlanValues> evaluate_plan(const ComputeContext& ctx, const MemoryPlan& plan,
                                      const std::vector<Assignment>& assignments, bool best_fit);

/// How far a symbol without a finite upper bound is sampled above its lower bound, by the planner's
/// examples and (unless told otherwise) by the checker.
inline constexpr std::int64_t kUnboundedSpan = 1023;

struct PlanCheckOptions {
  int assignments = 1000;
  /// Symbols without a finite upper bound are sampled up to lower bound + span.
  std::int64_t unbounded_span = kUnboundedSpan;
  /// The best-fit plan is computed at the first this many checked assignments (it is quadratic).
  int best_fit_assignments = 200;
  std::uint64_t seed = 1;
};

struct PlanCheck {
  int checked = 0;    ///< distinct assignments evaluated
  int corners = 0;    ///< of which corners of the sampled box
  int crossings = 0;  ///< of which points where two buffers' sizes change order
  int skipped = 0;    ///< assignments where the model cannot run or a size overflows
  /// Pairs of buffers alive at one node whose address ranges meet, buffers outside the arena or
  /// with a negative offset: each failure as one line naming the assignment (at most 20 kept).
  int overlaps = 0;
  int outside = 0;
  std::vector<std::string> failures;
  /// Per checked assignment: arena / floor, best fit / floor (when computed), arena > no_reuse.
  std::vector<double> arena_ratio;
  std::vector<double> best_fit_ratio;
  int over_no_reuse = 0;
  /// The assignment where arena / floor is largest, and its values.
  std::optional<PlanValues> worst;
  std::vector<std::pair<std::string, Interval>> sampled;  ///< each symbol's sampled range
};

/// Evaluates the plan at the corners of the symbols' sampled box, at points where two buffer
/// sizes cross and at random points, and verifies from the analysis's own lifetimes (not the
/// plan's buffers) that no two tensors alive at one node share an address and every buffer lies in
/// [0, arena).
PlanCheck check_memory_plan(const ComputeContext& ctx, const MemoryPlan& plan,
                            const PlanCheckOptions& options);

}  // namespace cctx
