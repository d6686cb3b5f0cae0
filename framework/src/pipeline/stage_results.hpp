// What each pipeline stage produces (architecture.md, "Stages and what each owns"). A stage
// returns its own result and reads the earlier ones as const; the buffer plan's result is in
// pipeline/buffer_plan.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/expr.hpp"
#include "cctx/graph.hpp"

namespace cctx {

/// A floating value as exact fractions `nums[k] / dens[k]`
/// (IShapeSink::set_output_fraction_handles): what a true division of exact integers left, such as
/// the `h / 32` of `ceil(h / 32.0)`.
struct FractionValue {
  std::vector<Expr> nums;
  std::vector<Expr> dens;  ///< each provably >= 1
};

/// The shape stage: every value's shape, and what the inference learnt on the way.
struct ShapeResult {
  std::vector<ValueShape> values;  ///< per ValueId
  /// Small constant floating tensors (initializers, Constant outputs): Resize scales, ...
  std::unordered_map<ValueId, std::vector<double>> float_values;
  /// Values of floating tensors that are fractions, not all integers (those are in `value`).
  std::unordered_map<ValueId, FractionValue> fraction_values;
  /// Values of floating tensors kept as float terms (IShapeSink::set_output_float_handles), one
  /// per element: computations whose rounding matters (expressions.md 4.5).
  std::unordered_map<ValueId, std::vector<FloatTerm>> float_terms;
  std::vector<Constraint> constraints;
  /// A main-graph node's output dim that the symbols may make negative (`H - 2` of a pool whose
  /// window the rule only assumes fits): a formula valid where the rule's assumptions hold. Not a
  /// requirement (the model may run there, with another shape), but an evaluation where it is
  /// negative has no sizes to give: failed_requirement names it. One entry per distinct dim.
  struct SignedDim {
    NodeId node;
    ValueId value;
    Expr dim;
  };
  std::vector<SignedDim> signed_dims;
  std::vector<DimBound> dim_bounds;
  /// Bounds narrowed by main-graph constraints (derived_bounds.hpp), in recording order.
  std::vector<DerivedBound> derived_bounds;
  /// Index in dim_bounds by symbol id, so that a body inferred again restates a bound in place.
  std::unordered_map<std::uint32_t, std::size_t> dim_bound_index;
  std::vector<ValueId> unknown_rank_values;
  /// Producer-named fresh dims by name, so that re-inferring a body reuses them.
  std::unordered_map<std::string, Expr> fresh_dims;
  /// Bodies that do not run with their node's inputs (IShapeSink::skip_body): an If's branch
  /// decided against or refusing its inputs. Their working memory is not counted.
  std::unordered_set<GraphId> skipped_bodies;
};

/// The tag stage: the tag of every value and node.
struct TagResult {
  std::vector<Tag> values;   ///< per ValueId
  std::vector<Tag> nodes;    ///< per NodeId
  std::vector<bool> sticky;  ///< per NodeId: the node tag was set by a tag rule
};

/// The intermediate buffers' allocations and releases in run order, for an allocator model
/// (recorded only when the profile models an arena, `memory.arena`): node n allocates
/// buffers[node_begin[n] .. frees_begin[n]) and then releases buffers[frees_begin[n] ..
/// node_begin[n + 1]). Buffer ids index BufferPlan::buffers.
struct AllocationTrace {
  std::vector<std::uint32_t> buffers;
  std::vector<std::uint32_t> node_begin;
  std::vector<std::uint32_t> frees_begin;
};

/// The memory stage: the profile of every main-graph node.
struct MemoryResult {
  std::vector<MemoryProfile> nodes;
  AllocationTrace trace;
};

/// The scratch stage: every main-graph node's scratch bytes (estimator plus bodies).
struct ScratchResult {
  std::vector<Expr> nodes;
  /// The blocks of the nodes whose estimator gave several (IScratchSink::add_block), in the
  /// kernel's order: node n's are blocks[block_begin[n], block_begin[n + 1]), empty for a node
  /// whose scratch is one block (nodes[n]). They sum to nodes[n]; only the arena replay reads
  /// them.
  std::vector<std::uint32_t> block_begin;
  std::vector<Expr> blocks;
};

/// The peak stage.
struct PeakResult {
  std::vector<Expr> node_terms;  ///< total + scratch per node
  Expr total;
  std::optional<NodeId> node;  ///< the lowest-index node whose term is the peak
};

}  // namespace cctx
