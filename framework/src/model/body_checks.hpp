// Structural checks of nodes with graph attributes, done while the graph view is built.
#pragma once

#include <cstdint>
#include <string>

namespace onnx {
class NodeProto;
}

namespace cctx {

/// Throws ModelError (`where`: how the message names the node) when the onnx library's schema of
/// the node's operator at `opset` declares a required GRAPH or GRAPHS attribute the node lacks
/// (an If without `else_branch`, a Loop without `body`). Operators unknown to the library pass.
void check_required_bodies(const onnx::NodeProto& node, std::int64_t opset,
                           const std::string& where);

}  // namespace cctx
