// Stage 5: the per-node memory profile (semantics.md "Per-node memory profile"). Live memory is
// kept as running sums per (source, tag), updated only when a buffer is created, freed or
// re-tagged, so the stage is linear in the graph: no re-scan of the live set at each node. The sums
// are RunningSums: a change merges a few terms, and each sum is interned once per node that reads
// it changed.
#include <array>
#include <span>

#include "expr/running_sum.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/node_flags.hpp"

namespace cctx {

namespace {

// Buckets list tags sorted by name: "" (untagged), ambiguous, axes, shape, weight.
constexpr std::array<Tag, 5> kTagOrder = {Tag::kNone, Tag::kAmbiguous, Tag::kAxes, Tag::kShape,
                                          Tag::kWeight};

class MemoryStage {
 public:
  MemoryStage(Analysis& a, const TagResult& tags, const BufferPlan& plan, MemoryResult& out)
      : s_(a),
        tags_(tags),
        plan_(plan),
        out_(out),
        pool_(*a.pool),
        live_total_(pool_),
        sums_{make_row(pool_), make_row(pool_), make_row(pool_)} {
    for (auto& row : nonzero_) row.fill(0);
  }

  void run() {
    const GraphView& g = *s_.graph;
    const std::size_t count = g.main_node_count();
    // Filled in node order by step(): each profile is written once, not zeroed first (108 MB
    // on a million nodes).
    out_.nodes.clear();
    out_.nodes.reserve(count);
    // About one new sum per node (the live total changes at almost every node); room for a
    // quarter more spares the pool's arrays a copy near the end.
    pool_.reserve(count + count / 4);
    const std::size_t buffers = plan_.buffers.size();
    members_.assign(buffers, 0);
    tag_.assign(buffers, Tag::kNone);
    source_.resize(buffers);
    for (std::size_t b = 0; b < buffers; ++b) source_[b] = plan_.buffers[b].source;

    const GraphEntry& main = g.main();
    try {
      for (ValueId v : main.initializers) seed(v);
      for (ValueId v : main.inputs) seed(v);
      for (ValueId v : plan_.preloaded) seed(v);
    } catch (const ExprError& e) {
      if (e.kind() != ExprError::Kind::kOverflow) throw;
      throw ExprError(e.kind(),
                      "integer overflow: the graph's inputs and initializers add up to more "
                      "than 2^63 - 1 bytes");
    }
    if (s_.options.memory.arena.enabled) {
      trace_ = &out_.trace;
      traced_.assign(buffers, false);
      trace_->node_begin.reserve(count + 1);
      trace_->frees_begin.reserve(count);
    }
    for (NodeId n = 0; n < count; ++n) {
      try {
        step(n);
      } catch (const ExprError& e) {
        rethrow_at_node(s_, n, e, "the bytes live at this node add up to more than 2^63 - 1");
      }
    }
    if (trace_) trace_->node_begin.push_back(static_cast<std::uint32_t>(trace_->buffers.size()));
  }

 private:
  using Row = std::array<RunningSum, kTagOrder.size()>;
  static Row make_row(ExprPool& pool) {
    return Row{RunningSum(pool), RunningSum(pool), RunningSum(pool), RunningSum(pool),
               RunningSum(pool)};
  }
  static std::size_t row(BufferSource s) { return static_cast<std::size_t>(s); }
  static std::size_t column(Tag t) {
    for (std::size_t k = 0; k < kTagOrder.size(); ++k) {
      if (kTagOrder[k] == t) return k;
    }
    return 0;
  }
  bool is_zero(Expr e) const {
    auto v = pool_.as_int(e);
    return v && *v == 0;
  }

  // A buffer coming to life (members 0 -> 1) or dying (1 -> 0): the allocator model sees it if
  // it holds an intermediate (inputs are the caller's, initializers the session's).
  void trace(std::uint32_t b, bool alloc) {
    if (!trace_) return;
    if (alloc && source_[b] != BufferSource::kIntermediate) return;
    if (!alloc && !traced_[b]) return;
    traced_[b] = alloc;
    trace_->buffers.push_back(b);
  }

  void account(std::uint32_t b, bool add) {
    const Expr size = plan_.buffers[b].size;
    const std::size_t r = row(source_[b]), c = column(tag_[b]);
    row_changed_[r] = true;
    if (add) {
      live_total_.add(size);
      sums_[r][c].add(size);
      if (!is_zero(size)) ++nonzero_[r][c];
    } else {
      live_total_.sub(size);
      sums_[r][c].sub(size);
      if (!is_zero(size)) --nonzero_[r][c];
    }
  }

  void seed(ValueId v) {
    const std::uint32_t b = plan_.buffer_of[v];
    if (b == kInvalidId || members_[b] != 0) return;  // untracked, or an initializer also an input
    tag_[b] = tags_.values[v];
    members_[b] = 1;
    account(b, true);
  }

  // Buffer b comes to life during the run holding v.
  void allocate(std::uint32_t b, ValueId v) {
    tag_[b] = tags_.values[v];
    members_[b] = 1;
    account(b, true);
    trace(b, true);
  }

  void join(std::uint32_t b, ValueId v) {
    if (members_[b] == 0) {  // a buffer no value holds: it is allocated again
      allocate(b, v);
      return;
    }
    const Tag merged = merge_tag(tag_[b], tags_.values[v]);
    if (merged != tag_[b]) {
      account(b, false);
      tag_[b] = merged;
      account(b, true);
    }
    ++members_[b];
  }

  void leave(ValueId v) {
    const std::uint32_t b = plan_.buffer_of[v];
    if (b == kInvalidId || members_[b] == 0) return;
    if (--members_[b] == 0) {
      account(b, false);
      trace(b, false);
    }
  }

  void set_source(std::uint32_t b, BufferSource source) {
    if (source_[b] == source) return;
    account(b, false);
    source_[b] = source;
    account(b, true);
  }

  // A row's bucket is rebuilt only after one of its sums changed: the inputs' and initializers'
  // rows stay the same across most nodes.
  const Bucket& bucket(BufferSource source) {
    const std::size_t r = row(source);
    if (!row_changed_[r]) return last_bucket_[r];
    Bucket out;
    for (std::size_t c = 0; c < kTagOrder.size(); ++c) {
      if (nonzero_[r][c] > 0) out.emplace_back(kTagOrder[c], sums_[r][c].value());
    }
    row_changed_[r] = false;
    return last_bucket_[r] = out;
  }

  /// What output o of `if_fits` decisions allocates at its node: nothing where one of their
  /// inputs' bytes are at least its own (it takes that buffer), all of it elsewhere:
  /// out * min over the inputs of min(max(out - in, 0), 1).
  Expr allocated_unless_it_fits(const NodeEntry& node, std::span<const InplaceDecision> decisions,
                                std::size_t o) {
    const Expr out = *plan_.bytes[node.outputs[o]];
    Expr factor = pool_.integer(1);
    for (const InplaceDecision& d : decisions) {
      if (d.output != o || d.kind != ReuseKind::kIfFits) continue;
      const Expr in = *plan_.bytes[node.inputs[d.input]];
      const Expr excess = pool_.max(pool_.sub(out, in), pool_.integer(0));
      factor = pool_.min(factor, pool_.min(excess, pool_.integer(1)));
    }
    return pool_.mul(out, factor);
  }

  void step(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    const std::span<const InplaceDecision> decisions = plan_.inplace[n];
    NodeFlags decided(node.outputs.size()), if_fits(node.outputs.size());
    for (const InplaceDecision& d : decisions) {
      (d.kind == ReuseKind::kIfFits ? if_fits : decided).set(d.output);
    }
    const std::span<const std::uint32_t> taken =
        n < plan_.takes_buffer.size() ? plan_.takes_buffer[n] : std::span<const std::uint32_t>();
    for (const std::uint32_t o : taken) decided.set(o);

    // The sums read below are interned one after the other; their table slots are fetched
    // together first, so that their cache misses overlap.
    live_total_.prefetch();
    for (std::size_t r = 0; r < sums_.size(); ++r) {
      if (!row_changed_[r]) continue;
      for (std::size_t c = 0; c < kTagOrder.size(); ++c) {
        if (nonzero_[r][c] > 0) sums_[r][c].prefetch();
      }
    }
    MemoryProfile& p = out_.nodes.emplace_back();
    p.already_allocated = live_total_.value();
    p.inputs = bucket(BufferSource::kInput);
    p.initializers = bucket(BufferSource::kInitializer);
    p.intermediates = bucket(BufferSource::kIntermediate);
    std::array<Expr, kTagOrder.size()> out_sums;
    out_sums.fill(pool_.integer(0));
    std::array<bool, kTagOrder.size()> out_used{};
    Expr allocation = pool_.integer(0);
    for (std::size_t o = 0; o < node.outputs.size(); ++o) {
      const ValueId v = node.outputs[o];
      if (v == kNoValue || decided[o] || !plan_.bytes[v]) continue;
      const Expr bytes =
          if_fits[o] ? allocated_unless_it_fits(node, decisions, o) : *plan_.bytes[v];
      allocation = pool_.add(allocation, bytes);
      if (is_zero(bytes)) continue;
      const std::size_t c = column(tags_.values[v]);
      out_sums[c] = pool_.add(out_sums[c], bytes);
      out_used[c] = true;
    }
    for (std::size_t c = 0; c < kTagOrder.size(); ++c) {
      if (out_used[c]) p.outputs.emplace_back(kTagOrder[c], out_sums[c]);
    }
    p.output_allocation = allocation;
    // already + allocation through the running sum: one intern, no memo probe or merge.
    live_total_.add(allocation);
    p.total = live_total_.value();
    live_total_.sub(allocation);

    // Transition (8.3 step 5).
    if (trace_) trace_->node_begin.push_back(static_cast<std::uint32_t>(trace_->buffers.size()));
    for (const InplaceDecision& d : decisions) {
      if (d.kind == ReuseKind::kIfFits) continue;  // a buffer of its own, allocated below
      const ValueId out = node.outputs[d.output];
      join(plan_.buffer_of[out], out);
    }
    for (const std::uint32_t o : taken) join(plan_.buffer_of[node.outputs[o]], node.outputs[o]);
    for (std::size_t o = 0; o < node.outputs.size(); ++o) {
      const ValueId v = node.outputs[o];
      if (v == kNoValue || decided[o] || plan_.buffer_of[v] == kInvalidId) continue;
      const std::uint32_t b = plan_.buffer_of[v];
      if (members_[b] != 0) continue;  // produced twice: already live
      allocate(b, v);
    }
    if (trace_) trace_->frees_begin.push_back(static_cast<std::uint32_t>(trace_->buffers.size()));
    for (ValueId v : plan_.release_after[n]) leave(v);
    for (const InplaceDecision& d : decisions) {
      const ValueId in = node.inputs[d.input];
      const ValueEntry& e = s_.graph->value(in);
      if (d.kind != ReuseKind::kIfFits && d.mode == ReuseMode::kMayReuse && e.is_input() &&
          !e.is_initializer()) {
        // An overwritten graph input leaves its buffer, which now holds an intermediate.
        set_source(plan_.buffer_of[in], BufferSource::kIntermediate);
        leave(in);
      }
    }
    for (std::size_t o = 0; o < node.outputs.size(); ++o) {
      const ValueId v = node.outputs[o];
      if (v == kNoValue || !decided[o]) continue;
      if (!s_.graph->value(v).is_output() && plan_.last_use[v] == kInvalidId)
        leave(v);  // nobody reads it
    }
  }

  Analysis& s_;
  const TagResult& tags_;
  const BufferPlan& plan_;
  MemoryResult& out_;
  ExprPool& pool_;
  RunningSum live_total_;
  std::array<Row, 3> sums_;
  std::array<std::array<std::uint32_t, kTagOrder.size()>, 3> nonzero_;
  std::array<bool, 3> row_changed_ = {true, true, true};
  std::array<Bucket, 3> last_bucket_;
  std::vector<std::uint32_t> members_;
  std::vector<Tag> tag_;
  std::vector<BufferSource> source_;
  AllocationTrace* trace_ = nullptr;  // set when the profile models an arena
  std::vector<bool> traced_;          // per buffer: allocated in the trace and not yet freed
};

}  // namespace

MemoryResult run_memory_stage(Analysis& s, const TagResult& tags, const BufferPlan& plan) {
  MemoryResult result;
  if (!s.options.memory.enabled) {
    const Expr zero = s.pool->integer(0);
    result.nodes.assign(s.graph->main_node_count(),
                        MemoryProfile{zero, zero, zero, {}, {}, {}, {}});
    return result;
  }
  MemoryStage(s, tags, plan, result).run();
  return result;
}

}  // namespace cctx
