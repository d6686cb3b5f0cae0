// The analysis every pipeline stage shares, the state a ComputeContext keeps, and the stages.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/expr.hpp"
#include "cctx/graph.hpp"
#include "cctx/model.hpp"
#include "cctx/profile.hpp"
#include "cctx/registry.hpp"
#include "model/inline_functions.hpp"
#include "pipeline/buffer_plan.hpp"
#include "pipeline/rule_bindings.hpp"
#include "pipeline/runtime_types.hpp"
#include "pipeline/stage_results.hpp"
#include "rewrite/graph_rewrite.hpp"
#include "util/hash_index.hpp"

namespace cctx {

/// What every stage reads (the model, its graph view, the bound rules, the expression pool) and
/// what every stage may add to (diagnostics, decision events). Stage results are not here: each
/// stage returns its own (pipeline/stage_results.hpp) and takes earlier ones as const.
struct Analysis {
  std::shared_ptr<const RuleRegistry> registry;
  /// Per node of graph(), bit k: some rule read its k-th attribute (the first 64). Filled by the
  /// node views as rules return, only when Profile::record_attribute_reads (else empty). Mutable:
  /// the views see the analysis as const, and this is their report, not the analysis.
  mutable std::vector<std::uint64_t> attributes_read;
  Profile options;
  const Model* model = nullptr;
  /// The analysed form of a model whose local-function calls were inlined (else null): new
  /// nodes for the bodies, the model's own messages for the rest (inline_functions.hpp).
  std::unique_ptr<InlinedModel> inlined;
  /// The graph the profile's runtime really runs, when its rewrites changed it (else null):
  /// what `model` points at from then on (rewrite/graph_rewrite.hpp).
  std::unique_ptr<RewrittenModel> rewritten;
  /// The model as it was before the rewrites (null when none applied). Every value a rewrite
  /// keeps has its name there: ONNX's inference over it gives the shapes ONNX Runtime's own
  /// inference gives the rewritten graph, whose fused operators ONNX does not know.
  const Model* before_rewrites = nullptr;
  /// ONNX's inference over the model before the rewrites, as the runtime resolves its graph
  /// (runtime_types.hpp): computed on first use by runtime_types(), then shared by the rewrites
  /// (element types and ranks) and the free-list planner (sizes as the runtime sees them).
  std::optional<std::optional<RuntimeTypes>> runtime_types_cache;
  std::unique_ptr<ExprPool> pool;
  std::unique_ptr<GraphView> graph;
  /// The binding step, right after the graph view: every kind's rules (read through rules_of).
  RuleBindings rules;

  std::vector<Diagnostic> diagnostics;
  std::vector<RuleFailure> rule_failures;
  /// rule_failures by (node, kind), see failure_key().
  std::unordered_map<std::uint64_t, std::size_t> failure_index;
  /// Scratch failures' symbols (`scratch_<Op>_<node>`) by index into rule_failures.
  std::unordered_map<std::string, std::size_t> scratch_failure_symbols;
  std::vector<DecisionEvent> events;  ///< kept across compute() calls until clear_events()
  std::vector<StageTiming> timings;
  ProgressCallback progress = nullptr;
  void* progress_user = nullptr;

  void warn(NodeId node, std::string message) {
    diagnostics.push_back(Diagnostic{Diagnostic::Severity::kWarning, node, std::move(message)});
  }
  void note(NodeId node, std::string message) {
    diagnostics.push_back(Diagnostic{Diagnostic::Severity::kNote, node, std::move(message)});
  }
  /// Records that node n's rule of `kind` failed, once per node and kind (a tag rule runs at
  /// every pass of the fixpoint); returns its index in rule_failures.
  std::size_t rule_failed(RuleFailure::Kind kind, NodeId n, std::string_view rule,
                          std::string message);
  /// The shape rule failure of node n, or nullptr.
  const RuleFailure* shape_failure(NodeId n) const;
  Expr zero() { return pool->integer(0); }
  /// The types of the model before the rewrites (`model` while they have not run), or nullptr
  /// when ONNX's inference fails as a whole. Computed once per analysis.
  const RuntimeTypes* runtime_types() {
    if (!runtime_types_cache) {
      runtime_types_cache = RuntimeTypes::infer(before_rewrites ? *before_rewrites : *model);
    }
    return *runtime_types_cache ? &**runtime_types_cache : nullptr;
  }
  const ResolvedRules& rules_of(NodeId n) const { return rules.of(graph->node(n)); }
};

/// A ComputeContext's analysis and the results of its stages, which its public API reads.
struct ComputeContext::State : Analysis {
  ShapeResult shapes;
  TagResult tags;
  BufferPlan plan;
  MemoryResult memory;
  ScratchResult scratch;
  PeakResult peak;
};

// The stages, in pipeline order. Each returns its own result and reads earlier ones as const.
// The buffer plan (lifetimes, in-place decisions, buffers) comes from the profile's
// BufferPlanner; the seed's planner runs its two steps, lifetimes then in-place reuse.
ShapeResult run_shape_stage(Analysis& a);
TagResult run_tag_stage(Analysis& a, const ShapeResult& shapes);
void run_lifetime_stage(Analysis& a, const TagResult& tags, BufferPlan& plan);
void run_inplace_stage(Analysis& a, const ShapeResult& shapes, BufferPlan& plan);
MemoryResult run_memory_stage(Analysis& a, const TagResult& tags, const BufferPlan& plan);
ScratchResult run_scratch_stage(Analysis& a, const ShapeResult& shapes);
PeakResult run_peak_stage(Analysis& a, const MemoryResult& memory, const ScratchResult& scratch);

/// Byte size of a value per semantics.md "Element sizes" (nullopt for unsized types). An unknown
/// rank gives the symbol `bytes_<value>`.
std::optional<Expr> compute_value_bytes(const Analysis& a, const ShapeResult& shapes, ValueId v);

/// compute_value_bytes for every value of a graph: values of one shape and element size (most of
/// a transformer's activations) share one product of dims, found by its handles instead of
/// multiplying the dims again through the pool.
class ByteSizes {
 public:
  ByteSizes(const Analysis& a, const ShapeResult& shapes) : a_(a), shapes_(shapes) {}
  std::optional<Expr> operator()(ValueId v);

 private:
  /// One (element bits, dims) met: where its words start in keys_, and its bytes.
  struct Entry {
    std::uint32_t key_at;
    Expr bytes;
  };
  bool same_key(std::uint32_t at, std::uint32_t bits, const std::vector<Expr>& dims) const;

  const Analysis& a_;
  const ShapeResult& shapes_;
  /// Every key met, one after another: rank, element bits, then the dims' handles.
  std::vector<std::uint32_t> keys_;
  std::vector<Entry> entries_;
  HashIndex index_{1024};  ///< at most half full
};

/// Rethrows `e`, an ExprError raised while accounting for node n, as one that names the node:
/// an integer overflow becomes "node 3 'b' (ConstantOfShape): integer overflow: <what>", unless
/// it already names a node (a value's byte size does); any other error is rethrown as it is.
[[noreturn]] void rethrow_at_node(const Analysis& a, NodeId n, const ExprError& e,
                                  const std::string& what);

/// Working memory of node n's bodies (body_memory.cpp): the largest body's peak of its own
/// intermediate values; integer 0 for a node without bodies.
Expr body_working_bytes(Analysis& a, const ShapeResult& shapes, NodeId n);

}  // namespace cctx
