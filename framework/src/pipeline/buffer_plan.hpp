// The buffer plan (architecture.md, "The buffer plan"): which buffer holds each value of the main
// graph, which outputs take over an input's buffer, and when each buffer is released. The memory
// stage turns the plan into the per-node profile; a BufferPlanner makes the plan. The seed's
// accounting (semantics.md, "Lifetimes" and "In-place reuse") is the default planner; a runtime
// with its own reuse rules (equal-size reuse of freed buffers, an arena) is another planner,
// chosen by the profile (`memory: {buffer_plan: NAME}`).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/expr.hpp"
#include "cctx/graph.hpp"
#include "pipeline/node_lists.hpp"

namespace cctx {

/// Where a tracked buffer's bytes come from at the start of its life.
enum class BufferSource : std::uint8_t { kInput, kInitializer, kIntermediate };

/// What the memory stage and the public API read of a plan. Per ValueId unless said otherwise.
struct BufferPlan {
  /// Last main-graph node referencing the value, or kInvalidId.
  std::vector<std::uint32_t> last_use;
  /// Per main node: the values whose buffers are released after it, the graph inputs and
  /// initializers last read by it, and the released values tagged shape.
  NodeValueLists release_after;
  NodeValueLists not_used_after;
  NodeValueLists release_after_shape_tag;
  /// Per main node: the outputs that take over an input's buffer.
  NodeLists<InplaceDecision> inplace;
  /// Per main node: outputs (indices) that take a buffer no input of the node holds (a freed
  /// buffer of the same size, a Constant's preloaded one): in buffer_of, not allocated by the
  /// node. Empty lists when the planner makes no such choice (the seed's).
  NodeLists<std::uint32_t> takes_buffer;
  /// Values whose buffers are live before the first node besides the inputs and initializers
  /// (the outputs of the folded nodes, held like initializers).
  std::vector<ValueId> preloaded;
  /// Per main node: folded as the session loads (a Constant node, a node whose outputs the
  /// shapes decide): its outputs are preloaded and it runs no kernel. Empty when the planner
  /// folds nothing (the seed's).
  std::vector<bool> folded;
  /// Own byte size of each value (nullopt: unsized), computed once for the plan and the memory
  /// stage alike.
  std::vector<std::optional<Expr>> bytes;
  std::vector<ValueId> unsized_values;
  /// A buffer the plan tracks: its size and initial source.
  struct Buffer {
    Expr size;
    BufferSource source;
  };
  /// Buffer of each main-graph value (kInvalidId: untracked), and the buffers. The memory stage
  /// simulates their liveness with running sums.
  std::vector<std::uint32_t> buffer_of;
  std::vector<Buffer> buffers;
  /// Outputs written into an input's buffer that has room for them (IInplaceSink::write_into):
  /// an evaluation where `output`'s bytes exceed `capacity` is refused (failed_requirement).
  struct CapacityWrite {
    NodeId node;
    ValueId output;
    ValueId input;
    Expr capacity;
  };
  std::vector<CapacityWrite> capacity_writes;

  /// Node n writes `out` into `in`'s buffer (IInplaceSink::write_into), which has room for
  /// `capacity` bytes from its creation: the buffer grows to it, and the fit is recorded for
  /// evaluation. Every planner calls it; joining `out` to the buffer is the planner's.
  void write_into(ExprPool& pool, NodeId n, ValueId out, ValueId in, Expr capacity) {
    Buffer& buffer = buffers[buffer_of[in]];
    buffer.size = pool.max(buffer.size, capacity);
    capacity_writes.push_back(CapacityWrite{n, out, in, capacity});
  }
};

/// Runs one timed step of a stage ("lifetimes", "inplace"): the pipeline's stage clock.
using StepTimer = std::function<void(const char* step, const std::function<void()>& run)>;

struct Analysis;
struct ShapeResult;
struct TagResult;

/// A strategy that makes the plan from the shapes, the tags and the analysis's rules.
class BufferPlanner {
 public:
  virtual ~BufferPlanner() = default;
  /// The name a profile gives it (`memory: {buffer_plan: NAME}`).
  virtual std::string_view name() const = 0;
  virtual BufferPlan plan(Analysis& a, const ShapeResult& shapes, const TagResult& tags,
                          const StepTimer& timed) const = 0;
};

/// The planner named by `memory.buffer_plan` (the profile loader checks the name: "seed",
/// "free_list").
std::unique_ptr<BufferPlanner> make_buffer_planner(std::string_view name);
/// ONNX Runtime's sequential plan (free_list_planner.cpp).
std::unique_ptr<BufferPlanner> make_free_list_planner();

}  // namespace cctx
