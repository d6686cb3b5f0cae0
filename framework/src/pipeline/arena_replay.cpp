#include "pipeline/arena_replay.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pipeline/arena_model.hpp"
#include "rewrite/node_attributes.hpp"

namespace cctx {

namespace {

class Replay {
 public:
  Replay(ExprPool& pool, const ComputeContext::State& s, const Assignment& assignment)
      : s_(s), plan_(s.plan), trace_(s.memory.trace), arena_(s.options.memory.arena) {
    // One batch: every buffer's size, then every node's scratch, then the scratch blocks.
    std::vector<Expr> batch;
    batch.reserve(plan_.buffers.size() + s.scratch.nodes.size() + s.scratch.blocks.size());
    for (const BufferPlan::Buffer& b : plan_.buffers) batch.push_back(b.size);
    for (Expr e : s.scratch.nodes) batch.push_back(e);
    batch.insert(batch.end(), s.scratch.blocks.begin(), s.scratch.blocks.end());
    values_ = pool.eval_all(batch, assignment);
    scratch_from_ = plan_.buffers.size();
    blocks_from_ = scratch_from_ + s.scratch.nodes.size();
    is_output_.assign(plan_.buffers.size(), false);
    for (ValueId v : s.graph->main().outputs) {
      if (v < plan_.buffer_of.size() && plan_.buffer_of[v] != kInvalidId)
        is_output_[plan_.buffer_of[v]] = true;
    }
    held_.assign(plan_.buffers.size(), RegionArena::kNone);
  }

  ArenaReplay run() {
    ArenaReplay out;
    if (s_.options.memory.arena.initializers) load_session();
    out.packed_originals = pack_weights();
    out.session_reserved = arena_.reserved();
    const bool pattern = s_.options.memory.arena.memory_pattern;
    run_once(pattern ? &tracer_ : nullptr, false);
    run_once(nullptr, pattern);
    out.run_reserved = arena_.reserved() - out.session_reserved;
    return out;
  }

 private:
  std::int64_t bytes(std::uint32_t buffer) const { return values_[buffer]; }

  void load_session() {
    std::vector<bool> loaded(plan_.buffers.size(), false);
    auto load = [&](ValueId v) {
      const std::uint32_t b = v < plan_.buffer_of.size() ? plan_.buffer_of[v] : kInvalidId;
      if (b == kInvalidId || loaded[b]) return;
      loaded[b] = true;
      arena_.alloc(bytes(b));  // held for the session's life
    };
    for (ValueId v : s_.graph->main().initializers) load(v);
    for (ValueId v : plan_.preloaded) load(v);
  }

  // The kernels' packed copies of their constant inputs, node by node, held for the session's
  // life. Returns the bytes of the initializers packed (each once).
  std::int64_t pack_weights() {
    const auto& packed = s_.options.memory.arena.prepacked;
    if (packed.empty()) return 0;
    std::vector<bool> seen(plan_.buffers.size(), false);
    std::int64_t originals = 0;
    // In the runtime's node numbering, not in execution order (ONNX Runtime's session visits
    // its graph's nodes by index): a node its optimiser made packs after the model's own.
    for (NodeId n : s_.graph->main_by_runtime_number()) {
      const NodeEntry& node = s_.graph->node(n);
      for (const auto& p : packed) {
        if (p.op_type != node.op_type || p.domain != node.domain ||
            static_cast<std::size_t>(p.input) >= node.inputs.size()) {
          continue;
        }
        const ValueId v = node.inputs[static_cast<std::size_t>(p.input)];
        if (v == kNoValue || !s_.graph->value(v).is_initializer() || !types_hold(node, p.types) ||
            !attributes_hold(node, p.attributes)) {
          continue;
        }
        const std::uint32_t b = v < plan_.buffer_of.size() ? plan_.buffer_of[v] : kInvalidId;
        if (b == kInvalidId) continue;
        const RegionArena::Handle copy = arena_.alloc(bytes(b));
        if (p.temporary) {
          arena_.free(copy);  // gone, its region stays; the original is kept
          continue;
        }
        if (!seen[b]) originals += bytes(b);  // the copy is held for the session's life
        seen[b] = true;
      }
    }
    return originals;
  }

  // Every (input, type) holds: the input is there, of that element type.
  bool types_hold(const NodeEntry& node,
                  const std::vector<std::pair<std::int32_t, std::int32_t>>& types) const {
    for (const auto& [k, code] : types) {
      if (static_cast<std::size_t>(k) >= node.inputs.size()) return false;
      const ValueId v = node.inputs[static_cast<std::size_t>(k)];
      if (v == kNoValue || v >= s_.shapes.values.size() || s_.shapes.values[v].dtype != code)
        return false;
    }
    return true;
  }

  // Every (attribute, value) holds: the node's integer attribute, 0 when absent.
  static bool attributes_hold(const NodeEntry& node,
                              const std::vector<std::pair<std::string, std::int64_t>>& wanted) {
    return std::all_of(wanted.begin(), wanted.end(), [&](const auto& w) {
      return detail::int_attribute(*node.proto, w.first, 0) == w.second;
    });
  }

  // One run in plan order. `tracer`: the run lays out the memory pattern. `from_block`: the
  // pattern's block serves every planned buffer but the outputs.
  void run_once(PatternTracer* tracer, bool from_block) {
    const RegionArena::Handle block =
        from_block ? arena_.alloc(tracer_.peak()) : RegionArena::kNone;
    const std::size_t count = trace_.frees_begin.size();
    for (std::size_t n = 0; n < count; ++n) {
      for (std::uint32_t i = trace_.node_begin[n]; i < trace_.frees_begin[n]; ++i) {
        const std::uint32_t b = trace_.buffers[i];
        if (from_block && !is_output_[b]) continue;
        held_[b] = arena_.alloc(bytes(b));
        if (tracer && !is_output_[b]) tracer->alloc(b, arena_.rounded(bytes(b)));
      }
      working_memory(n);
      for (std::uint32_t i = trace_.frees_begin[n]; i < trace_.node_begin[n + 1]; ++i) {
        const std::uint32_t b = trace_.buffers[i];
        arena_.free(held_[b]);
        held_[b] = RegionArena::kNone;
        if (tracer) tracer->free(b);
      }
    }
    // The run ends: the frame's buffers and, once the caller has them, the outputs go back.
    for (RegionArena::Handle& h : held_) {
      arena_.free(h);
      h = RegionArena::kNone;
    }
    arena_.free(block);
  }

  // The kernel's working memory, allocated after its outputs and freed before it returns: block
  // by block when its estimator gave blocks, else as one.
  void working_memory(std::size_t n) {
    const std::uint32_t first = s_.scratch.block_begin[n];
    const std::uint32_t last = s_.scratch.block_begin[n + 1];
    if (first == last) {
      arena_.free(arena_.alloc(values_[scratch_from_ + n]));
      return;
    }
    blocks_held_.clear();
    for (std::uint32_t i = first; i < last; ++i) {
      blocks_held_.push_back(arena_.alloc(values_[blocks_from_ + i]));
    }
    for (RegionArena::Handle h : blocks_held_) arena_.free(h);
  }

  const ComputeContext::State& s_;
  const BufferPlan& plan_;
  const AllocationTrace& trace_;
  RegionArena arena_;
  PatternTracer tracer_;
  std::vector<std::int64_t> values_;
  std::size_t scratch_from_ = 0;
  std::size_t blocks_from_ = 0;
  std::vector<RegionArena::Handle> blocks_held_;
  std::vector<bool> is_output_;
  std::vector<RegionArena::Handle> held_;
};

}  // namespace

ArenaReplay replay_on_arena(ExprPool& pool, const ComputeContext::State& s,
                            const Assignment& assignment) {
  return Replay(pool, s, assignment).run();
}

}  // namespace cctx
