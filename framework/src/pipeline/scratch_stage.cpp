// Stage 6: per-node scratch memory from the plugins' estimators (semantics.md "Peak scratch
// memory").
#include <cstdint>
#include <string>
#include <vector>

#include "cctx/crash_report.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/expr_bridge.hpp"
#include "pipeline/host_node_view.hpp"
#include "pipeline/shape_types.hpp"

namespace cctx {

namespace {

class HostScratchSink final : public sdk::IScratchSink {
 public:
  explicit HostScratchSink(ExprBridge& bridge) : bridge_(bridge) {}
  sdk::Status set_bytes_handle(std::uint32_t bytes) noexcept override {
    blocks_.clear();
    return append(bytes, "IScratchSink::set_bytes");
  }
  sdk::Status add_block_handle(std::uint32_t bytes) noexcept override {
    return append(bytes, "IScratchSink::add_block");
  }
  sdk::Status set_constant_bytes(std::uint64_t bytes) noexcept override {
    if (bytes > static_cast<std::uint64_t>(INT64_MAX)) {
      return fail(sdk::Status::kInvalidArgument,
                  sdk::StringRef("IScratchSink::set_constant_bytes: more than 2^63 - 1 bytes"));
    }
    try {
      blocks_.assign(1, bridge_.pool().integer(static_cast<std::int64_t>(bytes)));
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
    return sdk::Status::kOk;
  }
  sdk::Status fail(sdk::Status code, sdk::StringRef message) noexcept override {
    try {
      error_.assign(message.data ? message.data : "", message.size);
    } catch (...) {
    }
    return code == sdk::Status::kOk ? sdk::Status::kInternal : code;
  }
  bool set() const { return !blocks_.empty(); }
  /// The blocks in the order the estimator gave them (one for set_bytes).
  const std::vector<Expr>& blocks() const { return blocks_; }
  const std::string& error() const { return error_; }
  void set_error(std::string error) { error_ = std::move(error); }

 private:
  sdk::Status append(std::uint32_t bytes, const char* what) noexcept {
    // A plain number of bytes (a 1.1 plugin's set_bytes(4096u)) is not a handle: refused when
    // it names no expression (it fails the call, ExprBridge), never dereferenced.
    if (!bridge_.valid(bytes)) {
      bridge_.reject(bytes, what);
      return sdk::Status::kInvalidArgument;
    }
    try {
      blocks_.push_back(Expr{bytes});
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
    return sdk::Status::kOk;
  }

  ExprBridge& bridge_;
  std::vector<Expr> blocks_;
  std::string error_;
};

/// scratch[n]: the working memory of n's bodies plus its estimator's bytes; the blocks of an
/// estimator that gave more than one go to `result.blocks` (the bodies' bytes first).
void node_scratch(Analysis& s, const ShapeResult& shapes, ExprBridge& bridge, NodeId n,
                  ScratchResult& result) {
  std::vector<Expr>& scratch = result.nodes;
  // A control-flow node also needs the working memory of its bodies while they run.
  if (!s.graph->node(n).bodies.empty()) scratch[n] = body_working_bytes(s, shapes, n);
  const sdk::IScratchEstimator* estimator = s.rules_of(n).scratch;
  if (estimator == nullptr) return;
  HostNodeView view(s, shapes, bridge, n);
  HostScratchSink sink(bridge);
  const std::string_view origin = s.rules_of(n).entry(RuleKind::kScratch)->origin;
  sdk::Status status;
  {
    const NodeEntry& node = s.graph->node(n);
    RunningRule running(origin, "scratch", node.domain, node.op_type);
    status = estimator->estimate(view, sink);
  }
  const InvalidHandle invalid = bridge.has_invalid() ? bridge.take_invalid() : InvalidHandle{};
  for (const std::string& e : bridge.take_errors()) {
    s.warn(n, describe_node(*s.graph, n) + ": expression error in scratch estimate: " + e);
  }
  if (const std::string slips = view.attribute_slips(); !slips.empty()) {
    s.warn(n, describe_node(*s.graph, n) + ": the scratch rule of " + std::string(origin) +
                  " asked for " + slips + "; its default was used");
  }
  if (invalid) {
    // The plugin broke the boundary's contract: whatever it returned, the estimate is unknown,
    // and the warning names the plugin.
    status = sdk::Status::kInternal;
    sink.set_error(invalid_handle_error(invalid) + "; scratch rule " + std::string(origin));
  }
  if (status == sdk::Status::kOk && sink.set()) {
    const std::vector<Expr>& blocks = sink.blocks();
    if (blocks.size() > 1) {
      if (!s.graph->node(n).bodies.empty()) result.blocks.push_back(scratch[n]);
      result.blocks.insert(result.blocks.end(), blocks.begin(), blocks.end());
    }
    for (Expr block : blocks) scratch[n] = s.pool->add(scratch[n], block);
    return;
  }
  if (status == sdk::Status::kOk && sink.error().empty()) {
    sink.set_error("the scratch rule returned OK but set no bytes");
  }
  // Never a silent 0: an estimate that cannot be computed is a named unknown.
  const NodeEntry& node = s.graph->node(n);
  const std::string name =
      "scratch_" + sanitize_symbol(node.op_type) + "_" + std::to_string(node.index);
  const std::string why = sink.error().empty() ? std::string("no reason given") : sink.error();
  const std::size_t failure = s.rule_failed(RuleFailure::Kind::kScratch, n, origin, why);
  const Expr symbol = s.pool->fresh_symbol(name, Interval{0, kPosInf},
                                           "scratch estimate of " + describe_node(*s.graph, n) +
                                               ", unknown because the scratch rule of " +
                                               std::string(origin) + " failed: " + why);
  s.scratch_failure_symbols.emplace(s.pool->print(symbol), failure);
  scratch[n] = s.pool->add(scratch[n], symbol);
  s.warn(n, describe_node(*s.graph, n) + ": scratch estimate unavailable (" + why +
                "); reported as " + s.pool->print(symbol));
}

}  // namespace

ScratchResult run_scratch_stage(Analysis& s, const ShapeResult& shapes) {
  const std::size_t count = s.graph->main_node_count();
  const Expr zero = s.pool->integer(0);
  ScratchResult result;
  result.nodes.assign(count, zero);
  result.block_begin.assign(count + 1, 0);
  if (!s.options.scratch.enabled) return result;
  ExprBridge bridge(*s.pool);
  for (NodeId n = 0; n < count; ++n) {
    result.block_begin[n] = static_cast<std::uint32_t>(result.blocks.size());
    try {
      node_scratch(s, shapes, bridge, n, result);
    } catch (const ExprError& e) {
      rethrow_at_node(s, n, e,
                      "its scratch bytes (estimate and bodies' working memory) add up to more "
                      "than 2^63 - 1");
    }
  }
  result.block_begin[count] = static_cast<std::uint32_t>(result.blocks.size());
  return result;
}

}  // namespace cctx
