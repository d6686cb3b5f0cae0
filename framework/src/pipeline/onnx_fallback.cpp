#include "pipeline/onnx_fallback.hpp"

#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>

#include <unordered_map>

#include "pipeline/onnx_library.hpp"
#include "pipeline/shape_types.hpp"

namespace cctx {

namespace {

constexpr std::size_t kMaxDataElements = 64;

class FallbackContext final : public onnx::InferenceContext {
 public:
  FallbackContext(const Analysis& s, const ShapeResult& shapes, const NodeEntry& node)
      : node_(node) {
    for (const onnx::AttributeProto& a : node.proto->attribute()) attributes_.emplace(a.name(), &a);
    input_types_.resize(node.inputs.size());
    input_data_.resize(node.inputs.size());
    symbolic_.resize(node.inputs.size());
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      ValueId v = node.inputs[i];
      if (v == kNoValue) continue;
      const ValueShape& shape = shapes.values[v];
      if (shape.kind == ValueKind::kUnknown && shape.dtype == 0) continue;
      input_types_[i] = std::make_unique<onnx::TypeProto>(to_type_proto(*s.pool, shape));
      if (!shape.has_value) continue;
      // Concrete values become input data; symbolic ones go through getSymbolicInput.
      auto data = std::make_unique<onnx::TensorProto>();
      auto sym = std::make_unique<onnx::TensorShapeProto>();
      bool concrete = true;
      data->set_data_type(shape.dtype == 0 ? onnx::TensorProto::INT64 : shape.dtype);
      if (shape.known_rank && !shape.dims.empty())
        data->add_dims(static_cast<std::int64_t>(shape.value.size()));
      for (Expr e : shape.value) {
        auto dim = sym->add_dim();
        if (auto k = s.pool->as_int(e)) {
          dim->set_dim_value(*k);
          if (data->data_type() == onnx::TensorProto::INT64) {
            data->add_int64_data(*k);
          } else {
            data->add_int32_data(static_cast<std::int32_t>(*k));
          }
        } else {
          concrete = false;
          dim->set_dim_param(s.pool->print(e));
        }
      }
      if (concrete && shape.value.size() <= kMaxDataElements &&
          (data->data_type() == onnx::TensorProto::INT64 ||
           data->data_type() == onnx::TensorProto::INT32)) {
        input_data_[i] = std::move(data);
      }
      symbolic_[i] = std::move(sym);
    }
    outputs_.resize(node.outputs.size());
  }

  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    auto it = attributes_.find(name);
    return it == attributes_.end() ? nullptr : it->second;
  }
  size_t getNumInputs() const override { return input_types_.size(); }
  const onnx::TypeProto* getInputType(size_t i) const override {
    return i < input_types_.size() ? input_types_[i].get() : nullptr;
  }
  const onnx::TensorProto* getInputData(size_t i) const override {
    return i < input_data_.size() ? input_data_[i].get() : nullptr;
  }
  size_t getNumOutputs() const override { return outputs_.size(); }
  onnx::TypeProto* getOutputType(size_t i) override {
    return i < outputs_.size() ? &outputs_[i] : nullptr;
  }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
    return nullptr;
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
  const onnx::TensorShapeProto* getSymbolicInput(size_t i) const override {
    return i < symbolic_.size() ? symbolic_[i].get() : nullptr;
  }

  const std::vector<onnx::TypeProto>& outputs() const { return outputs_; }

 private:
  const NodeEntry& node_;
  std::unordered_map<std::string, const onnx::AttributeProto*> attributes_;
  std::vector<std::unique_ptr<onnx::TypeProto>> input_types_;
  std::vector<std::unique_ptr<onnx::TensorProto>> input_data_;
  std::vector<std::unique_ptr<onnx::TensorShapeProto>> symbolic_;
  std::vector<onnx::TypeProto> outputs_;
};

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
  const onnx::OpSchema* schema = nullptr;
  switch (onnx_library.find_schema(domain, std::string(node.op_type),
                                   static_cast<int>(node.opset < 0 ? max_version : node.opset),
                                   &schema)) {
    case detail::SchemaInference::kNoSchema:
      *why = "the linked ONNX library has no schema for it";
      return false;
    case detail::SchemaInference::kNoFunction:
      *why = "its ONNX schema has no inference function";
      return false;
    default:
      break;
  }
  FallbackContext ctx(s, shapes, node);
  std::string error;
  if (onnx_library.infer_node(*schema, ctx, &error) != detail::SchemaInference::kDone) {
    *why = "ONNX inference failed: " + error;
    return false;
  }
  for (std::size_t k = 0; k < node.outputs.size(); ++k) {
    ValueId v = node.outputs[k];
    if (v == kNoValue) continue;
    const onnx::TypeProto& type = ctx.outputs()[k];
    if (type.value_case() == onnx::TypeProto::VALUE_NOT_SET) {
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
