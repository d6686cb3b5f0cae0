// The buffers of semantics.md "Per-node memory profile: Buffers" over the node order, rebuilt from
// the public results of a ComputeContext (value sizes and tags, lifetimes, in-place decisions) so
// that reports can say which buffers are live at a node, what they hold, when they were created and
// when they are freed, without reaching into the pipeline's private state.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cctx/compute_context.hpp"

namespace cctx::report_detail {

/// "after node k"; kStart: already there before node 0; kNever: until the end of the graph.
inline constexpr std::int64_t kStart = -1;
inline constexpr std::int64_t kNever = -1;

enum class BufferSource : std::uint8_t { kInput, kInitializer, kIntermediate };
const char* buffer_source_name(BufferSource s);

struct BufferMember {
  ValueId value = kNoValue;
  std::int64_t joined_after = kStart;  ///< node whose transition added it
  std::int64_t left_after = kNever;    ///< node after which it left
};

struct BufferHistory {
  Expr size;
  BufferSource source = BufferSource::kIntermediate;  ///< at creation
  std::int64_t created_after = kStart;
  std::int64_t freed_after = kNever;
  /// A graph input overwritten in place (allow_input_overwrite) turns its buffer intermediate.
  std::int64_t intermediate_after = kNever;
  std::vector<BufferMember> members;  ///< in joining order
};

class BufferTimeline {
 public:
  explicit BufferTimeline(const ComputeContext& ctx);

  const std::vector<BufferHistory>& buffers() const { return buffers_; }
  /// Buffer indices live at the entry of node n, in creation order.
  std::vector<std::size_t> live_at_entry(NodeId n) const;
  /// The buffer a value belongs to, if it is tracked.
  std::optional<std::size_t> buffer_of(ValueId v) const;
  /// Last main node reading v per the lifetimes; nullopt for values nobody reads and for kept
  /// intermediates (graph outputs), which the lifetimes do not list.
  std::optional<NodeId> last_use(ValueId v) const;
  /// The members of buffer b at the entry of node n.
  std::vector<ValueId> members_at_entry(std::size_t b, NodeId n) const;
  /// Merged tag (semantics.md "Tags: Vocabulary and merge") of the values that joined b before node
  /// n.
  Tag tag_at_entry(std::size_t b, NodeId n) const;
  BufferSource source_at_entry(std::size_t b, NodeId n) const;

 private:
  void create(ValueId v, BufferSource source, std::int64_t after);
  void join(std::size_t b, ValueId v, NodeId after);
  void leave(ValueId v, NodeId after);
  void step(NodeId n);

  const ComputeContext& ctx_;
  std::vector<BufferHistory> buffers_;
  std::vector<std::uint32_t> buffer_of_;     // per ValueId
  std::vector<std::uint32_t> live_members_;  // per buffer, while simulating
  std::vector<std::uint32_t> last_use_;      // per ValueId
};

}  // namespace cctx::report_detail
