// Rebuilds the buffer lifetimes of semantics.md "Per-node memory profile: Node i" (see
// buffer_timeline.hpp). The memory stage keeps only running sums; this replays the same
// transitions, keeping the history.
#include "report/buffer_timeline.hpp"

namespace cctx::report_detail {

namespace {
constexpr std::uint32_t kNone = 0xFFFFFFFFu;
}  // namespace

const char* buffer_source_name(BufferSource s) {
  switch (s) {
    case BufferSource::kInput:
      return "input";
    case BufferSource::kInitializer:
      return "initializer";
    case BufferSource::kIntermediate:
      return "intermediate";
  }
  return "?";
}

BufferTimeline::BufferTimeline(const ComputeContext& ctx) : ctx_(ctx) {
  const GraphView& g = ctx.graph();
  buffer_of_.assign(g.values().size(), kNone);
  last_use_.assign(g.values().size(), kNone);
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    for (ValueId v : ctx.release_after(n)) last_use_[v] = n;
    for (ValueId v : ctx.not_used_after(n)) last_use_[v] = n;
  }
  for (ValueId v : g.main().initializers) {
    if (ctx.value_bytes(v)) create(v, BufferSource::kInitializer, kStart);
  }
  for (ValueId v : g.main().inputs) {
    if (ctx.value_bytes(v) && buffer_of_[v] == kNone) create(v, BufferSource::kInput, kStart);
  }
  for (NodeId n = 0; n < ctx.node_count(); ++n) step(n);
}

void BufferTimeline::create(ValueId v, BufferSource source, std::int64_t after) {
  BufferHistory b;
  b.size = *ctx_.value_bytes(v);
  b.source = source;
  b.created_after = after;
  b.members.push_back({v, after, kNever});
  buffer_of_[v] = static_cast<std::uint32_t>(buffers_.size());
  buffers_.push_back(std::move(b));
  live_members_.push_back(1);
}

void BufferTimeline::join(std::size_t b, ValueId v, NodeId after) {
  buffer_of_[v] = static_cast<std::uint32_t>(b);
  buffers_[b].members.push_back({v, after, kNever});
  ++live_members_[b];
}

void BufferTimeline::leave(ValueId v, NodeId after) {
  const std::uint32_t b = buffer_of_[v];
  if (b == kNone) return;
  for (BufferMember& m : buffers_[b].members) {
    if (m.value != v || m.left_after != kNever) continue;
    m.left_after = after;
    if (--live_members_[b] == 0) buffers_[b].freed_after = after;
    return;
  }
}

// The transition of semantics.md "Per-node memory profile: Node i" step 5, in the memory stage's
// order.
void BufferTimeline::step(NodeId n) {
  const GraphView& g = ctx_.graph();
  const NodeEntry& node = g.node(n);
  const std::span<const InplaceDecision> decisions = ctx_.inplace(n);
  std::vector<bool> decided(node.outputs.size(), false);
  for (const InplaceDecision& d : decisions) {
    decided[d.output] = true;
    const std::uint32_t b = buffer_of_[node.inputs[d.input]];
    if (b != kNone) join(b, node.outputs[d.output], n);
  }
  for (std::size_t o = 0; o < node.outputs.size(); ++o) {
    const ValueId v = node.outputs[o];
    if (v == kNoValue || decided[o] || !ctx_.value_bytes(v) || buffer_of_[v] != kNone) continue;
    const bool read_later = last_use_[v] != kNone && last_use_[v] > n;
    if (g.value(v).is_output() || read_later) create(v, BufferSource::kIntermediate, n);
  }
  for (ValueId v : ctx_.release_after(n)) leave(v, n);
  for (const InplaceDecision& d : decisions) {
    const ValueId in = node.inputs[d.input];
    const ValueEntry& e = g.value(in);
    if (d.mode == ReuseMode::kMayReuse && e.is_input() && !e.is_initializer() &&
        buffer_of_[in] != kNone) {
      buffers_[buffer_of_[in]].intermediate_after = n;
      leave(in, n);
    }
  }
  for (const InplaceDecision& d : decisions) {
    const ValueId v = node.outputs[d.output];
    if (!g.value(v).is_output() && last_use_[v] == kNone) leave(v, n);  // nobody reads it
  }
}

std::vector<std::size_t> BufferTimeline::live_at_entry(NodeId n) const {
  const auto at = static_cast<std::int64_t>(n);
  std::vector<std::size_t> out;
  for (std::size_t b = 0; b < buffers_.size(); ++b) {
    const BufferHistory& h = buffers_[b];
    if (h.created_after < at && (h.freed_after == kNever || h.freed_after >= at)) out.push_back(b);
  }
  return out;
}

std::optional<std::size_t> BufferTimeline::buffer_of(ValueId v) const {
  if (v >= buffer_of_.size() || buffer_of_[v] == kNone) return std::nullopt;
  return buffer_of_[v];
}

std::optional<NodeId> BufferTimeline::last_use(ValueId v) const {
  if (v >= last_use_.size() || last_use_[v] == kNone) return std::nullopt;
  return last_use_[v];
}

std::vector<ValueId> BufferTimeline::members_at_entry(std::size_t b, NodeId n) const {
  const auto at = static_cast<std::int64_t>(n);
  std::vector<ValueId> out;
  for (const BufferMember& m : buffers_[b].members) {
    if (m.joined_after < at && (m.left_after == kNever || m.left_after >= at))
      out.push_back(m.value);
  }
  return out;
}

Tag BufferTimeline::tag_at_entry(std::size_t b, NodeId n) const {
  Tag tag = Tag::kNone;
  for (const BufferMember& m : buffers_[b].members) {
    if (m.joined_after < static_cast<std::int64_t>(n))
      tag = merge_tag(tag, ctx_.value_tag(m.value));
  }
  return tag;
}

BufferSource BufferTimeline::source_at_entry(std::size_t b, NodeId n) const {
  const BufferHistory& h = buffers_[b];
  if (h.intermediate_after != kNever && h.intermediate_after < static_cast<std::int64_t>(n)) {
    return BufferSource::kIntermediate;
  }
  return h.source;
}

}  // namespace cctx::report_detail
