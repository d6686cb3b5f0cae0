// Collecting a node's in-place declarations (see inplace_declarations.hpp).
#include "pipeline/inplace_declarations.hpp"

#include <onnx/onnx_pb.h>

#include "cctx/crash_report.hpp"
#include "pipeline/host_node_view.hpp"

namespace cctx {

namespace {

class HostInplaceSink final : public sdk::IInplaceSink {
 public:
  HostInplaceSink(InplaceDeclarations& d, ExprBridge& bridge) : d_(d), bridge_(bridge) {}
  sdk::Status write_into_handle(std::uint32_t out, std::uint32_t in,
                                std::uint32_t capacity_bytes) noexcept override {
    if (!bridge_.valid(capacity_bytes)) {
      bridge_.reject(capacity_bytes, "IInplaceSink::write_into");
      return sdk::Status::kInvalidArgument;
    }
    try {
      d_.writes_into.push_back(CapacityWrite{out, in, Expr{capacity_bytes}});
    } catch (...) {
      return sdk::Status::kInternal;
    }
    return sdk::Status::kOk;
  }
  sdk::Status may_reuse(std::uint32_t out, std::uint32_t in) noexcept override {
    try {
      d_.may_reuse.emplace_back(out, in);
    } catch (...) {
      return sdk::Status::kInternal;
    }
    return sdk::Status::kOk;
  }
  sdk::Status alias(std::uint32_t out, std::uint32_t in) noexcept override {
    try {
      d_.aliases.emplace_back(out, in);
    } catch (...) {
      return sdk::Status::kInternal;
    }
    return sdk::Status::kOk;
  }
  sdk::Status fail(sdk::Status code, sdk::StringRef message) noexcept override {
    try {
      d_.error.assign(message.data ? message.data : "", message.size);
    } catch (...) {
    }
    return code == sdk::Status::kOk ? sdk::Status::kInternal : code;
  }

 private:
  InplaceDeclarations& d_;
  ExprBridge& bridge_;
};

}  // namespace

void collect_inplace_declarations(Analysis& s, const ShapeResult& shapes, ExprBridge& bridge,
                                  NodeId n, InplaceDeclarations& d) {
  d.aliases.clear();
  d.may_reuse.clear();
  d.writes_into.clear();
  d.error.clear();
  if (!s.options.inplace.enabled) return;
  const NodeEntry& node = s.graph->node(n);
  const ResolvedRules& rules = s.rules_of(n);
  if (rules.inplace != nullptr) {
    HostNodeView view(s, shapes, bridge, n);
    HostInplaceSink sink(d, bridge);
    const std::string_view origin = rules.entry(RuleKind::kInplace)->origin;
    sdk::Status status;
    {
      RunningRule running(origin, "in-place", node.domain, node.op_type);
      status = rules.inplace->declare(view, sink);
    }
    // A policy hands no handle back through its sink, only to ExprApi.
    if (bridge.has_invalid()) {
      status = sdk::Status::kInternal;
      d.error =
          invalid_handle_error(bridge.take_invalid()) + "; in-place rule " + std::string(origin);
    }
    if (status != sdk::Status::kOk) {
      const std::string why = d.error.empty() ? std::string("no reason given") : d.error;
      s.rule_failed(RuleFailure::Kind::kInplace, n, origin, why);
      s.warn(n, describe_node(*s.graph, n) + ": in-place policy failed: " + why +
                    "; no reuse for this node");
      d.aliases.clear();
      d.may_reuse.clear();
      d.writes_into.clear();
    }
    return;
  }
  if (s.options.inplace.fallback == InplaceFallback::kStructural) {
    for (std::uint32_t o = 0; o < node.outputs.size(); ++o) {
      for (std::uint32_t k = 0; k < node.inputs.size(); ++k) d.may_reuse.emplace_back(o, k);
    }
  }
}

}  // namespace cctx
