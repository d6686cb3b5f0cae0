// Model-local functions (ModelProto.functions, IR >= 8) expanded at their call sites.
#pragma once

#include <memory>
#include <string>

namespace onnx {
class ModelProto;
}

namespace cctx {

/// A copy of `model` whose calls to its local functions are replaced by the function bodies, once
/// per call site: formal inputs and outputs take the call's value names, values local to the body
/// get a per-call prefix, attribute references (`ref_attr_name`) take the call's attributes, and
/// the functions' opset imports are added to the model's. Calls inside bodies and inside other
/// functions are expanded too. Returns nullptr when no node calls a local function. Throws
/// ModelError naming the node for a call with more inputs or outputs than the function declares,
/// and for a function that calls itself.
std::unique_ptr<onnx::ModelProto> inline_local_functions(const onnx::ModelProto& model,
                                                         const std::string& source);

}  // namespace cctx
