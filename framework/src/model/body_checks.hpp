// Structural checks of nodes with graph attributes, done while the graph view is built.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class NodeProto;
}

namespace cctx {

/// Checks that nodes carry the GRAPH/GRAPHS attributes their operator's schema (from the onnx
/// library) requires: an If without `else_branch`, a Loop without `body`. Operators unknown to
/// the library pass. The schema lookup is done once per operator kind (the graph view's dense id
/// of (domain, op, opset)): graphs repeat a few operators many times.
class RequiredBodies {
 public:
  /// The name of a required graph attribute the node lacks, or nullptr.
  const std::string* missing(const onnx::NodeProto& node, std::uint32_t kind, std::int64_t opset);

 private:
  std::vector<std::optional<std::vector<std::string>>> by_kind_;
};

}  // namespace cctx
