// The record of failed rules (RuleFailure): kept once per node and rule kind, and found again from
// the symbols that stand for what a failure left unknown.
#include "pipeline/analysis_state.hpp"

namespace cctx {
namespace {

std::uint64_t failure_key(RuleFailure::Kind kind, NodeId n) {
  return (static_cast<std::uint64_t>(n) << 2) | static_cast<std::uint64_t>(kind);
}

}  // namespace

const char* rule_kind_name(RuleFailure::Kind kind) {
  switch (kind) {
    case RuleFailure::Kind::kShape:
      return "shape";
    case RuleFailure::Kind::kTag:
      return "tag";
    case RuleFailure::Kind::kInplace:
      return "in-place";
    case RuleFailure::Kind::kScratch:
      return "scratch";
  }
  return "?";
}

std::size_t Analysis::rule_failed(RuleFailure::Kind kind, NodeId n, std::string_view rule,
                                  std::string message) {
  const auto [it, added] = failure_index.try_emplace(failure_key(kind, n), rule_failures.size());
  if (added) {
    rule_failures.push_back(RuleFailure{kind, n, std::string(rule), std::move(message)});
  }
  return it->second;
}

const RuleFailure* Analysis::shape_failure(NodeId n) const {
  const auto it = failure_index.find(failure_key(RuleFailure::Kind::kShape, n));
  return it == failure_index.end() ? nullptr : &rule_failures[it->second];
}

const std::vector<RuleFailure>& ComputeContext::rule_failures() const {
  return state_->rule_failures;
}

const RuleFailure* ComputeContext::rule_failure_behind(std::string_view symbol) const {
  const State& s = *state_;
  if (const auto it = s.scratch_failure_symbols.find(std::string(symbol));
      it != s.scratch_failure_symbols.end()) {
    return &s.rule_failures[it->second];
  }
  // A failed shape rule leaves its outputs of unknown rank, each counted as a `bytes_` symbol.
  for (const RuleFailure& f : s.rule_failures) {
    if (f.kind != RuleFailure::Kind::kShape) continue;
    for (ValueId v : s.graph->node(f.node).outputs) {
      if (v == kNoValue) continue;
      const std::optional<Expr> bytes = value_bytes(v);
      if (!bytes) continue;
      for (const std::string& name : s.pool->symbols_of(*bytes)) {
        if (name == symbol) return &f;
      }
    }
  }
  return nullptr;
}

}  // namespace cctx
