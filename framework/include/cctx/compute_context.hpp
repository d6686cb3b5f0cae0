// ComputeContext: runs the whole analysis pipeline on a model and keeps every stage's results.
//
//   1 shapes      symbolic dtype/shape (+ small integer values) per value      IShapeRule
//   2 tags        shape / axes / weight / ambiguous per value, tag per node   TagTraits, ITagRule
//   3 lifetimes   release_after / not_used_after per node
//   4 in-place    reuse decisions (may_reuse / alias) per node                IInplacePolicy
//   5 memory      seven-key profile per node, per buffer, running sums
//   6 scratch     extra working bytes per node                                IScratchEstimator
//   7 peak        whole-graph peak as a symbolic max, simplified under bounds
//
// See docs/design/semantics.md for the contract of each stage.
#pragma once

#include <algorithm>
#include <array>
#include <cctx/sdk/types.hpp>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cctx/dtypes.hpp"
#include "cctx/expr.hpp"
#include "cctx/graph.hpp"
#include "cctx/model.hpp"
#include "cctx/profile.hpp"
#include "cctx/registry.hpp"
#include "cctx/tags.hpp"

namespace cctx {

class Host;
using sdk::ValueKind;

/// Shape of one element of a sequence.
struct ElementShape {
  bool known_rank = false;
  std::vector<Expr> dims;  ///< valid when known_rank
};

/// Inferred type of one value. For a sequence, dtype/known_rank/dims describe every element at
/// once (differing dims merged); `elements` adds each position's own shape when the length is
/// known.
struct ValueShape {
  // Members are ordered so that the small ones share padding (112 bytes, not 128): one
  // ValueShape per value of a million-node graph.
  ValueKind kind = ValueKind::kUnknown;
  std::int32_t dtype = 0;  ///< ONNX element type code, 0 = undefined
  bool known_rank = false;
  bool has_value = false;
  bool inferred = false;  ///< set by a rule or a fallback (not only declared)
  /// kSequence only, when `elements` is nullopt: a length known as an expression (a sequence a
  /// Loop grows by one element per iteration holds `trip` of them), every element described by
  /// dtype/known_rank/dims.
  std::optional<Expr> length;
  /// kTensor of unknown rank only: its number of elements when a rule knows it whatever the rank
  /// (an If whose branches differ in rank but not in size); its bytes are counted from it.
  std::optional<Expr> element_count;
  std::vector<Expr> dims;  ///< valid when known_rank
  /// Small tensor contents (when has_value), row-major, every element an exact integer (integer
  /// tensors, and floating tensors whose elements are all exact integers; expressions.md
  /// "Shape-value propagation").
  std::vector<Expr> value;
  /// kSequence only: one shape per position; nullopt when the length is unknown or symbolic.
  std::optional<std::vector<ElementShape>> elements;
};

/// How an output's size compares with the input buffer it takes over (semantics.md 7.3):
/// kIfFits, the output takes it exactly where the input's bytes are at least its own, which the
/// symbols decide (7.4): it gets a buffer of its own of the larger size, allocated at the node
/// only where it does not fit.
enum class ReuseKind : std::uint8_t { kEqual, kGreater, kIfFits };

/// "equal", "greater", "if_fits".
const char* reuse_kind_name(ReuseKind kind);
/// kWriteInto: the output is written into the input's buffer, which has room for it
/// (IInplaceSink::write_into, a max-length KV cache).
enum class ReuseMode : std::uint8_t { kMayReuse, kAlias, kWriteInto };
/// "may_reuse", "alias", "write_into".
const char* reuse_mode_name(ReuseMode mode);

struct InplaceDecision {
  std::uint32_t output = 0;
  std::uint32_t input = 0;
  ReuseKind kind = ReuseKind::kEqual;
  ReuseMode mode = ReuseMode::kMayReuse;
};

/// The seven-key memory profile of one node (semantics.md "Per-node memory profile").
struct MemoryProfile {
  Expr already_allocated;
  Expr output_allocation;
  Expr total;
  Bucket inputs;
  Bucket initializers;
  Bucket intermediates;
  Bucket outputs;
};

struct Diagnostic {
  enum class Severity : std::uint8_t { kNote, kWarning, kError };
  Severity severity = Severity::kWarning;
  NodeId node = kInvalidId;  ///< kInvalidId when not about a node
  std::string message;       ///< one line, names the node when there is one
};

/// A rule of the registry that was called for a node and failed (returned an error, threw, or
/// broke the boundary's contract). The analysis went on with the fallbacks; what the failure
/// left unknown (an unknown-rank output's `bytes_<value>`, a `scratch_<Op>_<node>`) is a symbol.
struct RuleFailure {
  enum class Kind : std::uint8_t { kShape, kTag, kInplace, kScratch };
  Kind kind = Kind::kShape;
  NodeId node = kInvalidId;  ///< in graph() (a body node too)
  std::string rule;          ///< the rule's origin: "acme 1.0 (/path/libacme.so)", "profile ops"
  std::string message;       ///< the rule's own reason, as it gave it
};

/// "shape", "tag", "in-place" or "scratch".
const char* rule_kind_name(RuleFailure::Kind kind);

/// What a rule recorded between dims. An assumption (IShapeSink::constraint) is what its result
/// depends on; a requirement (IShapeSink::require_handles, `required`) is what the operator cannot
/// run without, and may narrow the bounds (derived_bounds()).
struct Constraint {
  enum class Kind : std::uint8_t { kEq, kLe, kNe, kBroadcast, kOneOf, kDivides };
  Kind kind;
  Expr a, b, c;
  NodeId node = kInvalidId;
  bool required = false;
};

/// A data-dependent dim's worst case, as its producer's rule stated it (IShapeSink::
/// bound_fresh_dim): `symbol` (a fresh symbol) never exceeds `upper`, an expression in the dims
/// the rule saw. A fact of the operator, not an assumption (those are Constraints).
struct DimBound {
  Expr symbol;
  Expr upper;
  NodeId node = kInvalidId;  ///< the producer (a body node too)
};

/// A symbol's bounds narrowed by a main-graph constraint (semantics.md "Bounds derived from the
/// model"): the model cannot run outside `after`, so the analysis simplifies under it.
struct DerivedBound {
  Expr symbol;
  Interval before;
  Interval after;
  std::string reason;  ///< "required by node 12 'Div_3' (Div): h//4 != 0"
};

/// A decision log event (semantics.md "Writing back, decision log, report: Decision log").
struct DecisionEvent {
  std::string label;  ///< "release", "inplace", "release_shape_tag"
  std::int64_t node_index = -1;
  std::string name;
  std::int64_t output_index = -1;
  std::int64_t input_index = -1;
  std::string kind;
  std::string mode;
};

/// Wall time of one pipeline stage in the last compute().
struct StageTiming {
  std::string
      stage;  ///< "graph", "shapes", "tags", "lifetimes", "inplace", "memory", "scratch", "peak"
  double seconds = 0;
};

/// Called after each stage with its timing (progress reporting on large graphs).
using ProgressCallback = void (*)(void* user, const StageTiming& finished, std::size_t node_count);

struct PeakEvaluation {
  Assignment assignment;
  std::int64_t bytes = 0;
  std::int64_t node = -1;  ///< lowest node index attaining the max
  /// What a runtime allocates during one run on top of what it holds before the run starts: the
  /// largest of the nodes' totals plus scratch minus the graph inputs and initializers live at
  /// the node (for the default profile: the peak minus the inputs and initializers).
  std::int64_t run_bytes = 0;
  std::int64_t run_node = -1;  ///< lowest node index attaining run_bytes
  /// What is held before a run starts: the initializers (and, with
  /// `memory.constants_as_initializers`, the Constant nodes' outputs) plus the profile's
  /// `memory.session_overhead_bytes`. Graph inputs are the caller's, in neither figure.
  std::int64_t session_bytes = 0;
  /// The graph inputs the caller creates and holds for the whole run (for a decoder, the KV
  /// cache it feeds in); initializers are the session's.
  std::int64_t input_bytes = 0;
  /// What the process must have for one run: session_bytes + input_bytes + run_bytes (the
  /// figure a deployer reserves; README "Which figure to reserve").
  std::int64_t reserve_bytes = 0;
  /// Roles inside the figures: the initializers the session holds (session_bytes less the
  /// profile's fixed overhead) and the scratch of the node where the run peaks (the rest of
  /// run_bytes is activations and outputs; with an arena, its regions).
  std::int64_t weight_bytes = 0;
  std::int64_t run_scratch_bytes = 0;
  /// The runtime's intra-op threads the figures are for (memory.threads: the assignment's
  /// `threads`, else the profile's default); 0 when the profile declares none.
  std::int64_t threads = 0;
};

/// Whether the reserve figure (PeakEvaluation::reserve_bytes) provably never shrinks as one
/// symbol grows, every other symbol anywhere within its bounds.
struct ReserveTrend {
  bool nondecreasing = false;
  std::string reason;  ///< when not shown: the first part that is not
};

/// How a node of the analysed graph came from the model's nodes: the runtime's graph rewrites
/// (docs/design/rewrites.md) that made it, in the order they applied, and the model's nodes it
/// stands for (their names, or "#k" for the k-th node of the file when it has none).
struct RewriteOrigin {
  std::vector<std::string> rules;
  std::vector<std::string> nodes;
};

/// What the runtime's graph rewrites did to the main graph.
struct RewriteSummary {
  std::size_t nodes_before = 0;
  std::size_t nodes_after = 0;
  std::vector<std::pair<std::string, std::size_t>> applied;  ///< rule, times, in first-use order
  std::size_t initializers_dropped = 0;  ///< read by the rewritten nodes only, now by none
};

class ComputeContext {
 public:
  /// Uses the host's registry (kept alive by this context) and profile options.
  explicit ComputeContext(const Host& host);
  ComputeContext(std::shared_ptr<const RuleRegistry> registry, Profile options);
  ~ComputeContext();
  ComputeContext(const ComputeContext&) = delete;
  ComputeContext& operator=(const ComputeContext&) = delete;

  /// Runs every enabled stage on `model`, which must outlive this context's results. Clears all
  /// results but the decision log. Throws AnalysisError in strict mode, ModelError on a graph
  /// that cannot be analysed (cycle, undefined name).
  void compute(const Model& model);
  /// Writes inferred shapes (value_info, graph outputs) and node annotations into `model`
  /// (semantics.md "Writing back, decision log, report"). `model` must be the analysed model or a
  /// copy of it. A model whose local functions were inlined for the analysis is written in its
  /// inlined form.
  void write_to_model(Model& model) const;
  /// The shapes part of write_to_model alone (value_info of every graph, subgraph bodies
  /// included, and the graph outputs' types), no annotations: what `cctx.infer_shapes` returns.
  void write_shapes_to_model(Model& model) const;

  const Profile& options() const;
  ExprPool& pool() const;
  const GraphView& graph() const;
  const RuleRegistry& registry() const;
  /// The rules bound to node n's operator kind (resolved once per kind, right after the graph).
  const ResolvedRules& rules(NodeId n) const;

  // ---- per value (ValueId from graph()) --------------------------------------------------------
  const ValueShape& shape(ValueId v) const;
  Tag value_tag(ValueId v) const;
  /// Own size in bytes of a value; nullopt when unsized (no dtype size or not a tensor).
  std::optional<Expr> value_bytes(ValueId v) const;

  // ---- per node of the main graph (NodeId == index) -------------------------------------------
  std::size_t node_count() const;
  /// Where node n came from when the profile's runtime rewrote the graph, else nullptr.
  const RewriteOrigin* rewrite_origin(NodeId n) const;
  /// The rewrites' summary, or nullptr when no rewrite applied (the model's graph is analysed).
  const RewriteSummary* rewrite_summary() const;
  Tag node_tag(NodeId n) const;
  ValueIds release_after(NodeId n) const;
  ValueIds not_used_after(NodeId n) const;
  ValueIds release_after_shape_tag(NodeId n) const;
  std::span<const InplaceDecision> inplace(NodeId n) const;
  const MemoryProfile& memory(NodeId n) const;
  Expr node_peak_memory(NodeId n) const;
  /// The runtime folds node n as it loads the graph (a Constant node under
  /// memory.constants_as_initializers, a node whose outputs the shapes decide under
  /// memory.fold_shape_constants): its outputs are held like initializers, no kernel runs.
  bool folded_at_load(NodeId n) const;

  // ---- whole graph ----------------------------------------------------------------------------
  Expr peak_total_bytes() const;
  /// Node whose term alone survives the symbolic max, if any.
  std::optional<NodeId> peak_node() const;
  PeakEvaluation evaluate_peak(const Assignment& assignment) const;
  /// A proof that evaluate_peak(a).reserve_bytes is non-decreasing in `symbol` (`cctx fit`
  /// bisects on it); not attempted with an arena, whose regions are replayed, not formulas.
  ReserveTrend reserve_trend(std::string_view symbol) const;
  /// The first requirement of the main graph (what an operator cannot run without: semantics.md
  /// "Bounds derived from the model") that fails at `assignment`, as one line naming the node,
  /// the requirement and its values there; nullopt when each holds or cannot be evaluated there.
  /// The model cannot run at such an assignment: its figures describe nothing.
  std::optional<std::string> failed_requirement(const Assignment& assignment) const;

  // ---- report material ------------------------------------------------------------------------
  const std::vector<Diagnostic>& diagnostics() const;
  /// Every rule that failed, in the order the stages met them (one per node and rule kind).
  const std::vector<RuleFailure>& rule_failures() const;
  /// The failure whose result the symbol stands for (`bytes_g` of an output the failed shape rule
  /// left unknown, `scratch_Foo_3` of a failed estimate), or nullptr.
  const RuleFailure* rule_failure_behind(std::string_view symbol) const;
  const std::vector<Constraint>& constraints() const;
  /// The upper bounds rules gave their data-dependent dims, in the order the rules ran (one per
  /// symbol: a body inferred again restates it, and the last statement stands).
  const std::vector<DimBound>& dim_bounds() const;
  /// The bounds the model's own constraints narrowed, in the order they were recorded.
  const std::vector<DerivedBound>& derived_bounds() const;
  /// Whether body g runs with its node's inputs: false for an If branch decided against or
  /// refusing its inputs (IShapeSink::skip_body), whose working memory is not counted.
  bool body_runs(GraphId g) const;
  const std::vector<ValueId>& unknown_rank_values() const;
  const std::vector<ValueId>& unsized_values() const;
  const std::vector<DecisionEvent>& events() const;
  void clear_events();
  /// Per-stage wall time of the last compute().
  const std::vector<StageTiming>& stage_timings() const;
  /// Per node of graph(), bit k set when some rule read the node's k-th attribute (its first
  /// 64); empty unless the profile's record_attribute_reads was set.
  const std::vector<std::uint64_t>& attributes_read() const;
  /// Reports each finished stage to `callback` (nullptr: none).
  void set_progress(ProgressCallback callback, void* user);

  struct State;  // the stages' shared results (pipeline/analysis_state.hpp)

 private:
  /// The annotations part of write_to_model: metadata_props of nodes, values and initializers.
  void write_annotations(Model& model) const;
  std::unique_ptr<State> state_;
};

}  // namespace cctx
