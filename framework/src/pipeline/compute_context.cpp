#include "cctx/compute_context.hpp"

#include <onnx/onnx_pb.h>

#include <chrono>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/model.hpp"
#include "model/inline_functions.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/arena_replay.hpp"
#include "pipeline/derived_bounds.hpp"
#include "pipeline/physical_cores.hpp"

namespace cctx {

const char* reuse_kind_name(ReuseKind kind) {
  switch (kind) {
    case ReuseKind::kEqual:
      return "equal";
    case ReuseKind::kGreater:
      return "greater";
    case ReuseKind::kIfFits:
      return "if_fits";
  }
  return "equal";
}

const char* reuse_mode_name(ReuseMode mode) {
  switch (mode) {
    case ReuseMode::kMayReuse:
      return "may_reuse";
    case ReuseMode::kAlias:
      return "alias";
    case ReuseMode::kWriteInto:
      return "write_into";
  }
  return "may_reuse";
}

ComputeContext::ComputeContext(const Host& host)
    : ComputeContext(host.registry(), host.profile()) {}

ComputeContext::ComputeContext(std::shared_ptr<const RuleRegistry> registry, Profile options)
    : state_(std::make_unique<State>()) {
  state_->registry = std::move(registry);
  state_->options = std::move(options);
  state_->pool = std::make_unique<ExprPool>(state_->options.expressions);
}

ComputeContext::~ComputeContext() = default;

namespace {

/// The newest IR version ONNX had defined when cctx was last checked against it (ONNX 1.21).
constexpr std::int64_t kNewestKnownIrVersion = 13;

/// A model from a newer ONNX than cctx knows is analysed all the same (its operators mostly keep
/// their meaning), but not without a word: an operator a newer opset changed is analysed with
/// the rules of the newest version cctx has.
void warn_about_versions(ComputeContext::State& s, const Model& model) {
  for (const std::string& w : s.registry->load_warnings()) s.warn(kInvalidId, w);
  const onnx::ModelProto& proto = model.proto();
  if (proto.ir_version() > kNewestKnownIrVersion) {
    s.warn(kInvalidId, model.source() + ": IR version " + std::to_string(proto.ir_version()) +
                           " is newer than any cctx knows (" +
                           std::to_string(kNewestKnownIrVersion) +
                           "); analysed as the newest it knows");
  }
  for (const onnx::OperatorSetIdProto& op : proto.opset_import()) {
    const std::string_view domain = normalize_domain(op.domain());
    std::int64_t newest = -1, oldest = -1;
    std::string newest_origin, oldest_origin;
    bool covered = false;
    for (const DomainRange& range : s.registry->domains()) {
      if (normalize_domain(range.domain) != domain) continue;
      covered = covered || (op.version() >= range.min_version && op.version() <= range.max_version);
      if (range.max_version > newest) {
        newest = range.max_version;
        newest_origin = range.origin;
      }
      if (oldest < 0 || range.min_version < oldest) {
        oldest = range.min_version;
        oldest_origin = range.origin;
      }
    }
    if (newest < 0 || covered) continue;
    const std::string imports = model.source() + ": the model imports " +
                                (domain.empty() ? std::string("ai.onnx") : std::string(domain)) +
                                " opset " + std::to_string(op.version());
    // A custom domain's versions are the vendor's own: the plugin said which it knows, so
    // strict analysis refuses the others (ai.onnx's newer opsets keep most operators).
    std::string message;
    if (op.version() > newest) {
      message = imports + ", newer than the newest the loaded rules know (" +
                std::to_string(newest) + ", " + newest_origin +
                "); operators changed since then are analysed with older rules";
    } else if (op.version() < oldest) {
      message = imports + ", older than the oldest the loaded rules know (" +
                std::to_string(oldest) + ", " + oldest_origin + "); its operators have no rules";
    } else {
      message = imports + ", which no loaded plugin declares (between " + std::to_string(oldest) +
                " and " + std::to_string(newest) + ")";
    }
    if (s.options.shapes.strict && !domain.empty()) throw AnalysisError(message);
    s.warn(kInvalidId, message);
  }
}

/// Every stage of the pipeline on `s`, a fresh state.
void run_stages(ComputeContext::State& s, const Model& model) {
  using Clock = std::chrono::steady_clock;
  auto timed = [&s](const char* stage, auto&& run) {
    const Clock::time_point start = Clock::now();
    run();
    s.timings.push_back(
        StageTiming{stage, std::chrono::duration<double>(Clock::now() - start).count()});
    if (s.progress != nullptr) {
      s.progress(s.progress_user, s.timings.back(), s.graph ? s.graph->main_node_count() : 0);
    }
  };
  timed("graph", [&] {
    // Local-function calls are analysed through their bodies, inlined per call site.
    s.inlined = inline_local_functions(model, s.options.limits.nodes);
    if (s.inlined) s.model = &s.inlined->model();
    // The runtime's graph rewrites (its optimiser's fusions and eliminations): what it runs is
    // what is planned.
    // Rules that test a value's element type or rank ask ONNX's inference over the model, as
    // ONNX Runtime resolves it; it runs on the first question, and the free-list planner reuses
    // it.
    const ValueTypeQuery types{[&s](std::string_view name) {
                                 const RuntimeTypes* t = s.runtime_types();
                                 return t != nullptr ? t->elem_type(name) : 0;
                               },
                               [&s](std::string_view name) {
                                 const RuntimeTypes* t = s.runtime_types();
                                 return t != nullptr ? t->rank(name) : -1;
                               },
                               [&s](std::string_view name) -> const onnx::TensorShapeProto* {
                                 const RuntimeTypes* t = s.runtime_types();
                                 return t != nullptr ? t->shape(name) : nullptr;
                               }};
    s.rewritten = rewrite_model(*s.model, s.registry->rewrites(), types);
    if (s.rewritten) {
      s.before_rewrites = s.model;
      s.model = &s.rewritten->model();
    }
    s.graph = std::make_unique<GraphView>(
        *s.model,
        s.options.memory.execution_order == "reverse_dfs" ? NodeOrder::kReverseDfs
                                                          : NodeOrder::kFile,
        s.rewritten ? s.rewritten->runtime_numbers() : std::span<const std::uint32_t>{});
    if (s.options.record_attribute_reads) s.attributes_read.assign(s.graph->nodes().size(), 0);
    s.rules.bind(*s.graph, *s.registry);
  });
  warn_about_versions(s, model);
  for (const std::string& w : s.graph->warnings()) s.warn(kInvalidId, w);
  timed("shapes", [&] { s.shapes = run_shape_stage_with_derived_bounds(s); });
  timed("tags", [&] { s.tags = run_tag_stage(s, s.shapes); });
  // Lifetimes, in-place decisions and buffers: the profile's buffer planner ("lifetimes" and
  // "inplace" for the seed's).
  s.plan = make_buffer_planner(s.options.memory.buffer_plan)
               ->plan(s, s.shapes, s.tags, [&](const char* step, const std::function<void()>& run) {
                 timed(step, run);
               });
  timed("memory", [&] { s.memory = run_memory_stage(s, s.tags, s.plan); });
  timed("scratch", [&] { s.scratch = run_scratch_stage(s, s.shapes); });
  timed("peak", [&] { s.peak = run_peak_stage(s, s.memory, s.scratch); });
  for (std::string& w : s.pool->take_warnings()) s.warn(kInvalidId, std::move(w));
}

}  // namespace

void ComputeContext::compute(const Model& model) {
  // The analysis runs on a fresh state that replaces the current one only once every stage has
  // finished: a compute() that throws leaves the previous results (or none) as they were, so a
  // caller that goes on reading this context never sees half of one analysis and half of another.
  auto fresh = std::make_unique<State>();
  State& s = *fresh;
  s.registry = state_->registry;
  s.options = state_->options;
  s.progress = state_->progress;
  s.progress_user = state_->progress_user;
  s.model = &model;
  s.pool = std::make_unique<ExprPool>(s.options.expressions);
  for (const auto& [name, bounds] : s.options.symbols) s.pool->declare_symbol(name, bounds);
  if (const Profile::Memory::Threads& t = s.options.memory.threads; t.declared) {
    // Before any rule runs: the plugins' scratch formulas name the same symbol.
    static const std::int64_t cores = physical_cores();
    const std::int64_t value = t.default_threads > 0 ? t.default_threads : cores;
    s.pool->declare_parameter(
        kThreadsSymbol, value,
        "the runtime's intra-op threads (memory.threads; default " + std::to_string(value) +
            (t.default_threads > 0 ? ", the profile's" : ", this machine's physical cores") + ")");
  }
  run_stages(s, model);
  // The decision log is kept across computes (clear_events() empties it): this run's events
  // follow the earlier ones.
  std::vector<DecisionEvent> events = std::move(state_->events);
  events.insert(events.end(), std::make_move_iterator(s.events.begin()),
                std::make_move_iterator(s.events.end()));
  s.events = std::move(events);
  state_ = std::move(fresh);
}

const Profile& ComputeContext::options() const { return state_->options; }
ExprPool& ComputeContext::pool() const { return *state_->pool; }
const RuleRegistry& ComputeContext::registry() const { return *state_->registry; }
const std::vector<std::uint64_t>& ComputeContext::attributes_read() const {
  return state_->attributes_read;
}
const ResolvedRules& ComputeContext::rules(NodeId n) const { return state_->rules_of(n); }

const GraphView& ComputeContext::graph() const {
  if (!state_->graph) throw Error("ComputeContext: compute() has not run", ExitCode::kUsage);
  return *state_->graph;
}

const ValueShape& ComputeContext::shape(ValueId v) const { return state_->shapes.values.at(v); }
Tag ComputeContext::value_tag(ValueId v) const { return state_->tags.values.at(v); }
std::optional<Expr> ComputeContext::value_bytes(ValueId v) const {
  if (v < state_->plan.bytes.size() && state_->graph->value(v).graph == 0)
    return state_->plan.bytes[v];
  return compute_value_bytes(*state_, state_->shapes, v);
}

std::size_t ComputeContext::node_count() const { return state_->memory.nodes.size(); }
const RewriteOrigin* ComputeContext::rewrite_origin(NodeId n) const {
  const State& s = *state_;
  if (!s.rewritten || !s.graph || n >= s.graph->nodes().size()) return nullptr;
  return s.rewritten->origin(s.graph->node(n).proto);
}
const RewriteSummary* ComputeContext::rewrite_summary() const {
  return state_->rewritten ? &state_->rewritten->summary() : nullptr;
}
Tag ComputeContext::node_tag(NodeId n) const { return state_->tags.nodes.at(n); }
ValueIds ComputeContext::release_after(NodeId n) const { return state_->plan.release_after.at(n); }
ValueIds ComputeContext::not_used_after(NodeId n) const {
  return state_->plan.not_used_after.at(n);
}
ValueIds ComputeContext::release_after_shape_tag(NodeId n) const {
  return state_->plan.release_after_shape_tag.at(n);
}
std::span<const InplaceDecision> ComputeContext::inplace(NodeId n) const {
  return state_->plan.inplace.at(n);
}
const MemoryProfile& ComputeContext::memory(NodeId n) const { return state_->memory.nodes.at(n); }
Expr ComputeContext::node_peak_memory(NodeId n) const { return state_->scratch.nodes.at(n); }
bool ComputeContext::folded_at_load(NodeId n) const {
  const std::vector<bool>& folded = state_->plan.folded;  // empty: nothing folds
  return n < folded.size() && folded[n];
}

Expr ComputeContext::peak_total_bytes() const { return state_->peak.total; }
std::optional<NodeId> ComputeContext::peak_node() const { return state_->peak.node; }

std::optional<std::string> ComputeContext::failed_requirement(const Assignment& assignment) const {
  const State& s = *state_;
  if (!s.graph) return std::nullopt;
  ExprPool& pool = *s.pool;
  for (const Constraint& c : s.shapes.constraints) {
    // A body's requirement holds only when its branch or iteration runs.
    if (!c.required || c.node == kInvalidId || s.graph->node(c.node).graph != 0) continue;
    try {
      if (constraint_holds(pool, c, assignment)) continue;
      std::string there = std::to_string(pool.eval(c.a, assignment)) + " and " +
                          std::to_string(pool.eval(c.b, assignment));
      if (c.kind == Constraint::Kind::kOneOf) {
        there += " and " + std::to_string(pool.eval(c.c, assignment));
      }
      return describe_node(*s.graph, c.node) + " requires " + constraint_text(pool, c) +
             " (there " + there + ")";
    } catch (const ExprError&) {
      // Not evaluable there (a symbol the assignment lacks): not known to fail.
    }
  }
  // An output written into a buffer with room for it (IInplaceSink::write_into) that does not fit.
  for (const BufferPlan::CapacityWrite& w : s.plan.capacity_writes) {
    if (w.output >= s.plan.bytes.size() || !s.plan.bytes[w.output]) continue;
    try {
      const std::int64_t bytes = pool.eval(*s.plan.bytes[w.output], assignment);
      const std::int64_t capacity = pool.eval(w.capacity, assignment);
      if (bytes <= capacity) continue;
      return describe_node(*s.graph, w.node) + " writes '" +
             std::string(s.graph->value(w.output).name) + "' (" +
             pool.print(*s.plan.bytes[w.output]) + " bytes) into the buffer of '" +
             std::string(s.graph->value(w.input).name) + "', which has room for " +
             pool.print(w.capacity) + " bytes (there " + std::to_string(bytes) + " > " +
             std::to_string(capacity) + ")";
    } catch (const ExprError&) {
    }
  }
  // A size the model's formulas make negative there (semantics.md "Sizes are never negative").
  for (const ShapeResult::SignedDim& d : s.shapes.signed_dims) {
    try {
      const std::int64_t v = pool.eval(d.dim, assignment);
      if (v >= 0) continue;
      return describe_node(*s.graph, d.node) + " would give '" +
             std::string(s.graph->value(d.value).name) + "' a negative dim: " + pool.print(d.dim) +
             " = " + std::to_string(v);
    } catch (const ExprError&) {
    }
  }
  return std::nullopt;
}

namespace {

/// The bytes a runtime allocates for itself while a run is at node n (memory.run_overhead_*):
/// a base from the start, and a part per node run so far. Below 2^40 + 2^20 * (values + nodes),
/// with fewer than 2^32 of each: no overflow.
struct RunOverhead {
  std::int64_t base = 0;
  std::int64_t per_node = 0;
  std::vector<std::int64_t> kernels;  ///< kernels run up to and including node n
  std::int64_t at(std::size_t n) const { return base + per_node * kernels[n]; }
};

/// Per node, how many of the nodes up to it (in the order they run) the runtime runs as a
/// kernel: every one, but a node the runtime folds as it loads the graph: a Constant node
/// (memory.constants_as_initializers), a node whose outputs the shapes decide
/// (memory.fold_shape_constants). It has no kernel and no run bookkeeping. PyTorch's exports hold
/// hundreds of them (a 700-node decoder: 250). The session's per-node part still counts them: the
/// session keeps each one as an initializer (session_overhead_per_node_bytes is fitted that way;
/// fitted on kernels alone it would be 5.0 kB, and still under on the Constant-heavy transformer
/// encoder).
std::vector<std::int64_t> kernels_run(const ComputeContext::State& s, std::size_t count) {
  const std::vector<bool>& folded = s.plan.folded;  // empty: nothing folds
  std::vector<std::int64_t> out(count);
  std::int64_t kernels = 0;
  for (std::size_t n = 0; n < count; ++n) {
    out[n] = kernels += n < folded.size() && folded[n] ? 0 : 1;
  }
  return out;
}

RunOverhead run_overhead(const ComputeContext::State& s, std::size_t count) {
  const Profile::Memory& m = s.options.memory;
  RunOverhead o{m.run_overhead_bytes, m.run_overhead_per_node_bytes, kernels_run(s, count)};
  if (m.run_overhead_per_value_bytes > 0) {
    // Every value of the main graph has a slot: graph inputs, initializers, node outputs.
    const GraphEntry& main = s.graph->main();
    std::int64_t values = static_cast<std::int64_t>(main.inputs.size() + main.initializers.size());
    for (NodeId n : main.nodes) {
      for (ValueId v : s.graph->node(n).outputs) values += v != kNoValue ? 1 : 0;
    }
    o.base += m.run_overhead_per_value_bytes * values;
  }
  return o;
}

}  // namespace

PeakEvaluation ComputeContext::evaluate_peak(const Assignment& assignment) const {
  PeakEvaluation result;
  result.assignment = assignment;
  // One batch: identical terms (real graphs repeat the same few totals many times) and shared
  // monomials are evaluated once.
  // The held amounts (inputs and initializers) join the same batch: their rows change at few
  // nodes, so most nodes repeat the previous node's handles.
  const std::vector<Expr>& terms = state_->peak.node_terms;
  const std::size_t count = terms.size();
  std::vector<Expr> batch(terms);
  std::vector<std::uint32_t> held_from(count + 1, 0);
  for (std::size_t n = 0; n < count; ++n) {
    held_from[n] = static_cast<std::uint32_t>(batch.size());
    const MemoryProfile& p = state_->memory.nodes[n];
    for (const auto& [tag, amount] : p.inputs) batch.push_back(amount);
    for (const auto& [tag, amount] : p.initializers) batch.push_back(amount);
  }
  held_from[count] = static_cast<std::uint32_t>(batch.size());
  const std::int64_t copies = state_->options.memory.output_copies;
  // The outputs at the end of the run: those in buffers of their own, then those written into a
  // graph input's buffer (a KV cache the caller bound to its past), which the caller holds with
  // the inputs; the binding's copies are made of both (onnxruntime-node copies a bound output
  // too, measured).
  std::size_t bound_from = batch.size();
  if (copies > 0) {
    std::vector<Expr> bound;
    for (ValueId v : state_->graph->main().outputs) {
      if (v >= state_->plan.bytes.size() || !state_->plan.bytes[v]) continue;
      const std::uint32_t b =
          v < state_->plan.buffer_of.size() ? state_->plan.buffer_of[v] : kInvalidId;
      const bool in_input =
          b < state_->plan.buffers.size() && state_->plan.buffers[b].source == BufferSource::kInput;
      (in_input ? bound : batch).push_back(*state_->plan.bytes[v]);
    }
    bound_from = batch.size();
    batch.insert(batch.end(), bound.begin(), bound.end());
  }
  // The graph inputs the caller holds for the whole run (a declared input that is also an
  // initializer is the session's, counted there).
  const std::size_t inputs_from = batch.size();
  for (ValueId v : state_->graph->main().inputs) {
    if (state_->graph->value(v).is_initializer()) continue;
    if (v >= state_->plan.bytes.size() || !state_->plan.bytes[v]) continue;
    // The buffer the caller allocates: larger than the value where an op writes into it up to a
    // capacity (a max-length KV cache); the value's own size otherwise.
    const std::uint32_t b =
        v < state_->plan.buffer_of.size() ? state_->plan.buffer_of[v] : kInvalidId;
    batch.push_back(b < state_->plan.buffers.size() ? state_->plan.buffers[b].size
                                                    : *state_->plan.bytes[v]);
  }
  const std::vector<std::int64_t> values = state_->pool->eval_all(batch, assignment);
  for (std::size_t k = inputs_from; k < values.size(); ++k) {
    if (__builtin_add_overflow(result.input_bytes, values[k], &result.input_bytes)) {
      throw ExprError(ExprError::Kind::kOverflow,
                      "integer overflow: the graph inputs add up to more than 2^63 - 1");
    }
  }
  const RunOverhead overhead = run_overhead(*state_, count);
  for (std::size_t n = 0; n < count; ++n) {
    if (result.node < 0 || values[n] > result.bytes) {
      result.bytes = values[n];
      result.node = static_cast<std::int64_t>(n);
    }
    std::int64_t run = values[n] + overhead.at(n);
    for (std::uint32_t k = held_from[n]; k < held_from[n + 1]; ++k) run -= values[k];
    if (result.run_node < 0 || run > result.run_bytes) {
      result.run_bytes = run;
      result.run_node = static_cast<std::int64_t>(n);
    }
  }
  if (copies > 0) {
    // After the last node the outputs are held by the runtime and by the caller's copies.
    std::int64_t outputs = 0;
    for (std::size_t k = held_from[count]; k < bound_from; ++k) outputs += values[k];
    std::int64_t bound = 0;
    for (std::size_t k = bound_from; k < inputs_from; ++k) bound += values[k];
    std::int64_t held = 0;
    if (__builtin_mul_overflow(outputs, copies + 1, &held) ||
        __builtin_mul_overflow(bound, copies, &bound) ||
        __builtin_add_overflow(held, bound, &held)) {
      throw ExprError(
          ExprError::Kind::kOverflow,
          "integer overflow: the outputs and their copies add up to more than 2^63 - 1");
    }
    if (held > result.run_bytes) {
      result.run_bytes = held;
      result.run_node = static_cast<std::int64_t>(count) - 1;
    }
  }
  // Initializers are never released: node 0 holds them all.
  // The per-node part is below 2^30 per node and node counts below 2^32: no overflow.
  std::int64_t session_overhead =
      state_->options.memory.session_overhead_bytes +
      state_->options.memory.session_overhead_per_node_bytes * static_cast<std::int64_t>(count);
  if (const Profile::Memory::Threads& t = state_->options.memory.threads; t.declared) {
    // The thread pool's own structures, per thread beyond the first (the one that calls run).
    result.threads = state_->pool->eval(state_->pool->symbol(kThreadsSymbol), assignment);
    std::int64_t pool_bytes = 0;
    if (__builtin_mul_overflow(result.threads - 1, t.session_bytes_per_thread, &pool_bytes) ||
        __builtin_add_overflow(session_overhead, pool_bytes, &session_overhead)) {
      throw ExprError(ExprError::Kind::kOverflow,
                      "integer overflow: the thread pool's bytes are more than 2^63 - 1");
    }
  }
  result.session_bytes = session_overhead;
  if (count > 0) {
    const MemoryProfile& first = state_->memory.nodes[0];
    for (std::uint32_t k = held_from[0] + static_cast<std::uint32_t>(first.inputs.size());
         k < held_from[1]; ++k) {
      if (__builtin_add_overflow(result.session_bytes, values[k], &result.session_bytes)) {
        throw ExprError(ExprError::Kind::kOverflow,
                        "integer overflow: the session's bytes add up to more than 2^63 - 1");
      }
    }
  }
  // Roles: the weights are the session's held amounts; the run's scratch is that of the node
  // where the run peaks (evaluated alone: one expression).
  result.weight_bytes = result.session_bytes - session_overhead;
  if (result.run_node >= 0 &&
      static_cast<std::size_t>(result.run_node) < state_->scratch.nodes.size()) {
    result.run_scratch_bytes = state_->pool->eval(
        state_->scratch.nodes[static_cast<std::size_t>(result.run_node)], assignment);
  }
  const Profile::Memory::Arena& arena = state_->options.memory.arena;
  if (arena.enabled && state_->options.memory.enabled) {
    // An arena keeps what it reserved: the runtime figures are its regions.
    const ArenaReplay replay = replay_on_arena(*state_->pool, *state_, assignment);
    // The runtime's own per-run structures come from malloc, beside the regions, and are
    // largest at the last node.
    result.run_bytes = replay.run_reserved + (count > 0 ? overhead.at(count - 1) : 0);
    if (arena.initializers) {
      result.session_bytes = session_overhead + replay.session_reserved;
    } else {
      // The packed copies live in the arena's regions; their originals were freed.
      result.session_bytes += replay.session_reserved - replay.packed_originals;
    }
  }
  if (__builtin_add_overflow(result.session_bytes, result.input_bytes, &result.reserve_bytes) ||
      __builtin_add_overflow(result.reserve_bytes, result.run_bytes, &result.reserve_bytes)) {
    throw ExprError(ExprError::Kind::kOverflow,
                    "integer overflow: the reserve (session + inputs + run) is more than 2^63 - 1");
  }
  return result;
}

ReserveTrend ComputeContext::reserve_trend(std::string_view symbol) const {
  // The reserve is session + inputs + max over nodes of (term - held) (evaluate_peak): it grows
  // with the symbol when every one of those parts does. Each part is an expression; the pool
  // proves its direction structurally.
  ReserveTrend trend;
  const State& s = *state_;
  if (!s.graph || !s.options.memory.enabled) {
    trend.reason = "the profile computes no memory";
    return trend;
  }
  if (s.options.memory.arena.enabled) {
    trend.reason = "the arena's regions (memory.arena) are replayed per assignment, not a formula";
    return trend;
  }
  ExprPool& pool = *s.pool;
  auto grows = [&](Expr e) {
    const Direction d = pool.direction_in(e, symbol);
    return d == Direction::kConstant || d == Direction::kNondecreasing;
  };
  const std::vector<Expr>& terms = s.peak.node_terms;
  for (std::size_t n = 0; n < terms.size(); ++n) {
    std::vector<Expr> held;
    const MemoryProfile& p = s.memory.nodes[n];
    for (const auto& [tag, amount] : p.inputs) held.push_back(amount);
    for (const auto& [tag, amount] : p.initializers) held.push_back(amount);
    const Expr run = pool.sub(terms[n], pool.sum(held));
    if (!grows(run)) {
      trend.reason = describe_node(*s.graph, static_cast<NodeId>(n)) + ": its run figure " +
                     pool.print(run) + " is not shown to grow with " + std::string(symbol);
      return trend;
    }
    if (n == 0) {
      for (const Expr h : held) {
        if (!grows(h)) {
          trend.reason = "a held amount " + pool.print(h) + " is not shown to grow with " +
                         std::string(symbol);
          return trend;
        }
      }
    }
  }
  for (const std::vector<ValueId>* list : {&s.graph->main().inputs, &s.graph->main().outputs}) {
    for (ValueId v : *list) {
      if (v >= s.plan.bytes.size() || !s.plan.bytes[v] || grows(*s.plan.bytes[v])) continue;
      trend.reason = "the size of '" + std::string(s.graph->value(v).name) + "' (" +
                     pool.print(*s.plan.bytes[v]) + ") is not shown to grow with " +
                     std::string(symbol);
      return trend;
    }
  }
  trend.nondecreasing = true;
  return trend;
}

const std::vector<Diagnostic>& ComputeContext::diagnostics() const { return state_->diagnostics; }
const std::vector<Constraint>& ComputeContext::constraints() const {
  return state_->shapes.constraints;
}
const std::vector<DimBound>& ComputeContext::dim_bounds() const {
  return state_->shapes.dim_bounds;
}

const std::vector<DerivedBound>& ComputeContext::derived_bounds() const {
  return state_->shapes.derived_bounds;
}
bool ComputeContext::body_runs(GraphId g) const {
  return state_->shapes.skipped_bodies.count(g) == 0;
}
const std::vector<ValueId>& ComputeContext::unknown_rank_values() const {
  return state_->shapes.unknown_rank_values;
}
const std::vector<ValueId>& ComputeContext::unsized_values() const {
  return state_->plan.unsized_values;
}
const std::vector<DecisionEvent>& ComputeContext::events() const { return state_->events; }
void ComputeContext::clear_events() { state_->events.clear(); }
const std::vector<StageTiming>& ComputeContext::stage_timings() const { return state_->timings; }
void ComputeContext::set_progress(ProgressCallback callback, void* user) {
  state_->progress = callback;
  state_->progress_user = user;
}

}  // namespace cctx
