// The host's check of a node against its operator's declared contract (OpSchema, SDK 1.9), run
// before any rule of the node: what ONNX's checker does for an OpSchema, for every domain a
// plugin declares one in.
#pragma once

#include <string>
#include <vector>

#include "cctx/op_schema.hpp"
#include "pipeline/host_node_view.hpp"

namespace cctx {

class RuleRegistry;

/// What the check found: the first way the node breaks the contract (empty when it keeps it),
/// and the node's attributes the schema does not declare, each with a "did you mean" when one
/// is near (a warning: a runtime ignores them, a rule never reads them).
struct SchemaFindings {
  std::string violation;
  std::vector<std::string> undeclared_attributes;
};

SchemaFindings check_schema(const OpSchema& schema, const HostNodeView& node,
                            const RuleRegistry* registry);

}  // namespace cctx
