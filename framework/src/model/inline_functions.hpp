// Model-local functions (ModelProto.functions, IR >= 8) expanded at their call sites.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cctx/model.hpp"

namespace onnx {
class GraphProto;
class ModelProto;
}  // namespace onnx

namespace cctx {

/// A model whose calls to its local functions are replaced by the function bodies, made by
/// inline_local_functions without a copy of what the calls leave unchanged: its graph's
/// initializers, inputs, outputs, value_info, annotations and every node that neither is a call
/// nor holds one in a body are the original model's own messages, borrowed (the original must
/// outlive this, as a GraphView's model does); only the bodies' nodes and the nodes whose bodies
/// hold calls are new. Read it as a Model; a copy of model().proto() is a whole model.
class InlinedModel {
 public:
  explicit InlinedModel(Model model);
  InlinedModel(const InlinedModel&) = delete;
  InlinedModel& operator=(const InlinedModel&) = delete;
  /// Hands the borrowed messages back before the graph would delete them.
  ~InlinedModel();

  const Model& model() const { return model_; }

  /// Makes `target` the inlined model, for writing it. When `target` is the model this borrows
  /// from, its messages stay where they are (the analysis views them): the calls' nodes are
  /// dropped from its graph, the new nodes move into it, the functions go, and this keeps
  /// viewing the same messages, now all `target`'s. Any other `target` gets a copy.
  void write_into(onnx::ModelProto& target);

 private:
  friend std::unique_ptr<InlinedModel> inline_local_functions(const Model& model,
                                                              std::int64_t max_nodes);
  /// Its node list owns the new nodes, which the model's graph lists by pointer like the
  /// borrowed ones.
  std::unique_ptr<onnx::GraphProto> owned_;
  Model model_;
  const onnx::ModelProto* from_ = nullptr;  ///< the model borrowed from
};

/// `model` with its calls to its local functions expanded, once per call site: formal inputs and
/// outputs take the call's value names, values local to the body get a per-call prefix,
/// attribute references (`ref_attr_name`) take the call's attributes, and the functions' opset
/// imports are added to the model's. Calls inside bodies and inside other functions are
/// expanded too. Returns nullptr, having copied nothing, when no node calls a local function.
/// Throws ModelError naming the node for a call with more inputs or outputs than the function
/// declares, and for a function that calls itself, and for a model with more than `max_nodes`
/// nodes once expanded (counted before anything is copied: limits.nodes).
std::unique_ptr<InlinedModel> inline_local_functions(const Model& model, std::int64_t max_nodes);

}  // namespace cctx
