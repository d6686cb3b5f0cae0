// `cctx explain`: why one node needs what it needs (see report.hpp, explain_node).
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>

#include "cctx/errors.hpp"
#include "cctx/report.hpp"
#include "report/buffer_timeline.hpp"
#include "report/inplace_refusal.hpp"

namespace cctx {

namespace {

using Json = nlohmann::ordered_json;
using report_detail::BufferTimeline;
using report_detail::kNever;
using report_detail::kStart;

class Explainer {
 public:
  Explainer(const ComputeContext& ctx, NodeId n, const std::vector<Assignment>& evaluate)
      : ctx_(ctx), g_(ctx.graph()), pool_(ctx.pool()), n_(n), evaluate_(evaluate), timeline_(ctx) {}

  Json run() {
    const MemoryProfile& p = ctx_.memory(n_);
    Json doc;
    doc["format"] = "cctx.explain/1";
    doc["node"] = node_json();
    doc["rule_failures"] = rule_failures();
    Json assignments = Json::array();
    for (const Assignment& a : evaluate_) assignments.push_back(assignment_label(a));
    doc["assignments"] = assignments;
    doc["total_bytes"] = amount(p.total);
    doc["already_allocated_bytes"] = amount(p.already_allocated);
    doc["output_allocation_bytes"] = amount(p.output_allocation);
    doc["live_buffers"] = live_buffers();
    // A self-check of the rebuilt buffers against the memory stage's running sums.
    doc["live_buffers_match_memory_profile"] = pool_.sum(live_sum_) == p.already_allocated;
    doc["outputs"] = outputs();
    doc["inplace"] = inplace();
    doc["release_after"] = names(ctx_.release_after(n_));
    doc["not_used_after"] = names(ctx_.not_used_after(n_));
    const ResolvedRules& rules = ctx_.rules(n_);
    const RuleEntry* estimator = rules.entry(RuleKind::kScratch);
    doc["scratch"] = {
        {"bytes", amount(ctx_.node_peak_memory(n_))},
        {"estimator", estimator != nullptr ? Json(estimator->origin) : Json(nullptr)}};
    const Expr term = pool_.add(p.total, ctx_.node_peak_memory(n_));
    doc["peak"] = {{"whole_graph", amount(ctx_.peak_total_bytes())},
                   {"this_node", amount(term)},
                   {"is_peak_node", ctx_.peak_node() == n_}};
    return doc;
  }

 private:
  /// The node's rules that failed: what the fallbacks stand in for.
  Json rule_failures() const {
    Json failures = Json::array();
    for (const RuleFailure& f : ctx_.rule_failures()) {
      if (f.node != n_) continue;
      failures.push_back(
          {{"kind", rule_kind_name(f.kind)}, {"rule", f.rule}, {"message", f.message}});
    }
    return failures;
  }

  /// An amount with its value under each assignment.
  Json amount(Expr e) {
    Json j = {{"formula", amount_json(pool_, e)}};
    Json values = Json::array();
    for (const Assignment& a : evaluate_) values.push_back(pool_.eval(e, a));
    j["evaluated"] = values;
    return j;
  }

  Json names(ValueIds values) const {
    Json out = Json::array();
    for (ValueId v : values) out.push_back(g_.value(v).name);
    return out;
  }

  std::string where(std::int64_t node) const {
    return fmt::format("node {} ({})", node, g_.node(static_cast<NodeId>(node)).op_type);
  }

  Json node_json() const {
    const NodeEntry& node = g_.node(n_);
    Json inputs = Json::array(), outputs = Json::array();
    for (const std::string& s : node.proto->input()) inputs.push_back(s);
    for (const std::string& s : node.proto->output()) outputs.push_back(s);
    Json j = {
        {"index", n_},           {"name", node.proto->name()},         {"op_type", node.op_type},
        {"domain", node.domain}, {"tag", tag_name(ctx_.node_tag(n_))}, {"inputs", inputs},
        {"outputs", outputs}};
    if (const RewriteOrigin* origin = ctx_.rewrite_origin(n_)) {
      j["rewritten_from"] = {{"rules", origin->rules}, {"nodes", origin->nodes}};
    }
    return j;
  }

  std::string created_text(const report_detail::BufferHistory& h) const {
    if (h.created_after == kStart) {
      return h.source == report_detail::BufferSource::kInitializer ? "initializer, at start"
                                                                   : "graph input, at start";
    }
    return "output of " + where(h.created_after);
  }

  // Why a buffer stays or when it goes, seen from this node.
  std::string freed_text(const report_detail::BufferHistory& h) const {
    if (h.freed_after != kNever) return "after " + where(h.freed_after);
    for (const report_detail::BufferMember& m : h.members) {
      const ValueEntry& e = g_.value(m.value);
      if (e.is_output()) return "never: holds the graph output " + std::string(e.name);
      if (e.is_initializer()) return "never: initializer";
      if (e.is_input() && m.left_after == kNever) return "never: graph input";
    }
    return "never";
  }

  Json live_buffers() {
    Json out = Json::array();
    for (std::size_t b : timeline_.live_at_entry(n_)) {
      const report_detail::BufferHistory& h = timeline_.buffers()[b];
      std::vector<ValueId> members = timeline_.members_at_entry(b, n_);
      Json inputs = Json::array();  // positions at which this node reads the buffer
      const NodeEntry& node = g_.node(n_);
      for (std::size_t k = 0; k < node.inputs.size(); ++k) {
        if (node.inputs[k] != kNoValue && timeline_.buffer_of(node.inputs[k]) == b)
          inputs.push_back(k);
      }
      Json last_reads = Json::object();
      for (ValueId v : members) {
        const auto last = timeline_.last_use(v);
        last_reads[g_.value(v).name] = last ? Json(*last) : Json(nullptr);
      }
      Json j = {
          {"buffer", g_.value(h.members.front().value).name},
          {"values", names(members)},
          {"source", report_detail::buffer_source_name(timeline_.source_at_entry(b, n_))},
          {"tag", tag_name(timeline_.tag_at_entry(b, n_))},
          {"bytes", amount(h.size)},
          {"created_after", h.created_after == kStart ? Json(nullptr) : Json(h.created_after)},
          {"created", created_text(h)},
          {"freed_after", h.freed_after == kNever ? Json(nullptr) : Json(h.freed_after)},
          {"freed", freed_text(h)},
          {"read_by_inputs", inputs},
          {"last_read", last_reads}};
      live_sum_.push_back(h.size);
      out.push_back(std::move(j));
    }
    return out;
  }

  Json outputs() {
    const NodeEntry& node = g_.node(n_);
    Json out = Json::array();
    for (std::uint32_t o = 0; o < node.outputs.size(); ++o) {
      const ValueId v = node.outputs[o];
      if (v == kNoValue) continue;
      const ValueShape& s = ctx_.shape(v);
      Json j = {{"index", o},
                {"name", g_.value(v).name},
                {"dtype", dtype_name(s.dtype, &ctx_.registry())}};
      if (s.known_rank) {
        Json shape = Json::array();
        for (Expr d : s.dims) shape.push_back(amount_json(pool_, d));
        j["shape"] = shape;
      } else {
        j["shape"] = nullptr;
      }
      j["tag"] = tag_name(ctx_.value_tag(v));
      const auto bytes = ctx_.value_bytes(v);
      j["bytes"] = bytes ? amount(*bytes) : Json(nullptr);
      j["allocated"] = true;
      for (const InplaceDecision& d : ctx_.inplace(n_)) {
        if (d.output != o) continue;
        j["allocated"] = false;
        j["joins"] = {{"input", d.input},
                      {"value", g_.value(node.inputs[d.input]).name},
                      {"kind", reuse_kind_name(d.kind)},
                      {"mode", reuse_mode_name(d.mode)}};
      }
      if (!bytes) j["allocated"] = false;
      out.push_back(std::move(j));
    }
    return out;
  }

  Json inplace() {
    const NodeEntry& node = g_.node(n_);
    const ResolvedRules& rules = ctx_.rules(n_);
    const RuleEntry* policy = rules.entry(RuleKind::kInplace);
    const Profile& options = ctx_.options();
    Json j;
    j["enabled"] = options.inplace.enabled;
    j["policy"] = policy != nullptr ? Json(policy->origin) : Json(nullptr);
    j["fallback"] =
        options.inplace.fallback == InplaceFallback::kStructural ? "structural" : "none";
    j["allow_input_overwrite"] = options.inplace.allow_input_overwrite;
    if (options.decision_log) {
      Json events = Json::array();
      for (const DecisionEvent& e : ctx_.events()) {
        if (e.node_index != static_cast<std::int64_t>(n_)) continue;
        Json ev = {{"label", e.label}};
        if (!e.name.empty()) ev["value"] = e.name;
        if (e.output_index >= 0) ev["output"] = e.output_index;
        if (e.input_index >= 0) ev["input"] = e.input_index;
        if (!e.kind.empty()) ev["kind"] = e.kind;
        if (!e.mode.empty()) ev["mode"] = e.mode;
        events.push_back(std::move(ev));
      }
      j["decision_log"] = events;
    } else {
      j["decision_log"] = nullptr;
    }
    Json refusals = Json::array();
    for (const report_detail::InplaceRefusal& r :
         report_detail::inplace_refusals(ctx_, timeline_, n_)) {
      Json item = {{"output", r.output}, {"input", r.input >= 0 ? Json(r.input) : Json(nullptr)}};
      if (r.input >= 0)
        item["value"] = g_.value(node.inputs[static_cast<std::size_t>(r.input)]).name;
      item["reason"] = r.reason;
      refusals.push_back(std::move(item));
    }
    j["refused"] = refusals;
    return j;
  }

  const ComputeContext& ctx_;
  const GraphView& g_;
  ExprPool& pool_;
  NodeId n_;
  const std::vector<Assignment>& evaluate_;
  BufferTimeline timeline_;
  std::vector<Expr> live_sum_;
};

}  // namespace

nlohmann::ordered_json explain_node(const ComputeContext& ctx, NodeId node,
                                    const std::vector<Assignment>& evaluate) {
  if (node >= ctx.node_count()) {
    throw Error(fmt::format("--node {}: the graph has {} nodes (0..{})", node, ctx.node_count(),
                            ctx.node_count() == 0 ? 0 : ctx.node_count() - 1),
                ExitCode::kUsage);
  }
  return Explainer(ctx, node, evaluate).run();
}

}  // namespace cctx
