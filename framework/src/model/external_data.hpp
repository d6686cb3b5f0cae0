// Where a model keeps tensor data outside itself (TensorProto.data_location = EXTERNAL).
#pragma once

#include <optional>
#include <string>

namespace onnx {
class ModelProto;
}

namespace cctx::detail {

/// The `location` of the first tensor found with external data, anywhere in the model
/// (initializers, sparse initializers, Constant and other tensor attributes, subgraphs,
/// model-local functions); nullopt when every tensor holds its own data. Walks with an explicit
/// stack, so a deep model cannot overflow the call stack.
std::optional<std::string> first_external_location(const onnx::ModelProto& model);

}  // namespace cctx::detail
