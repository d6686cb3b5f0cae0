// What every buffer planner keeps per buffer while it plans: the buffers it makes (in the plan),
// the values each holds, the last node any of them is read, and whether the buffer is protected.
#pragma once

#include <cstdint>
#include <vector>

#include "cctx/graph.hpp"
#include "pipeline/buffer_plan.hpp"

namespace cctx {

class BufferLedger {
 public:
  /// `inputs_protected`: a buffer holding a graph input may not be overwritten.
  BufferLedger(const GraphView& graph, BufferPlan& plan, bool inputs_protected)
      : graph_(graph), plan_(plan), inputs_protected_(inputs_protected) {}

  /// A new buffer of value v's size, first holding v (made at node `at`).
  std::uint32_t make(ValueId v, BufferSource source, NodeId at) {
    return make_sized(v, *plan_.bytes[v], source, at);
  }
  /// The same with a size of its own (an output that takes an input's buffer where it fits).
  std::uint32_t make_sized(ValueId v, Expr size, BufferSource source, NodeId at) {
    const auto id = static_cast<std::uint32_t>(plan_.buffers.size());
    plan_.buffers.push_back({size, source});
    last_.push_back(at);
    protected_.push_back(false);
    join(id, v, at);
    return id;
  }

  // A value joins buffer b: the buffer lives until its last member's last use, and is protected
  // while it holds a graph output, an initializer, or a graph input that may not be overwritten.
  void join(std::uint32_t b, ValueId v, NodeId at) {
    plan_.buffer_of[v] = b;
    const std::uint32_t last = plan_.last_use[v] == kInvalidId ? at : plan_.last_use[v];
    if (last > last_[b]) last_[b] = last;
    const ValueEntry& e = graph_.value(v);
    if (e.is_output() || e.is_initializer() || (e.is_input() && inputs_protected_)) {
      protected_[b] = true;
    }
  }

  void protect(std::uint32_t b) { protected_[b] = true; }
  bool is_protected(std::uint32_t b) const { return protected_[b]; }
  /// The last node reading any value buffer b has held.
  std::uint32_t last(std::uint32_t b) const { return last_[b]; }

 private:
  const GraphView& graph_;
  BufferPlan& plan_;
  bool inputs_protected_;
  std::vector<std::uint32_t> last_;  // per buffer
  std::vector<bool> protected_;      // per buffer
};

}  // namespace cctx
