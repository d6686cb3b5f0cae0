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
#include "pipeline/rule_bindings.hpp"

namespace cctx {

/// Tracked buffer (semantics.md 8.2), created by the in-place stage, used by the memory stage.
enum class BufferSource : std::uint8_t { kInput, kInitializer, kIntermediate };

/// A list per node of the main graph (values, in-place decisions), filled in node order into one
/// array: a million-node graph makes no allocation per node, and a list is read as a span.
template <class Item>
class NodeLists {
 public:
  /// Empties every list; `count` lists are expected.
  void reset(std::size_t count) {
    ends_.clear();
    ends_.reserve(count);
    items_.clear();
  }
  /// Appends an item to node n's list. n never decreases from one call to the next.
  void push(NodeId n, const Item& item) {
    close_before(n);
    items_.push_back(item);
  }
  /// Ends filling: the nodes after the last push, up to `count`, get empty lists.
  void finish(std::size_t count) { close_before(count); }

  std::size_t size() const { return ends_.size(); }
  std::span<const Item> operator[](NodeId n) const {
    const std::uint32_t begin = n == 0 ? 0 : ends_[n - 1];
    return std::span<const Item>(items_.data() + begin, ends_[n] - begin);
  }
  /// operator[] that throws std::out_of_range past the last list.
  std::span<const Item> at(NodeId n) const {
    if (n >= ends_.size()) throw std::out_of_range("NodeLists::at");
    return (*this)[n];
  }

 private:
  void close_before(std::size_t n) {
    while (ends_.size() < n) ends_.push_back(static_cast<std::uint32_t>(items_.size()));
  }
  std::vector<std::uint32_t> ends_;  ///< per node: one past its last entry in items_
  std::vector<Item> items_;
};
using NodeValueLists = NodeLists<ValueId>;

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

  // ---- stage 3: lifetimes (main graph) ---------------------------------------------------------
  std::vector<std::uint32_t>
      last_use;  ///< per ValueId: last main node referencing it, or kInvalidId
  NodeValueLists release_after;
  NodeValueLists not_used_after;
  NodeValueLists release_after_shape_tag;

  // ---- stage 4: in-place -----------------------------------------------------------------------
  NodeLists<InplaceDecision> inplace;
  /// Own byte size of each value (nullopt: unsized), computed once and reused by stages 4-5.
  std::vector<std::optional<Expr>> bytes;
  std::vector<ValueId> unsized_values;
  /// Buffer of each main-graph value (kInvalidId: untracked), and each buffer's size and initial
  /// source. The memory stage simulates their liveness with running sums.
  struct BufferInfo {
    Expr size;
    BufferSource source;
  };
  std::vector<std::uint32_t> buffer_of;
  std::vector<BufferInfo> buffers;

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

// The stages, in pipeline order. Each one reads only what earlier stages stored.
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
