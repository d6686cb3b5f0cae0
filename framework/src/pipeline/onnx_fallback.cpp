#include "pipeline/onnx_fallback.hpp"

#include <onnx/onnx_pb.h>

#include <vector>

#include "pipeline/onnx_library.hpp"
#include "pipeline/shape_types.hpp"

namespace cctx {

namespace {

constexpr std::size_t kMaxDataElements = 64;

/// The node as a request to ONNX's module: its attributes, the inputs' types, their values
/// (concrete ones as data, up to kMaxDataElements; symbolic ones as a shape of named dims, which
/// inference functions read through getSymbolicInput).
detail::NodeInferenceRequest node_request(const Analysis& s, const ShapeResult& shapes,
                                          const NodeEntry& node, int opset) {
  detail::NodeInferenceRequest request;
  request.domain = std::string(node.domain);
  request.op_type = std::string(node.op_type);
  request.opset = opset;
  request.node = node.proto->SerializeAsString();
  request.output_count = node.outputs.size();
  const std::size_t inputs = node.inputs.size();
  request.input_types.resize(inputs);
  request.input_data.resize(inputs);
  request.symbolic_inputs.resize(inputs);
  for (std::size_t i = 0; i < inputs; ++i) {
    ValueId v = node.inputs[i];
    if (v == kNoValue) continue;
    const ValueShape& shape = shapes.values[v];
    if (shape.kind == ValueKind::kUnknown && shape.dtype == 0) continue;
    request.input_types[i] = to_type_proto(*s.pool, shape).SerializeAsString();
    if (!shape.has_value) continue;
    onnx::TensorProto data;
    onnx::TensorShapeProto symbolic;
    bool concrete = true;
    data.set_data_type(shape.dtype == 0 ? onnx::TensorProto::INT64 : shape.dtype);
    if (shape.known_rank && !shape.dims.empty())
      data.add_dims(static_cast<std::int64_t>(shape.value.size()));
    for (Expr e : shape.value) {
      auto dim = symbolic.add_dim();
      if (auto k = s.pool->as_int(e)) {
        dim->set_dim_value(*k);
        if (data.data_type() == onnx::TensorProto::INT64) {
          data.add_int64_data(*k);
        } else {
          data.add_int32_data(static_cast<std::int32_t>(*k));
        }
      } else {
        concrete = false;
        dim->set_dim_param(s.pool->print(e));
      }
    }
    if (concrete && shape.value.size() <= kMaxDataElements &&
        (data.data_type() == onnx::TensorProto::INT64 ||
         data.data_type() == onnx::TensorProto::INT32)) {
      request.input_data[i] = data.SerializeAsString();
    }
    request.symbolic_inputs[i] = symbolic.SerializeAsString();
  }
  return request;
}

}  // namespace

bool onnx_schema_inference(Analysis& s, ShapeResult& shapes, NodeId n, std::string* why) {
  const NodeEntry& node = s.graph->node(n);
  const std::string domain(node.domain);
  const detail::OnnxLibrary& onnx_library = detail::onnx_library();
  const int max_version = onnx_library.max_known_version(domain);
  if (max_version < 0) {
    *why = "the linked ONNX library does not know the domain";
    return false;
  }
  if (node.opset > max_version) {
    // A newer opset may have changed the operator in ways the library cannot know.
    *why = "opset " + std::to_string(node.opset) + " is newer than the linked ONNX schemas (" +
           std::to_string(max_version) + ")";
    return false;
  }
  const int opset = static_cast<int>(node.opset < 0 ? max_version : node.opset);
  std::vector<std::string> output_types;
  std::string error;
  switch (onnx_library.infer_node(node_request(s, shapes, node, opset), &output_types, &error)) {
    case detail::SchemaInference::kNoSchema:
      *why = "the linked ONNX library has no schema for it";
      return false;
    case detail::SchemaInference::kNoFunction:
      *why = "its ONNX schema has no inference function";
      return false;
    case detail::SchemaInference::kFailed:
      *why = "ONNX inference failed: " + error;
      return false;
    case detail::SchemaInference::kDone:
      break;
  }
  for (std::size_t k = 0; k < node.outputs.size(); ++k) {
    ValueId v = node.outputs[k];
    if (v == kNoValue) continue;
    onnx::TypeProto type;
    if (k >= output_types.size() || !type.ParseFromString(output_types[k]) ||
        type.value_case() == onnx::TypeProto::VALUE_NOT_SET) {
      *why = "ONNX inference gave no type for output " + std::to_string(k);
      return false;
    }
    auto fresh = [&](std::size_t axis) {
      return fresh_output_dim(s, shapes, n, static_cast<std::uint32_t>(k),
                              static_cast<std::uint32_t>(axis), 1, kPosInf);
    };
    shapes.values[v] = from_type_proto(*s.pool, type, fresh, /*onnx_unknowns=*/true);
    shapes.values[v].inferred = true;
  }
  return true;
}

}  // namespace cctx
