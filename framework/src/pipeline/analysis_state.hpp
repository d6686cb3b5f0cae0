// The results every pipeline stage reads and writes. Each stage fills its own fields and only
// reads those of earlier stages.
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
#include "pipeline/buffer_plan.hpp"
#include "pipeline/rule_bindings.hpp"

namespace cctx {

struct ComputeContext::State {
  std::shared_ptr<const RuleRegistry> registry;
  Profile options;
  const Model* model = nullptr;
  /// The analysed copy of a model whose local-function calls were inlined (else null).
  std::unique_ptr<Model> inlined;
  std::unique_ptr<ExprPool> pool;
  std::unique_ptr<GraphView> graph;
  /// The binding step, right after the graph view: every kind's rules (read through rules_of).
  RuleBindings rules;

  // ---- stage 1: shapes (per ValueId) -----------------------------------------------------------
  std::vector<ValueShape> shapes;
  /// Small constant floating tensors (initializers, Constant outputs): Resize scales, ...
  std::unordered_map<ValueId, std::vector<double>> float_values;
  std::vector<Constraint> constraints;
  std::vector<ValueId> unknown_rank_values;
  /// Producer-named fresh dims by name, so that re-inferring a body reuses them.
  std::unordered_map<std::string, Expr> fresh_dims;

  // ---- stage 2: tags ---------------------------------------------------------------------------
  std::vector<Tag> value_tags;  ///< per ValueId
  std::vector<Tag> node_tags;   ///< per NodeId
  std::vector<bool> sticky;     ///< per NodeId: the node tag was set by a tag rule

  // ---- stages 3-4: the buffer plan (pipeline/buffer_plan.hpp) -------------------------------
  BufferPlan plan;

  // ---- stage 5: memory -------------------------------------------------------------------------
  std::vector<MemoryProfile> memory;

  // ---- stage 6: scratch ------------------------------------------------------------------------
  std::vector<Expr> scratch;

  // ---- stage 7: peak ---------------------------------------------------------------------------
  std::vector<Expr> node_terms;  ///< total + scratch per node
  Expr peak;
  std::optional<NodeId> peak_node;

  // ---- across stages ---------------------------------------------------------------------------
  std::vector<Diagnostic> diagnostics;
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
  Expr zero() { return pool->integer(0); }
  const ResolvedRules& rules_of(NodeId n) const { return rules.of(graph->node(n)); }
};

// The stages, in pipeline order. Each one reads only what earlier stages stored. The buffer plan
// (lifetimes, in-place decisions, buffers) comes from the profile's BufferPlanner.
void run_shape_stage(ComputeContext::State& s);
void run_tag_stage(ComputeContext::State& s);
void run_lifetime_stage(ComputeContext::State& s);
void run_inplace_stage(ComputeContext::State& s);
void run_memory_stage(ComputeContext::State& s);
void run_scratch_stage(ComputeContext::State& s);
void run_peak_stage(ComputeContext::State& s);

/// Byte size of a value per semantics.md 4 (nullopt for unsized types). An unknown rank gives the
/// symbol `bytes_<value>`.
std::optional<Expr> compute_value_bytes(ComputeContext::State& s, ValueId v);

/// compute_value_bytes for every value of a graph: values of one shape and element size (most of
/// a transformer's activations) share one product of dims, found by its handles instead of
/// multiplying the dims again through the pool.
class ByteSizes {
 public:
  explicit ByteSizes(ComputeContext::State& s) : s_(s) {}
  std::optional<Expr> operator()(ValueId v);

 private:
  /// An open-addressing slot: the key's hash and where its words start in keys_ (+1; 0: empty).
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t key_at = 0;
    Expr bytes;
  };
  bool same_key(std::uint32_t at, std::uint32_t bits, const std::vector<Expr>& dims) const;
  void grow();

  ComputeContext::State& s_;
  /// Every key met, one after another: rank, element bits, then the dims' handles.
  std::vector<std::uint32_t> keys_;
  std::vector<Slot> slots_;  ///< a power of two in size, at most half full
  std::size_t used_ = 0;
};

/// Rethrows `e`, an ExprError raised while accounting for node n, as one that names the node:
/// an integer overflow becomes "node 3 'b' (ConstantOfShape): integer overflow: <what>", unless
/// it already names a node (a value's byte size does); any other error is rethrown as it is.
[[noreturn]] void rethrow_at_node(const ComputeContext::State& s, NodeId n, const ExprError& e,
                                  const std::string& what);

/// Working memory of node n's bodies (body_memory.cpp): the largest body's peak of its own
/// intermediate values; integer 0 for a node without bodies.
Expr body_working_bytes(ComputeContext::State& s, NodeId n);

}  // namespace cctx
