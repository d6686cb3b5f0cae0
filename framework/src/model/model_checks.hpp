// Structural checks of a parsed model against the limits, before any graph view is built.
#pragma once

#include <string>

#include "cctx/limits.hpp"

namespace onnx {
class ModelProto;
}

namespace cctx::detail {

/// Throws ModelError ("<source>: <problem>") for the first problem found: too many nodes,
/// subgraphs nested too deep, a node whose domain has no opset import, a declared value or
/// initializer with a negative dim, a rank above the limit, a byte size beyond int64, a dim_param
/// longer than the expression limit, or external data whose location leaves the model's folder.
/// Walks the graphs with an explicit stack, so a deep model cannot overflow the call stack.
void check_model(const onnx::ModelProto& model, const std::string& source, const Limits& limits);

}  // namespace cctx::detail
