// libcctx_onnx_library.so: the parts of ONNX's library (libonnx) cctx calls, behind the table of
// pipeline/onnx_library.hpp. Opened by the host on first use, so that cctx does not load libonnx
// at every start. Its protobuf messages are its own (libonnx_proto): the host's are another copy,
// so requests and answers cross as serialized bytes.
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>
#include <memory>
#include <unordered_map>

#include "pipeline/onnx_library.hpp"

namespace cctx::detail {

namespace {

int max_known_version(const std::string& domain) {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find(domain.empty() ? std::string(onnx::ONNX_DOMAIN) : domain);
  return it == ranges.end() ? -1 : it->second.second;
}

/// The parsed form of each present entry of `serialized`; null where absent. False when one does
/// not parse.
template <typename Message>
bool parse_all(const std::vector<std::optional<std::string>>& serialized,
               std::vector<std::unique_ptr<Message>>& parsed) {
  parsed.resize(serialized.size());
  for (std::size_t i = 0; i < serialized.size(); ++i) {
    if (!serialized[i]) continue;
    parsed[i] = std::make_unique<Message>();
    if (!parsed[i]->ParseFromString(*serialized[i])) return false;
  }
  return true;
}

/// The request as ONNX's InferenceContext: the node's attributes, the inputs' types, constant
/// data and symbolic values; the outputs' types are written into outputs().
class RequestContext final : public onnx::InferenceContext {
 public:
  /// False when a message of the request does not parse.
  bool parse(const NodeInferenceRequest& request) {
    if (!node_.ParseFromString(request.node)) return false;
    for (const onnx::AttributeProto& a : node_.attribute()) attributes_.emplace(a.name(), &a);
    outputs_.resize(request.output_count);
    return parse_all(request.input_types, input_types_) &&
           parse_all(request.input_data, input_data_) &&
           parse_all(request.symbolic_inputs, symbolic_);
  }

  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    auto it = attributes_.find(name);
    return it == attributes_.end() ? nullptr : it->second;
  }
  size_t getNumInputs() const override { return input_types_.size(); }
  const onnx::TypeProto* getInputType(size_t i) const override { return at(input_types_, i); }
  const onnx::TensorProto* getInputData(size_t i) const override { return at(input_data_, i); }
  size_t getNumOutputs() const override { return outputs_.size(); }
  onnx::TypeProto* getOutputType(size_t i) override {
    return i < outputs_.size() ? &outputs_[i] : nullptr;
  }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
    return nullptr;
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
  const onnx::TensorShapeProto* getSymbolicInput(size_t i) const override {
    return at(symbolic_, i);
  }

  const std::vector<onnx::TypeProto>& outputs() const { return outputs_; }

 private:
  template <typename Message>
  static const Message* at(const std::vector<std::unique_ptr<Message>>& list, std::size_t i) {
    return i < list.size() ? list[i].get() : nullptr;
  }
  onnx::NodeProto node_;
  std::unordered_map<std::string, const onnx::AttributeProto*> attributes_;
  std::vector<std::unique_ptr<onnx::TypeProto>> input_types_;
  std::vector<std::unique_ptr<onnx::TensorProto>> input_data_;
  std::vector<std::unique_ptr<onnx::TensorShapeProto>> symbolic_;
  std::vector<onnx::TypeProto> outputs_;
};

SchemaInference infer_node(const NodeInferenceRequest& request,
                           std::vector<std::string>* output_types, std::string* error) {
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(request.op_type, request.opset, request.domain);
  if (schema == nullptr) return SchemaInference::kNoSchema;
  if (!schema->has_type_and_shape_inference_function()) return SchemaInference::kNoFunction;
  try {
    RequestContext ctx;
    if (!ctx.parse(request)) {
      *error = "the request does not parse";
      return SchemaInference::kFailed;
    }
    schema->GetTypeAndShapeInferenceFunction()(ctx);
    output_types->clear();
    for (const onnx::TypeProto& type : ctx.outputs()) {
      output_types->push_back(type.SerializeAsString());
    }
  } catch (const std::exception& e) {
    *error = e.what();
    return SchemaInference::kFailed;
  }
  return SchemaInference::kDone;
}

bool infer_model(const std::string& serialized, std::string* inferred, std::string* error) {
  try {
    onnx::ModelProto model;
    if (!model.ParseFromString(serialized)) {
      *error = "the model does not parse";
      return false;
    }
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, false));
    if (!model.SerializeToString(inferred)) {
      *error = "the inferred model does not serialize";
      return false;
    }
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

bool has_schema(const std::string& domain, const std::string& op_type, int opset) {
  return onnx::OpSchemaRegistry::Schema(op_type, opset, domain) != nullptr;
}

constexpr OnnxLibrary kLibrary{sizeof(OnnxLibrary), &max_known_version, &infer_node, &infer_model,
                               &has_schema};

}  // namespace

}  // namespace cctx::detail

extern "C" __attribute__((visibility("default"))) const cctx::detail::OnnxLibrary*
CCTX_ONNX_LIBRARY_ENTRY() {
  return &cctx::detail::kLibrary;
}
