// The refusal reasons of semantics.md "In-place reuse", checked in the order the in-place stage
// checks them, from the public results and the rebuilt buffers (see inplace_refusal.hpp).
#include "report/inplace_refusal.hpp"

#include <fmt/format.h>

namespace cctx::report_detail {

namespace {

class RefusalCheck {
 public:
  RefusalCheck(const ComputeContext& ctx, const BufferTimeline& timeline, NodeId n)
      : ctx_(ctx), g_(ctx.graph()), timeline_(timeline), n_(n), node_(g_.node(n)) {
    claimed_.assign(node_.inputs.size(), -1);
    for (const InplaceDecision& d : ctx.inplace(n)) claimed_[d.input] = d.output;
  }

  /// Why output o cannot take over input k's buffer, or "" when every condition holds.
  std::string reason(std::uint32_t o, std::uint32_t k) const {
    const ValueId out = node_.outputs[o], in = node_.inputs[k];
    const std::string in_name(g_.value(in).name);
    if (out == in) return "the output is the input itself";
    if (!ctx_.value_bytes(out)) return "the output has no byte size (unsized type)";
    if (!ctx_.value_bytes(in)) return fmt::format("{} has no byte size (unsized type)", in_name);
    const auto b = timeline_.buffer_of(in);
    if (!b) return fmt::format("{} is not tracked in any buffer", in_name);
    if (claimed_[k] >= 0)
      return fmt::format("{} is already taken over by output {}", in_name, claimed_[k]);
    if (std::string why = shared_read(*b, in_name); !why.empty()) return why;
    if (std::string why = protection(*b); !why.empty()) return why;
    if (std::string why = read_later(*b); !why.empty()) return why;
    return size_class(o, k);
  }

 private:
  std::string shared_read(std::size_t b, const std::string& in_name) const {
    int reads = 0;
    for (ValueId v : node_.inputs) reads += v != kNoValue && timeline_.buffer_of(v) == b ? 1 : 0;
    if (reads > 1) {
      return fmt::format("{}'s buffer is read by {} inputs of this node", in_name, reads);
    }
    for (ValueId v : node_.captures) {
      if (timeline_.buffer_of(v) == b) {
        return fmt::format("{}'s buffer is captured by a body of this node", in_name);
      }
    }
    return {};
  }

  // The members that joined before this node decide (semantics.md "In-place reuse: Protected
  // values").
  std::string protection(std::size_t b) const {
    const bool overwrite = ctx_.options().inplace.allow_input_overwrite;
    for (const BufferMember& m : timeline_.buffers()[b].members) {
      if (m.joined_after >= static_cast<std::int64_t>(n_)) break;
      const ValueEntry& e = g_.value(m.value);
      if (e.is_output()) return fmt::format("the buffer holds the graph output {}", e.name);
      if (e.is_initializer()) return fmt::format("the buffer holds the initializer {}", e.name);
      if (e.is_input() && !overwrite) {
        return fmt::format(
            "the buffer holds the graph input {}, which is never overwritten "
            "(inplace.allow_input_overwrite is false)",
            e.name);
      }
    }
    return {};
  }

  std::string read_later(std::size_t b) const {
    for (const BufferMember& m : timeline_.buffers()[b].members) {
      if (m.joined_after >= static_cast<std::int64_t>(n_)) break;
      const auto last = timeline_.last_use(m.value);
      if (last && *last > n_) {
        return fmt::format("{} is read again later (last read by node {}, {})",
                           g_.value(m.value).name, *last, g_.node(*last).op_type);
      }
    }
    return {};
  }

  std::string size_class(std::uint32_t o, std::uint32_t k) const {
    ExprPool& pool = ctx_.pool();
    const ValueId out = node_.outputs[o], in = node_.inputs[k];
    const Expr in_bytes = *ctx_.value_bytes(in), out_bytes = *ctx_.value_bytes(out);
    if (in_bytes != out_bytes && !pool.prove_ge(in_bytes, out_bytes)) {
      return fmt::format("the output ({} bytes) is not provably no larger than {} ({} bytes)",
                         pool.print(out_bytes), g_.value(in).name, pool.print(in_bytes));
    }
    return {};
  }

  const ComputeContext& ctx_;
  const GraphView& g_;
  const BufferTimeline& timeline_;
  NodeId n_;
  const NodeEntry& node_;
  std::vector<std::int64_t> claimed_;  // per input: the output that took it over, or -1
};

}  // namespace

std::vector<InplaceRefusal> inplace_refusals(const ComputeContext& ctx,
                                             const BufferTimeline& timeline, NodeId n) {
  const NodeEntry& node = ctx.graph().node(n);
  std::vector<bool> decided(node.outputs.size(), false);
  for (const InplaceDecision& d : ctx.inplace(n)) decided[d.output] = true;
  const Profile& options = ctx.options();
  const ResolvedRules& rules = ctx.rules(n);
  const bool structural = options.inplace.fallback == InplaceFallback::kStructural;
  RefusalCheck check(ctx, timeline, n);
  std::vector<InplaceRefusal> out;
  for (std::uint32_t o = 0; o < node.outputs.size(); ++o) {
    if (decided[o] || node.outputs[o] == kNoValue) continue;
    if (!options.inplace.enabled) {
      out.push_back({o, -1, "in-place reuse is disabled by the profile (inplace.enabled: false)"});
      continue;
    }
    if (rules.inplace == nullptr && !structural) {
      out.push_back({o, -1,
                     fmt::format("no in-place policy is registered for {} and inplace.fallback is "
                                 "none, so no input is a candidate",
                                 node.op_type)});
      continue;
    }
    for (std::uint32_t k = 0; k < node.inputs.size(); ++k) {
      if (node.inputs[k] == kNoValue) continue;
      std::string why = check.reason(o, k);
      if (why.empty()) {
        why = structural && rules.inplace == nullptr
                  ? "passes every check here; a later output or pass took precedence"
                  : fmt::format("passes every check, so the policy of {} does not declare it",
                                node.op_type);
      }
      out.push_back({o, static_cast<std::int64_t>(k), std::move(why)});
    }
  }
  return out;
}

}  // namespace cctx::report_detail
