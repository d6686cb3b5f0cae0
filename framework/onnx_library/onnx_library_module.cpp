// libcctx_onnx_library.so: the parts of ONNX's library (libonnx) cctx calls, behind the table of
// pipeline/onnx_library.hpp. Opened by the host on first use, so that cctx does not load libonnx
// at every start.
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>

#include "pipeline/onnx_library.hpp"

namespace cctx::detail {

namespace {

int max_known_version(const std::string& domain) {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find(domain.empty() ? std::string(onnx::ONNX_DOMAIN) : domain);
  return it == ranges.end() ? -1 : it->second.second;
}

SchemaInference find_schema(const std::string& domain, const std::string& op_type, int opset,
                            const onnx::OpSchema** schema) {
  const onnx::OpSchema* found = onnx::OpSchemaRegistry::Schema(op_type, opset, domain);
  if (found == nullptr) return SchemaInference::kNoSchema;
  if (!found->has_type_and_shape_inference_function()) return SchemaInference::kNoFunction;
  *schema = found;
  return SchemaInference::kDone;
}

SchemaInference infer_node(const onnx::OpSchema& schema, onnx::InferenceContext& ctx,
                           std::string* error) {
  try {
    schema.GetTypeAndShapeInferenceFunction()(ctx);
  } catch (const std::exception& e) {
    *error = e.what();
    return SchemaInference::kFailed;
  }
  return SchemaInference::kDone;
}

bool infer_model(onnx::ModelProto& model, std::string* error) {
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

constexpr OnnxLibrary kLibrary{sizeof(OnnxLibrary), &max_known_version, &find_schema, &infer_node,
                               &infer_model};

}  // namespace

}  // namespace cctx::detail

extern "C" __attribute__((visibility("default"))) const cctx::detail::OnnxLibrary*
CCTX_ONNX_LIBRARY_ENTRY() {
  return &cctx::detail::kLibrary;
}
