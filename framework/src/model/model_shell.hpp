// A model made of another's parts (the inlined and the rewritten models) starts from a shell:
// the original's small fields and an empty graph, whose lists then borrow the original's
// elements (borrowed_fields.hpp) and must hand them back before the shell is destroyed.
#pragma once

#include <memory>

namespace onnx {
class GraphProto;
class ModelProto;
}  // namespace onnx

namespace cctx::detail {

/// A new model with `from`'s IR version, opsets, producer, domain, version, doc string,
/// metadata, training info and unknown fields, and an empty graph with `from`'s graph name,
/// doc string and unknown fields. Not its functions: each caller decides.
std::unique_ptr<onnx::ModelProto> model_shell(const onnx::ModelProto& from);

/// Empties every list of `g` that borrows elements (nodes, initializers, sparse initializers,
/// inputs, outputs, value_info, quantization annotations) without deleting them.
void hand_back_graph(onnx::GraphProto& g);

}  // namespace cctx::detail
