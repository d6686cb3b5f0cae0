#include "model/model_shell.hpp"

#include <onnx/onnx_pb.h>

#include "model/borrowed_fields.hpp"

namespace cctx::detail {

std::unique_ptr<onnx::ModelProto> model_shell(const onnx::ModelProto& from) {
  auto proto = std::make_unique<onnx::ModelProto>();
  proto->set_ir_version(from.ir_version());
  *proto->mutable_opset_import() = from.opset_import();
  proto->set_producer_name(from.producer_name());
  proto->set_producer_version(from.producer_version());
  proto->set_domain(from.domain());
  proto->set_model_version(from.model_version());
  proto->set_doc_string(from.doc_string());
  *proto->mutable_metadata_props() = from.metadata_props();
  *proto->mutable_training_info() = from.training_info();
  proto->mutable_unknown_fields()->MergeFrom(from.unknown_fields());
  const onnx::GraphProto& graph = from.graph();
  onnx::GraphProto* g = proto->mutable_graph();
  g->set_name(graph.name());
  g->set_doc_string(graph.doc_string());
  g->mutable_unknown_fields()->MergeFrom(graph.unknown_fields());
  return proto;
}

void hand_back_graph(onnx::GraphProto& g) {
  hand_back(g.mutable_node());
  hand_back(g.mutable_initializer());
  hand_back(g.mutable_sparse_initializer());
  hand_back(g.mutable_input());
  hand_back(g.mutable_output());
  hand_back(g.mutable_value_info());
  hand_back(g.mutable_quantization_annotation());
}

}  // namespace cctx::detail
