// Structural checks of nodes with graph attributes, done while the graph view is built.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace onnx {
class NodeProto;
}

namespace cctx {

/// Checks that nodes carry the GRAPH/GRAPHS attributes their operator's schema (from the onnx
/// library) requires: an If without `else_branch`, a Loop without `body`. Operators unknown to
/// the library pass. The schema lookup is done once per (domain, op, opset): graphs repeat a
/// few operators many times.
class RequiredBodies {
 public:
  /// Throws ModelError with `where()` (how the message names the node) when one is missing.
  void check(const onnx::NodeProto& node, std::int64_t opset,
             const std::function<std::string()>& where);

 private:
  const std::vector<std::string>& required(const onnx::NodeProto& node, std::int64_t opset);

  std::unordered_map<std::string, std::vector<std::string>> cache_;
  std::string key_;
};

}  // namespace cctx
